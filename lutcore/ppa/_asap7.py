"""ASAP7, the second cell library: the logical cells of ``_cells.NAMES`` from the ASAP7 7nm
predictive FinFET PDK's standard cells (asap7sc7p5t, RVT, TT corner, 0.7 V, 25 C).

Source: The-OpenROAD-Project/OpenROAD-flow-scripts@8c009b0b663703fc3fe2f474eab918b12fffbaf6:
flow/platforms/asap7/lib/NLDM/ (asap7sc7p5t_{SIMPLE,AO,OA}_RVT_TT_nldm_211120.lib.gz,
asap7sc7p5t_INVBUF_RVT_TT_nldm_220122.lib.gz, asap7sc7p5t_SEQ_RVT_TT_nldm_220123.lib);
``tools/asap7_cells.py`` extracts every number below, at input slew 20 ps and load 2.88 fF (about
two x1 gate inputs plus wire, as NanGate45's 3.71 fF point is), by the same rules as NanGate45:
area; state-independent leakage; the slowest arc's mean of cell_rise and cell_fall; the mean
internal energy per transition; energy per output toggle adds 0.5 C V^2 of that load.

Drive strength: the smallest cell of each function that ORFS's ASAP7 platform lets its tools use
(its config.mk excludes the *xp* cells), except the half adder HAxp5, which ORFS's own Yosys adder
map instantiates. Cells ASAP7 does not have as the logical cell:
- MUX2: no multiplexer cell; AO22x1 (Y = A1 A2 + B1 B2) with the select's complement. The select
  inverter is shared by every bit of a word (mux trees, shifters, load enables all select words),
  so its area is left out (< 4 % of a mux for words of 8 bits and more); its delay is on the
  select path: delay = INVx1 + AO22x1.
- FA, HA: FAx1 and HAxp5 give inverted outputs (CON, SN); ORFS's adder map
  (flow/platforms/asap7/yoSys/cells_adders_R.v) restores them with an inverter each, so the
  logical cell is the adder plus two INVx1 (area, leakage), each arc plus one INVx1 delay, the
  energy of the adder plus one inverter per output toggle.
- DFF: DFFHQNx1 has only QN; Yosys' dfflibmap adds an inverter: DFFHQNx1 + INVx1 (clock-to-Q
  includes it).
"""

from __future__ import annotations

from ._cells import Cell, CellLibrary, yardstick_scale

VDD = 0.7  # V, the library's nominal voltage (voltage_map VDD 0.7)
LOAD_FF = 2.88  # fF, the table point

# tools/asap7_cells.py: area um^2, leakage nW, slowest arc ps, internal energy fJ per transition
INVX1 = (0.04374, 0.0512, 19.78, 0.0485)
_RAW = {
    "BUF": (0.07290, 0.1364, 26.17, 0.2483),  # BUFx2
    "NAND2": (0.08748, 0.0912, 21.09, 0.0537),  # NAND2x1
    "NOR2": (0.08748, 0.0821, 21.85, 0.0582),  # NOR2x1
    "AND2": (0.08748, 0.1498, 27.65, 0.1327),  # AND2x2
    "OR2": (0.08748, 0.1502, 28.97, 0.1357),  # OR2x2
    "XOR2": (0.17496, 0.2321, 31.50, 0.2405),  # XOR2x1
    "XNOR2": (0.17496, 0.2323, 29.16, 0.2385),  # XNOR2x1
    "AO22": (0.13122, 0.1097, 36.76, 0.0771),  # AO22x1, the MUX2
    "AOI21": (0.11664, 0.1270, 20.74, 0.0544),  # AOI21x1
    "OAI21": (0.11664, 0.1401, 20.61, 0.0558),  # OAI21x1
    "AOI22": (0.14580, 0.1763, 22.61, 0.0759),  # AOI22x1
    "HA": (0.13122, 0.1370, 62.37, 0.1003),  # HAxp5: A/B -> SN 62.37, B -> CON 29.93
    "FA": (0.20412, 0.2122, 80.13, 0.1406),  # FAx1: A -> SN 80.13, CI -> CON 36.04
    "DFF": (0.29160, 0.2297, 64.32, 0.2565),  # DFFHQNx1: CLK -> QN 64.32, setup D 9.99
}
HA_CARRY, FA_CARRY, DFF_CLK_TO_QN, DFF_SETUP = 29.93, 36.04, 64.32, 9.99
FO4 = 19.60  # ps, INVx1 driving 4 x its 0.62 fF input (tools/asap7_cells.py)


def _cell(name: str, raw: tuple, inverters: int = 0, select_inverter: bool = False) -> Cell:
    """A logical cell from an ASAP7 cell plus ``inverters`` INVx1 on its outputs (area and
    leakage each, one inverter's delay and energy on the path), or a select inverter's delay."""
    area, leak, delay, energy = raw
    inv_area, inv_leak, inv_delay, inv_energy = INVX1
    extra = inverters > 0 or select_inverter
    return Cell(name, area + inverters * inv_area, leak + inverters * inv_leak,
                delay + (inv_delay if extra else 0.0),
                energy + (inv_energy if inverters else 0.0), load_ff=LOAD_FF, vdd=VDD)


CELLS = (
    Cell("INV", *INVX1, load_ff=LOAD_FF, vdd=VDD),
    *(_cell(n, _RAW[n]) for n in ("BUF", "NAND2", "NOR2", "AND2", "OR2", "XOR2", "XNOR2")),
    _cell("MUX2", _RAW["AO22"], select_inverter=True),
    *(_cell(n, _RAW[n]) for n in ("AOI21", "OAI21", "AOI22")),
    _cell("HA", _RAW["HA"], inverters=2),
    _cell("FA", _RAW["FA"], inverters=2),
    _cell("DFF", _RAW["DFF"], inverters=1),
)

ASAP7 = CellLibrary(
    name="asap7",
    description="ASAP7 7nm predictive PDK standard cells (asap7sc7p5t), RVT, TT (0.7 V, 25 C)",
    source="The-OpenROAD-Project/OpenROAD-flow-scripts@8c009b0b663703fc3fe2f474eab918b12fffbaf6:"
           "flow/platforms/asap7/lib/NLDM/asap7sc7p5t_*_RVT_TT_nldm_*.lib",
    node_nm=7.0, vdd=VDD, cells=CELLS,
    fa_carry_delay=FA_CARRY + INVX1[2], fa_sum_delay=_RAW["FA"][2] + INVX1[2],
    ha_carry_delay=HA_CARRY + INVX1[2], dff_clk_to_q=DFF_CLK_TO_QN + INVX1[2],
    dff_setup=DFF_SETUP, fo4=FO4, to_28nm=yardstick_scale(CELLS, FO4))

"""Cell libraries: area, leakage, delay and switching energy of each logical cell, with sources.

A ``CellLibrary`` holds the same logical cells (``NAMES``) for one open library, so a ``Cost``
(cell counts) prices in any of them. NanGate45 (this module) is the default; ASAP7 lives in
``_asap7``; ``_libraries.LIBRARIES`` lists both.

NanGate45: every number is read from the NanGate 45nm Open Cell Library (PDKv1_3_v2010_12),
typical corner (1.10 V, 25 C), drive strength X1, liberty file
``NangateOpenCellLibrary_typical.lib`` as shipped in OpenSTA's ``examples/nangate45_typ.lib.gz``;
``tools/nangate_cells.py`` extracts them:
- area: the cell's ``area`` (um^2);
- leakage: ``cell_leakage_power`` (nW, average over input states);
- delay: the slowest arc's mean of ``cell_rise`` and ``cell_fall`` (ps) at input slew 17.2 ps and
  load 3.71 fF (about two gate inputs); FA/HA also give their carry arc, DFF its clock-to-Q and
  setup time;
- energy: internal energy per output transition at the same point (fJ, mean over arcs) plus the
  0.5 C V^2 of that load, so one output toggle costs ``energy``.

Gate equivalents: GE = area / NAND2 area (0.798 um^2 for NAND2_X1).

Mapping onto the paper's "28nm" (TSMC 28nm, 0.9 V): NanGate45 by constant-field scaling (Dennard
et al., IEEE JSSC 1974): area ~ L^2, delay ~ L, switching energy ~ C V^2 with C ~ L, leakage ~ L V.
That NanGate45-at-28nm is the yardstick every other library maps onto through its own reference
cells (``CellLibrary.to_28nm``). Only absolute numbers use it; every comparison the paper makes is
a ratio.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

NAMES = ("INV", "BUF", "NAND2", "NOR2", "AND2", "OR2", "XOR2", "XNOR2", "MUX2", "AOI21",
         "OAI21", "AOI22", "HA", "FA", "DFF")  # the logical cells every library provides
INDEX = {name: i for i, name in enumerate(NAMES)}


class Cell(NamedTuple):
    """One logical cell: area (um^2), leakage (nW), delay (ps), internal energy (fJ/toggle), and
    the load (fF) and supply (V) of the table point its energy is charged at."""

    name: str
    area: float
    leakage: float
    delay: float
    internal_energy: float
    load_ff: float = 3.70979  # NanGate45's table point (index_2[2])
    vdd: float = 1.10  # NanGate45's nominal voltage

    @property
    def energy(self) -> float:
        """fJ per output toggle: internal energy plus switching the reference load."""
        return self.internal_energy + 0.5 * self.load_ff * self.vdd ** 2


class Scale(NamedTuple):
    """Factors from a library's own units (um^2, ps, fJ, nW) to another node's."""

    area: float
    delay: float
    energy: float
    leakage: float


class CellLibrary(NamedTuple):
    """One cell library's table of ``NAMES`` (in that order), its critical-path arcs and how it
    maps onto "28nm". fo4: FO4 inverter delay (ps, ``tools/asap7_cells.py --fo4``), the delay
    yardstick; the GE cell (NAND2) is the area, energy and leakage yardstick."""

    name: str
    description: str
    source: str  # repository@commit:path of the liberty file(s)
    node_nm: float
    vdd: float
    cells: tuple
    fa_carry_delay: float  # ps, FA carry-in -> carry-out
    fa_sum_delay: float  # ps, FA slowest input -> sum
    ha_carry_delay: float  # ps, HA slowest input -> carry
    dff_clk_to_q: float  # ps
    dff_setup: float  # ps
    fo4: float  # ps
    to_28nm: Scale

    @property
    def area(self) -> np.ndarray:
        return np.array([c.area for c in self.cells])  # um^2

    @property
    def leakage(self) -> np.ndarray:
        return np.array([c.leakage for c in self.cells])  # nW

    @property
    def energy(self) -> np.ndarray:
        return np.array([c.energy for c in self.cells])  # fJ per output toggle

    @property
    def delay(self) -> dict:
        return {c.name: c.delay for c in self.cells}  # ps

    @property
    def ge_area(self) -> float:
        return self.cells[INDEX["NAND2"]].area  # um^2 per gate equivalent

    def cell(self, name: str) -> Cell:
        return self.cells[INDEX[name]]


# name, area, leakage, delay, internal energy: tools/nangate_cells.py on the liberty file above
CELLS = (
    Cell("INV", 0.532, 14.35, 17.8, 0.948),
    Cell("BUF", 0.798, 21.44, 32.7, 2.353),
    Cell("NAND2", 0.798, 17.39, 23.1, 1.342),
    Cell("NOR2", 0.798, 21.20, 21.8, 1.353),
    Cell("AND2", 1.064, 25.07, 39.4, 2.584),
    Cell("OR2", 1.064, 22.69, 45.6, 2.494),
    Cell("XOR2", 1.596, 36.16, 52.3, 2.947),
    Cell("XNOR2", 1.596, 36.44, 41.4, 2.888),
    Cell("MUX2", 1.862, 35.93, 62.3, 3.264),
    Cell("AOI21", 1.064, 27.86, 28.1, 2.047),
    Cell("OAI21", 1.064, 22.62, 26.6, 1.953),
    Cell("AOI22", 1.330, 32.61, 34.4, 2.196),
    Cell("HA", 2.660, 61.23, 52.7, 2.878),
    Cell("FA", 4.256, 75.76, 110.1, 3.556),
    Cell("DFF", 4.522, 79.11, 93.3, 3.015),
)
assert tuple(c.name for c in CELLS) == NAMES

LIBRARY = "NanGate 45nm Open Cell Library, typical corner (1.10 V, 25 C), X1 cells"
VDD = 1.10  # V, the library's nominal voltage
LOAD_FF = 3.70979  # fF, the table point (index_2[2]) of the numbers above
AREA = np.array([c.area for c in CELLS])  # um^2
LEAKAGE = np.array([c.leakage for c in CELLS])  # nW
ENERGY = np.array([c.energy for c in CELLS])  # fJ per output toggle
GE_AREA = CELLS[INDEX["NAND2"]].area  # um^2 per gate equivalent

# Arcs that matter on the critical paths (ps), same liberty file and table point
FA_CARRY_DELAY = 62.3  # FA_X1 CI -> CO
FA_SUM_DELAY = 110.1  # FA_X1 slowest input -> S
HA_CARRY_DELAY = 39.0  # HA_X1 B -> CO
DFF_CLK_TO_Q = 93.3  # DFF_X1 CK -> Q
DFF_SETUP = 77.1  # DFF_X1 setup of D to CK (rise/fall worst)
DELAY = {c.name: c.delay for c in CELLS}
FO4 = 22.11  # ps, INV_X1 driving 4 x its 1.70 fF input (tools/asap7_cells.py --fo4 INV_X1)

# Constant-field scaling to the paper's TSMC 28nm at 0.9 V (Table 3 quotes "@0.9V")
NODE_FROM_NM, NODE_TO_NM, VDD_TO = 45.0, 28.0, 0.9
AREA_SCALE = (NODE_TO_NM / NODE_FROM_NM) ** 2
DELAY_SCALE = NODE_TO_NM / NODE_FROM_NM
ENERGY_SCALE = DELAY_SCALE * (VDD_TO / VDD) ** 2
LEAKAGE_SCALE = DELAY_SCALE * VDD_TO / VDD  # leakage current ~ device width ~ L, times V

NANGATE45 = CellLibrary(
    name="nangate45", description=LIBRARY,
    source="The-OpenROAD-Project/OpenSTA@d1b2b3962cd47539c748bb163da5de2bd5d2f85f:"
           "examples/nangate45_typ.lib.gz",
    node_nm=NODE_FROM_NM, vdd=VDD, cells=CELLS, fa_carry_delay=FA_CARRY_DELAY,
    fa_sum_delay=FA_SUM_DELAY, ha_carry_delay=HA_CARRY_DELAY, dff_clk_to_q=DFF_CLK_TO_Q,
    dff_setup=DFF_SETUP, fo4=FO4,
    to_28nm=Scale(area=AREA_SCALE, delay=DELAY_SCALE, energy=ENERGY_SCALE,
                  leakage=LEAKAGE_SCALE))


def yardstick_scale(cells: tuple, fo4: float) -> Scale:
    """Factors that map a library onto "28nm" through NanGate45-at-28nm: its GE (NAND2) area,
    NAND2 toggle energy and NAND2 leakage, and its FO4 delay, each set equal to NanGate45's
    scaled one. A library then keeps its own relative cell costs (an FA in GE, an adder path in
    FO4) at the same 28nm levels, which is what a second library is for: every claim the paper
    makes is a ratio."""
    nand, ref = cells[INDEX["NAND2"]], CELLS[INDEX["NAND2"]]
    return Scale(area=ref.area * AREA_SCALE / nand.area,
                 delay=FO4 * DELAY_SCALE / fo4,
                 energy=ref.energy * ENERGY_SCALE / nand.energy,
                 leakage=ref.leakage * LEAKAGE_SCALE / nand.leakage)

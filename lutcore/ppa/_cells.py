"""The cell library: area, leakage, delay and switching energy of each primitive, with its source.

Every number is read from the NanGate 45nm Open Cell Library (PDKv1_3_v2010_12), typical corner
(1.10 V, 25 C), drive strength X1, liberty file ``NangateOpenCellLibrary_typical.lib`` as shipped
in OpenSTA's ``examples/nangate45_typ.lib.gz``; ``tools/nangate_cells.py`` extracts them:
- area: the cell's ``area`` (um^2);
- leakage: ``cell_leakage_power`` (nW, average over input states);
- delay: the slowest arc's mean of ``cell_rise`` and ``cell_fall`` (ps) at input slew 17.2 ps and
  load 3.71 fF (about two gate inputs); FA/HA also give their carry arc, DFF its clock-to-Q and
  setup time;
- energy: internal energy per output transition at the same point (fJ, mean over arcs) plus the
  0.5 C V^2 of that load, so one output toggle costs ``energy``.

Gate equivalents: GE = area / NAND2_X1 area (0.798 um^2).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

LIBRARY = "NanGate 45nm Open Cell Library, typical corner (1.10 V, 25 C), X1 cells"
VDD = 1.10  # V, the library's nominal voltage
LOAD_FF = 3.70979  # fF, the table point (index_2[2]) of the numbers below


class Cell(NamedTuple):
    """One standard cell: area (um^2), leakage (nW), delay (ps), internal energy (fJ/toggle)."""

    name: str
    area: float
    leakage: float
    delay: float
    internal_energy: float

    @property
    def energy(self) -> float:
        """fJ per output toggle: internal energy plus switching the reference load."""
        return self.internal_energy + 0.5 * LOAD_FF * VDD ** 2


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
NAMES = tuple(c.name for c in CELLS)
INDEX = {name: i for i, name in enumerate(NAMES)}

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

# Technology scaling to the paper's TSMC 28nm at 0.9 V (Table 3 quotes "@0.9V"): constant-field
# scaling (Dennard et al., IEEE JSSC 1974): area ~ L^2, delay ~ L, switching energy ~ C V^2 with
# C ~ L. Only absolute numbers use it; every comparison the paper makes is a ratio.
NODE_FROM_NM, NODE_TO_NM, VDD_TO = 45.0, 28.0, 0.9
AREA_SCALE = (NODE_TO_NM / NODE_FROM_NM) ** 2
DELAY_SCALE = NODE_TO_NM / NODE_FROM_NM
ENERGY_SCALE = DELAY_SCALE * (VDD_TO / VDD) ** 2
LEAKAGE_SCALE = DELAY_SCALE * VDD_TO / VDD  # leakage current ~ device width ~ L, times V

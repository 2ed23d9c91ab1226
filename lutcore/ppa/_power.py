"""Switching activity: how often each cell's output toggles per clock cycle, under two models.

- ``random`` (lutcore's model since the start): every combinational output toggles with
  probability ``ACTIVITY`` = 1/2 per cycle (random data, glitches ignored).
- ``dc_default``: what Synopsys Design Compiler's ``report_power`` applies without an activity
  file. Its vector-free flow sets every primary input (and black-box output) to the default
  toggle rate ``power_default_toggle_rate`` = 0.1 toggles per period of the fastest clock
  (``power_default_toggle_rate_type fastest_clock``) and static probability
  ``power_default_static_probability`` = 0.5, then propagates activity through the netlist
  (Synopsys SolvNet, "Calculating the Toggle Rate in the Averaged-Power Analysis Mode Using the
  PrimeTime PX and Power Compiler Tools"; OpenSTA's vector-free mode, power/Power.cc, does the
  same with density 0.1 / shortest clock period and duty 0.5). Propagation through a cell is
  the transition density of Najm (IEEE TCAD 1993): D(y) = sum_i P(dy/dx_i) D(x_i), the
  Boolean difference's probability under independent inputs. We have cell counts, not a
  netlist, so each cell is charged the density its own function gives when its inputs carry
  the default activity (``DC_DEFAULT_TOGGLES``, computed from the truth tables below): one level
  of propagation. Deeper in a netlist, XOR-rich logic (adders) raises the density and AND/OR
  trees lower it; this model does neither, so it is DC's default applied cell by cell, not
  DC's number for a given netlist.
Both models: a multi-output cell (FA, HA) is charged the mean density of its outputs (its
``energy`` is per output transition, averaged over arcs); every flip-flop is clocked every
cycle and charged its ``energy`` once per cycle.
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import _checks as check
from ._blocks import per_cell
from ._cells import INDEX, NAMES, CellLibrary

ACTIVITY = 0.5  # toggle probability of a combinational output per cycle (random data)
ACTIVITY_MODELS = ("random", "dc_default")
DC_TOGGLE_RATE = 0.1  # power_default_toggle_rate: toggles per cycle of the fastest clock
DC_STATIC_PROBABILITY = 0.5  # power_default_static_probability

# Each logical cell's outputs as functions of its inputs (liberty ``function`` attributes; MUX2
# inputs (A, B, S), AOI21 (A1, A2, B), AOI22 (A1, A2, B1, B2), HA (A, B), FA (A, B, CI)).
FUNCTIONS = {
    "INV": (1, (lambda a: 1 - a,)),
    "BUF": (1, (lambda a: a,)),
    "NAND2": (2, (lambda a, b: 1 - (a & b),)),
    "NOR2": (2, (lambda a, b: 1 - (a | b),)),
    "AND2": (2, (lambda a, b: a & b,)),
    "OR2": (2, (lambda a, b: a | b,)),
    "XOR2": (2, (lambda a, b: a ^ b,)),
    "XNOR2": (2, (lambda a, b: 1 - (a ^ b),)),
    "MUX2": (3, (lambda a, b, s: b if s else a,)),
    "AOI21": (3, (lambda a1, a2, b: 1 - ((a1 & a2) | b),)),
    "OAI21": (3, (lambda a1, a2, b: 1 - ((a1 | a2) & b),)),
    "AOI22": (4, (lambda a1, a2, b1, b2: 1 - ((a1 & a2) | (b1 & b2)),)),
    "HA": (2, (lambda a, b: a ^ b, lambda a, b: a & b)),
    "FA": (3, (lambda a, b, c: a ^ b ^ c, lambda a, b, c: (a & b) | (a & c) | (b & c))),
}


def transition_density(function, inputs: int, density: float, probability: float) -> float:
    """Najm's transition density of ``function``'s output when each of its ``inputs`` toggles
    ``density`` times per cycle and is 1 with ``probability``, independently."""
    total = 0.0
    for i in range(inputs):
        sensitive = 0.0  # P(f(x_i = 0) != f(x_i = 1)) over the other inputs
        for others in itertools.product((0, 1), repeat=inputs - 1):
            weight = np.prod([probability if v else 1 - probability for v in others])
            low = function(*others[:i], 0, *others[i:])
            high = function(*others[:i], 1, *others[i:])
            sensitive += weight * (low != high)
        total += sensitive * density
    return total


def _dc_default_toggles() -> np.ndarray:
    toggles = np.zeros(len(NAMES))
    for name, (inputs, outputs) in FUNCTIONS.items():
        toggles[INDEX[name]] = np.mean([transition_density(f, inputs, DC_TOGGLE_RATE,
                                                           DC_STATIC_PROBABILITY)
                                        for f in outputs])
    return toggles  # DFF: 0, charged per clock cycle instead


DC_DEFAULT_TOGGLES = _dc_default_toggles()


def check_activity(activity: str) -> None:
    check.one_of("activity", activity, ACTIVITY_MODELS)


def dynamic_energy(cells, library: CellLibrary, activity: str = "random"):
    """fJ per cycle of a design with ``cells`` ([..., len(NAMES)] counts) in ``library`` under
    the ``activity`` model: toggling combinational outputs plus every flip-flop clocked."""
    check_activity(activity)
    dff = INDEX["DFF"]
    toggles = ACTIVITY if activity == "random" else DC_DEFAULT_TOGGLES
    per_toggle = np.where(np.arange(len(NAMES)) == dff, 0.0,  # flip-flops: per clock instead
                          toggles * np.asarray(library.energy))
    clocked = cells[..., dff] * library.cell("DFF").energy
    return per_cell(cells, per_toggle) + clocked

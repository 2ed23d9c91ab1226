"""The cell library for Yosys and ABC: a liberty file and a genlib file from one cell table.

Both are written from a sequence of ``lutcore.ppa._cells.Cell`` (default: the NanGate 45nm table
of ``_cells``), so another table with the same cell names (``NAND2``, ``FA``, ``DFF``...) gives
another library without touching this module.

Delay model (both files): every timing arc is a constant, the cell table's delay at its reference
point (``_cells``: input slew 17.2 ps, load 3.71 fF), independent of slew and load. That is the
structural model's delay model (``_blocks`` adds cell delays along a path), so a critical path
of a mapped netlist under these arcs is comparable with the model's path. Multi-output cells
(FA, HA) have one arc per output: ``Timing.outputs`` overrides the cell's slowest-arc delay
for a named output (the NanGate carry arcs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .. import _cells

LIBRARY_NAME = "lutcore_nangate45"

# Cell name -> (input pins, {output pin: boolean function}), pin names as in NanGate's X1 cells.
COMBINATIONAL_PINS = {
    "INV": (("A",), {"ZN": "!A"}),
    "BUF": (("A",), {"Z": "A"}),
    "NAND2": (("A1", "A2"), {"ZN": "!(A1 & A2)"}),
    "NOR2": (("A1", "A2"), {"ZN": "!(A1 | A2)"}),
    "AND2": (("A1", "A2"), {"ZN": "(A1 & A2)"}),
    "OR2": (("A1", "A2"), {"ZN": "(A1 | A2)"}),
    "XOR2": (("A", "B"), {"Z": "(A ^ B)"}),
    "XNOR2": (("A", "B"), {"ZN": "!(A ^ B)"}),
    "MUX2": (("A", "B", "S"), {"Z": "((S & B) | (A & !S))"}),
    "AOI21": (("A", "B1", "B2"), {"ZN": "!(A | (B1 & B2))"}),
    "OAI21": (("A", "B1", "B2"), {"ZN": "!(A & (B1 | B2))"}),
    "AOI22": (("A1", "A2", "B1", "B2"), {"ZN": "!((A1 & A2) | (B1 & B2))"}),
    "HA": (("A", "B"), {"S": "(A ^ B)", "CO": "(A & B)"}),
    "FA": (("A", "B", "CI"), {"S": "((A ^ B) ^ CI)", "CO": "((A & B) | (CI & (A | B)))"}),
}
FLIP_FLOP = "DFF"  # D flip-flop: pins D, CK (rising edge), Q, QN
FLIP_FLOP_OUTPUTS = ("Q", "QN")
# Each input pin's capacitance: the table point's load is "about two gate inputs" (_cells), so
# half of it. With constant arcs it only documents the load; no delay depends on it.
INPUT_CAPACITANCE_FF = _cells.LOAD_FF / 2


class Timing(NamedTuple):
    """Arc delays (ps) beyond each cell's ``delay``: ``outputs`` maps "CELL.PIN" to the delay of
    every arc into that output; the flip-flop's clock-to-Q and setup time."""

    outputs: Mapping[str, float]
    clock_to_q: float
    setup: float

    def arc(self, cell: _cells.Cell, output: str) -> float:
        """ps from any input of ``cell`` to its ``output``."""
        return self.outputs.get(f"{cell.name}.{output}", cell.delay)


# NanGate's arcs that differ from the cells' slowest arc (_cells: same liberty and table point)
NANGATE_TIMING = Timing(
    outputs={"FA.CO": _cells.FA_CARRY_DELAY, "FA.S": _cells.FA_SUM_DELAY,
             "HA.CO": _cells.HA_CARRY_DELAY},
    clock_to_q=_cells.DFF_CLK_TO_Q, setup=_cells.DFF_SETUP)


def _constant(kind: str, ps: float) -> str:
    value = f"{ps:.1f}"
    return (f"        {kind} (lutcore_constant) {{ values (\"{value}, {value}\", "
            f"\"{value}, {value}\"); }}")


def _arc(related: str, kind: str, ps: float, transition_ps: float) -> list[str]:
    """One timing group: ``kind`` is "combinational" (cell_rise/fall) or a constraint type."""
    if kind == "setup_rising":
        tables = [_constant("rise_constraint", ps), _constant("fall_constraint", ps)]
    else:
        tables = [_constant("cell_rise", ps), _constant("cell_fall", ps),
                  _constant("rise_transition", transition_ps),
                  _constant("fall_transition", transition_ps)]
    return (["      timing () {", f'        related_pin : "{related}";',
             f"        timing_type : {kind};"] + tables + ["      }"])


def _input_pin(pin: str, clock: bool = False, setup: list[str] | None = None) -> list[str]:
    head = f"    pin ({pin}) {{ direction : input; capacitance : {INPUT_CAPACITANCE_FF:.4f};"
    if clock:
        head += " clock : true;"
    if not setup:
        return [head + " }"]
    return [head] + setup + ["    }"]


def _output_pin(pin: str, function: str, arcs: list[str]) -> list[str]:
    return ([f"    pin ({pin}) {{", "      direction : output;",
             f'      function : "{function}";'] + arcs + ["    }"])


def _liberty_cell(cell: _cells.Cell, timing: Timing, transition_ps: float) -> list[str]:
    lines = [f"  cell ({cell.name}) {{", f"    area : {cell.area};",
             f"    cell_leakage_power : {cell.leakage};"]
    if cell.name == FLIP_FLOP:
        lines += ["    ff (IQ, IQN) {", '      next_state : "D";', '      clocked_on : "CK";',
                  "    }"]
        lines += _input_pin("D", setup=_arc("CK", "setup_rising", timing.setup, 0.0))
        lines += _input_pin("CK", clock=True)
        clock_arc = _arc("CK", "rising_edge", timing.clock_to_q, transition_ps)
        lines += _output_pin("Q", "IQ", clock_arc) + _output_pin("QN", "IQN", clock_arc)
    else:
        inputs, outputs = COMBINATIONAL_PINS[cell.name]
        for pin in inputs:
            lines += _input_pin(pin)
        for pin, function in outputs.items():
            arcs = [line for related in inputs for line in
                    _arc(related, "combinational", timing.arc(cell, pin), transition_ps)]
            lines += _output_pin(pin, function, arcs)
    return lines + ["  }"]


def liberty_text(cells: Sequence[_cells.Cell] = _cells.CELLS, *, name: str = LIBRARY_NAME,
                 comment: str = _cells.LIBRARY, voltage: float = _cells.VDD,
                 timing: Timing = NANGATE_TIMING) -> str:
    """A liberty library of ``cells``: area (um^2), leakage (nW), boolean functions with
    NanGate's pin names, and constant-delay timing arcs (ps; see the module docstring).

    Cells are named as in the table (``NAND2``, not ``NAND2_X1``). BUF must be present or ABC
    refuses the library. HA and FA (two outputs each) are listed, but ABC maps only
    single-output cells, so synthesized netlists never use them; adders come out as XOR/AOI/OAI
    gates instead, and the comparison with the model (which counts FA/HA) is made in area.
    Every output transition is the table point's input slew (``_cells``: 17.2 ps).
    """
    transition_ps = 17.2  # ps, the table point's input slew (_cells docstring)
    header = [f"library ({name}) {{",
              f'  comment : "Generated by lutcore.ppa from {comment}";',
              "  delay_model : table_lookup;",
              '  time_unit : "1ps";',
              '  voltage_unit : "1V";',
              '  current_unit : "1mA";',
              '  leakage_power_unit : "1nW";',
              "  capacitive_load_unit (1, ff);",
              f"  nom_voltage : {voltage};",
              "  lu_table_template (lutcore_constant) {",
              "    variable_1 : input_net_transition;",
              "    variable_2 : total_output_net_capacitance;",
              '    index_1 ("1.0, 1000.0");',
              '    index_2 ("0.1, 1000.0");',
              "  }"]
    body = [line for cell in cells for line in _liberty_cell(cell, timing, transition_ps)]
    return "\n".join(header + body + ["}", ""])


def genlib_text(cells: Sequence[_cells.Cell] = _cells.CELLS, *,
                timing: Timing = NANGATE_TIMING) -> str:
    """The single-output combinational cells of ``cells`` as an SIS genlib library, for ABC's
    ``map`` (which takes its delays from a genlib, not from the liberty's tables).

    Each input pin: ``PIN <pin> UNKNOWN 1 999 <d> 0 <d> 0`` (phase unknown, input load 1, no
    load limit, rise and fall block delay d ps, no load-dependent part): the same constant arcs
    as ``liberty_text``. FA, HA and the flip-flop are left out (ABC maps single-output
    combinational cells only). ABC needs the two constant "gates", of zero area.
    """
    lines = ["GATE ZERO 0 Y=CONST0;", "GATE ONE 0 Y=CONST1;"]
    for cell in cells:
        if cell.name == FLIP_FLOP or len(COMBINATIONAL_PINS[cell.name][1]) != 1:
            continue
        inputs, outputs = COMBINATIONAL_PINS[cell.name]
        ((pin, function),) = outputs.items()
        delay = f"{timing.arc(cell, pin):.1f}"
        lines.append(f"GATE {cell.name} {cell.area} {pin}={function};")
        lines += [f"  PIN {p} UNKNOWN 1 999 {delay} 0 {delay} 0" for p in inputs]
    return "\n".join(lines) + "\n"

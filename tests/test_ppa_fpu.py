"""Structural models of FPnew's units (lutcore.ppa._fpu) and the RTL of the synthesized 8->16
pair (lutcore.ppa.synth): hand-counted widths and registers, orderings, and the RTL against
lutcore.numerics bit for bit."""

import pathlib

import jax.numpy as jnp
import numpy as np
import pytest
from amaranth.sim import Simulator

import lutcore.numerics as nm
import lutcore.ppa as ppa
from lutcore.ppa import _cells, _fpu, synth

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMMITTED_CACHE = ROOT / "experiments" / "synthesis_cache"
DFF = _cells.INDEX["DFF"]
MUX2 = _cells.INDEX["MUX2"]
LANES = {lane.name: lane for lane in nm.SDOTP_LANES}


def test_precisions_as_the_paper_states():
    # Sec. III-B: for FP16->FP32, 2 x p_src = 22 bits and p_dst = 24 bits
    w = ppa.exsdotp_precisions("fp16", "fp32")
    assert (2 * w.src_p, w.dst_p) == (22, 24)
    # FP8 (e5m2) -> FP16: a full product (2 * 2 + 1 fraction bits) is narrower than FP16
    assert ppa.exsdotp_precisions("fp8", "fp16").dst_p == 11
    assert ppa.exsdotp_precisions(("fp8", "fp8alt"), ("fp16", "fp16alt"))[:4] == (5, 4, 8, 11)
    # an expanding FMA runs both formats on one datapath: the multiplier is p_dst wide
    assert ppa.exfma_precisions("fp8", "fp16").src_p == 11
    assert ppa.super_format(("fp8alt", "fp16alt")) == (8, 7)


def test_full_adders_by_hand():
    """FP8 (e5m2) -> FP16: S = 3, P = 11, 7-bit exponent datapath (max(5 + 2, clog2(30)))."""
    fa = _cells.INDEX["FA"]
    # ExSdotp: two 3x3 Braun multipliers (2 rows x 2 FA each); 9 exponent adders (two product
    # exponents of two adds, three comparisons, two shift amounts) and 2 for normalization,
    # 7 bits each; the first adder's full adders where max has bits (P = 11), the second's
    # where the first sum has bits (2P + 3 + 1 = 26)
    assert float(ppa.exsdotp_unit("fp8", "fp16").cells[fa]) == 2 * 4 + 11 * 7 + 11 + 26
    # ExFMA on the FP16 datapath: 11x11 multiplier (10 rows x 10), 4 + 2 exponent adders,
    # the adder's full adders where the product has bits (2p = 22)
    assert float(ppa.exfma_unit("fp8", "fp16").cells[fa]) == 10 * 10 + 6 * 7 + 22


def test_cascade_is_two_units_in_series():
    unit = ppa.exfma_unit("fp8", "fp16")
    cascade = ppa.exfma_cascade("fp8", "fp16")
    np.testing.assert_allclose(cascade.cells, 2 * unit.cells)
    assert float(cascade.delay) == pytest.approx(2 * float(unit.delay))


@pytest.mark.parametrize("lane", ["8->16", "16->32"])
def test_exsdotp_smaller_and_faster_than_cascade(lane):
    src, dst = LANES[lane].src_formats, LANES[lane].dst_formats
    sdotp, cascade = ppa.exsdotp_unit(src, dst), ppa.exfma_cascade(src, dst)
    assert float(sdotp.area()) < float(cascade.area())
    assert float(sdotp.delay) < float(cascade.delay)
    # but its path (two adders in series) is longer than one ExFMA's
    assert float(sdotp.delay) > float(ppa.exfma_unit(src, dst).delay)


def test_exfma_datapaths_partition_the_unit():
    """The named blocks, grouped by EXFMA_DATAPATHS, are every cell of exfma_unit once; the
    mantissa path's full adders by hand (FP16: 11x11 Braun multiplier, 10 rows x 10, and the
    adder's 2p = 22 where the product has bits); its share falls as mantissa bits go."""
    fa = _cells.INDEX["FA"]
    names = [n for group in ppa.EXFMA_DATAPATHS.values() for n in group]
    for fmt in ("fp8", "fp16", "fp16alt", "fp32"):
        blocks = ppa.exfma_datapaths(fmt, fmt)
        assert sorted(names) == sorted(blocks)
        np.testing.assert_array_equal(sum(blocks[n].cells for n in names),
                                      ppa.exfma_unit(fmt, fmt).cells)
    fp16 = ppa.exfma_datapaths("fp16", "fp16")
    assert sum(float(fp16[n].cells[fa]) for n in ppa.EXFMA_DATAPATHS["mantissa"]) == 100 + 22
    # the exponent path: 4 + 2 adders of max(5 + 2, clog2(25)) = 7 bits
    assert sum(float(fp16[n].cells[fa]) for n in ppa.EXFMA_DATAPATHS["exponent"]) == 6 * 7

    def mantissa_share(fmt):
        blocks = ppa.exfma_datapaths(fmt, fmt)
        part = sum(float(blocks[n].area()) for n in ppa.EXFMA_DATAPATHS["mantissa"])
        return part / float(ppa.exfma_unit(fmt, fmt).area())

    assert mantissa_share("fp16alt") < mantissa_share("fp16") < mantissa_share("fp32")


def test_monotonic_in_widths():
    for unit in (ppa.exsdotp_unit, ppa.exfma_unit):
        narrow, wide = unit("fp8", "fp16"), unit("fp16", "fp32")
        assert float(narrow.area()) < float(wide.area())
        assert float(narrow.delay) < float(wide.delay)
        # another format on the same datapath adds only its classifier and muxes
        single = float(unit("fp8", "fp16").area())
        multi = float(unit(("fp8", "fp8alt"), ("fp16", "fp16alt")).area())
        assert single < multi < 1.5 * single
    fmas = [float(ppa.exfma_unit(f, f).area()) for f in ("fp8", "fp16", "fp32", "fp64")]
    assert fmas == sorted(fmas)


def test_simd_wrapper_is_the_sum_of_its_lanes():
    lanes = ppa.sdotp_lanes()
    assert [len(lane.dst) for lane in lanes] == [5, 5, 4, 4]   # two 16->32, two 8->16
    assert "fp32" not in lanes[2].dst and "fp16" not in lanes[2].src
    for registers in (False, True):
        simd = ppa.exsdotp_simd(registers=registers)
        lane_cells = sum(_fpu._sdotp_lane(lane, registers).cells for lane in lanes)
        pack = np.zeros(len(_cells.NAMES))
        pack[MUX2] = 2 * 64  # the 3:1 result mux of the 64-bit output: two MUX2 per bit
        np.testing.assert_allclose(simd.cells, lane_cells + pack)
    # registers by hand: 3 levels x 3 operands x (2 lanes x 32 bits + 2 lanes x 16 bits)
    assert float(ppa.exsdotp_simd().cells[DFF]) == 3 * 3 * (2 * 32 + 2 * 16)


def test_fpu_registers_by_hand():
    groups = ppa.fpu_groups()
    assert tuple(groups) == ppa.FPU_GROUPS
    dff = {g: float(c.cells[DFF]) for g, c in groups.items()}
    # ADDMUL lanes 64, 32, 16, 16, 8 x 4 bits; 3 operands, 3 levels
    assert dff["addmul"] == (64 + 32 + 2 * 16 + 4 * 8) * 3 * 3
    # NONCOMP: one slice per format, 64 bits of lanes each (six formats); 2 operands, 1 level
    assert dff["noncomp"] == 6 * 64 * 2 * 1
    # CONV: lanes 64, 64 (FP64 pack on lane 1), 16, 16, 8 x 4; 1 operand, 2 levels
    assert dff["conv"] == (64 + 64 + 2 * 16 + 4 * 8) * 1 * 2
    assert dff["sdotp"] == 3 * 3 * 96 and dff["top"] == 0
    total = ppa.fpu()
    np.testing.assert_allclose(total.cells, sum(c.cells for c in groups.values()))
    assert float(ppa.kge(total)) == pytest.approx(float(total.area()) / ppa.GE_AREA / 1e3)


def test_op_energy():
    one = ppa.op_energy("sdotp", "fp8", "fp16")
    assert ppa.op_energy("sdotp", "fp8", "fp16", lanes=4) == pytest.approx(4 * one)
    # a wider format switches more cells
    assert ppa.op_energy("addmul", "fp8") < ppa.op_energy("addmul", "fp16") \
        < ppa.op_energy("addmul", "fp32") < ppa.op_energy("addmul", "fp64")
    registers = 3 * 6 * 8 * _fpu.DFF_ENERGY  # 3 levels x (4 src + 1 dst of twice the width)
    unit = ppa.exsdotp_unit("fp8", "fp16")
    comb = np.asarray(unit.cells).copy()
    comb[DFF] = 0
    assert one == pytest.approx(ppa.ACTIVITY * comb @ _cells.ENERGY + registers)
    with pytest.raises(ValueError, match="allowed values"):
        ppa.op_energy("divsqrt", "fp32")


def test_node_scale():
    assert tuple(ppa.node_scale(45.0, 1.1)) == pytest.approx((1, 1, 1, 1))
    s = ppa.node_scale(12.0, 0.8)
    assert s.area == pytest.approx((12 / 45) ** 2)
    assert s.energy == pytest.approx(12 / 45 * (0.8 / 1.1) ** 2)


# ---------------------------------------------------------------------------------------------
# The synthesized pair


def test_sdotp_widths_by_hand():
    """One home for the internal widths: numerics, the model and the RTL read them from it."""
    # fp8 (e5m2) -> fp16: S = 3, P = max(10, 5) + 1 = 11; 2P+3, 2P+S+4, 2P+S+5; max(5+2, 5)
    assert tuple(nm.sdotp_widths(2, 10, 5)) == (3, 11, 25, 29, 30, 7)
    # fp16 -> fp32: S = 11, P = 24; the normalizer is exactly 64 bits (numerics' uint64)
    assert tuple(nm.sdotp_widths(10, 23, 8)) == (11, 24, 51, 63, 64, 10)
    w = ppa.exsdotp_precisions("fp16", "fp32")
    assert (w.src_p, w.dst_p, w.exp_width) == (11, 24, 10)


@pytest.mark.parametrize("name", sorted(synth.FPU_SYNTH_DESIGNS))
def test_committed_cache_is_current(name):
    for flow in synth.FLOWS:
        result = synth.synthesize_cached(name, COMMITTED_CACHE, flow_name=flow, allow_run=False)
        assert set(result.cells) <= set(_cells.NAMES) - {"DFF"} and result.area > 1000


def _simulate(name, vectors, ports):
    dut = synth.elaboratable(name)
    out = []

    async def bench(ctx):
        for row in vectors:
            for port, value in zip(ports, row):
                ctx.set(getattr(dut, port), int(value))
            await ctx.delay(1e-9)
            out.append(ctx.get(dut.s))
    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    return np.array(out)


def _random_operands(n, seed):
    """Random patterns, half of them with small exponents (subnormal, cancelling results)."""
    rng = np.random.default_rng(seed)
    fp8 = rng.integers(0, 256, (4, n))
    fp16 = rng.integers(0, 65536, n)
    small = rng.random(n) < 0.5
    fp8[:, small] &= 0x9F                 # exponent field < 8
    fp16[small] &= 0x8FFF                 # exponent field < 4
    fp8[:, :4] = [[0x7C, 0x00, 0x7E, 0x3C], [0x00, 0x7C, 0x3C, 0xBC],
                  [0x3C, 0x3C, 0x3C, 0x3C], [0x3C, 0x3C, 0xBC, 0x3C]]  # inf*0, NaN, cancel
    return fp8, fp16


def test_exsdotp_rtl_matches_numerics():
    (a, b, c, d), e = _random_operands(160, seed=1)
    got = _simulate("exsdotp_fp8_fp16", zip(a, b, c, d, e), "abcde")
    want = nm.exsdotp(*(jnp.asarray(x, jnp.uint8) for x in (a, b, c, d)),
                      jnp.asarray(e, jnp.uint16), src="fp8", dst="fp16")
    np.testing.assert_array_equal(got, np.asarray(want))


def test_exfma_rtl_matches_numerics():
    (a, b, _, _), c = _random_operands(160, seed=2)
    got = _simulate("exfma_fp8_fp16", zip(a, b, np.ones_like(a), c), ("a", "b", "narrow", "c"))
    want = nm.exfma(jnp.asarray(a, jnp.uint8), jnp.asarray(b, jnp.uint8),
                    jnp.asarray(c, jnp.uint16), src="fp8", dst="fp16")
    np.testing.assert_array_equal(got, np.asarray(want))
    # with narrow low, a and b are FP16: a plain FP16 FMA on the same datapath
    rng = np.random.default_rng(3)
    a16, b16 = rng.integers(0, 65536, (2, 100)) & 0xBFFF  # |x| < 2: products stay finite
    got = _simulate("exfma_fp8_fp16", zip(a16, b16, np.zeros_like(a16), c[:100]),
                    ("a", "b", "narrow", "c"))
    want = nm.exfma(*(jnp.asarray(x, jnp.uint16) for x in (a16, b16, c[:100])),
                    src="fp16", dst="fp16")
    np.testing.assert_array_equal(got, np.asarray(want))

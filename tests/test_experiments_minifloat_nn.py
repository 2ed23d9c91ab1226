"""The MiniFloat-NN experiments on small configs: data invariants, claims, config errors."""

import numpy as np
import pytest

import lutcore.numerics as nm
from experiments import ConfigError, get, make_config

FIG9 = get("mfnn-fig9")
FIG1 = get("mfnn-fig1")


@pytest.fixture(scope="module")
def fig9_small():
    return FIG9.run(make_config(FIG9, {"lengths": [1, 2, 8], "trials": 16}))


def test_fig9_one_step_is_the_same_for_both_units(fig9_small):
    """One step: a0*b0 is exact in the destination, so the cascade also rounds only once."""
    one = fig9_small.sel(length=1)
    np.testing.assert_array_equal(one["exsdotp"].values, one["exfma_cascade"].values)


def test_fig9_units_agree_with_direct_instruction_calls(fig9_small):
    """The stored accumulators are what lutcore's instructions give on the same inputs."""
    config = make_config(FIG9, {"lengths": [1, 2, 8], "trials": 16})
    rng = np.random.default_rng(config.seed)
    a, b = (nm.from_float64(rng.standard_normal((16, 16)), "fp16") for _ in range(2))
    acc = nm.accumulate_dot(a, b, src="fp16", dst="fp32", unit="exsdotp")
    np.testing.assert_array_equal(fig9_small["exsdotp"].sel(pair="fp16->fp32", length=8),
                                  np.asarray(acc)[:, 7])


def test_fig9_error_is_normwise_and_non_negative(fig9_small):
    err = fig9_small["rel_error"]
    assert (err >= 0).all()
    x, ref = fig9_small["exsdotp"], fig9_small["fp64"]
    expected = np.abs(x - ref).mean("trial") / np.abs(ref).mean("trial")
    np.testing.assert_allclose(err.sel(unit="exsdotp"), expected)


def test_fig9_claims_name_the_headline_pairs(fig9_small):
    claims = {c.claim: c for c in FIG9.claims(fig9_small)}
    assert set(claims) == {"exsdotp_consistently_better", "improvement_grows_for_narrow_inputs"}
    better = claims["exsdotp_consistently_better"]
    assert "fp8->fp16" in better.ours and "Fig. 9" in better.paper
    # one step from a zero accumulator: both units round once, bit for bit the same -> a tie,
    # reported; the claim is about accumulation and is judged on 2 and 8 steps
    assert "tied at [1]" in better.ours and "bit-identical" in better.deviation
    assert "nothing accumulates" in better.tolerance
    err = fig9_small["rel_error"]
    assert better.holds == bool((err.sel(unit="exsdotp", length=[2, 8])
                                 < err.sel(unit="exfma_cascade", length=[2, 8])).sel(
        pair=["fp16->fp32", "fp8->fp16"]).all())


def test_fig9_a_tie_or_a_loss_on_an_accumulation_deviates(fig9_small):
    """Only the one-step tie, where nothing accumulates, is exempt: a tie at 8 steps or a
    larger ExSdotp error anywhere makes the claim deviate."""
    base = fig9_small.copy(deep=True)
    err = base["rel_error"]
    err.loc[dict(unit="exsdotp", length=[2, 8])] = 0.5 * err.sel(unit="exfma_cascade",
                                                                 length=[2, 8])
    assert {c.claim: c for c in FIG9.claims(base)}["exsdotp_consistently_better"].holds
    for length, factor in ((8, 1.0), (2, 1.5)):
        bad = base.copy(deep=True)
        bad["rel_error"].loc[dict(unit="exsdotp", length=length, pair="fp8->fp16")] = (
            factor * bad["rel_error"].sel(unit="exfma_cascade", length=length, pair="fp8->fp16"))
        claim = {c.claim: c for c in FIG9.claims(bad)}["exsdotp_consistently_better"]
        assert not claim.holds and claim.verdict == "deviates"


def test_fig9_bad_pair_lists_the_allowed_ones():
    with pytest.raises(ConfigError, match=r"fp8->fp8.*allowed values: fp8->fp16"):
        make_config(FIG9, {"pairs": ["fp8->fp8"]})
    with pytest.raises(ConfigError, match="lengths"):
        make_config(FIG9, {"lengths": [4, 2]})


@pytest.fixture(scope="module")
def fig1():
    return FIG1.run(make_config(FIG1, {}))


def test_fig1_support_table_is_what_the_functions_accept(fig1):
    ds = fig1
    sdotp = {(str(s), str(d)) for s in ds.src.values for d in ds.dst.values
             if bool(ds.supported.sel(op="exsdotp", src=s, dst=d))}
    assert sdotp == set(nm.EXPANDING_PAIRS)
    assert not bool(ds.supported.sel(op="vsum", src="fp64", dst="fp64"))
    assert float(ds.max_value.sel(format="fp8alt")) == 240.0
    claims = {c.claim: c for c in FIG1.claims(ds)}
    assert claims["format_widths"].holds and claims["expanding_pairs"].holds
    # like with like: FP8->FP32 is lutcore's extension, outside the paper's 2w-bit pairs
    assert "fp8->fp32" not in claims["expanding_pairs"].ours
    assert claims["narrow_unit_pairs"].holds and "fp8" not in claims["narrow_unit_pairs"].ours
    extension = claims["fp8_to_fp32_extension"]
    assert extension.verdict == "finding" and extension.holds
    assert "fp8->fp32: 16->32;" in extension.ours and "fp8alt->fp32" in extension.ours


RTL = get("mfnn-rtl")


@pytest.fixture(scope="module")
def rtl_small():
    return RTL.run(make_config(RTL, {
        "pairs": ["fp8->fp16", "fp16alt->fp32"], "roundings": ["rne", "rtz"], "samples": 4000,
        "fig9_pairs": ["fp8->fp16"], "fig9_roundings": ["rne"], "fig9_lengths": [1, 8],
        "fig9_trials": 8}))


def test_rtl_counts_are_what_the_models_give(rtl_small):
    """The stored counts are the classification of direct exsdotp calls on the same inputs."""
    assert set(RTL.module.KINDS) == set(rtl_small.kind.values)
    count = rtl_small["count"]
    np.testing.assert_array_equal(count.sel(kind="any_result"),
                                  count.sel(kind=list(RTL.module.RESULT_KINDS)).sum("kind"))
    rng = np.random.default_rng(0)
    src, dst = nm.FORMATS["fp8"], nm.FORMATS["fp16"]
    ops = RTL.module._operands(rng, src, dst, 4000, "random")
    ideal = nm.exsdotp(*ops, src=src, dst=dst, rounding="rtz")
    rtl = nm.exsdotp(*ops, src=src, dst=dst, rounding="rtz", model="rtl")
    stored = int(count.sel(pair="fp8->fp16", rounding="rtz", inputs="random", kind="any_result"))
    assert stored == int(np.sum(np.asarray(ideal) != np.asarray(rtl))) > 0


def test_rtl_lanes_only_where_both_run_the_pair(rtl_small):
    lanes = rtl_small["lane_result_differs"]
    assert np.isnan(lanes.sel(pair="fp16alt->fp32")).all()
    assert float(lanes.sel(pair="fp8->fp16", rounding="rne").max()) == 0


def test_rtl_claims(rtl_small):
    claims = {c.claim: c for c in RTL.claims(rtl_small)}
    assert set(claims) == {"issue_vectors", "rne_matches_ideal_on_ordinary_inputs",
                           "rtz_departures_one_ulp_low", "cancellation_cases_differ_few_percent",
                           "lanes_same_results_nx_may_differ", "fig9_conclusion_holds_with_rtl"}
    assert claims["issue_vectors"].holds and "10 of 10" in claims["issue_vectors"].ours
    assert claims["rtz_departures_one_ulp_low"].holds
    assert "issue 8" in claims["issue_vectors"].paper
    # issue 8's hypotheses are findings of ours; the Fig. 9 rerun checks the paper's statement
    assert {k for k, c in claims.items() if c.verdict == "finding"} == set(claims) - {
        "fig9_conclusion_holds_with_rtl"}
    assert "tied at" in claims["fig9_conclusion_holds_with_rtl"].ours
    # RNE accumulation from +0 never meets the RTL's corner cases: Fig. 9 is unchanged
    np.testing.assert_array_equal(rtl_small["fig9_changed"], 0)


def test_rtl_bad_config():
    with pytest.raises(ConfigError, match="rounding.*allowed values"):
        make_config(RTL, {"roundings": ["nearest"]})
    with pytest.raises(ConfigError, match=r"fp8->fp8.*allowed values"):
        make_config(RTL, {"fig9_pairs": ["fp8->fp8"]})


UNIT = get("mfnn-unit")


def test_unit_counts_registers_lanes_and_widths():
    ds = UNIT.run(make_config(UNIT, {}))
    # a SIMD ExSdotp reads both 64-bit sources whole, an ExFMA half of each, at twice the FLOP
    np.testing.assert_array_equal(ds.source_bits_per_register.sel(unit="exsdotp"), 64)
    np.testing.assert_array_equal(ds.source_bits_per_register.sel(unit="exfma"), 32)
    np.testing.assert_array_equal(ds.flop_per_instruction.sel(unit="exsdotp"),
                                  2 * ds.flop_per_instruction.sel(unit="exfma"))
    assert int(ds.register_elements.sel(format="fp8alt")) == 8
    assert list(ds.pair.values) == [f"{s}->{d}" for s, d in nm.EXPANDING_PAIRS
                                    if d != "fp32" or s in ("fp16", "fp16alt")]
    # the RTL model's normalizer, 2P + S + 5 bits, is exactly 64 bits on the 16->32 lane
    wide = nm.lane_widths("16->32")
    assert wide.second_adder + 1 == wide.normalizer == 64 and (wide.p_src, wide.p_dst) == (11, 24)
    claims = {c.claim: c for c in UNIT.claims(ds)}
    # the 8->16 lane widens for FP8alt (3 -> 4 significand bits) and FP16alt (5 -> 8 exponent
    # bits); the 16->32 lane already has those fields, so the formats cost it less
    alt = claims.pop("new_formats_low_area_overhead")
    over = ds.alt_format_area_overhead
    assert alt.verdict == "deviates" and "widens" in alt.deviation
    assert (over.sel(lane_kind="16->32") < over.sel(lane_kind="8->16")).all() and (over > 0).all()
    # the paper's example: (a + b) + c = c, a + (b + c) = 0 (b + c ties to b), fused = c
    np.testing.assert_array_equal(ds.associativity_example.values, [[0.5, 0.0, 0.5]] * 2)
    np.testing.assert_array_equal(ds.zero_first_sum_result_is_e, ds.zero_first_sum_cases)
    assert (ds.zero_first_sum_cases > 0).all() and (ds.cascade_vs_exsdotp_differ > 0).all()
    area = ds.fma_datapath_area
    assert float(area.sel(fma_format="fp32", datapath="mantissa") / area.sel(fma_format="fp32")
                 .sum()) > 0.5
    assert "2 FP16->FP32 or 4 FP8->FP16" in claims["simd_wrapper"].ours
    assert "model inputs" in claims["pipeline_levels"].ours
    assert "kGE" not in UNIT.table(ds) and "| 16->32 | 11 | 24 | 51 | 63 |" in UNIT.table(ds)
    UNIT.plot(ds)


def test_fig1_background_claims_are_computed(fig1):
    claims = {c.claim: c for c in FIG1.claims(fig1)}
    nannarelli = claims["nannarelli_custom_format"]  # sign + 7 + 9 = 17 bits, "16-bit"
    assert nannarelli.verdict == "paper-inconsistent" and ": 17 bits" in nannarelli.ours
    assert claims["dlfloat_16_bits"].holds and "FPFormat(6, 9): 16 bits" in claims[
        "dlfloat_16_bits"].ours
    assert "FP8 -14..15, FP16 -14..15" in claims["fp8_same_range_as_fp16"].ours
    assert "= 2x" in claims["h100_fp8_speedup"].ours
    # A100 datasheet: 312 TFLOPS BF16 over 156 TFLOPS TF32, dense
    assert "BF16 312 / TF32 156 TFLOPS = 2x" in claims["gpu_tf32_bf16_speedups"].ours
    assert claims["gpu_tf32_bf16_speedups"].holds

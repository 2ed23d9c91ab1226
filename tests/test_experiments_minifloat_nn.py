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
    assert set(claims) == {"exsdotp_at_least_as_accurate", "improvement_grows_for_narrow_inputs"}
    assert "fp8->fp16" in claims["exsdotp_at_least_as_accurate"].ours
    assert "Fig. 9" in claims["exsdotp_at_least_as_accurate"].paper


def test_fig9_bad_pair_lists_the_allowed_ones():
    with pytest.raises(ConfigError, match=r"fp8->fp8.*allowed values: fp8->fp16"):
        make_config(FIG9, {"pairs": ["fp8->fp8"]})
    with pytest.raises(ConfigError, match="lengths"):
        make_config(FIG9, {"lengths": [4, 2]})


def test_fig1_support_table_is_what_the_functions_accept():
    ds = FIG1.run(make_config(FIG1, {}))
    sdotp = {(str(s), str(d)) for s in ds.src.values for d in ds.dst.values
             if bool(ds.supported.sel(op="exsdotp", src=s, dst=d))}
    assert sdotp == set(nm.EXPANDING_PAIRS)
    assert not bool(ds.supported.sel(op="vsum", src="fp64", dst="fp64"))
    assert float(ds.max_value.sel(format="fp8alt")) == 240.0
    claims = {c.claim: c for c in FIG1.claims(ds)}
    assert claims["format_widths"].holds and claims["expanding_pairs"].holds
    narrow = claims["narrow_unit_pairs"]
    assert not narrow.holds and "fp8->fp32" in narrow.deviation

"""accumulate_dot (the Fig. 9 accuracy model) against step-by-step references."""

import ml_dtypes
import numpy as np
import pytest

import lutcore.numerics as nm


@pytest.fixture(scope="module")
def operands():
    rng = np.random.default_rng(7)
    a = np.asarray(nm.from_float64(rng.standard_normal((5, 12)), "fp8"))
    b = np.asarray(nm.from_float64(rng.standard_normal((5, 12)), "fp8"))
    return a, b


@pytest.mark.parametrize("unit", ["exsdotp", "exfma_cascade"])
def test_matches_a_python_loop_of_instructions(operands, unit):
    a, b = operands
    op = nm.exsdotp if unit == "exsdotp" else nm.exfma_cascade
    got = np.asarray(nm.accumulate_dot(a, b, src="fp8", dst="fp16", unit=unit))
    acc = np.zeros(a.shape[0], np.uint16)
    for i in range(a.shape[1] // 2):
        acc = np.asarray(op(a[:, 2 * i], b[:, 2 * i], a[:, 2 * i + 1], b[:, 2 * i + 1], acc,
                            src="fp8", dst="fp16"))
        np.testing.assert_array_equal(got[:, i], np.asarray(nm.to_float64(acc, "fp16")))


@pytest.mark.parametrize("unit, model", [("exsdotp", "ideal"), ("exsdotp", "rtl"),
                                         ("exfma_cascade", "ideal")])
def test_every_rounding_mode_through_one_compiled_scan(operands, unit, model):
    """The mode is a traced operand: each mode gives the Python loop of instructions in that
    mode, bit for bit, and one compilation per unit and model serves all six."""
    from lutcore.numerics._accumulate import _accumulate

    a, b = operands[0][:, :6], operands[1][:, :6]  # a shape no other test compiles
    compiled = _accumulate._cache_size()
    for rounding in nm.ROUNDING_MODES:
        got = np.asarray(nm.accumulate_dot(a, b, src="fp8", dst="fp16", unit=unit,
                                           rounding=rounding, model=model))
        acc = np.zeros(a.shape[0], np.uint16)
        for i in range(a.shape[1] // 2):
            args = (a[:, 2 * i], b[:, 2 * i], a[:, 2 * i + 1], b[:, 2 * i + 1], acc)
            acc = np.asarray(nm.exsdotp(*args, src="fp8", dst="fp16", rounding=rounding,
                                        model=model) if unit == "exsdotp" else
                             nm.exfma_cascade(*args, src="fp8", dst="fp16", rounding=rounding))
            np.testing.assert_array_equal(got[:, i], np.asarray(nm.to_float64(acc, "fp16")))
    assert _accumulate._cache_size() == compiled + 1


def test_fp64_golden_is_a_float64_running_sum(operands):
    a, b = operands
    got = np.asarray(nm.accumulate_dot(a, b, src="fp8", dst="fp16", unit="fp64"))
    va = a.view(ml_dtypes.float8_e5m2).astype(np.float64)
    vb = b.view(ml_dtypes.float8_e5m2).astype(np.float64)
    np.testing.assert_array_equal(got, np.cumsum(va * vb, axis=1)[:, 1::2])


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown unit 'fma'.*exsdotp"):
        nm.accumulate_dot(np.zeros(2), np.zeros(2), src="fp8", dst="fp16", unit="fma")
    with pytest.raises(ValueError, match="even last axis"):
        nm.accumulate_dot(np.zeros(3, np.uint8), np.zeros(3, np.uint8), src="fp8", dst="fp16",
                          unit="fp64")


def test_sdotp_lanes_follow_field_widths():
    narrow, wide = nm.SDOTP_LANES
    assert narrow.covers("fp8", "fp16") and narrow.covers("fp8alt", "fp16alt")
    assert not narrow.covers("fp16", "fp32") and not narrow.covers("fp8", "fp32")
    assert all(wide.covers(s, d) for s, d in nm.EXPANDING_PAIRS)

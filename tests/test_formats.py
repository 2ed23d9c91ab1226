"""The Format records and the packages' format sets: one meaning per name, facts from ml_dtypes."""

import ml_dtypes
import numpy as np
import pytest

import lutcore.numerics as nm
from lutcore import gpu, lut, ppa
from lutcore.gpu import _specs
from lutcore.snitch import _kernels as snitch_kernels


@pytest.mark.parametrize("fmt", [f for f in nm.TABLE if f.is_float], ids=str)
def test_float_records_match_ml_dtypes(fmt):
    info = ml_dtypes.finfo(fmt.ml_dtype)
    assert (fmt.max_value, fmt.min_normal, fmt.min_subnormal, fmt.epsilon) == (
        float(info.max), float(info.smallest_normal), float(info.smallest_subnormal),
        float(info.eps))
    assert fmt.width == info.bits == 8 * fmt.nbytes == 8 * fmt.ml_dtype.itemsize
    assert fmt.bias == 1 - info.minexp  # ml_dtypes' minexp is the smallest normal's exponent


@pytest.mark.parametrize("fmt", [f for f in nm.TABLE if not f.is_float and f.ml_dtype], ids=str)
def test_integer_records_match_ml_dtypes(fmt):
    info = ml_dtypes.iinfo(fmt.ml_dtype)
    assert (fmt.width, fmt.max_value) == (info.bits, float(info.max))


def test_ocp_and_fpnew_e4m3_differ_only_in_specials():
    fpnew, ocp = nm.format_named("fp8alt"), nm.format_named("fp8_e4m3fn")
    assert (fpnew.exp_bits, fpnew.man_bits) == (ocp.exp_bits, ocp.man_bits) == (4, 3)
    assert (fpnew.max_value, ocp.max_value) == (240.0, 448.0)
    assert fpnew != ocp and (fpnew.specials, ocp.specials) == (nm.IEEE, nm.FINITE)


def test_every_name_has_one_meaning_or_is_refused_naming_the_candidates():
    assert nm.format_named("fp16alt") is nm.format_named("bf16") is nm.format_named("bfloat16")
    with pytest.raises(ValueError, match="'fp8' is ambiguous: it means fp8_e5m2 or fp8_e4m3fn"):
        nm.format_named("fp8")
    with pytest.raises(ValueError, match="unknown format 'fp12'; known formats: fp64"):
        nm.format_named("fp12")


def test_each_package_declares_what_fp8_means():
    e5m2, e4m3fn = nm.format_named("fp8_e5m2"), nm.format_named("fp8_e4m3fn")
    assert nm.FORMATS["fp8"] is e5m2 and lut.ACTIVATION_FORMATS["fp8"] is e5m2
    assert ppa.ARRAY_FORMATS["fp8"] is e4m3fn and _specs.GPU_FORMATS["fp8"] is e4m3fn
    assert ppa.operand("fp8")[1:] == (8, 4, 3)
    # byte widths come from the records
    assert gpu.ACT_BYTES == {"fp16": 2, "bf16": 2, "int8": 1, "fp8": 1}
    assert gpu.ACCUMULATOR_BYTES == {"fp32": 4, "fp16": 2}
    assert {s.src: s.bytes for s in snitch_kernels.KERNEL_SPECS.values()} == {
        "fp64": 8, "fp32": 4, "fp16": 2, "fp8": 1}


def test_a_set_resolves_other_names_of_its_members_and_refuses_the_rest():
    assert nm.FORMATS["bf16"] is nm.FORMATS["fp16alt"] and "fp8_e5m2" in nm.FORMATS
    assert nm.FORMATS.label(nm.format_named("bf16")) == "fp16alt"
    assert "fp8_e4m3fn" not in nm.FORMATS and "int8" not in nm.FORMATS
    with pytest.raises(ValueError, match="fp8_e4m3fn \\(fn\\) is not supported here"):
        nm.as_format(nm.format_named("fp8_e4m3fn"))
    with pytest.raises(ValueError, match="LMMA a_dtype 'int32' unknown; allowed values: fp32"):
        lut.LMMA(a_dtype="int32")


@pytest.mark.parametrize("labels, means, match", [
    (("fp8",), None, "'fp8' is ambiguous"),
    (("fp8",), {"fp8": "fp16"}, "'fp8' is not a name of fp16"),
    (("fp16",), {"fp8": "fp8_e5m2"}, "means names formats not in the set: fp8"),
])
def test_a_set_cannot_give_a_name_a_meaning_it_does_not_have(labels, means, match):
    with pytest.raises(ValueError, match=match):
        nm.FormatSet(labels, means=means)


@pytest.mark.parametrize("kwargs, match", [
    ({"exp_bits": 1, "man_bits": 3}, "exp_bits"),
    ({"exp_bits": 5, "man_bits": 5}, "11 bits wide"),
    ({"exp_bits": 4, "man_bits": 3, "specials": "ocp"}, "specials 'ocp' unknown"),
    ({"exp_bits": 2, "man_bits": 7, "specials": nm.INTEGER}, "exp_bits 0"),
    ({"exp_bits": 4, "man_bits": 3, "name": "x", "aliases": "y"}, "aliases"),
])
def test_a_record_checks_itself(kwargs, match):
    with pytest.raises(ValueError, match=match):
        nm.Format(**kwargs)


def test_records_are_values_keyed_by_their_fields():
    assert nm.Format(5, 2) == nm.FORMATS["fp8"] and hash(nm.Format(5, 2)) == hash(nm.FORMATS["fp8"])
    assert np.dtype(nm.FORMATS["fp16"].dtype) == np.uint16

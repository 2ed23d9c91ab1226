"""Bad arguments at lutcore's public entry points (issue 32): one error naming the argument,
the value and the allowed range, where the call used to return a number. Every probe of the
issue is a case of ``PROBES``; the same class of argument of the other public functions is in
``OTHERS``; the correct calls next to them still give the model's values."""

import dataclasses
import re

import jax
import numpy as np
import pytest

import lutcore.gpu as gpu
import lutcore.lut as lut
import lutcore.numerics as nm
import lutcore.ppa as ppa
import lutcore.snitch as snitch
from lutcore import _checks as check

import fp_oracle as oracle

NAN = float("nan")
SIZES = "allowed values: integers >= 1"

# (call, exception, message): the issue's probes, in its order; each returned garbage before
PROBES = {
    "tensor_core m=-2": (lambda: ppa.metrics(ppa.tensor_core("mac", "fp16", "int2", -2, 64, 4)),
                         ValueError, f"m: -2 is not allowed; {SIZES}"),
    "tensor_core m=0": (lambda: ppa.tensor_core("mac", "fp16", "int2", 0, 64, 4),
                        ValueError, f"m: 0 is not allowed; {SIZES}"),
    "tensor_core k=0": (lambda: ppa.tensor_core("mac", "fp16", "int2", 2, 64, 0),
                        ValueError, f"k: 0 is not allowed; {SIZES}"),
    "tensor_core m=2.5": (lambda: ppa.tensor_core("mac", "fp16", "int2", 2.5, 64, 4),
                          ValueError, f"m: 2.5 is not allowed; {SIZES}"),
    "tensor_core m=NaN": (lambda: ppa.tensor_core("mac", "fp16", "int2", NAN, 64, 4),
                          ValueError, f"m: nan is not allowed; {SIZES}"),
    "tensor_core m='2'": (lambda: ppa.tensor_core("mac", "fp16", "int2", "2", 64, 4),
                          ValueError, f"m: '2' is not allowed; {SIZES}"),
    "array_multiplier(-8, 4)": (lambda: ppa.array_multiplier(-8, 4), ValueError,
                                "array_multiplier n_bits: -8 is not allowed; allowed values: "
                                "integers >= 0"),
    "gemm_latency m=-16": (lambda: gpu.gemm_latency(gpu.A100, "cublas", -16, 4096, 4096),
                           ValueError, "m: -16 is not allowed; allowed values: finite numbers "
                                       ">= 1"),
    "gemm_latency m=NaN": (lambda: gpu.gemm_latency(gpu.A100, "cublas", NAN, 4096, 4096),
                           ValueError, "m: nan is not allowed; allowed values: finite numbers "
                                       ">= 1"),
    "gemm_latency gpu='A100'": (lambda: gpu.gemm_latency("A100", "cublas", 16, 4096, 4096),
                                TypeError, "gpu: 'A100' is not a GPUSpec; allowed values: a "
                                           "GPUSpec such as lutcore.gpu.A100, or gpu_spec"),
    "pack_ternary([2, 0, 1])": (lambda: lut.pack_ternary([2, 0, 1]), ValueError,
                                "pack_ternary t: 2 (at index [0] of shape (3,)) is not allowed; "
                                "allowed values: integers in [-1, 1]"),
    "to_float64([256], 'fp8')": (lambda: nm.to_float64([256], "fp8"), ValueError,
                                 "to_float64 bits: 256 (at index [0] of shape (1,)) is not "
                                 "allowed; allowed values: integer fp8 bit patterns in [0, 255]"),
    "to_float64([1.7], 'fp8')": (lambda: nm.to_float64([1.7], "fp8"), ValueError,
                                 "to_float64 bits: fp8 bit patterns must be integers, got float64 "
                                 "1.7 (at index [0] of shape (1,)); allowed values: integer fp8 "
                                 "bit patterns in [0, 255] (a value is encoded by "
                                 "from_float64(x, 'fp8'))"),
    "exsdotp(nan, 1.5, 1, 1, 1)": (lambda: nm.exsdotp(NAN, 1.5, 1, 1, 1, src="fp8", dst="fp16"),
                                   ValueError, "exsdotp a: fp8 bit patterns must be integers, "
                                               "got float64 nan"),
}


@pytest.mark.parametrize("probe", PROBES)
def test_every_probe_of_the_issue_names_the_argument_and_the_allowed_range(probe):
    call, error, message = PROBES[probe]
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message), str(info.value)


def test_the_probes_correct_calls_still_price_and_compute():
    ppa_int = ppa.metrics(ppa.tensor_core("mac", "fp16", "int2", 2, 64, 4))
    ppa_float = ppa.metrics(ppa.tensor_core("mac", "fp16", "int2", 2.0, np.int64(64), 4.0))
    assert float(ppa_int.area) == float(ppa_float.area) > 0
    assert float(ppa.array_multiplier(8, 4).delay) > 0
    shapes = ppa.power_of_two_shapes(64)
    assert np.all(ppa.metrics(ppa.tensor_core("mac", "int8", "int2", *shapes.T)).area > 0)
    assert float(gpu.gemm_latency(gpu.A100, "cublas", 16, 4096, 4096).seconds) > 0
    assert float(gpu.gemm_latency(gpu.gpu_spec("a100"), "cublas", 4.5, 4096, 4096).seconds) > 0
    np.testing.assert_array_equal(lut.unpack_ternary(lut.pack_ternary([1, 0, -1])), [1, 0, -1])
    assert float(nm.to_float64([255 - 128 - 4], "fp8")[0]) == 57344.0  # 0x7B: fp8's max
    # int8 -1 is the same bits as uint8 0xFF: a NaN pattern of fp8
    assert np.isnan(np.asarray(nm.to_float64(np.array([-1], np.int8), "fp8"))).all()


@pytest.mark.parametrize("a", [0x7D, 0x7E, 0x7F, 0xFE])  # fp8 NaN patterns, signalling and quiet
def test_a_nan_pattern_operand_gives_the_canonical_quiet_nan_as_the_oracle(a):
    """The operands are bit patterns (the unit's register contents): a NaN is a pattern, and
    FPnew returns the destination's canonical quiet NaN for it (0x7E00 in FP16)."""
    one = int(nm.from_float64(1.5, "fp8"))
    want = oracle.exsdotp(a, one, 1, 1, 1, nm.FORMATS["fp8"], nm.FORMATS["fp16"])
    assert want == oracle.qnan(nm.FORMATS["fp16"]) == 0x7E00
    for model in nm.MODELS:
        got = nm.exsdotp(a, one, 1, 1, 1, src="fp8", dst="fp16", model=model)
        assert int(got) == want


A = np.ones((2, 8))
W = np.zeros((4, 8), np.uint8)
LMMA = lut.LMMA()
OTHERS = {  # (call, message): the same kinds of argument in the other public functions
    "ripple_adder": (lambda: ppa.ripple_adder(-1), "ripple_adder bits: -1 is not allowed"),
    "mux_tree": (lambda: ppa.mux_tree(0, 8), "mux_tree inputs: 0 is not allowed"),
    "barrel_shifter": (lambda: ppa.barrel_shifter(8, 2.5), "barrel_shifter max_shift: 2.5"),
    "fp_adder": (lambda: ppa.fp_adder(NAN, 11), "fp_adder e: nan is not allowed"),
    "int_to_fp": (lambda: ppa.int_to_fp(np.array([4, -4]), 5, 11),
                  r"int_to_fp bits: -4 \(at index \[1\] of shape \(2,\)\)"),
    "register": (lambda: ppa.register("16"), "register bits: '16' is not allowed"),
    "broadcast": (lambda: ppa.broadcast(8, -1), "broadcast fanout: -1 is not allowed"),
    "prefix_adder": (lambda: ppa.prefix_adder(-16, "sklansky"), "prefix_adder bits: -16"),
    "booth_dadda": (lambda: ppa.booth_dadda_multiplier(8.5, 8, ppa.ripple_adder),
                    "booth_dadda_multiplier n_bits: 8.5"),
    "tensor_core clock": (lambda: ppa.tensor_core("mac", "int8", "int2", 2, 4, 4, clock_ghz=0),
                          "clock_ghz: 0 is not allowed; allowed values: finite numbers > 0"),
    "metrics freq": (lambda: ppa.metrics(ppa.tensor_core("mac", "int8", "int2", 2, 4, 4),
                                         freq_ghz=NAN), "freq_ghz: nan is not allowed"),
    "power_of_two_shapes": (lambda: ppa.power_of_two_shapes(0), "total: 0 is not allowed"),
    "best_arrays": (lambda: ppa.best_arrays("mac", "int8", "int2", (64, 0)),
                    "total: 0 is not allowed"),
    "operand_delivery": (lambda: ppa.operand_delivery("mac", "int8", "int2", 2, -4, 4),
                         "n: -4 is not allowed"),
    "release_lut_array": (lambda: ppa.release_lut_array(m=0), "m: 0 is not allowed"),
    "gemm lut_bits": (lambda: gpu.gemm_latency(gpu.A100, "cublas", 1, 8, 8, lut_bits=0),
                      "table_bits: 0 is not allowed"),  # lut_bits fills Quant.table_bits
    "gemm group_size": (lambda: gpu.gemm_latency(gpu.A100, "dequant", 1, 8, 8, weight_bits=4,
                                                 group_size=-64), "group_size: -64 is not allowed"),
    "peak_ops gpu": (lambda: gpu.peak_ops("a100", "cublas"), "gpu: 'a100' is not a GPUSpec"),
    "tile_occupancy gpu": (lambda: gpu.tile_occupancy(None, "cublas", (64, 64, 32), (32, 32)),
                           "gpu: None is not a GPUSpec"),
    "workload": (lambda: gpu.workload(0, 2048), "batch: 0 is not allowed"),
    "op_counts": (lambda: lut.op_counts(0, 8, 8, scheme=lut.make_scheme("symmetric", 4, 2)),
                  "m: 0 is not allowed"),
    "lmma_instructions": (lambda: lut.lmma_instructions(4, -1, 8, LMMA), "n: -1 is not allowed"),
    "LMMA": (lambda: lut.LMMA(m=2.0), "LMMA m: 2.0 is not allowed"),
    "group_activations": (lambda: lut.group_activations(A, 0), "k: 0 is not allowed"),
    "symmetric_quantize": (lambda: lut.symmetric_quantize(A, 1), "bits: 1 is not allowed"),
    "mpgemm codes": (lambda: lut.mpgemm(A, W + 4, w_bits=2), r"w: 4 \(at index \[0, 0\]"),
    "mpgemm scale": (lambda: lut.mpgemm(A, W, w_bits=2, scale=NAN), "scale: nan is not allowed"),
    "lut_gemm zero": (lambda: lut.lut_gemm(A, W, lut.make_scheme("naive", 2, 2), zero=np.inf,
                                           lookup="gather"), "zero: inf is not allowed"),
    "tiled_mpgemm": (lambda: lut.tiled_mpgemm(A, W, LMMA, scale=[1.0, NAN, 1.0, 1.0]),
                     r"scale: nan \(at index \[1\]"),
    "unpack_ternary": (lambda: lut.unpack_ternary([14]), "magnitude field above 13"),
    "footprint_bytes": (lambda: snitch.footprint_bytes("fp8_simd_fma", -8, 8, 8),
                        "m: -8 is not allowed"),
    "run_gemm": (lambda: snitch.run_gemm("fp8_simd_fma", np.full((8, 8), 1.5),
                                         np.ones((8, 8), np.uint8)),
                 "run_gemm a_bits: fp8 bit patterns must be integers"),
    "convert": (lambda: nm.convert([0x100], "fp8", "fp16"), "convert bits: 256"),
    "decode": (lambda: nm.decode([-1], "fp16"), "decode bits: -1"),
    "exfma": (lambda: nm.exfma(1, 1, 0x10000, src="fp16", dst="fp16"), "exfma c: 65536"),
    "exvsum": (lambda: nm.exvsum(1, 2.0, 3, src="fp8", dst="fp16"), "exvsum c: fp8 bit patterns "
                                                                    "must be integers"),
    "exfma_cascade": (lambda: nm.exfma_cascade(1, 1, 1, 1, 1 << 16, src="fp8", dst="fp16"),
                      "exfma c: 65536"),
    "vsum": (lambda: nm.vsum(1, 2, 1 << 16, fmt="fp16"), "vsum e: 65536"),
    "flush_operand": (lambda: nm.flush_operand([70000]), "flush_operand bits: 70000"),
    "fp_add_ftz": (lambda: nm.fp_add_ftz(1, 0.5), "fp_add_ftz y: fp16 bit patterns must be"),
    "accumulate_dot": (lambda: nm.accumulate_dot(np.full(2, 300), np.ones(2, int), src="fp8",
                                                 dst="fp16", unit="fp64"),
                       "accumulate_dot a: 300"),
}


@pytest.mark.parametrize("case", OTHERS)
def test_public_functions_refuse_bad_sizes_codes_and_patterns(case):
    call, message = OTHERS[case]
    with pytest.raises(TypeError if "GPUSpec" in message else ValueError, match=message):
        call()


def test_a_public_call_checks_its_own_arguments_once_not_its_blocks(monkeypatch):
    calls = []
    real = check.integers

    def spy(name, *args, **kwargs):  # the checks that run, not those that step aside
        if getattr(check._DEPTH, "value", 0) <= 1:
            calls.append(name)
        return real(name, *args, **kwargs)
    monkeypatch.setattr(check, "integers", spy)
    ppa.tensor_core("mac", "fp16", "int2", 2, 64, 4)
    assert calls == ["m", "n", "k"]  # the builders' hundreds of blocks: none
    calls.clear()
    ppa.array_multiplier(8, 4)
    assert calls == ["array_multiplier n_bits", "array_multiplier m_bits"]
    with pytest.raises(ValueError, match="m: 0"):  # the nesting ends with the call, even raising
        ppa.tensor_core("mac", "fp16", "int2", 0, 64, 4)
    with pytest.raises(ValueError, match="ripple_adder bits: -1"):
        ppa.ripple_adder(-1)


def test_traced_values_pass_unchecked_so_compiled_code_has_no_check():
    """Under jit the checks see tracers and step aside: sizes and patterns computed inside a
    traced function are the caller's to check, once, outside."""
    area = jax.jit(lambda m: ppa.tensor_core("mac", "int8", "int2", m, 4, 4).area)(2.0)
    assert float(area) == float(ppa.tensor_core("mac", "int8", "int2", 2, 4, 4).area)
    seconds = jax.jit(lambda m: gpu.gemm_latency(gpu.A100, "cublas", m, 64, 64).seconds)(16.0)
    assert float(seconds) == float(gpu.gemm_latency(gpu.A100, "cublas", 16, 64, 64).seconds)
    traced = jax.jit(lambda x: nm.to_float64(x, "fp8"))(np.array([0x3C], np.uint8))
    assert float(traced[0]) == 1.0


@pytest.mark.parametrize("value, fine", [
    (3, True), (3.0, True), (np.arange(1, 4), True), (np.array([1.0, 2.0]), True),
    (0, False), (-1, False), (2.5, False), (np.inf, False), (True, False), ("3", False),
    (None, False), (np.array([1, 0]), False), ([1, 2.5], False),
])
def test_integers_accepts_integral_reals_only(value, fine):
    if fine:
        assert check.integers("x", value) is value
    else:
        with pytest.raises(ValueError, match=r"^x: .* is not allowed; allowed values: integers"):
            check.integers("x", value)


def test_codes_and_patterns_read_the_dtype_before_the_values():
    assert check.codes("w", np.full(3, 255, np.uint8), 256) is not None  # uint8 holds 0..255
    with pytest.raises(ValueError, match=r"w: 4 \(at index \[2\] of shape \(3,\)\)"):
        check.codes("w", jax.numpy.array([0, 1, 4]), 4)  # a device array: its bounds only
    with pytest.raises(ValueError, match="must be integers"):
        check.codes("w", np.ones(2), 4)
    fp8 = nm.FORMATS["fp8"]
    assert check.patterns("a", np.array([-128, 127], np.int8), fp8) is not None
    with pytest.raises(ValueError, match=r"a: -1 .* allowed values: integer fp8_e5m2 bit "
                       r"patterns .* from_float64\(x, 'fp8_e5m2'\)"):  # the record's own name
        check.patterns("a", np.array([-1], np.int16), fp8)
    with pytest.raises(ValueError, match=r"allowed values: integer fp8 bit patterns .* "
                       r"from_float64\(x, 'fp8'\)"):  # the name numerics.FORMATS calls it
        check.patterns("a", np.array([-1], np.int16), fp8, label=nm.FORMATS.label(fp8))


def test_finite_and_instance():
    assert check.finite("f", 1e300) == 1e300
    with pytest.raises(ValueError, match=r"^f: -1.0 is not allowed; allowed values: finite "
                                         r"numbers > 0$"):
        check.finite("f", -1.0, above=0)
    with pytest.raises(ValueError, match=r"^f: nan \(at index \[1\] of shape \(2,\)\) is not "
                                         r"allowed; allowed values: finite numbers in \[0, 1\]$"):
        check.finite("f", np.array([0.5, NAN]), min=0, max=1)
    with pytest.raises(TypeError, match="g: 3 is not a GPUSpec; allowed values: a spec"):
        check.instance("g", 3, gpu.GPUSpec, "a spec")


def test_named_returns_a_record_as_it_is_else_looks_up_its_name_else_names_the_allowed():
    table = {"a100": gpu.A100, "h100": gpu.H100}
    toy = dataclasses.replace(gpu.A100, name="toy")  # not registered: passes as it is
    assert check.named(table, toy, what="GPU", record=gpu.GPUSpec) is toy
    assert check.named(table, "h100", what="GPU", record=gpu.GPUSpec) is gpu.H100
    with pytest.raises(ValueError, match=r"^unknown GPU 'a200'; allowed values: a100, h100, "
                                         r"or a GPUSpec$"):
        check.named(table, "a200", what="GPU", record=gpu.GPUSpec)
    with pytest.raises(ValueError, match=r"^unknown GPU \['a100'\]; allowed values: a100, "
                                         r"h100$"):  # unhashable; no record type: names only
        check.named(table, ["a100"], what="GPU")
    with pytest.raises(ValueError, match="unknown GPU 3"):  # another record's kind is a name
        check.named(table, 3, what="GPU", record=gpu.GPUSpec)


@pytest.mark.parametrize("lookup,name,record,bad,match", [
    (ppa.blocks.boundary_named, "paper", ppa.Boundary, "chip",
     "unknown boundary 'chip'; allowed values: paper, full, or a Boundary"),
    (ppa.library, "nangate45", ppa.CellLibrary, "tsmc28",
     "unknown library 'tsmc28'; allowed values: nangate45, asap7, or a CellLibrary"),
    (gpu.gpu_spec, "a100", gpu.GPUSpec, "a200", "unknown GPU 'a200'; allowed values: a100, "),
    (gpu.llm_shape, "opt-175b", gpu.LLMShape, "gpt-5",
     "unknown LLM 'gpt-5'; allowed values: opt-175b, "),
    (gpu.blocks.kernel_record, "cublas", gpu.Kernel, "magic",
     "unknown kernel 'magic'; allowed values: cublas, "),
    (snitch.kernel_spec, "fp64_fma", snitch.KernelSpec, "fp4_fma",
     "unknown kernel 'fp4_fma'; allowed values: fp64_fma, "),
])
def test_each_registry_lookup_is_one_named_call(lookup, name, record, bad, match):
    found = lookup(name)
    assert isinstance(found, record) and lookup(found) is found
    with pytest.raises(ValueError, match=re.escape(match)):
        lookup(bad)


def test_a_lane_is_looked_up_by_name_with_its_allowed_names():
    lane = nm.blocks.SDOTP_LANES[0]
    assert nm.blocks.lane_widths(lane.name) == nm.blocks.lane_widths(lane)
    with pytest.raises(ValueError, match="unknown SDOTP lane '4->8'; allowed values: 8->16, "
                                         "16->32, or a SdotpLane"):
        nm.blocks.lane_widths("4->8")


def test_one_of_returns_a_choice_or_names_the_allowed_ones():
    assert check.one_of("lookup", "gather", lut.LOOKUPS) == "gather"
    with pytest.raises(ValueError, match=r"^lookup 'scan' unknown; allowed values: "
                                         + re.escape(", ".join(lut.LOOKUPS)) + "$"):
        check.one_of("lookup", "scan", lut.LOOKUPS)
    with pytest.raises(ValueError, match=r"^scale \[2\] unknown; allowed values: 1, 2$"):
        check.one_of("scale", [2], {1: "a", 2: "b"})  # unhashable against a mapping
    with pytest.raises(ValueError, match="adder 'kogge' unknown; allowed values: ripple"):
        ppa.blocks.bind("nangate45", "kogge")

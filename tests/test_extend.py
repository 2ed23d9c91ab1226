"""Extending lutcore by records: a new design boundary, format, GPU and experiment, each added at
test time and run through the package's entry points."""

import dataclasses
import json
import sys
import types

import matplotlib.pyplot as plt
import ml_dtypes
import numpy as np
import pytest
import xarray as xr

import experiments
import lutcore.numerics as nm
from experiments import Experiment, _framework, make_config, markdown_table, paper_claim, reference
from lutcore import gpu, llm, lut, ppa, snitch

from conftest import ROOT

sys.path.insert(0, str(ROOT / "workflow" / "scripts"))
import build_report  # noqa: E402
import run_experiment  # noqa: E402


def test_a_boundary_is_a_record_and_a_new_one_is_priced_by_tensor_core():
    full = ppa.BOUNDARY["full"]
    by_name = ppa.tensor_core("unpu", "int8", "int2", 2, 8, 4, boundary="full")
    by_record = ppa.tensor_core("unpu", "int8", "int2", 2, 8, 4, boundary=full)
    np.testing.assert_array_equal(by_name.area, by_record.area)
    # a boundary whose units hold no operand registers: the full one with them left out
    bare = dataclasses.replace(full, name="bare", operand_registers=False)
    left_out = ppa.tensor_core("unpu", "int8", "int2", 2, 8, 4, boundary="full",
                               operand_registers=False)
    bare_cost = ppa.tensor_core("unpu", "int8", "int2", 2, 8, 4, boundary=bare)
    assert bare_cost.area < by_record.area
    # the bare record leaves the accumulators out too; the option keeps them
    acc_bits = 2 * 8 * 32
    np.testing.assert_allclose(
        left_out.parts["registers"].area() - bare_cost.parts["registers"].area(),
        acc_bits * ppa.library("nangate45").cell("DFF").area)


# A new number format: one record (here OCP-style E3M4 with IEEE specials, which ml_dtypes has).
TOY_FORMAT = nm.Format(3, 4, "fp8_e3m4", ml_dtype_name="float8_e3m4")


def test_a_new_format_flows_through_numerics():
    fmt = TOY_FORMAT
    assert (fmt.max_value, fmt.min_normal, fmt.min_subnormal) == (15.5, 0.25, 2.0 ** -6)
    bits = np.arange(256, dtype=np.uint8)
    ours = np.asarray(nm.to_float64(bits, fmt))
    with np.errstate(invalid="ignore"):
        ref = bits.view(ml_dtypes.float8_e3m4).astype(np.float64)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    np.testing.assert_array_equal(ours[~np.isnan(ref)], ref[~np.isnan(ref)])
    x = np.random.default_rng(29).normal(0, 4, 1000)
    np.testing.assert_array_equal(np.asarray(nm.from_float64(x, fmt)),
                                  x.astype(ml_dtypes.float8_e3m4).view(np.uint8))
    # a fused dot product into FP16, exact then rounded once: 1.5 * 2 + 0.25 * 4 + 1 = 5
    a, b, c, d = (np.asarray(nm.from_float64(v, fmt)) for v in (1.5, 2.0, 0.25, 4.0))
    e = np.asarray(nm.from_float64(1.0, "fp16"))
    assert float(nm.to_float64(nm.exsdotp(a, b, c, d, e, src=fmt, dst="fp16"), "fp16")) == 5.0


def test_a_new_format_flows_through_lut():
    rng = np.random.default_rng(2029)
    a = rng.normal(0, 2, (2, 8))
    w = rng.integers(0, 4, (8, 8))
    instr = lut.LMMA(m=2, n=8, k=4, a_dtype=TOY_FORMAT, w_dtype="int2", accum="fp32", out="fp32")
    ours = np.asarray(lut.tiled_mpgemm(a, w, instr, zero=1.5))
    rounded = a.astype(ml_dtypes.float8_e3m4).astype(np.float64)
    np.testing.assert_array_equal(ours, rounded @ (w - 1.5).T)  # few terms: exact in FP32
    assert instr.mnemonic == "lmma.m2n8k4.fp8_e3m4.int2.fp32.fp32"


def test_a_new_format_flows_through_ppa():
    twin = ppa.tensor_core("mac", nm.Format(4, 3, "e4m3"), "int4", 2, 8, 4, boundary="full")
    fp8 = ppa.tensor_core("mac", "fp8", "int4", 2, 8, 4, boundary="full")
    np.testing.assert_array_equal(twin.area, fp8.area)  # priced by its fields, not its name
    toy = ppa.tensor_core("mac", TOY_FORMAT, "int4", 2, 8, 4, boundary="full")
    assert toy.area > fp8.area  # a 5-bit significand multiplier outweighs a 4-bit one
    both = ppa.tensor_core("mac", (TOY_FORMAT, "fp8"), ("int4", "int4"), 2, 8, 4)
    np.testing.assert_array_equal(both.area, [toy_paper.area for toy_paper in (
        ppa.tensor_core("mac", TOY_FORMAT, "int4", 2, 8, 4),
        ppa.tensor_core("mac", "fp8", "int4", 2, 8, 4))])


def test_a_new_gpu_is_one_record_priced_by_gemm_latency_and_model_latency(monkeypatch):
    twin = dataclasses.replace(gpu.A100, name="a100-twin")
    half = dataclasses.replace(gpu.A100, name="a100-half", sms=gpu.A100.sms // 2)
    shape = (4096, 4096, 4096)  # compute-bound on A100
    seconds = {s.name: float(gpu.gemm_latency(s, "cublas", *shape).seconds)
               for s in (gpu.A100, twin, half)}
    assert seconds["a100-twin"] == seconds["a100"]  # priced by its fields, not its name
    # half the SMs: the MMAs take twice as long, the store after them (DRAM-bound) does not
    assert 1.7 < seconds["a100-half"] / seconds["a100"] < 2.0
    llm, work = gpu.llm_shape("llama2-70b"), gpu.workload(1, 2048)
    deployment = gpu.Deployment()
    forward = {s.name: float(gpu.model_latency(s, llm, deployment, work)) for s in (gpu.A100, twin)}
    assert forward["a100-twin"] == forward["a100"]
    assert float(gpu.model_latency(half, llm, deployment, work)) > forward["a100"]
    # registered, it is listed by what its tensor cores take
    monkeypatch.setitem(gpu.GPUS, "a100-half", half)
    assert "a100-half" in gpu.gpus_with("fp16", "int8")
    assert "a100-half" not in gpu.gpus_with("fp8")
    assert gpu.gpu_spec("a100-half") is half


TOY_REFERENCE = """paper: A toy paper
experiments:
  toy-sum:
    sum: {statement: "one plus one is two", source: "Eq. 1", value: 2}
"""


@dataclasses.dataclass(frozen=True)
class ToyConfig:
    terms: tuple[float, ...] = (1.0, 1.0)


def _toy_run(config):
    return xr.Dataset({"total": ((), float(np.sum(config.terms)))})


def _toy_plot(ds):
    figure, ax = plt.subplots()
    ax.bar([0], [float(ds.total)])
    return figure


def _toy_claims(ds):
    paper = reference(TOY.paper, TOY.id, "sum").value
    return [paper_claim(TOY, "sum", ours=f"{float(ds.total):g}", holds=float(ds.total) == paper)]


TOY = Experiment(id="toy-sum", title="One plus one (Toy Eq. 1)", paper="toy", claim_keys=("sum",),
                 config=ToyConfig, run=_toy_run, plot=_toy_plot,
                 table=lambda ds: markdown_table(["total"], [[float(ds.total)]]),
                 claims=_toy_claims)


def test_a_new_experiment_is_one_record_run_plotted_claimed_and_reported(tmp_path, monkeypatch):
    (tmp_path / "toy.yaml").write_text(TOY_REFERENCE)
    monkeypatch.setattr(_framework, "REFERENCE_DIR", tmp_path)
    _framework._reference_file.cache_clear()
    module = types.ModuleType("toy_experiment")
    module.EXPERIMENT = TOY
    monkeypatch.setitem(sys.modules, "toy_experiment", module)
    index = {"toy-sum": _framework.Description("toy-sum", "toy", TOY.title, "toy_experiment")}
    monkeypatch.setattr(_framework, "_index", lambda: index)
    monkeypatch.setattr(run_experiment, "use_cache", lambda results: None)  # no JAX cache here
    try:
        assert experiments.get("toy-sum") is TOY
        results = tmp_path / "results"
        paths = run_experiment.output_paths(results, "toy-sum", ["png"])
        run_experiment.produce(TOY, make_config(TOY, {"terms": [1, 1]}), paths)
        build_report.main(["--results", str(results), "--preset", "quick"])
    finally:
        _framework._reference_file.cache_clear()
    claims = json.loads(paths["claims"].read_text())
    assert [(c["claim"], c["verdict"], c["ours"]) for c in claims] == [("sum", "holds", "2")]
    report = (results / "REPORT.md").read_text()
    assert "### toy-sum: One plus one (Toy Eq. 1)" in report
    assert "| sum | one plus one is two [2] (Eq. 1) | 2 |" in report


def test_a_new_cell_library_is_one_record_priced_by_tensor_core():
    nangate = ppa.library("nangate45")
    double = nangate._replace(name="double", cells=tuple(c._replace(area=2 * c.area)
                                                         for c in nangate.cells))
    base = ppa.tensor_core("lut_tensor_core", "fp16", "int2", 2, 64, 4, library=nangate)
    toy = ppa.tensor_core("lut_tensor_core", "fp16", "int2", 2, 64, 4, library=double)
    np.testing.assert_allclose(toy.area, 2 * base.area, rtol=1e-12)
    np.testing.assert_array_equal(toy.delay, base.delay)


def test_each_package_shows_its_entry_points_and_keeps_its_building_blocks_reachable():
    from lutcore.ppa import synth

    for package in (nm, lut, ppa, synth, gpu, llm, snitch):
        face = set(package.__all__)
        homes = [home for home in (getattr(package, "blocks", None),
                                   getattr(package, "minifloat", None))
                 if isinstance(home, types.ModuleType)]
        assert len(face) <= 25, package.__name__
        for home in homes:
            assert not face & set(home.__all__), home.__name__  # each name shown once
            for name in home.__all__:  # the former path still reaches it
                assert getattr(package, name) is getattr(home, name)
    with pytest.raises(AttributeError, match="has no attribute 'ripple_carry'"):
        _ = ppa.ripple_carry
    from lutcore.gpu import tile_occupancy  # a former import path, now gpu.blocks'

    assert tile_occupancy is gpu.blocks.tile_occupancy
    with pytest.raises(AttributeError, match="'lutcore.gpu' has no attribute 'tile_ocupancy'"):
        _ = gpu.tile_ocupancy

"""lut-fig16's cross-source evidence (experiments/lut_tensor_core/_cross_source.py): which rows
of two measured files pair, and the times and disagreement each pair carries."""

import numpy as np
import pytest
import xarray as xr
import yaml

from experiments import get
from experiments.lut_tensor_core import _cross_source, _measured

FIG16 = get("lut-fig16").module
PROTOCOL = {"timing": "device"}
LLAMA_8B = {"hidden": 4096, "ffn": 14336, "heads": 32, "kv_heads": 8, "gated": True,
            "tensor_parallel": 1}


def _files():
    """Three made-up files: FP16 GEMMs, BF16 and INT8 GEMMs, and one HF-eager layer."""
    return {
        "a.yaml": {"role": "calibration", "device": "h100", "protocol": PROTOCOL, "sets": [
            {"name": "fp16", "kind": "gemm", "act": "fp16", "columns": ["m", "n", "k", "ms"],
             "points": [[8, 4096, 4096, 0.020], [16, 4096, 4096, 0.030]]}]},
        "b.yaml": {"role": "validation", "device": "h100", "protocol": {"timing": "host"},
                   "sets": [
            {"name": "bf16", "kind": "gemm", "act": "bf16", "columns": ["m", "n", "k", "us"],
             "points": [[8, 4096, 4096, 25.0]]},
            {"name": "int8", "kind": "gemm", "act": "int8", "inputs": "zeros",
             "columns": ["m", "n", "k", "ms"], "points": [[8, 4096, 4096, 0.010]]}]},
        "c.yaml": {"role": "validation", "device": "h100", "protocol": PROTOCOL, "sets": [
            {"name": "layer", "kind": "layer_operators", "model": LLAMA_8B,
             "deployment": {"preset": "hf_eager"},
             "columns": ["tokens", "q_projection", "kv_projection", "output_projection"],
             "points": [[8, 16e-6, 40e-6, 32e-6]]}]},
    }


def test_pairs_match_gpu_shape_and_format_across_files_only():
    files = _files()
    pairs = _cross_source.pairs(sorted(files), load=files.__getitem__)
    found = sorted((p.a.source, p.a.set, p.b.source, p.b.set, round(p.apart, 12)) for p in pairs)
    # FP16 and BF16 pair (one rate); INT8 pairs with nothing; the k/v projection (two GEMMs in
    # one time) is left out; the q and output projections (4096 x 4096, m = 8 tokens) pair
    # with both GEMM files but not with each other (same file); M 16 has no partner
    assert found == [
        ("a.yaml", "fp16", "b.yaml", "bf16", 0.25),
        ("a.yaml", "fp16", "c.yaml", "layer: output_projection", 0.6),
        ("b.yaml", "bf16", "c.yaml", "layer: output_projection", 0.28),
        ("c.yaml", "layer: q_projection", "a.yaml", "fp16", 0.25),
        ("c.yaml", "layer: q_projection", "b.yaml", "bf16", 0.5625),
    ]
    assert all(p.a.key == p.b.key == ("h100", 8, 4096, 4096, "16-bit", "dense") for p in pairs)
    like = {(p.a.set, p.b.set): _cross_source.like_for_like(p) for p in pairs}
    assert like[("fp16", "layer: output_projection")]  # both device-timed, random
    assert not like[("fp16", "bf16")]  # b.yaml is host-timed


def test_real_pair_carries_the_transcribed_times():
    """SGLang's cuBLAS BF16 (aiconfigurator) and LLMCompass's BF16 sweep both time 8192^3 on the
    A100 SXM4: the pair holds the two files' own numbers."""
    def rows(name, set_name):
        data = yaml.safe_load((_measured.MEASURED_DIR / name).read_text())
        entry = next(e for e in data["sets"] if e["name"] == set_name)
        return {tuple(p[:3]): p[-1] for p in entry["points"]}

    sglang_file = "aiconfigurator_a100_sxm_sglang.yaml"
    sglang = rows(sglang_file, "bfloat16 N8192 K8192")[(8192, 8192, 8192)]
    sweep = rows("llmcompass_a100.yaml", "GEMM sweeps")[(8192, 8192, 8192)]
    pairs = [p for p in _cross_source.pairs(["llmcompass_a100.yaml", sglang_file])
             if p.a.key[1:4] == (8192, 8192, 8192)]
    assert len(pairs) == 1
    times = {t.source: t.seconds for t in pairs[0][:2]}
    unit = {"us": 1e-6, "ms": 1e-3}
    columns = {n: next(e for e in _measured.load(n)["sets"] if "points" in e)["columns"][-1]
               for n in (sglang_file, "llmcompass_a100.yaml")}
    assert times[sglang_file] == pytest.approx(sglang * unit[columns[sglang_file]], rel=1e-12)
    assert times["llmcompass_a100.yaml"] == pytest.approx(
        sweep * unit[columns["llmcompass_a100.yaml"]], rel=1e-12)


def test_a_gpu_pairs_only_with_itself():
    """mlc-benchmark's A100 is the PCIe card: its 8192^3 cuBLAS FP16 row pairs with no A100
    SXM4 file's 8192^3, and its GEMVs pair with Vidur's PCIe card's."""
    names = ["llmcompass_a100.yaml", "mlcbench_a100.yaml", "vidur_a100.yaml"]
    pairs = _cross_source.pairs(names)
    assert not [p for p in pairs if "mlcbench_a100.yaml" in (p.a.source, p.b.source)
                and "llmcompass_a100.yaml" in (p.a.source, p.b.source)]
    gemvs = [p for p in pairs if p.a.key[:4] == ("a100-pcie", 1, 8192, 8192)]
    assert gemvs and {p.a.source for p in gemvs} | {p.b.source for p in gemvs} == {
        "mlcbench_a100.yaml", "vidur_a100.yaml"}


def test_fig16_cross_source_table_flags_pairs_above_the_bound(monkeypatch):
    files = _files()
    pairs = _cross_source.pairs(sorted(files), load=files.__getitem__)
    monkeypatch.setattr(_cross_source, "pairs", lambda sources: pairs)
    ds = xr.Dataset(FIG16.cross_source(sorted(files)))
    np.testing.assert_allclose(sorted(ds.pair_apart.values), [25, 25, 28, 56.25, 60])
    text = FIG16.cross_source_table(ds)
    assert "5 pairs, above the bound: h100 5" in text  # every pair beyond the dense 8 %
    # like for like: the two pairs between the device-timed files a and c
    assert "h100 gemm: 2 of 2 above 8 %, largest 60.0 %" in text


def test_a_different_epilogue_is_not_like_for_like(monkeypatch):
    """Two device-timed random-operand INT8 GEMMs of one shape pair (same GPU, shape, formats),
    but one writes INT32 and reads C first (beta != 0), the other writes FP16: not like for
    like, and the side says what it writes."""
    rows = {"columns": ["m", "n", "k", "ms"], "points": [[8192, 8192, 8192, 2.0]]}
    files = {"x.yaml": {"role": "calibration", "device": "a100", "protocol": PROTOCOL, "sets": [
                 {"name": "sq", "kind": "gemm", "act": "int8", **rows}]},
             "y.yaml": {"role": "validation", "device": "a100", "protocol": PROTOCOL, "sets": [
                 {"name": "cublas", "kind": "gemm", "act": "int8", "output": "int32",
                  "reads_c": True, **rows}]}}
    (pair,) = _cross_source.pairs(sorted(files), load=files.__getitem__)
    assert {pair.a.epilogue, pair.b.epilogue} == {"fp16", "int32 + C read"}
    assert not _cross_source.like_for_like(pair)
    same = _cross_source.Pair(pair.a, pair.a._replace(source="z.yaml"), 0.0)
    assert _cross_source.like_for_like(same)
    monkeypatch.setattr(_cross_source, "pairs", lambda sources: [pair])
    ds = xr.Dataset(FIG16.cross_source(sorted(files)))
    side = "a" if pair.a.set == "cublas" else "b"
    assert FIG16._side(ds, side, 0).endswith("(random, device, writes int32 + C read)")

"""Experiment lut-table5: config errors, claims and table on constructed data (the real model
runs in the quick preset of tests/test_pipeline.py)."""

import numpy as np
import pytest
import xarray as xr

from experiments import ConfigError, get, make_config
from experiments._framework import reference

TABLE5 = get("lut-table5")
PATHS = ["dense-fp16", "dense-bf16", "dense-act-int8", "lut-exact", "lut-int8"]


def constructed(perplexity: dict[str, list[float]]) -> xr.Dataset:
    """A dataset of the experiment's shape with the given perplexities per weight setting."""
    weights = list(perplexity)
    ppl = np.array([perplexity[w] for w in weights])
    return xr.Dataset(
        {"perplexity": (("weights", "path"), ppl),
         "accuracy": (("weights", "path"), np.full(ppl.shape, 0.4))},
        coords={"weights": weights, "path": PATHS},
        attrs={"split": "constructed", "weights_note": "constructed", "tokens_scored": 100,
               "vocab_size": 500})


def test_claims_hold_within_one_percent_and_fail_beyond():
    ds = constructed({"q4_1": [10.0, 10.01, 10.3, 10.0, 10.05],
                      "int4": [12.0, 12.0, 12.5, 12.0, 12.06],
                      "int2": [900.0, 901.0, 950.0, 900.0, 920.0]})
    claims = {c.claim: c for c in TABLE5.claims(ds)}
    assert {k: (c.verdict, c.holds) for k, c in claims.items()} == {
        "zero_shot_average": ("paper-inconsistent", False),
        "int8_tables_int4": ("finding", True),  # ours: Table 5 has no 4-bit row
        "int8_tables_int2": ("not-testable-here", False),  # needs the 2-bit QAT model
        "task_accuracy": ("not-testable-here", False),
        "lut_exact_is_the_product": ("holds", True),
        "tables_finer_than_activation_int8": ("holds", True)}
    assert "q4_1: 10.0000 -> 10.0500 (+0.500 %)" in claims["int8_tables_int4"].ours
    assert "int2: 900.0000 -> 920.0000 (+2.222 %) (paper +0.13 %)" in claims[
        "int8_tables_int2"].ours
    assert "QAT" in claims["int8_tables_int2"].reason
    assert "worse than a uniform guess" in claims["int8_tables_int2"].ours
    beyond = constructed({"int4": [12.0, 12.0, 12.5, 12.0, 12.2]})
    assert not {c.claim: c for c in TABLE5.claims(beyond)}["int8_tables_int4"].holds


def test_zero_shot_average_is_recomputed_from_the_row():
    rows = {name: (mean, printed) for name, mean, printed in TABLE5.module.zero_shot_averages()}
    assert rows["LLAMA2-7B W_FP16 A_FP16 [65]"] == (62.7, 62.7)
    assert rows["LLAMA2-7B W_INT2 A_FP16 [14]"] == (56.4, 56.4)  # 282.1 / 5 = 56.42
    assert rows["LLAMA-3B W_FP16 A_FP16 [44]"] == (52.0, 49.7)  # 260.0 / 5, printed 49.7
    claim = TABLE5.claims(constructed({"q4_1": [10.0] * 5}).sel(path=["lut-int8"]))[0]
    assert claim.claim == "zero_shot_average" and "LLAMA-3B" in claim.reason


def test_rounding_noise_is_reported_as_its_level_not_its_digits():
    ds = constructed({"q4_1": [10.0, 10.01, 10.3, 10.0 * (1 - 2e-16), 10.05],
                      "int4": [12.0, 12.0, 12.5, 12.0 * (1 + 4e-16), 12.06]})
    claim = {c.claim: c for c in TABLE5.claims(ds)}["lut_exact_is_the_product"]
    assert claim.holds and "< 1e-12 over q4_1, int4" in claim.ours
    assert "| q4_1 | lut-exact | 10.0000 | 0.000 % |" in TABLE5.table(ds)  # no sign: noise
    off = constructed({"q4_1": [10.0, 10.01, 10.3, 10.0 * (1 + 3e-9), 10.05]})
    claim = {c.claim: c for c in TABLE5.claims(off)}["lut_exact_is_the_product"]
    assert not claim.holds and "<= 3.0e-09" in claim.ours


def test_claims_only_for_what_was_computed():
    ds = constructed({"q4_1": [10.0, 10.01, 10.3, 10.0, 10.05]}).sel(
        path=["dense-fp16", "lut-int8"])
    assert [c.claim for c in TABLE5.claims(ds)] == ["zero_shot_average", "int8_tables_int4",
                                                    "task_accuracy"]
    assert [c.claim for c in TABLE5.claims(ds.sel(path=["lut-int8"]))] == ["zero_shot_average"]


def test_table_shows_paper_and_ours_side_by_side():
    ds = constructed({"int4": [12.0, 12.0, 12.5, 12.0, 12.06]})
    text = TABLE5.table(ds)
    fp16, int8 = reference("lut_tensor_core", "lut-table5", "int8_tables_int2").value
    assert f"| {fp16:.2f} | {int8:.2f} |" in text and "QAT" in text
    assert "| ours: SmolLM2-135M, int4 (PTQ), KJV | 12.0000 | 12.0600 | +0.500 % |" in text


@pytest.mark.parametrize("params,match", [
    ({"weights": ["int3"]}, "weights: .* allowed values: q4_1, int4, int2"),
    ({"paths": ["lut-int4"]}, "paths: .* allowed values: dense-fp16"),
    ({"group_size": 48}, "group_size: 48 not allowed; allowed values: 16, 32, 64"),
    ({"book": "Hezekiah"}, "book: 'Hezekiah' not allowed; allowed values: Genesis"),
    ({"window": 1}, "window: must be in 2..2048"),
    ({"windows": 0}, "windows: must be positive"),
    ({"weights": ["q4_1", "q4_1"]}, "each value at most once"),
])
def test_config_errors_name_the_key(params, match):
    with pytest.raises(ConfigError, match=match):
        make_config(TABLE5, params)


def test_weight_error_is_the_relative_frobenius_norm():
    """Against math.fsum over every weight; the shipped setting is exactly 0."""
    import math

    from test_llm import tiny_checkpoint

    import lutcore.llm as llm
    from experiments.lut_tensor_core.table5_perplexity import weight_setting

    checkpoint = tiny_checkpoint()
    assert weight_setting(checkpoint, "q4_1", 16) == (checkpoint, 0.0)
    setting, error = weight_setting(checkpoint, "int2", 16)
    for name, w in checkpoint.linears.items():  # each layer re-quantized from its dequantized W
        want_layer = llm.quantize_rtn(w.dequantize(), 2, 16)
        assert all(np.array_equal(getattr(setting.linears[name], f), getattr(want_layer, f))
                   for f in ("codes", "scale", "zero"))
    pairs = [(float(a), float(b)) for name, w in checkpoint.linears.items()
             for a, b in zip(setting.linears[name].dequantize().ravel(), w.dequantize().ravel())]
    want = math.sqrt(math.fsum((a - b) ** 2 for a, b in pairs) / math.fsum(b * b for _, b in pairs))
    assert want > 0.01 and error == pytest.approx(want, rel=1e-12)

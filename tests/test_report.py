"""The report builder on synthetic claims: counts by verdict, one section per verdict, coverage,
claims.json, and byte-identical output (no experiment runs)."""

import json
import sys

import pytest

from experiments._framework import reference_entries

from conftest import ROOT

sys.path.insert(0, str(ROOT / "workflow" / "scripts"))
import build_report  # noqa: E402

IDS = ("lut-fig3", "mfnn-fig1")


def claim(experiment, key, verdict, holds=False, **extra):
    return {"experiment": experiment, "claim": key, "paper": f"paper says {key}",
            "ours": f"ours for {key}", "holds": holds, "tolerance": "", "deviation": "",
            "verdict": verdict, "reason": "", **extra}


CLAIMS = {
    "lut-fig3": [claim("lut-fig3", "table_entries", "holds", holds=True, paper_value=16.0,
                       ours_value=16.0, band=0.1),
                 claim("lut-fig3", "lookup_replaces_dot_product", "paper-inconsistent",
                       ours="reading A: 16; reading B: 32", reason="Sec. 2 says 16, Fig. 3 32")],
    # written before verdicts existed: no verdict, no reason
    "mfnn-fig1": [{k: v for k, v in claim("mfnn-fig1", "format_widths", "", holds=False,
                                          deviation="off by one").items()
                   if k not in ("verdict", "reason")},
                  claim("mfnn-fig1", "vsum_formats", "not-testable-here",
                        reason="needs Table I's body"),
                  claim("mfnn-fig1", "expanding_pairs", "finding", holds=True,
                        deviation="as hypothesized")],
}


@pytest.fixture
def results(tmp_path):
    for experiment_id in IDS:
        for folder, name, text in (("claims", f"{experiment_id}.json",
                                    json.dumps(CLAIMS[experiment_id])),
                                   ("tables", f"{experiment_id}.md", f"table of {experiment_id}"),
                                   ("figures", f"{experiment_id}.png", "png")):
            (tmp_path / folder).mkdir(exist_ok=True)
            (tmp_path / folder / name).write_text(text)
    build_report.main(["--results", str(tmp_path), "--preset", "quick"])
    return tmp_path


def section(report: str, heading: str) -> str:
    return report.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| ")][1:]  # no header


def test_claims_json_keeps_holds_and_adds_the_verdict(results):
    claims = json.loads((results / "claims.json").read_text())
    assert [c["experiment"] for c in claims] == ["lut-fig3"] * 2 + ["mfnn-fig1"] * 3
    old = claims[2]
    assert old["claim"] == "format_widths" and (old["verdict"], old["reason"]) == ("deviates", "")
    assert all("holds" in c for c in claims)


def test_summary_counts_claims_by_verdict_per_paper(results):
    report = (results / "REPORT.md").read_text()
    assert ("**Preset `quick`: 2 experiments, 5 claims: 1 holds, 1 deviates, "
            "1 paper-inconsistent, 1 not-testable-here, 1 finding.**") in report
    lut = len(reference_entries("lut_tensor_core"))
    assert f"| LUT Tensor Core (Mo et al., ISCA 2025) | {lut} | 2 | 1 | 0 | 1 | 0 | 0 | " in report
    mfnn = len(reference_entries("minifloat_nn"))
    # the finding is ours, not one of the paper's statements nor of their claims
    assert (f"| MiniFloat-NN and ExSdotp (Bertaccini et al., ARITH 2022) | {mfnn - 1} | 2 | 0 | 1 "
            "| 0 | 1 | 1 | ") in report


def test_each_verdict_has_its_own_section(results):
    report = (results / "REPORT.md").read_text()
    deviations = rows(section(report, "Deviations"))
    assert len(deviations) == 1 and deviations[0].startswith("| mfnn-fig1 | format_widths |")
    assert "off by one" in deviations[0]
    (inconsistent,) = rows(section(report, "What no model can reproduce"))
    assert inconsistent == ("| lut-fig3 | lookup_replaces_dot_product | paper says "
                            "lookup_replaces_dot_product | reading A: 16; reading B: 32 | "
                            "Sec. 2 says 16, Fig. 3 32 |")
    (untestable,) = rows(section(report, "Not testable here"))
    assert "| mfnn-fig1 | vsum_formats |" in untestable and "needs Table I's body" in untestable
    (finding,) = rows(section(report, "Findings"))
    assert finding.endswith("| confirmed: as hypothesized |")
    experiment = section(report, "MiniFloat-NN and ExSdotp (Bertaccini et al., ARITH 2022)")
    assert "Claims: 3, 1 deviates, 1 not-testable-here, 1 finding." in experiment
    assert "| ❌ deviates |" in experiment and "| 🔎 finding |" in experiment


def test_coverage_lists_every_transcribed_statement(results):
    report = (results / "REPORT.md").read_text()
    for paper, title in (("lut_tensor_core", "LUT Tensor Core (Mo et al., ISCA 2025)"),
                         ("minifloat_nn", "MiniFloat-NN and ExSdotp (Bertaccini et al., ARITH "
                                          "2022)")):
        table = rows(section(report, f"Coverage: {title}"))
        entries = reference_entries(paper)
        assert len(table) == len(entries)
        for row, (experiment, key, ref) in zip(table, entries):
            assert f"| {experiment}.{key} |" in row
            if ref.pending:
                assert f"pending: {ref.pending}" in row
            elif experiment not in IDS:
                assert row.endswith("| not run |")
    table = rows(section(report, "Coverage: LUT Tensor Core (Mo et al., ISCA 2025)"))
    assert any(r.endswith("| lut-fig3.table_entries | ✅ holds |") for r in table)
    assert any(r.endswith("| lut-fig3.lookup_replaces_dot_product | ⚖️ paper-inconsistent |")
               for r in table)


def test_overview_opens_the_report(results):
    """Counts, then the picture of the numeric claims, then the verdict sections."""
    report = (results / "REPORT.md").read_text()
    head = report.split("\n## ", 1)[0]
    assert "| **All** |" in head and "![paper against lutcore](overview.png)" in head
    assert "Every numeric claim (1 of 5: the paper's number and ours)" in head
    assert (results / "overview.png").read_bytes().startswith(b"\x89PNG")
    numeric = build_report.numeric(json.loads((results / "claims.json").read_text()))
    assert [c["claim"] for c in numeric] == ["table_entries"]
    figure = build_report.overview_figure(numeric)
    (ax,) = figure.axes
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "within 10%", "ours = paper", "holds (1)"]


def test_output_is_deterministic(results):
    before = {p: p.read_bytes() for p in (results / "REPORT.md", results / "claims.json",
                                          results / "overview.png")}
    build_report.main(["--results", str(results), "--preset", "quick"])
    assert all(p.read_bytes() == data for p, data in before.items())


def test_unknown_verdict_is_refused(results):
    (results / "claims" / "lut-fig3.json").write_text(json.dumps(
        [claim("lut-fig3", "table_entries", "probably")]))
    with pytest.raises(ValueError, match="verdict 'probably' unknown"):
        build_report.main(["--results", str(results), "--preset", "quick"])


def validation_data(path):
    """A ``lut-fig16``-shaped dataset: a100 e2e, 10 validation rows at -10 % and +10 % (MAPE
    10 %, bias 0, largest 10 %), 2 calibration rows at 50 %; h100 e2e, 3 validation rows."""
    import numpy as np
    import xarray as xr

    groups = ([("validation", "a100", "e2e", e) for e in (-10.0, 10.0) * 5]
              + [("calibration", "a100", "e2e", 50.0)] * 2
              + [("validation", "h100", "e2e", 30.0)] * 3)
    role, device, category, error = (list(x) for x in zip(*groups))
    measured = np.ones(len(error))
    modeled = measured * (1 + np.array(error) / 100)
    xr.Dataset({"measured": ("point", measured), "modeled": ("point", modeled),
                "error": ("point", np.array(error)), "modeled_tie_fast": ("point", modeled),
                "modeled_tie_slow": ("point", modeled)},
               coords={"point": [f"row {i}" for i in range(len(error))],
                       "role": ("point", role), "device": ("point", device),
                       "category": ("point", category), "source": ("point", ["s"] * len(error))},
               attrs={"tie_margin": 0.01}).to_netcdf(path, engine="h5netcdf")


RESTING = [claim("lut-table1", "max_speedup", "deviates", paper_value=5.51, ours_value=3.06,
                 rests_on=["a100 e2e", "a100 gemm"]),
           claim("lut-table1", "speedup_low_end", "deviates", paper_value=3.3, ours_value=3.06,
                 rests_on=["a100 e2e", "h100 e2e"]),
           claim("lut-table1", "rows", "deviates", rests_on=["a100 e2e"])]


def test_claims_resting_on_the_gpu_model_meet_its_validated_error(tmp_path):
    """Hand-worked: 3.06 / (1 +- 0.10) = 2.78-3.40, so 5.51 lies outside (the gap exceeds the
    model's error) and 3.3 inside; a group of 3 rows does not judge; a group without validation
    rows says so; a claim without numbers is listed without a band."""
    claims = {"lut-fig16": [], "lut-table1": RESTING}
    for experiment_id, own in claims.items():
        for folder, name, text in (("claims", f"{experiment_id}.json", json.dumps(own)),
                                   ("tables", f"{experiment_id}.md", "table"),
                                   ("figures", f"{experiment_id}.png", "png")):
            (tmp_path / folder).mkdir(exist_ok=True)
            (tmp_path / folder / name).write_text(text)
    (tmp_path / "data").mkdir()
    validation_data(tmp_path / "data" / "lut-fig16.nc")
    build_report.main(["--results", str(tmp_path), "--preset", "full"])
    table = rows(section((tmp_path / "REPORT.md").read_text(),
                         "Verdicts against the GPU model's validated error"))
    cells = [[c.strip() for c in r.strip("|").split("|")] for r in table]
    assert [c[1] + " " + c[5] for c in cells] == [
        "max_speedup a100 e2e", "max_speedup a100 gemm", "speedup_low_end a100 e2e",
        "speedup_low_end h100 e2e", "rows a100 e2e"]
    assert cells[0][6:] == ["10", "10.0 % (+0.0 %)", "10.0 %", "2.78-3.4",
                            "no: the gap exceeds the model's validated error"]
    assert cells[1][6:] == ["0", "—", "—", "—",
                            "no validation rows: the model is not validated there"]
    assert cells[2][-1] == "yes: the gap is within the model's validated error"
    assert cells[3][6:9] == ["3", "30.0 % (+30.0 %)", "30.0 %"]
    assert cells[3][-1] == "too few rows to judge (< 10)"
    assert cells[4][3:5] == ["—", "—"] and cells[4][-1] == "not a number to compare"


def test_claims_resting_on_the_gpu_model_without_its_validation(results):
    """A run without lut-fig16 names the claims that rest on the model and says why it cannot
    set them beside its error."""
    (results / "claims" / "lut-fig3.json").write_text(json.dumps(
        [claim("lut-fig3", "table_entries", "holds", holds=True, rests_on=["a100 gemm"])]))
    build_report.main(["--results", str(results), "--preset", "quick"])
    text = section((results / "REPORT.md").read_text(),
                   "Verdicts against the GPU model's validated error")
    assert ("lut-fig16 is not in this run, so the GPU model's validated error is unknown here; "
            "the claims that rest on it: lut-fig3.table_entries.") in text

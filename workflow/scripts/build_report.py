"""Gather every experiment's claims into results/claims.json and write results/REPORT.md.

Snakemake calls this as the ``script:`` of rule ``summary``; from a shell it reads every file in
``<results>/claims/``:

    python workflow/scripts/build_report.py --results results --preset quick

The report opens with an overview: the claims by paper and verdict, and one picture, paper value
against ours for every numeric claim (``overview.png``); then those that deviate, so a
deviation cannot hide further down; then what no model can reproduce (the paper contradicts
itself), what cannot be tested here, our own findings, each experiment, and the coverage of
each paper's statements.
"""

import argparse
import collections
import itertools
import json
import os
import pathlib

import isa  # same folder, like atomic_files; pins the instruction set before numpy loads
from atomic_files import atomic  # same folder: on sys.path as a script and under Snakemake
from report_sources import VALIDATION  # same folder

isa.pin()

from experiments import VERDICTS, describe  # noqa: E402
from experiments._framework import default_verdict, paper_title, reference_entries  # noqa: E402

REQUIRED = ("experiment", "claim", "paper", "ours", "holds")
COLORS = {"holds": "#2ca02c", "deviates": "#d62728", "paper-inconsistent": "#9467bd",
          "not-testable-here": "#7f7f7f", "finding": "#1f77b4"}
LABELS = {"holds": "✅ holds", "deviates": "❌ deviates",
          "paper-inconsistent": "⚖️ paper-inconsistent",
          "not-testable-here": "🚫 not testable here", "finding": "🔎 finding"}
SECTIONS = (  # verdict, heading, sentence, columns (header, field)
    ("deviates", "Deviations",
     "Claims where lutcore disagrees with the paper beyond the tolerance (details in their "
     "experiment's section):",
     (("Paper (value, source)", "paper"), ("lutcore", "ours"), ("Deviation", "deviation"))),
    ("paper-inconsistent", "What no model can reproduce",
     "The paper contradicts itself: its own sentences, and the arithmetic of each reading, "
     "computed by lutcore's models. No model can agree with every reading.",
     (("The paper's sentences (source)", "paper"), ("Each reading, computed", "ours"),
      ("Why", "reason"))),
    ("not-testable-here", "Not testable here",
     "Statements that need what we cannot have offline (named in each row), with what lutcore "
     "computes instead where it can:",
     (("Paper (value, source)", "paper"), ("What it needs", "reason"),
      ("lutcore", "ours"))),
    ("finding", "Findings",
     "Results of our own, not statements of the papers (hypotheses we tested, lutcore's "
     "extensions, the RTL's departures from IEEE 754):",
     (("Hypothesis or extension (source)", "paper"), ("lutcore", "ours"),
      ("Outcome", "outcome"))),
)


def load_claims(files: list[pathlib.Path]) -> list[dict]:
    """All claims, ordered by experiment id, each experiment's claims in its own order; a claim
    written before verdicts existed gets the one its ``holds`` implies."""
    claims = []
    for path in files:
        for claim in json.loads(path.read_text(encoding="utf-8")):
            missing = [k for k in REQUIRED if k not in claim]
            if missing:
                raise ValueError(f"{path}: a claim lacks {', '.join(missing)}: {claim}")
            claim.setdefault("verdict", default_verdict(claim["holds"]))
            claim.setdefault("reason", "")
            if claim["verdict"] not in VERDICTS:
                raise ValueError(f"{path}: verdict {claim['verdict']!r} unknown: {claim}")
            claims.append(claim)
    return sorted(claims, key=lambda c: c["experiment"])  # stable: keeps the paper's order


def cell(text) -> str:
    """One Markdown table cell: no line breaks, pipes escaped."""
    return " ".join(str(text).split()).replace("|", r"\|") or "—"


def field(claim: dict, name: str) -> str:
    if name == "deviation":
        tolerance, text = claim.get("tolerance", ""), claim.get("deviation", "") or "—"
        return f"{text} (tolerance {tolerance})" if tolerance else text
    if name == "outcome":
        outcome = "confirmed" if claim["holds"] else "disproved"
        return f"{outcome}: {claim['deviation']}" if claim.get("deviation") else outcome
    if name == "verdict":
        return LABELS[claim["verdict"]]
    return claim.get(name, "")


def table(claims: list[dict], columns) -> list[str]:
    return ["| " + " | ".join(h for h, _ in columns) + " |", "|" + "---|" * len(columns),
            *("| " + " | ".join(cell(field(c, f)) for _, f in columns) + " |" for c in claims)]


def coverage(papers: list[str], ids: list[str], claims: list[dict]) -> dict[str, list[dict]]:
    """Per paper, every transcribed statement: source, experiment, and its verdict (or pending,
    not run, no claim)."""
    found = {(c["experiment"], c["claim"]): c["verdict"] for c in claims}
    rows = {}
    for paper in papers:
        rows[paper] = []
        for experiment, key, ref in reference_entries(paper):
            status = found.get((experiment, key))
            if status is None:
                status = (f"pending: {ref.pending}" if ref.pending else
                          "not run" if experiment not in ids else "no claim")
            rows[paper].append({"experiment": experiment, "claim": key, "status": status,
                                "statement": ref.statement, "source": ref.source})
    return rows


def summary(papers: list[str], rows: dict[str, list[dict]]) -> list[str]:
    """Statements and their claims by verdict, per paper and in all (findings, ours, apart)."""
    head = ["Paper", "statements", "claimed", *VERDICTS, "pending"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    counts = {p: collections.Counter("pending" if r["status"].startswith("pending") else
                                     r["status"] for r in rows[p]) for p in papers}
    for name, count in [*((paper_title(p), counts[p]) for p in papers),
                        ("**All**", sum(counts.values(), collections.Counter()))]:
        statements = sum(count.values()) - count["finding"]
        claimed = sum(count[v] for v in VERDICTS if v != "finding")
        lines.append(f"| {name} | {statements} | {claimed} | "
                     + " | ".join(str(count[k]) for k in (*VERDICTS, "pending")) + " |")
    return lines


def validation_groups(path: pathlib.Path | None) -> dict | None:
    """{(gpu, category): ``VALIDATION``'s validation group (rows, mape, bias, largest, in %)}
    from its dataset at ``path``; None without one (the run has no ``VALIDATION``)."""
    if path is None:
        return None
    import xarray as xr

    from experiments.lut_tensor_core._validation import summary

    with xr.open_dataset(path) as ds:
        return {(r["device"], r["category"]): r for r in summary(ds.load())
                if r["role"] == "validation"}


def band_cells(claim: dict, group: dict | None) -> list[str]:
    """The cells of one claim x group: the group's rows, MAPE and bias, largest error, ours
    over (1 +- MAPE), and whether the paper's value lies in that band."""
    from experiments.lut_tensor_core._validation import MIN_ROWS

    if group is None:
        return ["0", "—", "—", "—", "no validation rows: the model is not validated there"]
    cells = [str(group["rows"]), f"{group['mape']:.1f} % ({group['bias']:+.1f} %)",
             f"{group['largest']:.1f} %"]
    paper, ours, m = claim.get("paper_value"), claim.get("ours_value"), group["mape"] / 100
    if paper is None or ours is None:
        return cells + ["—", "not a number to compare"]
    low, high = ours / (1 + m), (ours / (1 - m) if m < 1 else float("inf"))
    inside = low <= paper <= high
    verdict = (f"too few rows to judge (< {MIN_ROWS})" if group["rows"] < MIN_ROWS else
               "yes: the gap is within the model's validated error" if inside else
               "no: the gap exceeds the model's validated error")
    return cells + [f"{low:.3g}-{high:.3g}", verdict]


def validated_error(claims: list[dict], groups: dict | None) -> list[str]:
    """The section that sets each claim resting on the GPU model beside the model's validated
    error on the groups it rests on (``Claim.rests_on``, ``VALIDATION``'s groups)."""
    chosen = [c for c in claims if c.get("rests_on")]
    lines = ["## Verdicts against the GPU model's validated error", ""]
    if not chosen:
        return lines + ["No claim of this run rests on the GPU model.", ""]
    if groups is None:
        return lines + [f"{VALIDATION} is not in this run, so the GPU model's validated error "
                        "is unknown here; the claims that rest on it: "
                        + ", ".join(f"{c['experiment']}.{c['claim']}" for c in chosen) + ".", ""]
    head = ["Experiment", "Claim", "Verdict", "Paper", "lutcore", "Rests on",
            "validation rows", "MAPE (bias)", "largest error", "lutcore / (1 ± MAPE)",
            "the paper's value inside?"]
    lines += ["Claims whose number is a modeled time on a real GPU, or a ratio over one, rest on "
              f"`lutcore.gpu`, whose error {VALIDATION} measures on public timings it was never "
              "fitted to (its validation rows, per GPU and category). Were the real-GPU time "
              "the number rests on off by its group's MAPE m, lutcore's number would be "
              "lutcore / (1 ± m): the last column says whether the paper's value lies inside "
              "that band. The largest error is one row's, not the group's.", "",
              "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for claim in chosen:
        for name in claim["rests_on"]:
            gpu, category = name.split()
            row = [claim["experiment"], claim["claim"], LABELS[claim["verdict"]],
                   f"{claim['paper_value']:.3g}" if claim.get("paper_value") is not None
                   else "—",
                   f"{claim['ours_value']:.3g}" if claim.get("ours_value") is not None else "—",
                   name, *band_cells(claim, groups.get((gpu, category)))]
            lines.append("| " + " | ".join(cell(x) for x in row) + " |")
    return lines + [""]


def numeric(claims: list[dict]) -> list[dict]:
    """The claims that compare two positive numbers, the paper's and ours (log-log)."""
    return [c for c in claims if c.get("paper_value") is not None
            and c.get("ours_value") is not None and c["paper_value"] > 0 and c["ours_value"] > 0]


def overview_figure(claims: list[dict]):
    """Paper value against ours for every numeric claim, log-log, coloured by verdict, with the
    identity line and the relative tolerance bands the claims use."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcdefaults()  # same bytes whatever a matplotlibrc says
    import matplotlib.pyplot as plt

    points = numeric(claims)
    fig, ax = plt.subplots(figsize=(6.4, 5.2))
    values = [v for c in points for v in (c["paper_value"], c["ours_value"])] or [1.0]
    low, high = min(values) / 3, max(values) * 3
    line = [low, high]
    for band in sorted({c["band"] for c in points if c.get("band")}, reverse=True):
        ax.fill_between(line, [low * (1 - min(band, 0.99)), high * (1 - min(band, 0.99))],
                        [low * (1 + band), high * (1 + band)], color="#bbbbbb", alpha=0.25,
                        lw=0, label=f"within {band:.0%}")
    ax.plot(line, line, color="black", lw=0.8, label="ours = paper")
    for verdict in VERDICTS:
        chosen = [c for c in points if c["verdict"] == verdict]
        if chosen:
            ax.scatter([c["paper_value"] for c in chosen], [c["ours_value"] for c in chosen],
                       s=18, color=COLORS[verdict], label=f"{verdict} ({len(chosen)})", zorder=3)
    ax.set(xscale="log", yscale="log", xlim=line, ylim=line, xlabel="paper value",
           ylabel="lutcore value", title=f"{len(points)} numeric claims: paper against ours")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def write_overview(claims: list[dict], path: pathlib.Path) -> None:
    """The overview picture as a PNG with no date or software version (same bytes every run)."""
    import matplotlib.pyplot as plt

    figure = overview_figure(claims)
    with atomic(path) as tmp:
        figure.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    plt.close(figure)


def render(claims: list[dict], ids: list[str], preset: str, report_dir: pathlib.Path,
           figures: dict[str, pathlib.Path], tables: dict[str, pathlib.Path],
           overview: pathlib.Path | None = None, groups: dict | None = None) -> str:
    # read from the sources: importing every experiment (JAX, xarray, ...) would take seconds
    experiments = sorted((describe(i) for i in ids), key=lambda e: (e.paper, e.id))
    papers = sorted({e.paper for e in experiments})
    rows = coverage(papers, ids, claims)
    by_verdict = collections.Counter(c["verdict"] for c in claims)
    lines = ["# lutcore reproduction report", "",
             "Generated by `workflow/scripts/build_report.py` from the claims of each "
             "experiment; do not edit by hand. All claims are also in `claims.json`.", "",
             f"**Preset `{preset}`: {len(ids)} experiments, {len(claims)} claims: "
             + ", ".join(f"{by_verdict[v]} {v}" for v in VERDICTS) + ".**", "",
             "Statements are the numbered or checkable statements of each paper transcribed in "
             "`experiments/reference/` (findings are ours, not the paper's; pending: "
             "transcribed, its claim comes with the issue named in the coverage table).", "",
             *summary(papers, rows), ""]
    if overview is not None:
        count = collections.Counter(c["verdict"] for c in numeric(claims))
        picture = pathlib.Path(os.path.relpath(overview, report_dir)).as_posix()
        lines += [f"![paper against lutcore]({picture})", "",
                  f"Every numeric claim ({sum(count.values())} of {len(claims)}: the paper's "
                  "number and ours), log-log, coloured by verdict: "
                  + ", ".join(f"{count[v]} {v}" for v in VERDICTS if count[v])
                  + ". Black: ours = paper; grey: the relative tolerances of the \"within x %\" "
                  "claims. The other claims compare tables, rows, shapes or sentences.", ""]
    for verdict, heading, sentence, columns in SECTIONS:
        selected = [c for c in claims if c["verdict"] == verdict]
        lines += [f"## {heading}", ""]
        lines += ([sentence, "", *table(selected, (("Experiment", "experiment"),
                                                   ("Claim", "claim"), *columns))]
                  if selected else ["None."])
        lines.append("")
        if verdict == "deviates":
            lines += validated_error(claims, groups)

    by_id = {i: list(group) for i, group in itertools.groupby(claims, lambda c: c["experiment"])}
    for paper, group in itertools.groupby(experiments, lambda e: e.paper):
        lines += [f"## {paper_title(paper)}", ""]
        for experiment in group:
            own = by_id.get(experiment.id, [])
            figure = pathlib.Path(os.path.relpath(figures[experiment.id], report_dir)).as_posix()
            count = collections.Counter(c["verdict"] for c in own)
            lines += [f"### {experiment.id}: {experiment.title}", "",
                      f"![{experiment.id}]({figure})", "",
                      tables[experiment.id].read_text(encoding="utf-8").rstrip("\n"), "",
                      f"Claims: {len(own)}" + "".join(f", {count[v]} {v}" for v in VERDICTS
                                                      if count[v]) + ".", ""]
            if own:
                lines += table(own, (("Claim", "claim"), ("Paper (value, source)", "paper"),
                                     ("lutcore", "ours"), ("Deviation", "deviation"),
                                     ("Verdict", "verdict")))
                lines.append("")
    for paper in papers:
        lines += [f"## Coverage: {paper_title(paper)}", "",
                  "Every statement transcribed from the paper, where it is checked, and how.", "",
                  "| Statement | Source | Experiment | Verdict |", "|---|---|---|---|"]
        lines += [f"| {cell(r['statement'])} | {cell(r['source'])} | "
                  f"{cell(r['experiment'] + '.' + r['claim'])} | "
                  f"{cell(LABELS.get(r['status'], r['status']))} |" for r in rows[paper]]
        lines.append("")
    return "\n".join(lines)


def build(claim_files: list[pathlib.Path], figure_files: list[pathlib.Path],
          table_files: list[pathlib.Path], preset: str, claims_out: pathlib.Path,
          report_out: pathlib.Path, overview_out: pathlib.Path,
          validation: pathlib.Path | None = None) -> None:
    """``validation``: ``VALIDATION``'s dataset, where the run has it."""
    claims = load_claims(claim_files)
    ids = sorted(p.stem for p in claim_files)
    report = render(claims, ids, preset, report_out.parent,
                    {p.stem: p for p in figure_files}, {p.stem: p for p in table_files},
                    overview_out, validation_groups(validation))
    write_overview(claims, overview_out)
    with atomic(claims_out) as tmp:
        tmp.write_text(json.dumps(claims, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    with atomic(report_out) as tmp:
        tmp.write_text(report, encoding="utf-8")
    count = collections.Counter(c["verdict"] for c in claims)
    print(f"[lutcore] report: {len(ids)} experiments, {len(claims)} claims ("
          + ", ".join(f"{count[v]} {v}" for v in VERDICTS) + f"); wrote {claims_out}, "
          f"{report_out}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Build results/REPORT.md and claims.json.")
    parser.add_argument("--results", type=pathlib.Path, default=pathlib.Path("results"),
                        help="results folder (default: results)")
    parser.add_argument("--preset", required=True, choices=("quick", "full"),
                        help="the preset the results were computed with (shown in the report)")
    args = parser.parse_args(argv)
    claim_files = sorted((args.results / "claims").glob("*.json"))
    if not claim_files:
        parser.exit(2, f"no claims in {args.results / 'claims'}; run the experiments first\n")
    ids = [p.stem for p in claim_files]
    build(claim_files, [args.results / "figures" / f"{i}.png" for i in ids],
          [args.results / "tables" / f"{i}.md" for i in ids], args.preset,
          args.results / "claims.json", args.results / "REPORT.md",
          args.results / "overview.png",
          args.results / "data" / f"{VALIDATION}.nc" if VALIDATION in ids else None)


if "snakemake" in globals():  # run as the script of rule `summary`
    build([pathlib.Path(p) for p in snakemake.input.claims],  # noqa: F821
          [pathlib.Path(p) for p in snakemake.input.figures],  # noqa: F821
          [pathlib.Path(p) for p in snakemake.input.tables],  # noqa: F821
          snakemake.params.preset,  # noqa: F821
          pathlib.Path(snakemake.output.claims), pathlib.Path(snakemake.output.report),  # noqa: F821
          pathlib.Path(snakemake.output.overview),  # noqa: F821
          pathlib.Path(snakemake.input.validation[0]) if snakemake.input.validation  # noqa: F821
          else None)
elif __name__ == "__main__":
    main()

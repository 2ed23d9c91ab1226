"""Where a pipeline run's minutes went: the time of every experiment job, longest first.

Snakemake writes each job's benchmark (``benchmark:`` of the paper and batch rules) to
``results/benchmarks/<id>.tsv`` or ``batch-<name>.tsv``: wall seconds, CPU seconds (user +
system, as psutil samples them) and peak memory. This prints them as a Markdown table with
the totals:

    python3 tools/profile_run.py                 # results/ of this checkout
    python3 tools/profile_run.py /tmp/r/results  # another run's
"""

from __future__ import annotations

import argparse
import csv
import pathlib
import sys


def read(results: pathlib.Path) -> list[tuple[str, float, float, float]]:
    """(id, wall s, CPU s, peak RSS MB) of every job benchmark under ``results``."""
    rows = []
    for path in sorted((results / "benchmarks").glob("*.tsv")):
        with path.open(newline="") as f:
            record = next(csv.DictReader(f, delimiter="\t"))
        rows.append((path.stem, float(record["s"]), float(record["cpu_time"]),
                     float(record["max_rss"])))
    return rows


def table(rows: list[tuple[str, float, float, float]]) -> str:
    lines = ["| experiment | wall s | CPU s | peak RSS MB |", "|---|---:|---:|---:|"]
    for name, wall, cpu, rss in sorted(rows, key=lambda r: -r[1]):
        lines.append(f"| {name} | {wall:.1f} | {cpu:.1f} | {rss:.0f} |")
    lines.append(f"| all {len(rows)} jobs | {sum(r[1] for r in rows):.1f} | "
                 f"{sum(r[2] for r in rows):.1f} | {max((r[3] for r in rows), default=0):.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", type=pathlib.Path, default=pathlib.Path("results"))
    args = parser.parse_args(argv)
    rows = read(args.results)
    if not rows:
        print(f"no job benchmarks in {args.results / 'benchmarks'}", file=sys.stderr)
        return 1
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

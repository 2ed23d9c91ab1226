"""Where a pipeline run's minutes went: the time of every experiment job, longest first.

Snakemake writes each job's benchmark (``benchmark:`` of the paper and batch rules) to
``results/benchmarks/<id>.tsv`` or ``batch-<name>.tsv``. This prints their wall seconds and
peak memory as a Markdown table with the totals:

    python3 tools/profile_run.py                 # results/ of this checkout
    python3 tools/profile_run.py /tmp/r/results  # another run's

Snakemake samples a job's CPU time and memory with psutil, every second for the first 30
samples and then every 30 s, and keeps the last sample. The CPU seconds of a job longer than
about 30 s therefore miss up to 30 s (the same 43 s quick batch read 12.3 and 43.4 CPU-seconds in
two runs), so they are left out. The peak memory is the largest of the samples.
`tools/check_results.py` prints the whole run's CPU seconds, which the kernel counts exactly.
"""

from __future__ import annotations

import argparse
import csv
import pathlib
import sys


def read(results: pathlib.Path) -> list[tuple[str, float, float]]:
    """(id, wall s, sampled peak RSS MB) of every job benchmark under ``results``."""
    rows = []
    for path in sorted((results / "benchmarks").glob("*.tsv")):
        with path.open(newline="") as f:
            record = next(csv.DictReader(f, delimiter="\t"))
        rows.append((path.stem, float(record["s"]), float(record["max_rss"])))
    return rows


def table(rows: list[tuple[str, float, float]]) -> str:
    lines = ["| job | wall s | peak RSS MB |", "|---|---:|---:|"]
    for name, wall, rss in sorted(rows, key=lambda r: -r[1]):
        lines.append(f"| {name} | {wall:.1f} | {rss:.0f} |")
    lines.append(f"| all {len(rows)} jobs | {sum(r[1] for r in rows):.1f} | "
                 f"{max((r[2] for r in rows), default=0):.0f} |")
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

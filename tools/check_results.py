"""Regenerate the full preset in a temporary folder and compare it with the committed results/.

What is committed must be exactly what the code makes: every figure, table and claims file and
REPORT.md, byte for byte. CI runs this after the tests (``.ci/run``); locally:

    python3 tools/check_results.py                    # the main job in a temporary folder
    python3 tools/check_results.py --workdir /tmp/r   # keep the regenerated run there
    python3 tools/check_results.py --workdir /tmp/r --no-run   # only compare an earlier run

Exit status 1, with the differing files listed (and the first changed lines of text files), when
anything differs, is missing or is extra. It also fails when the run wrote anything but results/
and Snakemake's .snakemake/ in its folder, or changed a file of the checkout.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import profile_run
import results_diff

ROOT = pathlib.Path(__file__).resolve().parents[1]


def regenerate(workdir: pathlib.Path, cores: str) -> tuple[float, float]:
    """The main job into ``workdir``/results; its wall-clock seconds and CPU seconds (user +
    system of Snakemake and every job, as the kernel counts them)."""
    env = dict(os.environ, MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
                    "--directory", str(workdir), "--cores", cores], check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.perf_counter() - start, cpu


def checkout_changes() -> set[str]:
    """Files of the checkout that differ from git's index (results/ aside), or an empty set."""
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain",
                               "--untracked-files=all", "--", ".", ":(exclude)results"],
                              capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return set()  # not a git checkout: nothing to compare
    return {line[3:] for line in done.stdout.splitlines()}


def stray_files(workdir: pathlib.Path) -> list[str]:
    """Files the run left in its folder outside results/ and .snakemake/."""
    return sorted(str(p.relative_to(workdir)) for p in workdir.rglob("*")
                  if p.is_file() and p.relative_to(workdir).parts[0] not in
                  ("results", ".snakemake"))


def figure_note(a: pathlib.Path, b: pathlib.Path) -> str:
    """Whether two differing figures still show the same thing (then zlib or the encoder
    differs, not our numbers)."""
    if a.suffix == ".png":
        from PIL import Image

        with Image.open(a) as x, Image.open(b) as y:
            same = x.size == y.size and x.tobytes() == y.tobytes()
        return "bytes differ, " + ("same pixels (the PNG encoder/zlib differs)" if same
                                   else "pixels differ")
    return "bytes differ"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=pathlib.Path,
                        help="run (or find, with --no-run) the regenerated results here")
    parser.add_argument("--no-run", action="store_true", help="compare an existing --workdir")
    parser.add_argument("--cores", default="all")
    args = parser.parse_args(argv)
    if args.no_run and args.workdir is None:
        parser.error("--no-run needs --workdir")
    workdir = args.workdir or pathlib.Path(tempfile.mkdtemp(prefix="lutcore-regenerate-"))
    problems: dict[str, str] = {}
    try:
        if not args.no_run:
            before = checkout_changes()
            seconds, cpu = regenerate(workdir, args.cores)
            print(f"main job regenerated in {workdir} in {seconds:.0f} s ({cpu:.0f} CPU-seconds); "
                  "per job:")
            print(profile_run.table(profile_run.read(workdir / "results")))
            touched = checkout_changes() - before
            problems.update({name: "changed in the checkout by the run" for name in touched})
            problems.update({name: "written outside results/" for name in stray_files(workdir)})
        committed, fresh = ROOT / "results", workdir / "results"
        names = sorted(set(results_diff.committed_files(committed))
                       | set(results_diff.committed_files(fresh)))
        differ = results_diff.compare_files(committed, fresh, names)
        for name, why in differ.items():
            if why == "bytes differ":
                why = figure_note(committed / name, fresh / name)
            problems[name] = why
        print(f"{len(names)} committed files compared with the regenerated ones: "
              f"{len(differ)} differ")
        if problems:
            print("\n".join(results_diff.describe(problems)))
            print("results/ is not what the code makes: regenerate it (snakemake --cores all) "
                  "and commit, or fix the nondeterminism (tools/check_determinism.py)")
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""Run experiments as other machines would and compare the bytes they write.

A result must not depend on the machine: not on the number of cores (XLA splits large reductions
over its threads, OpenBLAS its GEMMs), not on the instruction set (XLA contracts a * b + c into
an FMA where the CPU has one; OpenBLAS picks a kernel per CPU; numpy dispatches SIMD loops). This
script imitates such machines on this one and runs each experiment under every variant:

    base          as configured
    one-core      one CPU (taskset), XLA and OpenBLAS with one thread
    many-cores    XLA and OpenBLAS with 16 threads (the partition a 16-core machine uses)
    no-fma        an AVX CPU without FMA/AVX2: XLA --xla_cpu_max_isa=AVX, OpenBLAS Sandybridge,
                  numpy without its AVX2 loops
    sse           an SSE4.2 CPU: XLA --xla_cpu_max_isa=SSE4_2 with 128-bit vectors, OpenBLAS
                  Nehalem
    avx2          an AVX2 CPU without AVX-512 (Zen 3, Haswell to Comet Lake): XLA AVX2, numpy
                  without its AVX-512 groups, OpenBLAS Haswell
    avx512-no-fp16  an AVX-512 CPU without AVX512-FP16 (Skylake-SP to Ice Lake, Zen 4): numpy
                  without AVX512_SPR, OpenBLAS SkylakeX; runs only on a CPU with AVX-512

Every job pins numpy and XLA to one instruction set (workflow/scripts/isa.py), so these machines
should all give the base run's bytes; this checks that the pin holds in every process.

Then it compares every variant's committed files (figures, tables, claims) and data (each
netCDF variable) with the base run's, and prints the seconds and CPU seconds per run:

    python3 tools/check_determinism.py --preset quick                   # all experiments
    python3 tools/check_determinism.py -e mfnn-table2 lut-table5 --variants base one-core

Exit status 1 when a committed file or a data variable differs. The variants' folders stay in
--workdir (default: a new temporary folder, removed unless --keep).
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

import results_diff

ROOT = pathlib.Path(__file__).resolve().parents[1]
RUN = ROOT / "workflow" / "scripts" / "run_experiment.py"

# name -> (environment, command prefix)
VARIANTS = {
    "base": ({}, []),
    "one-core": ({"PJRT_NPROC": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
                 ["taskset", "-c", "0"]),
    "many-cores": ({"PJRT_NPROC": "16", "OPENBLAS_NUM_THREADS": "16", "OMP_NUM_THREADS": "16"},
                   []),
    "no-fma": ({"XLA_FLAGS": "--xla_cpu_max_isa=AVX", "OPENBLAS_CORETYPE": "Sandybridge",
                "NPY_DISABLE_CPU_FEATURES": "X86_V3"}, []),
    "sse": ({"XLA_FLAGS": "--xla_cpu_max_isa=SSE4_2 --xla_cpu_prefer_vector_width=128",
             "OPENBLAS_CORETYPE": "Nehalem", "NPY_DISABLE_CPU_FEATURES": "X86_V3"}, []),
    "avx2": ({"XLA_FLAGS": "--xla_cpu_max_isa=AVX2", "OPENBLAS_CORETYPE": "Haswell",
              "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}, []),
    "avx512-no-fp16": ({"OPENBLAS_CORETYPE": "SkylakeX",
                        "NPY_DISABLE_CPU_FEATURES": "AVX512_SPR"}, []),
}
# variant -> the CPU flag (/proc/cpuinfo) it needs: a CPU can imitate a smaller one, not a larger
NEEDS_FLAG = {"avx2": "avx2", "avx512-no-fp16": "avx512f"}


def cpu_flags() -> set[str]:
    """This CPU's feature flags (empty where /proc/cpuinfo has none, e.g. off Linux)."""
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {f for line in text.splitlines() if line.startswith("flags") for f in line.split()}


def registered() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from experiments import registry

    return sorted(registry())


def run_one(experiment: str, variant: str, preset: str,
            folder: pathlib.Path) -> tuple[float, float]:
    """Run ``experiment`` under ``variant`` into ``folder``/results; (wall, CPU) seconds."""
    env_extra, prefix = VARIANTS[variant]
    env = dict(os.environ, MPLBACKEND="Agg", **env_extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    folder.mkdir(parents=True, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*prefix, sys.executable, str(RUN), experiment, "--preset", preset,
                           "--results", str(folder / "results")],
                          cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"{experiment} under {variant} failed:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=("quick", "full"), default="full")
    parser.add_argument("-e", "--experiments", nargs="+", help="ids (default: all)")
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--workdir", type=pathlib.Path, help="keep the runs here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--reuse", action="store_true",
                        help="skip runs whose claims already exist in --workdir")
    parser.add_argument("--skip", nargs="+", default=[], help="ids to leave out")
    args = parser.parse_args(argv)
    variants = ["base"] + [v for v in args.variants if v != "base"]
    if shutil.which("taskset") is None and "one-core" in variants:
        print("taskset not found: skipping one-core")
        variants.remove("one-core")
    flags = cpu_flags()
    for variant, flag in NEEDS_FLAG.items():
        if variant in variants and flag not in flags:
            print(f"this CPU has no {flag}: skipping {variant} (it cannot imitate a larger CPU)")
            variants.remove(variant)
    ids = [i for i in args.experiments or registered() if i not in args.skip]
    workdir = args.workdir or pathlib.Path(tempfile.mkdtemp(prefix="lutcore-determinism-"))
    print(f"{len(ids)} experiments x {len(variants)} variants ({args.preset} preset) in "
          f"{workdir}; load {os.getloadavg()[0]:.2f}", flush=True)
    failed = False
    try:
        for experiment in ids:
            times = {}
            for variant in variants:
                if args.reuse and (workdir / variant / "results" / "claims"
                                   / f"{experiment}.json").exists():
                    times[variant] = (0.0, 0.0)
                    continue
                times[variant] = run_one(experiment, variant, args.preset, workdir / variant)
            base = workdir / "base" / "results"
            committed = results_diff.committed_files(base, [experiment])
            lines = []
            for variant in variants[1:]:
                other = workdir / variant / "results"
                files = results_diff.compare_files(base, other, committed)
                data = results_diff.compare_data(base, other, [experiment])
                failed |= bool(files or data)
                if files or data:
                    lines.append(f" {variant}: {len(files)} committed file(s) differ"
                                 + ("" if files else " (data only)"))
                    lines += results_diff.describe({**files, **data})
            timing = ", ".join(f"{v} {w:.1f} s ({c:.1f} CPU s)" for v, (w, c) in times.items())
            print(f"{experiment}: {'same bytes' if not lines else 'DIFFERS'}; {timing}",
                  flush=True)
            for line in lines:
                print(line)
    finally:
        if args.workdir is None and not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

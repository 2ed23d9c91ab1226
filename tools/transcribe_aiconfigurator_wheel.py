"""Transcribe aiconfigurator's TensorRT-LLM 1.0.0rc3 plugin GEMM tables (H100 and H200 SXM) into
experiments/reference/measured/.

aiconfigurator's first commit (ai-dynamo/aiconfigurator@efcae12, 2025-08-11) stored, per GPU,
src/aiconfigurator/systems/data/<gpu>/trtllm/1.0.0rc3/gemm_perf.txt as a Git LFS object (the
snapshot holds only its pointer: oid and size); a46bad6 removed the 1.0.0rc3 folders in 2026
("clean up outdated or corrupted data. keep certain older version for perf alignment only",
a clean-up of every old version). The release wheels on PyPI ship the files themselves
(aiconfigurator 0.1.0-0.4.0: aiconfigurator/systems/data/...). This tool reads them from a
wheel and refuses unless each file's sha256 and size are the LFS pointer's at the commit, so
what is transcribed is the committed table, byte for byte.

They hold what the newer H100 tables lack: TensorRT-LLM's weight-only (``int8_wo``,
``int4_wo``) and SmoothQuant (``sq``) plugins on the H100, collected as the H200 1.2.0rc5
validation rows were (collector/trtllm/collect_gemm_trt.py at efcae12: one TensorRT engine per
row, three FP16 Linear layers before the plugin layer, TensorRT's per-layer profiler, one run;
``kernel_source`` trt_flow_/.../PLUGIN_V2_WeightOnlyQuantMatmul_0 or SmoothQuantGemm_0 on
every row). Roles, by issue 30's rule (fixed by GPU and source before any comparison): the
H100 file may calibrate, the H200 file only validates; it is a second source of the H200
validation rows' kernels and shapes, one TensorRT-LLM release earlier.

Usage: python tools/transcribe_aiconfigurator_wheel.py <aiconfigurator git dir>
<aiconfigurator-0.4.0-py3-none-any.whl> [--commit SHA] (nothing is fetched: ``pip download
--no-deps aiconfigurator==0.4.0`` brings the wheel, sha256 e3caf078...). Writes
aiconfigurator_<gpu>_trtllm_rc3.yaml for the H100 SXM and the H200 SXM: the plugin kinds at
every M of ``MS`` and (N, K) of ``SHAPES`` (transcribe_aiconfigurator.py's grid).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import zipfile

from snapshot import git, write_measured
from transcribe_aiconfigurator import KINDS, PROTOCOL, SHAPES, document, sets_of

VERSION = "trtllm/1.0.0rc3"
GIT_DATA = "src/aiconfigurator/systems/data"
WHEEL_DATA = "aiconfigurator/systems/data"
# (folder, role): issue 30's roles for aiconfigurator's h100_sxm and h200_sxm tables
TABLES = (("h100_sxm", "calibration"), ("h200_sxm", "validation"))
PLUGIN_KINDS = {kind: KINDS[kind] for kind in ("int8_wo", "int4_wo", "sq")}
RC3_PROTOCOL = {
    **PROTOCOL,
    "method": "TensorRT per-layer profiler, one run, the GEMM plugin's layer only "
              "(collector/trtllm/collect_gemm_trt.py at efcae12)",
    "dtype": "fp16 x int8/int4 weight-only per channel, int8 x int8 SmoothQuant",
    "library": "TensorRT-LLM 1.0.0rc3 and its CUTLASS kernels"}


def lfs_pointer(gitdir: str, commit: str, path: str) -> tuple[str, int]:
    """(sha256 hex, size) of the Git LFS pointer committed at ``path``."""
    fields = dict(line.split(" ", 1) for line in git(gitdir, "show", f"{commit}:{path}")
                  .splitlines() if " " in line)
    if not fields.get("oid", "").startswith("sha256:"):
        raise ValueError(f"{commit}:{path} is not a Git LFS pointer")
    return fields["oid"].removeprefix("sha256:"), int(fields["size"])


def wheel_table(wheel: str, gitdir: str, commit: str, folder: str) -> tuple[str, str, list]:
    """(git path, LFS sha256, rows as (gemm_dtype, m, n, k, ms)) of ``folder``'s table, read
    from ``wheel`` after checking it is the LFS object the commit points to."""
    path = f"{GIT_DATA}/{folder}/{VERSION}/gemm_perf.txt"
    oid, size = lfs_pointer(gitdir, commit, path)
    blob = zipfile.ZipFile(wheel).read(f"{WHEEL_DATA}/{folder}/{VERSION}/gemm_perf.txt")
    if (hashlib.sha256(blob).hexdigest(), len(blob)) != (oid, size):
        raise ValueError(f"{wheel}: {folder}'s table is not the LFS object {oid} of {commit}")
    rows = [(r["gemm_dtype"], int(r["m"]), int(r["n"]), int(r["k"]), float(r["latency"]))
            for r in csv.DictReader(io.StringIO(blob.decode()))]
    return path, oid, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gitdir", help="git directory of aiconfigurator's snapshot")
    parser.add_argument("wheel", help="aiconfigurator 0.1.0-0.4.0 wheel from PyPI")
    parser.add_argument("--commit", default="efcae124c", help="revision holding the pointers")
    args = parser.parse_args()
    commit = git(args.gitdir, "rev-parse", args.commit).strip()
    for folder, role in TABLES:
        path, oid, rows = wheel_table(args.wheel, args.gitdir, commit, folder)
        source = f"ai-dynamo/aiconfigurator@{commit}"
        data = document(source, folder, role, RC3_PROTOCOL,
                        sets_of(rows, path, PLUGIN_KINDS, SHAPES))
        header = (f"# Transcribed by tools/transcribe_aiconfigurator_wheel.py from {source}\n"
                  f"# ({path}: Git LFS object sha256:{oid}, read from PyPI's aiconfigurator "
                  "wheel); do not edit by hand.\n")
        write_measured(f"aiconfigurator_{folder}_trtllm_rc3.yaml", header, data)


if __name__ == "__main__":
    main()

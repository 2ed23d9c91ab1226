"""Transcribe the fpA_intB kernel times of the Ladder OSDI'24 artifact (LeiWang1999/Ladder) into
experiments/reference/measured/ladder_a100.yaml (role validation).

artifact/Figure12/cutlass-dequantize-benchmark/logs/cutlass_fpa_intb.log ends with one line per
shape, ``M_N_K: milliseconds``, printed by cutlass_fpa_intb.py beside it: FasterTransformer's
CUTLASS fpA_intB kernel through TVM's CUTLASS BYOC, the program of mlc-benchmark's
FasterTransformer rows (FasterTransformer/lowprecision_kernels/cutlass_fpa_intb.py there; the two
differ in their shape lists only): FP16 activations (numpy uniform (0, 1)), INT4 weights (random
bytes), one FP16 scale per output channel (ones), FP16 output; 5 warm-up calls, then time.time()
around 10 calls of the Relax VM between two dev.sync(). Six shapes: M = 1, 32, 4096 of N x K =
14336 x 57344 and 8192 x 28672 (M = 32 and 4096 are not in mlc-benchmark).

Device: the artifact's README.md runs Figure 12 ("Operator Benchmark on the NVIDIA A100 GPU") on
"Device: NVIDIA A100-80GB-PCIe GPU" (``a100-pcie``); tools/transcribe_mlcbench.py says why
mlc-benchmark's A100 rows are the same card. Role validation: issue 30 opens calibration to
aiconfigurator's A100 / H100 SXM tables and LLMServingSim's RTX 3090 only.

The Figure 12 CUTLASS GEMM log (cutlassgemm-benchmark/cutlass-gemm-bench_execution.log, 8192 x
8192 x 28672 only) repeats mlc-benchmark's CUTLASS rows digit for digit and is not transcribed
again; paper_result/__init__.py's lists are not tied to shapes (its cuBLAS M3 would stream 2.05
TB/s at 1 x 8192 x 28672, above the PCIe card's 1.935 TB/s) and are left out.

Usage: python tools/transcribe_ladder.py <git dir> [--commit SHA] (the git dir of a clone or
snapshot; nothing is fetched). To check: rerun and ``git diff --exit-code
experiments/reference/measured/ladder_a100.yaml``.
"""

from __future__ import annotations

import re

from snapshot import git, snapshot_args, write_measured
from transcribe_mlcbench import PER_CHANNEL

LOG = "artifact/Figure12/cutlass-dequantize-benchmark/logs/cutlass_fpa_intb.log"
README = "README.md"
DEVICE_LINE = "Device: NVIDIA A100-80GB-PCIe GPU"
PROTOCOL = {
    "timing": "host",
    "method": "artifact/Figure12/cutlass-dequantize-benchmark/cutlass_fpa_intb.py: TVM Relax VM "
              "running FasterTransformer's CUTLASS fpA_intB kernel, 5 warm-up calls, then "
              "time.time() around 10 back-to-back calls between two dev.sync()",
    "dtype": "fp16 activations (numpy uniform (0, 1)), int4 weights (random bytes), one fp16 "
             "scale per output channel (ones), fp16 output",
    "library": "FasterTransformer's fpA_intB through TVM's CUTLASS BYOC "
               "(artifact/baseline_framework/faster_transformer_tvm; mlc-benchmark builds the "
               "same program on apache/tvm@1afbf20)",
    "clocks": "not stated",
}


def log_times(text: str) -> list[list]:
    """[[m, n, k, ms], ...] of the log's ``M_N_K: ms`` lines, in their order (ValueError if
    none)."""
    rows = [[int(m), int(n), int(k), float(ms)] for m, n, k, ms in
            re.findall(r"^(\d+)_(\d+)_(\d+): ([0-9.eE+-]+)\s*$", text, re.M)]
    if not rows:
        raise ValueError(f"{LOG}: no 'M_N_K: ms' lines")
    return rows


def transcribe(gitdir: str, commit: str) -> dict:
    if DEVICE_LINE not in git(gitdir, "show", f"{commit}:{README}"):
        raise ValueError(f"{README} no longer says {DEVICE_LINE!r}: check the device")
    return {"source": f"LeiWang1999/Ladder@{commit}", "file": LOG,
            "citation": "L. Wang et al., Ladder (OSDI 2024) artifact, Figure 12 (operator "
                        f"benchmark), {LOG}",
            "role": "validation", "device": "a100-pcie",
            "form_factor": f"A100 80GB PCIe, 300 W ({README}: '{DEVICE_LINE}')",
            "protocol": PROTOCOL,
            "sets": [{"name": "FasterTransformer W4A16", "kind": "gemm", "kernel": "fpa_intb",
                      **PER_CHANNEL, "columns": ["m", "n", "k", "ms"],
                      "points": log_times(git(gitdir, "show", f"{commit}:{LOG}"))}]}


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    header = (f"# Transcribed by tools/transcribe_ladder.py from LeiWang1999/Ladder@{commit}\n"
              f"# ({LOG}; kernel, inputs and protocol in the tool's docstring); do not edit by "
              "hand.\n")
    write_measured("ladder_a100.yaml", header, transcribe(gitdir, commit))


if __name__ == "__main__":
    main()

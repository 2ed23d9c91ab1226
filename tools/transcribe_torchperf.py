"""Transcribe the A100-class SXM4 rows of zzc0721/torch-performance-test-data into
experiments/reference/measured/torchperf_sxm.yaml (role calibration).

The repository collects the output of one PyTorch script (test.py) run by many people on their
GPUs: for each format, torch.mm of two torch.randn square matrices of 1024, 2048, 4096, 8192 and
10240, 6 warm-up calls, then 30 back-to-back calls timed on the host with time.time() around
them and one torch.cuda.synchronize() after the last; database.md lists the best of the five
sizes' rates (TFLOPS) per format, without the size that gave it. Two rows are 400 W SXM4
modules of the GA100 die that lutcore.gpu models as ``a100`` (A100 80GB SXM4: 108 SMs, 1410 MHz
boost, 312 dense FP16/BF16 TFLOPS, 2,039 GB/s, 400 W, S2 of lutcore/gpu/_specs.py; the A800
80GB SXM4 is its export variant, the same GA100 with NVLink cut from 600 to 400 GB/s and compute,
memory and tensor cores unchanged: NVIDIA's statement of 2022-11-07, as summarized at
aiwiki.ai/wiki/nvidia_a800), both measured by one contributor with PyTorch 2.8.0 + CUDA 12.8 in
a Docker cloud instance.

Usage: python tools/transcribe_torchperf.py <git dir> [--commit SHA] (the git dir of a clone
or snapshot; nothing is fetched).
"""

from __future__ import annotations

from snapshot import git, snapshot_args, write_measured

# database.md device name -> the GPU it is modelled as
DEVICES = {"NVIDIA A100 SXM4 80GB": "a100", "NVIDIA A800 SXM4 80GB": "a100"}
FORMATS = ("fp16", "bf16")
SIZES = (1024, 2048, 4096, 8192, 10240)  # test.py matrix_sizes
PROTOCOL = {
    "timing": "host",
    "method": "test.py benchmark_precision: 6 warm-up torch.mm calls and a synchronize, then "
              "time.time() around 30 back-to-back torch.mm calls and one "
              "torch.cuda.synchronize(); rate = 30 x 2 n^3 / elapsed; the row is the best rate "
              "of the five square sizes n (not recorded which). Back-to-back launches queue "
              "behind the running kernel, so the host's per-call cost is hidden at these sizes",
    "dtype": "fp16 / bf16 (torch.randn operands)",
    "library": "PyTorch 2.8.0 + CUDA 12.8 (cuBLAS), Python 3.10, Docker cloud instance",
    "clocks": "default (not stated; 400 W SXM4 modules)",
}



def rows(markdown: str) -> dict[str, dict[str, float]]:
    """{device: {format: TFLOPS}} of the DEVICES rows of database.md (its header names the
    columns)."""
    lines = [[c.strip() for c in line.strip().strip("|").split("|")]
             for line in markdown.splitlines() if line.startswith("|")]
    header, out = lines[0], {}
    for cells in lines[2:]:
        row = dict(zip(header, cells))
        if row["device"] in DEVICES:
            out[row["device"]] = {f: float(row[f]) for f in FORMATS}
    missing = set(DEVICES) - set(out)
    if missing:
        raise ValueError(f"database.md has no row for {sorted(missing)}")
    return out


def transcribe(gitdir: str, commit: str) -> dict:
    measured = rows(git(gitdir, "show", f"{commit}:database.md"))
    sets = [{"name": f"{name.removeprefix('NVIDIA ')} {fmt.upper()}, best of five squares",
             "kind": "gemm", "device": DEVICES[name], "act": fmt,
             "best_of": [[n, n, n] for n in SIZES], "columns": ["tflops"],
             "points": [[measured[name][fmt]]]}
            for name in DEVICES for fmt in FORMATS]
    return {"source": f"zzc0721/torch-performance-test-data@{commit}",
            "file": "database.md",
            "citation": "zzc0721 et al., torch-performance-test-data (GitHub), database.md rows "
                        "'NVIDIA A100 SXM4 80GB' and 'NVIDIA A800 SXM4 80GB' (contributor "
                        "aiguoliuguo), measured with test.py",
            "role": "calibration", "device": "a100",
            "form_factor": "A100 80GB SXM4 and A800 80GB SXM4 (400 W SXM4 modules, GA100)",
            "protocol": PROTOCOL, "sets": sets}


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    header = (f"# Transcribed by tools/transcribe_torchperf.py from "
              f"zzc0721/torch-performance-test-data@{commit}\n"
              "# (database.md, measured with test.py); do not edit by hand.\n")
    write_measured("torchperf_sxm.yaml", header, transcribe(gitdir, commit))


if __name__ == "__main__":
    main()

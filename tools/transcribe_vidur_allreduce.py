"""Transcribe Vidur's single-node NCCL all-reduce times into experiments/reference/measured/.

Vidur (github.com/microsoft/vidur) publishes torch.distributed all-reduce medians (ms) per
message size and number of GPUs in data/profiling/network/<cluster>/all_reduce.csv. Kept: the
runs with every GPU in one node (devices_per_node == num_workers: NVLink / NVSwitch only), sizes
from 1 MiB to 256 MiB (below 1 MiB the time is the latency; both ends are kept in the fit).

Usage: python tools/transcribe_vidur_allreduce.py <vidur git dir> [--commit SHA]
"""

from __future__ import annotations

import csv
import io

from snapshot import git, snapshot_args, write_measured

CLUSTERS = {"a100": "a100_dgx", "h100": "h100_dgx"}
SIZES = tuple(2 ** e for e in range(11, 29, 2))  # 2 KiB ... 128 MiB


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    sets = []
    for gpu, cluster in CLUSTERS.items():
        path = f"data/profiling/network/{cluster}/all_reduce.csv"
        rows = csv.DictReader(io.StringIO(git(gitdir, "show", f"{commit}:{path}")))
        points = sorted({(int(r["num_workers"]), int(r["size"]),
                          round(float(r["time_stats.all_reduce.median"]) * 1e-3, 9))
                         for r in rows if r["devices_per_node"] == r["num_workers"]
                         and int(r["num_workers"]) > 1 and int(r["size"]) in SIZES})
        sets.append({"name": f"{gpu} all-reduce", "kind": "all_reduce", "device": gpu,
                     "file": path, "columns": ["gpus", "bytes", "seconds"],
                     "points": [list(p) for p in points]})
    data = {"source": f"microsoft/vidur@{commit}",
            "citation": "A. Agrawal et al., Vidur: A Large-Scale Simulation Framework for LLM "
                        "Inference, MLSys 2024",
            "role": "calibration", "device": "a100, h100",
            "form_factor": "DGX A100 (NVSwitch, 600 GB/s NVLink per GPU), DGX H100 (NVSwitch, "
                           "900 GB/s)",
            "protocol": {"timing": "host", "method": "median of torch.distributed.all_reduce "
                         "calls with synchronization (vidur/profiling/collectives)",
                         "dtype": "bytes", "library": "NCCL via PyTorch",
                         "clocks": "default (not stated)"},
            "sets": sets}
    header = (f"# Transcribed by tools/transcribe_vidur_allreduce.py from microsoft/vidur@"
              f"{commit}\n# (data/profiling/network/*/all_reduce.csv); do not edit by hand.\n")
    write_measured("vidur_allreduce.yaml", header, data)


if __name__ == "__main__":
    main()

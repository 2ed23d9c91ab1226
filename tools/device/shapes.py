"""Prints the shapes ``rs_gemm_bench`` times, one ``m n k`` line each: the (N, K) pairs and the
M values of the H200 weight-only rows (experiments/reference/measured/aiconfigurator_h200_sxm.yaml,
int8_wo / int4_wo sets) from M = 8 up (below, TensorRT-LLM's plugin runs its CUDA-core GEMV,
not this kernel), so an H100's timings of the same kernel stand beside them shape for shape;
and a K sweep at N = 4096 for the slope per k-tile.

Usage: python3 tools/device/shapes.py > shapes.txt   (needs only PyYAML: runs on the device)
"""

from __future__ import annotations

import pathlib

import yaml

REFERENCE = (pathlib.Path(__file__).resolve().parents[2]
             / "experiments/reference/measured/aiconfigurator_h200_sxm.yaml")
MIN_M = 8
SWEEP_N, SWEEP_K, SWEEP_M = 4096, (1024, 2048, 4096, 8192, 16384), (16, 32, 64, 128)


def shapes() -> list[tuple[int, int, int]]:
    found = set()
    for entry in yaml.safe_load(REFERENCE.read_text())["sets"]:
        if not entry["name"].startswith(("int8_wo", "int4_wo")):
            continue
        column = {name: i for i, name in enumerate(entry["columns"])}
        found |= {(p[column["m"]], p[column["n"]], p[column["k"]]) for p in entry["points"]
                  if p[column["m"]] >= MIN_M}
    found |= {(m, SWEEP_N, k) for m in SWEEP_M for k in SWEEP_K}
    return sorted(found)  # by M first: rs_gemm_bench times the small M first


if __name__ == "__main__":
    for m, n, k in shapes():
        print(m, n, k)

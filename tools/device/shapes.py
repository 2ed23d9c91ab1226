"""Prints the shapes ``rs_gemm_bench`` times, one ``m n k`` line each: every H200 weight-only
row's shape (experiments/reference/measured/aiconfigurator_h200_sxm.yaml, int8_wo / int4_wo
sets), so an H100's timings of the same kernel stand beside them shape for shape, and a K sweep
at N = 4096 for the slope per k-tile. Below M = 16 the plugin also profiles its CUDA-core GEMV
(``lutcore.gpu._tiles`` T11), which the benchmark does not time.

Usage: python3 tools/device/shapes.py > shapes.txt   (needs only PyYAML: runs on the device)
"""

from __future__ import annotations

import pathlib

import yaml

REFERENCE = (pathlib.Path(__file__).resolve().parents[2]
             / "experiments/reference/measured/aiconfigurator_h200_sxm.yaml")
WEIGHT_ONLY = {"int8_wo": 8, "int4_wo": 4}  # the reference's set-name prefixes, weight bits
SWEEP_N, SWEEP_K, SWEEP_M = 4096, (1024, 2048, 4096, 8192, 16384), (16, 32, 64, 128)


def weight_only_rows() -> dict[tuple[int, int, int, int], float]:
    """The H200 weight-only rows: {(weight bits, m, n, k): seconds}."""
    rows = {}
    for entry in yaml.safe_load(REFERENCE.read_text())["sets"]:
        bits = WEIGHT_ONLY.get(entry["name"].split()[0])
        if bits is None:
            continue
        column = {name: i for i, name in enumerate(entry["columns"])}
        for p in entry["points"]:
            key = (bits, p[column["m"]], p[column["n"]], p[column["k"]])
            rows[key] = p[column["ms"]] * 1e-3
    return rows


def shapes() -> list[tuple[int, int, int]]:
    """(m, n, k) of every row and of the sweep, by M first: the benchmark times small M first."""
    found = {(m, n, k) for _, m, n, k in weight_only_rows()}
    found |= {(m, SWEEP_N, k) for m in SWEEP_M for k in SWEEP_K}
    return sorted(found)


if __name__ == "__main__":
    for m, n, k in shapes():
        print(m, n, k)

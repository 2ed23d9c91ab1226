"""Reads what ``tools/device/run.sh`` wrote on the device machine and prints what issue 30 asks
of it (an analysis: nothing here sets a constant):

- ``wgmma_chain.jsonl``: SM clocks per wgmma for every variant, and per 64-deep k-tile (four
  k-blocks) for the variants shaped like the weight-only loop (A from registers, the loop's
  INT8 or INT4 conversion before each fence; the loop waits 3 for INT8, 2 for INT4), to set
  beside the rows' 311-394 and the model's calibrated ``lutcore.gpu.H100.wgmma_chain`` per
  wgmma (four a 64-row k-tile, eight a 128-row one);
- ``tma_pipeline.jsonl``: SM clocks per TMA load of each box, from DRAM and from the L2, by
  the loads kept in flight;
- ``rs_gemm.jsonl``: per 64-row tactic and M, the slope of the device time over K at N = 4096
  over the output tiles each SM walks in turn (a tile's time per k-tile), in ns and in SM
  clocks at the median clock ``clocks.csv`` sampled under load; and per H200 weight-only
  row, the time of the tactic TensorRT-LLM's plugin would run (the fastest by device time at
  the power of two at or above M, its ``getBestConfig``), as its per-layer profiler sees it,
  beside the H200's measured row.

Usage: python3 tools/device/report.py DIR   (DIR: the files that came back from run.sh)
"""

from __future__ import annotations

import argparse
import csv
import json
import pathlib
import statistics
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from shapes import SWEEP_N, weight_only_rows  # noqa: E402  (tools/device/shapes.py)

K_TILE = 64  # the launcher's CTA k-slab: 128 B of FP16 activations
LOADED_CLOCK = 0.5  # clocks.csv samples above this fraction of the run's highest are under load


def _json_object(line: str) -> dict | None:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def read_jsonl(path: pathlib.Path) -> tuple[dict, list[dict]]:
    """(the header line, the records) of one benchmark's output. Lines that are not JSON
    objects (the launcher prints a can_implement failure to stdout before it throws; a run cut
    off by its time limit can end in half a line) are counted and left out."""
    text = [line for line in path.read_text().splitlines() if line.strip()]
    lines = [obj for obj in map(_json_object, text) if obj is not None]
    if not lines:
        raise SystemExit(f"{path}: no JSON lines (see {path.with_suffix('.err')})")
    if len(lines) < len(text):
        print(f"{path.name}: {len(text) - len(lines)} lines that are not JSON left out")
    return lines[0], lines[1:]


def loaded_sm_clock(path: pathlib.Path) -> float:
    """The median SM clock (Hz) of the samples taken under load (``LOADED_CLOCK``)."""
    mhz = [float(row[1].split()[0]) for row in csv.reader(path.read_text().splitlines())
           if len(row) >= 2 and row[1].strip().split()[0].replace(".", "").isdigit()]
    if not mhz:
        raise SystemExit(f"{path}: no SM clock samples")
    return statistics.median([x for x in mhz if x >= LOADED_CLOCK * max(mhz)]) * 1e6


def chain_lines(records: list[dict]) -> list[str]:
    """Clocks per wgmma per variant, and the k-tile (4 wgmmas) of the loop-shaped variants."""
    lines = ["wgmma chains: clocks per wgmma (1 CTA / every SM)"]
    keyed: dict[tuple, dict] = {}
    for r in records:
        key = (r["mode"], r["n"], r["wait"], r["chains"], r["convert"], r["warpgroups"])
        keyed.setdefault(key, {})[r["ctas"]] = r["clocks_per_wgmma"]
    for (mode, n, wait, chains, convert, groups), by_ctas in sorted(keyed.items()):
        cells = " / ".join(f"{by_ctas[c]:7.1f}" for c in sorted(by_ctas))
        loop = ""
        if mode == "rs" and convert != "raw" and chains == 1:
            loop = f"   k-tile {4 * min(by_ctas.values()):.0f} clk ({convert} loop, wait {wait})"
        lines.append(f"  {mode} n{n:<3} wait {wait} chains {chains} {convert:<4} wg {groups}: "
                     f"{cells}{loop}")
    return lines


def tma_lines(records: list[dict]) -> list[str]:
    """Clocks per TMA load per box, source and loads in flight (1 CTA / every SM)."""
    lines = ["tma_pipeline: clocks per load by loads in flight (1 CTA / every SM)"]
    keyed: dict[tuple, dict] = {}
    for r in records:
        box = (r["box_row_bytes"], r["box_rows"], r["source"])
        keyed.setdefault(box, {}).setdefault(r["stages"], {})[r["ctas"]] = r["clocks_per_load"]
    for (row_bytes, rows, source), by_stages in sorted(keyed.items()):
        cells = ", ".join(f"{s}: " + " / ".join(f"{v:.0f}" for _, v in sorted(c.items()))
                          for s, c in sorted(by_stages.items()))
        lines.append(f"  {row_bytes:>3} B x {rows:<3} rows from {source:<4}: {cells}")
    return lines


def slope_lines(records: list[dict], sm_clock: float, sms: int) -> list[str]:
    """Per 64-row tactic and M of the K sweep: the least-squares slope of the device time over
    k-tiles, over the tiles each SM walks in turn (the persistent scheduler's waves: 1 where
    the output tiles fit on the SMs); weights from DRAM (the graph time, else the back-to-back
    one) and from the L2 (``hot_us``, where they fit)."""
    lines = [f"rs_gemm: time per k-tile of one output tile at N = {SWEEP_N} (64-row tactics, "
             f"SM clock {sm_clock / 1e9:.2f} GHz), weights from DRAM / from the L2"]
    sweep: dict[tuple, list] = {}
    for r in records:
        if r["n"] == SWEEP_N and r["cta_m"] == 64 and "error" not in r:
            tiles = SWEEP_N // r["cta_m"] * -(-r["m"] // r["cta_n"])
            sweep.setdefault((r["tactic"], r["m"], -(-tiles // sms)), []).append(
                (r["k"] / K_TILE, r["graph_us"] or r["stream_us"], r["hot_us"]))
    for (tactic, m, waves), points in sorted(sweep.items()):
        if len(points) < 3:
            continue
        tiles, dram, hot = np.array(points).T
        cells = []
        for us in (dram, hot):
            slope, intercept = np.polyfit(tiles, us, 1)
            slope /= waves
            cells.append(f"{slope * 1e3:5.0f} ns ({slope * 1e-6 * sm_clock:4.0f} clk) "
                         f"+ {intercept:5.1f} us")
        lines.append(f"  {tactic:<15} M {m:<4}: {' / '.join(cells)} a k-tile, over "
                     f"{len(points)} K, {waves} tile(s) an SM")
    return lines


def pick_lines(records: list[dict]) -> list[str]:
    """Per H200 row: the plugin's tactic (fastest device time at the power of two at or above
    M) timed at M as the per-layer profiler sees it, over the H200's time."""
    timed = {(r["bits"], r["m"], r["n"], r["k"], r["tactic"]): r
             for r in records if "error" not in r}
    lines = ["rs_gemm: the plugin's pick at each H200 row, profiler time / H200 row"]
    for (bits, m, n, k), seconds in sorted(weight_only_rows().items()):
        tuned = 1 << (m - 1).bit_length()
        options = {t: r for (b, mm, nn, kk, t), r in timed.items()
                   if (b, mm, nn, kk) == (bits, tuned, n, k)}
        if not options:
            continue
        best = min(options, key=lambda t: options[t]["graph_us"] or options[t]["stream_us"])
        here = timed.get((bits, m, n, k, best))
        if here is not None:
            lines.append(f"  INT{bits} M {m:<5} N {n:<6} K {k:<6} {best:<15} "
                         f"{here['profiler_us']:8.1f} us / {seconds * 1e6:8.1f} us = "
                         f"{here['profiler_us'] * 1e-6 / seconds:.2f}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=pathlib.Path, help="the files run.sh wrote to $OUT")
    folder = parser.parse_args(argv).folder
    chain_head, chains = read_jsonl(folder / "wgmma_chain.jsonl")
    _, tma = read_jsonl(folder / "tma_pipeline.jsonl")
    gemm_head, gemms = read_jsonl(folder / "rs_gemm.jsonl")
    sm_clock = loaded_sm_clock(folder / "clocks.csv")
    print(f"{chain_head['device']}, {chain_head['sms']} SMs; rs_gemm on {gemm_head['device']}")
    for line in (chain_lines(chains) + tma_lines(tma)
                 + slope_lines(gemms, sm_clock, gemm_head["sms"]) + pick_lines(gemms)):
        print(line)


if __name__ == "__main__":
    main()

"""Tensor-core design-space exploration: area vs power of every M x N x K = 512 array for MAC,
ADD and LUT Tensor Core (LUT Tensor Core Fig. 14).

Twelve panels, activations {FP16, INT16, FP8, INT8} x weights {INT1, INT2, INT4}. In each, every
power-of-two shape with M N K = 512 (the A100 INT8 tensor core's size, M8 N4 K16) is priced by
``lutcore.ppa``; the best point of a method minimizes area x power, as the paper's contours do.
The arrays compare at equal M N K, as in the paper; the bit-serial ones (ADD, LUT) take W cycles
per product, which the table lists as throughput.
"""

from __future__ import annotations

import dataclasses
import sys

import matplotlib.pyplot as plt
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter
import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments import markdown_table, paper_claim, reference
from experiments.lut_tensor_core._ppa_sweep import (COLORS, METHOD_LABELS, check_config,
                                                  shape_label, sweep)

ID = "lut-fig14"
TITLE = ("Tensor-core DSE: area vs power of MAC/ADD/LUT arrays, M N K = 512 "
         "(LUT Tensor Core Fig. 14)")
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("lut_smallest", "best_shape", "int1_reduction_vs_mac")
METHODS = ("mac", "add", "lut_tensor_core")


@dataclasses.dataclass(frozen=True)
class Config:
    """array_size: M N K (a power of two); activations, weights: the panels."""

    array_size: int = 512
    activations: tuple[str, ...] = ("fp16", "int16", "fp8", "int8")
    weights: tuple[str, ...] = ("int1", "int2", "int4")

    def __post_init__(self):
        check_config(activations={"activations": self.activations},
                     weights={"weights": self.weights}, array_size=self.array_size)


def run(config: Config) -> xr.Dataset:
    designs = [(m, a, w) for a in config.activations for w in config.weights for m in METHODS]
    ds = sweep(designs, ppa.power_of_two_shapes(config.array_size))
    best = [ppa.best_index(ds.area.values[d] * ds.power.values[d],
                           np.isfinite(ds.area.values[d])) for d in range(ds.sizes["design"])]
    ds["best_shape"] = ("design", np.array(best), {"long_name": "index of min area x power"})
    ds.attrs["array_size"] = config.array_size
    return ds


def best_points(ds: xr.Dataset) -> xr.Dataset:
    """The min-area-x-power point of every design: area, power, throughput, shape."""
    idx = xr.DataArray(ds.best_shape.values, dims="design")
    return ds[["area", "power", "throughput", "density", "efficiency", "m", "n", "k"]].isel(
        shape=idx)


def panels(ds: xr.Dataset):
    """[(activation, weight)] in the dataset's order."""
    seen = dict.fromkeys(zip(ds.activation.values, ds.weight.values))
    return [(str(a), str(w)) for a, w in seen]


def panel_best(ds: xr.Dataset):
    """{(act, weight): {method: best point}}."""
    best = best_points(ds)
    out = {}
    for a, w in panels(ds):
        sel = best.sel(design=(best.activation == a) & (best.weight == w))
        out[(a, w)] = {str(m): sel.isel(design=i) for i, m in enumerate(sel.method.values)}
    return out


def plot(ds: xr.Dataset):
    grid = panels(ds)
    acts = list(dict.fromkeys(a for a, _ in grid))
    weights = list(dict.fromkeys(w for _, w in grid))
    fig, axes = plt.subplots(len(weights), len(acts), figsize=(3.4 * len(acts),
                                                               2.9 * len(weights)), squeeze=False)
    best = panel_best(ds)
    for (a, w) in grid:
        ax = axes[weights.index(w)][acts.index(a)]
        for method in METHODS:
            sel = ds.sel(design=(ds.method == method) & (ds.activation == a) & (ds.weight == w))
            ax.scatter(sel.power.values[0], sel.area.values[0] * 1e3, s=8, alpha=0.45,
                       color=COLORS[method], label=METHOD_LABELS[method])
            b = best[(a, w)][method]
            ax.scatter(float(b.power), float(b.area) * 1e3, s=60, marker="*",
                       color=COLORS[method], edgecolor="k", linewidth=0.5)
            if method == "lut_tensor_core":
                ax.annotate(shape_label(b.m, b.n, b.k), (float(b.power), float(b.area) * 1e3),
                            fontsize=7, xytext=(4, 4), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_yscale("log")
        for axis in (ax.xaxis, ax.yaxis):  # 1-2-5 labels: log minor labels collide
            axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FormatStrFormatter("%g"))
            axis.set_minor_formatter(NullFormatter())
        ax.set_title(f"W_{w.upper()} A_{a.upper()}", fontsize=9)
        ax.tick_params(labelsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("power (mW)", fontsize=8)
    for row in axes:
        row[0].set_ylabel("area (1e-3 mm$^2$)", fontsize=8)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncols=3, fontsize=8, markerscale=2)
    fig.suptitle(f"M N K = {ds.attrs['array_size']} arrays at 28nm, 1 GHz "
                 "(star: min area x power)", fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def table(ds: xr.Dataset) -> str:
    rows = []
    for (a, w), methods in panel_best(ds).items():
        for method, b in methods.items():
            rows.append([f"W_{w.upper()} A_{a.upper()}", METHOD_LABELS[method],
                         shape_label(b.m, b.n, b.k), f"{float(b.area) * 1e6:.0f}",
                         f"{float(b.power):.1f}", f"{float(b.throughput):.3f}"])
    return (f"Min area x power point per method, M N K = {ds.attrs['array_size']}, 28nm, "
            "1 GHz.\n\n" + markdown_table(["panel", "method", "shape", "area (um^2)",
                                           "power (mW)", "throughput (TOPs)"], rows, right=3))


def claims(ds: xr.Dataset):
    module = sys.modules[__name__]
    best = panel_best(ds)
    lut_first, others = [], []
    ratios = {}
    shapes = {}
    for (a, w), methods in best.items():
        lut = methods["lut_tensor_core"]
        rest = [b for m, b in methods.items() if m != "lut_tensor_core"]
        smallest = all(float(lut.area) <= float(b.area) and float(lut.power) <= float(b.power)
                       for b in rest)
        (lut_first if smallest else others).append(f"W_{w.upper()} A_{a.upper()}")
        shapes[(a, w)] = shape_label(lut.m, lut.n, lut.k)
        if w == "int1":
            mac = methods["mac"]
            ratios[a] = (float(mac.area / lut.area), float(mac.power / lut.power))
    out = [paper_claim(
        module, "lut_smallest",
        ours=f"LUT smallest area and power in {len(lut_first)} of {len(best)} panels"
             + (f"; not in {', '.join(others)}" if others else ""),
        holds=len(lut_first) >= reference(PAPER, ID, "lut_smallest").value,
        tolerance="at least as many panels as the paper",
        deviation="" if not others else "bit-serial ADD with a long K needs fewer 32-bit "
        "accumulators than LUT arrays with K <= 8; with integer activations its adders are cheap")]
    counts = {}
    for s in shapes.values():
        counts[s] = counts.get(s, 0) + 1
    mode = max(counts, key=counts.get)
    paper_shape = shape_label(*reference(PAPER, ID, "best_shape").value)
    out.append(paper_claim(
        module, "best_shape",
        ours=f"most frequent LUT optimum {mode} ({counts[mode]} of {len(shapes)} panels); "
             + ", ".join(f"W_{w.upper()} A_{a.upper()}: {s}" for (a, w), s in shapes.items()),
        holds=mode == paper_shape, tolerance="same shape as the most frequent optimum"))
    if ratios:
        low, high = reference(PAPER, ID, "int1_reduction_vs_mac").value
        values = [v for pair in ratios.values() for v in pair]
        out.append(paper_claim(
            module, "int1_reduction_vs_mac",
            ours="MAC/LUT at W_INT1 (area, power): " + ", ".join(
                f"A_{a.upper()} {r[0]:.1f}x, {r[1]:.1f}x" for a, r in ratios.items()),
            holds=all(low <= v <= high for v in values),
            tolerance=f"every ratio within the paper's {low}x-{high}x",
            deviation=f"range {min(values):.1f}x-{max(values):.1f}x"))
    return out

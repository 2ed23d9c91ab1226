"""PPA of MAC-, ADD- and LUT-based DP4 units across formats (LUT Tensor Core Fig. 12).

Dot-product units of 4 elements (M = N = 1, K = 4), priced by ``lutcore.ppa`` at 28nm, 1 GHz:
MAC with uniform precision (W_FP16 A_FP16, W_FP8 A_FP8, W_INT8 A_INT8) and, for 1-bit weights
and each activation format, MAC (dequantize, then multiply-accumulate), ADD (bit-serial) and the
LUT Tensor Core unit. Compute density and energy efficiency count 2 operations per
multiply-add, so bit-serial units are charged for the cycles they take.
"""

from __future__ import annotations

import dataclasses
import sys

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments import ConfigError, markdown_table, paper_claim, reference
from experiments.lut_tensor_core._ppa_sweep import COLORS, check_config, sweep

ID = "lut-fig12"
TITLE = "PPA of MAC/ADD/LUT-based DP4 units across formats (LUT Tensor Core Fig. 12)"
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("lut_fp16_density", "mac_fp16_density", "lut_most_power_efficient")
ABSOLUTE_TOLERANCE = 0.5  # relative: our 45nm cells scaled to 28nm are not TSMC 28nm cells


@dataclasses.dataclass(frozen=True)
class Config:
    """k: dot-product length; weight: the low-bit weight of the mixed-precision designs;
    activations: their activation formats."""

    k: int = 4
    weight: str = "int1"
    activations: tuple[str, ...] = ("fp16", "fp8", "int8", "int16")

    def __post_init__(self):
        if not 1 <= self.k <= 8:
            raise ConfigError(f"k: must be in 1..8, got {self.k}")
        check_config(activations={"activations": self.activations},
                     weights={"weight": self.weight}, allowed_weights=("int1", "int2", "int4"))


def designs(config: Config) -> list[tuple[str, str, str]]:
    uniform = [("mac", "fp16", "fp16"), ("mac", "fp8", "fp8"), ("mac", "int8", "int8")]
    mixed = [(m, a, config.weight) for a in config.activations
             for m in ("mac", "add", "lut_tensor_core")]
    return uniform + mixed


def run(config: Config) -> xr.Dataset:
    ds = sweep(designs(config), [(1, 1, config.k)]).isel(shape=0, drop=True)
    return ds.drop_vars(["m", "n", "k"], errors="ignore").assign_attrs(k=config.k)


def plot(ds: xr.Dataset):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
    y = np.arange(ds.sizes["design"])
    colors = [COLORS[str(m)] for m in ds.method.values]
    for ax, field in zip(axes, ("density", "efficiency")):
        ax.barh(y, ds[field], color=colors)
        ax.set_xscale("log")
        ax.set_xlabel(f"{ds[field].long_name} ({ds[field].units}, 28nm, 1 GHz)")
        for yi, v in zip(y, ds[field].values):
            ax.text(v, yi, f" {v:.2f}", va="center", fontsize=7)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, ds.design.values, fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle(f"DP{ds.attrs['k']} units (M = N = 1)", fontsize=10)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    rows = [[str(d), f"{float(ds.area.sel(design=d)) * 1e6:.0f}",
             f"{float(ds.power.sel(design=d)):.3f}", f"{float(ds.delay.sel(design=d)):.0f}",
             f"{float(ds.density.sel(design=d)):.2f}", f"{float(ds.efficiency.sel(design=d)):.2f}"]
            for d in ds.design.values]
    return (f"DP{ds.attrs['k']} units at 28nm, 1 GHz (critical paths unpipelined).\n\n"
            + markdown_table(["design", "area (um^2)", "power (mW)", "critical path (ps)",
                              "TOPs/mm^2", "TOPs/W"], rows, right=5))


def _pick(ds, method, act, weight):
    return ds.sel(design=(ds.method == method) & (ds.activation == act) & (ds.weight == weight))


def claims(ds: xr.Dataset):
    module = sys.modules[__name__]
    out = []
    lut16 = _pick(ds, "lut_tensor_core", "fp16", "int1")
    mac16 = _pick(ds, "mac", "fp16", "fp16")
    if lut16.sizes["design"] and mac16.sizes["design"]:
        lut_d, mac_d = float(lut16.density[0]), float(mac16.density[0])
        paper_lut = reference(PAPER, ID, "lut_fp16_density").value
        paper_mac = reference(PAPER, ID, "mac_fp16_density").value
        for key, ours, paper in (("lut_fp16_density", lut_d, paper_lut),
                                 ("mac_fp16_density", mac_d, paper_mac)):
            out.append(paper_claim(
                module, key, ours=f"{ours:.2f} TOPs/mm^2 (LUT/MAC ratio {lut_d / mac_d:.1f}x; "
                                  f"paper {paper_lut / paper_mac:.1f}x)",
                holds=abs(ours / paper - 1) <= ABSOLUTE_TOLERANCE,
                tolerance=f"within {ABSOLUTE_TOLERANCE:.0%} (45nm cells scaled to 28nm)",
                deviation=f"{ours / paper - 1:+.0%}"))
    wins, losses = [], []
    for act in np.unique(ds.activation.values):
        mixed = ds.sel(design=(ds.activation == act) & (ds.weight != act))
        if "lut_tensor_core" not in mixed.method.values or mixed.sizes["design"] < 2:
            continue
        best = str(mixed.method.values[int(np.argmax(mixed.efficiency.values))])
        (wins if best == "lut_tensor_core" else losses).append(f"A_{str(act).upper()}: {best}")
    if wins or losses:
        out.append(paper_claim(
            module, "lut_most_power_efficient",
            ours="most TOPs/W among MAC/ADD/LUT with the same activations: "
                 + "; ".join(sorted(wins + losses)),
            holds=not losses, tolerance="LUT Tensor Core first for every activation format",
            deviation="" if not losses else "with integer activations the K - 1 integer adders "
            "of the ADD unit cost less than the LUT unit's table registers, load enables and mux "
            "(see the table)"))
    return out

"""From UNPU to LUT Tensor Core, one optimization at a time: W_INT2 A_INT8, M N K = 512
(LUT Tensor Core Table 2).

Four arrays priced by ``lutcore.ppa``, each at its own best shape (min area x power over every
power-of-two M N K = 512, the "DSE enabled" of the paper):
UNPU (hardware precompute per row, 2^K table) -> + weight reinterpretation (2^(K-1) table, index
inversion and entry negation per lookup) -> + negation circuit elimination (index inversion
offline) -> + DFG transformation and kernel fusion (precompute in software) = LUT Tensor Core.
"""

from __future__ import annotations

import dataclasses
import sys

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments import markdown_table, paper_claim, reference
from experiments.lut_tensor_core._ppa_sweep import (COLORS, METHOD_LABELS, check_config,
                                                  shape_label, sweep)

ID = "lut-table2"
TITLE = "UNPU to LUT Tensor Core ablation, W_INT2 A_INT8 (LUT Tensor Core Table 2)"
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("compute_density_gain", "power_efficiency_gain")
STEPS = ("unpu", "unpu_reinterpret", "unpu_offline_negation", "lut_tensor_core")
RATIO_TOLERANCE = 0.10  # relative, on each normalized gain


@dataclasses.dataclass(frozen=True)
class Config:
    """activation, weight: formats; array_size: M N K (power of two)."""

    activation: str = "int8"
    weight: str = "int2"
    array_size: int = 512

    def __post_init__(self):
        check_config(activations={"activation": self.activation},
                     weights={"weight": self.weight}, array_size=self.array_size)


def run(config: Config) -> xr.Dataset:
    ds = sweep([(s, config.activation, config.weight) for s in STEPS],
               ppa.power_of_two_shapes(config.array_size))
    best = [ppa.best_index(ds.area.values[d] * ds.power.values[d],
                           np.isfinite(ds.area.values[d])) for d in range(len(STEPS))]
    out = ds.isel(shape=xr.DataArray(best, dims="design"))
    out = out.assign(
        density_gain=out.density / out.density.isel(design=0),
        efficiency_gain=out.efficiency / out.efficiency.isel(design=0))
    out["density_gain"].attrs = {"long_name": "compute density / UNPU", "units": "1"}
    out["efficiency_gain"].attrs = {"long_name": "energy efficiency / UNPU", "units": "1"}
    return out.drop_vars("shape", errors="ignore").assign_attrs(
        activation=config.activation, weight=config.weight, array_size=config.array_size)


def plot(ds: xr.Dataset):
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.4))
    names = [METHOD_LABELS[str(m)] for m in ds.method.values]
    colors = [COLORS[str(m)] for m in ds.method.values]
    y = np.arange(ds.sizes["design"])
    for ax, field, xlabel in ((axes[0], "part_area", "area by part (um$^2$, 28nm)"),
                              (axes[1], "density_gain", "gain over UNPU")):
        if field == "part_area":
            left = np.zeros(len(y))
            for p in ds.part.values:
                values = ds.part_area.sel(part=p).values * 1e6
                if values.max() > 0:
                    ax.barh(y, values, left=left, label=str(p))
                    left += values
            ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=3)
        else:
            ax.barh(y - 0.2, ds.density_gain, 0.4, color=colors, label="compute density")
            ax.barh(y + 0.2, ds.efficiency_gain, 0.4, color=colors, alpha=0.5,
                    label="energy efficiency")
            ax.legend(fontsize=7)
        ax.set_xlabel(xlabel)
        ax.set_yticks(y, names, fontsize=8)
        ax.invert_yaxis()
    fig.suptitle(f"W_{ds.attrs['weight'].upper()} A_{ds.attrs['activation'].upper()}, "
                 f"M N K = {ds.attrs['array_size']}, each at its best shape", fontsize=10)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    rows = [[METHOD_LABELS[str(m)], shape_label(ds.m[i], ds.n[i], ds.k[i]),
             f"{float(ds.area[i]) * 1e6:,.0f}", f"{float(ds.density_gain[i]):.3f}x",
             f"{float(ds.power[i]):.2f}", f"{float(ds.efficiency_gain[i]):.3f}x"]
            for i, m in enumerate(ds.method.values)]
    return ("Each configuration at its min area x power shape; 28nm, 1 GHz.\n\n"
            + markdown_table(["configuration", "shape", "area (um^2)", "compute density",
                              "power (mW)", "power efficiency"], rows, right=4))


def claims(ds: xr.Dataset):
    module = sys.modules[__name__]
    out = []
    for key, field in (("compute_density_gain", "density_gain"),
                       ("power_efficiency_gain", "efficiency_gain")):
        paper = np.array(reference(PAPER, ID, key).value)
        ours = ds[field].values[1:]
        out.append(paper_claim(
            module, key, ours=" -> ".join(f"{v:.3f}x" for v in ours),
            holds=bool(np.all(np.abs(ours / paper - 1) <= RATIO_TOLERANCE)),
            tolerance=f"each step within {RATIO_TOLERANCE:.0%}",
            deviation=", ".join(f"{v:+.0%}" for v in ours / paper - 1)))
    return out

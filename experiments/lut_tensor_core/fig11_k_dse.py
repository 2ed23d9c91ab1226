"""K-axis design-space exploration of the LUT dot-product unit (LUT Tensor Core Fig. 11).

One LUT Tensor Core unit (M = N = 1, 1-bit weights): a symmetric table of 2^(K-1) entries, one
lookup, sign and accumulate per cycle, i.e. 2K operations. Larger K amortizes the accumulator over
more operations but doubles the table registers and the mux per step: compute density (TOPs/mm^2
at 28nm, 1 GHz) peaks in between. Priced by ``lutcore.ppa`` for INT and FP activations.
"""

from __future__ import annotations

import dataclasses
import sys

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments import ConfigError, markdown_table, paper_claim, reference
from experiments.lut_tensor_core._ppa_sweep import check_config, sweep

ID = "lut-fig11"
TITLE = "K-axis DSE of the LUT dot-product unit: compute density vs K (LUT Tensor Core Fig. 11)"
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("int_peak_k", "fp_peak_k")


@dataclasses.dataclass(frozen=True)
class Config:
    """k_values: table group sizes K; activations: formats (INT and FP); weight: weight format."""

    k_values: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
    activations: tuple[str, ...] = ("int8", "int16", "fp8", "fp16")
    weight: str = "int1"

    def __post_init__(self):
        if not all(1 <= k <= 8 for k in self.k_values):
            raise ConfigError(f"k_values: each must be in 1..8, got {self.k_values}")
        check_config(activations={"activations": self.activations},
                     weights={"weight": self.weight})


def run(config: Config) -> xr.Dataset:
    shapes = [(1, 1, k) for k in config.k_values]
    ds = sweep([("lut_tensor_core", a, config.weight) for a in config.activations], shapes)
    return ds.assign_coords(shape=list(config.k_values)).rename(shape="K").drop_vars(
        ["m", "n", "k"])


def peak_k(ds: xr.Dataset, kind: str) -> dict[str, int]:
    """{activation: K of the highest compute density} for INT or FP activations."""
    return {str(a): int(ds.K[int(np.argmax(ds.density.sel(design=d).values))])
            for d, a in zip(ds.design.values, ds.activation.values)
            if str(a).startswith(kind)}


def _shares(ds: xr.Dataset, design) -> str:
    """Area shares at K = 4: the table (registers and lookup) vs the accumulate path, which set
    where density peaks (entries double with K, the accumulator is paid once)."""
    parts = ds.part_area.sel(design=design, K=4)
    table = float(parts.sel(part=["tables", "lookup"]).sum() / parts.sum())
    acc = float(parts.sel(part=["accumulate", "registers"]).sum() / parts.sum())
    return f"table + lookup {table:.0%}, accumulator + its register {acc:.0%}"


def plot(ds: xr.Dataset):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for d, act in zip(ds.design.values, ds.activation.values):
        line = "-" if str(act).startswith("int") else "--"
        ax.plot(ds.K, ds.density.sel(design=d), line, marker="o", label=f"A_{str(act).upper()}")
    ax.set_xlabel("K (activations per table)")
    ax.set_ylabel("compute density (TOPs/mm$^2$, 28nm, 1 GHz)")
    ax.set_title(f"LUT dot-product unit, M = N = 1, W_{str(ds.weight.values[0]).upper()}",
                 fontsize=10)
    ax.set_xticks(ds.K.values)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    rows = [[int(k)] + [f"{float(ds.density.sel(design=d, K=k)):.2f}" for d in ds.design.values]
            for k in ds.K.values]
    return ("Compute density (TOPs/mm^2) of one LUT Tensor Core unit (M = N = 1) at 28nm, "
            "1 GHz.\n\n" + markdown_table(
                ["K", *[f"A_{str(a).upper()}" for a in ds.activation.values]], rows,
                right=ds.sizes["design"]))


def claims(ds: xr.Dataset):
    module = sys.modules[__name__]
    if ds.sizes["K"] < 3:
        return []
    out = []
    for kind, key in (("int", "int_peak_k"), ("fp", "fp_peak_k")):
        peaks = peak_k(ds, kind)
        if not peaks:
            continue
        paper = reference(PAPER, ID, key).value
        near = {a: float(ds.density.sel(design=d, K=4) / ds.density.sel(design=d).max())
                for d, a in zip(ds.design.values, ds.activation.values) if a in peaks}
        out.append(paper_claim(
            module, key, ours="peak at " + ", ".join(f"K={k} (A_{a.upper()})"
                                                     for a, k in peaks.items())
            + "; K=4 reaches " + ", ".join(f"{v:.0%}" for v in near.values()) + " of the peak",
            holds=all(k == paper for k in peaks.values()),
            tolerance="same K", deviation="" if all(k == paper for k in peaks.values()) else
            f"paper K={paper}; at K=4 our unit's area is " + "; ".join(
                f"A_{a.upper()}: " + _shares(ds, d) for d, a in
                zip(ds.design.values, ds.activation.values) if a in peaks)))
    return out

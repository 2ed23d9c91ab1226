"""LUT Tensor Core beside accelerators for quantized models (LUT Tensor Core Table 3).

The LUT Tensor Core row is computed: the PE (tensor-core array) energy efficiency of W_INT1 A_INT8
at its best M N K = 512 shape (min area x power) and of the DP4 unit, by ``lutcore.ppa`` at 28nm,
0.9 V, 1 GHz. The other rows (UNPU, Ant, Mokey, FIGNA) are the published values as Table 3 lists
them, read from the reference file: they are context, not outputs.
"""

from __future__ import annotations

import dataclasses
import sys

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments import markdown_table, paper_claim, reference
from experiments.lut_tensor_core._ppa_sweep import check_config, shape_label, sweep

ID = "lut-table3"
TITLE = "LUT Tensor Core PE energy efficiency vs published accelerators (LUT Tensor Core Table 3)"
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("lut_tensor_core_pe_efficiency",)
TOLERANCE = 0.5  # relative: 45nm cells scaled to 28nm stand in for TSMC 28nm


@dataclasses.dataclass(frozen=True)
class Config:
    """activation, weight: the paper's W_INT1 A_INT8; array_size: M N K of the PE array."""

    activation: str = "int8"
    weight: str = "int1"
    array_size: int = 512

    def __post_init__(self):
        check_config(activations={"activation": self.activation},
                     weights={"weight": self.weight}, array_size=self.array_size,
                     allowed_weights=("int1", "int2", "int4"))


def run(config: Config) -> xr.Dataset:
    design = [("lut_tensor_core", config.activation, config.weight)]
    array = sweep(design, ppa.power_of_two_shapes(config.array_size))
    best = ppa.best_index(array.area.values[0] * array.power.values[0],
                          np.isfinite(array.area.values[0]))
    dp4 = sweep(design, [(1, 1, 4)])
    pick = xr.concat([array.isel(shape=[best]), dp4], dim="shape")
    ds = pick.isel(design=0, drop=True).assign_coords(
        shape=["PE array (best M N K)", "DP4 unit"])
    ds = ds.rename(shape="scope")
    return ds.assign_attrs(activation=config.activation, weight=config.weight)


def plot(ds: xr.Dataset):
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.barh(np.arange(ds.sizes["scope"]), ds.efficiency, color="#4c72b0")
    paper = reference(PAPER, ID, "lut_tensor_core_pe_efficiency").value
    ax.axvline(paper, color="k", ls="--", label=f"paper: {paper} TOPs/W")
    labels = [f"{s}\n{shape_label(m, n, k)}" for s, m, n, k in
              zip(ds.scope.values, ds.m.values, ds.n.values, ds.k.values)]
    ax.set_yticks(np.arange(ds.sizes["scope"]), labels, fontsize=8)
    ax.set_xlabel("energy efficiency (TOPs/W, 28nm, 0.9 V, 1 GHz)")
    ax.set_title(f"LUT Tensor Core W_{ds.attrs['weight'].upper()} "
                 f"A_{ds.attrs['activation'].upper()}", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    published = reference(PAPER, ID, "published_accelerators")
    rows = [[r["name"], r["process"], r["engine"], r["activation"], r["weight"],
             r["efficiency"] + " (published)"] for r in published.value]
    rows += [[f"LUT Tensor Core, {s} {shape_label(m, n, k)}", "28nm (model)", "LUT",
              ds.attrs["activation"].upper(), ds.attrs["weight"].upper(),
              f"{float(e):.2f} TOPs/W @0.9V (lutcore)"]
             for s, m, n, k, e in zip(ds.scope.values, ds.m.values, ds.n.values, ds.k.values,
                                      ds.efficiency.values)]
    return (f"Published rows: {published.source}. The LUT Tensor Core rows are computed.\n\n"
            + markdown_table(["design", "process", "engine", "activations", "weights",
                              "PE energy efficiency"], rows))


def claims(ds: xr.Dataset):
    module = sys.modules[__name__]
    paper = reference(PAPER, ID, "lut_tensor_core_pe_efficiency").value
    ours = float(ds.efficiency.sel(scope="PE array (best M N K)"))
    dp4 = float(ds.efficiency.sel(scope="DP4 unit"))
    return [paper_claim(
        module, "lut_tensor_core_pe_efficiency",
        ours=f"{ours:.2f} TOPs/W (array {shape_label(ds.m[0], ds.n[0], ds.k[0])}); "
             f"DP4 unit {dp4:.2f} TOPs/W",
        holds=abs(ours / paper - 1) <= TOLERANCE,
        tolerance=f"within {TOLERANCE:.0%} (45nm cells scaled to 28nm, 0.9 V)",
        deviation=f"{ours / paper - 1:+.0%}")]

"""LUT Tensor Core beside accelerators for quantized models (LUT Tensor Core Table 3).

The LUT Tensor Core rows are computed: the PE (tensor-core array) energy efficiency of W_INT1
A_INT8 at its best M N K = 512 shape (least area x power) and of the DP4 unit, by
``lutcore.ppa`` at 28nm, 0.9 V, 1 GHz, at the paper's boundary (the released unit's rule) beside
the full accounting; and the efficiency of every activation/weight pair the paper's column lists
(FP/INT8, FP/INT16 activations x INT1-INT4 weights) at the paper boundary. The other rows (UNPU,
Ant, Mokey, FIGNA) are the published values as Table 3 lists them, read from the reference file:
they are context, not outputs.
"""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments import Experiment, markdown_table, paper_claim, reference
from experiments.lut_tensor_core._ppa_sweep import (
    BOUNDARY_LABELS,
    LIBRARY_LABELS,
    LIBRARY_MARKERS,
    PRIMARY,
    at_best,
    check_config,
    closure_note,
    library_claims,
    per_library,
    shape_label,
    sweep,
)

ID = "lut-table3"
TITLE = "LUT Tensor Core PE energy efficiency vs published accelerators (LUT Tensor Core Table 3)"
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("lut_tensor_core_pe_efficiency", "lut_tensor_core_column")
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
    return per_library(_run, config)


def _run(config: Config, library: str) -> xr.Dataset:
    design = [("lut_tensor_core", config.activation, config.weight)]
    array = at_best(sweep(design, ppa.power_of_two_shapes(config.array_size),
                          library=library)).isel(design=0)
    dp4 = sweep(design, [(1, 1, 4)], library=library).isel(design=0, shape=0)
    both = lambda v, w: np.stack([v, np.broadcast_to(w, np.shape(v))], axis=-1)
    ds = xr.Dataset(
        {f: (("boundary", "scope"), both(array[f].values, dp4[f].values), array[f].attrs)
         for f in ("area", "power", "throughput", "density", "efficiency", "efficiency_random",
                   "meets_timing", "stages")},
        coords={"boundary": array.boundary.values,
                "scope": ["PE array (best M N K)", "DP4 unit"],
                **{c: (("boundary", "scope"), both(array[c].values, float(dp4[c])))
                   for c in "mnk"}})
    column = reference(PAPER, ID, "lut_tensor_core_column").value
    pairs = [("lut_tensor_core", a, w) for a in column["activations"] for w in column["weights"]]
    grid = at_best(sweep(pairs, ppa.power_of_two_shapes(config.array_size),
                         boundaries=("paper",), library=library)).isel(boundary=0)
    ds["column_efficiency"] = (("pair",), grid.efficiency.values, {
        "units": "TOPs/W", "long_name": "PE array energy efficiency, paper boundary, DC's "
                                        "default activity"})
    ds["column_efficiency_random"] = (("pair",), grid.efficiency_random.values, {
        "units": "TOPs/W", "long_name": "the same, 1/2 toggle per node"})
    ds["column_meets"] = (("pair",), grid.meets_timing.values, {
        "long_name": "the pair's best array closes at 1 GHz"})
    ds = ds.assign_coords(pair=[f"W_{w.upper()} A_{a.upper()}" for _, a, w in pairs])
    return ds.assign_attrs(activation=config.activation, weight=config.weight)


def plot(ds: xr.Dataset):
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [1, 1.4]})
    ax = axes[0]
    second = [str(x) for x in ds.library.values[1:]]
    beside = ds.sel(library=second)
    ds = ds.sel(library=PRIMARY)
    y = np.arange(ds.sizes["scope"])
    for offset, boundary, alpha in ((-0.2, "paper", 1.0), (0.2, "full", 0.45)):
        ax.barh(y + offset, ds.efficiency.sel(boundary=boundary), 0.4, color="#4c72b0",
                alpha=alpha, label=BOUNDARY_LABELS[boundary])
    for x in second:  # a second library: markers on the paper-boundary bars
        ax.scatter(beside.efficiency.sel(library=x, boundary="paper"), y - 0.2, s=18,
                   marker=LIBRARY_MARKERS[x], facecolor="none", edgecolor="k", zorder=3,
                   label=f"{LIBRARY_LABELS[x]}, paper boundary")
        axes[1].scatter(np.arange(ds.sizes["pair"]), beside.column_efficiency.sel(library=x),
                        s=14, marker=LIBRARY_MARKERS[x], facecolor="none", edgecolor="k",
                        zorder=3, label=LIBRARY_LABELS[x])
    paper = reference(PAPER, ID, "lut_tensor_core_pe_efficiency").value
    ax.axvline(paper, color="k", ls="--", label=f"paper: {paper} TOPs/W")
    labels = [f"{s}\n{shape_label(m, n, k)}" for s, m, n, k in
              zip(ds.scope.values, *(ds[c].sel(boundary="paper").values for c in "mnk"))]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel(f"energy efficiency (TOPs/W, 28nm, 0.9 V, closed at 1 GHz; "
                  f"{LIBRARY_LABELS[PRIMARY]}, DC default activity)", fontsize=8)
    ax.set_title(f"LUT Tensor Core W_{ds.attrs['weight'].upper()} "
                 f"A_{ds.attrs['activation'].upper()}", fontsize=10)
    ax.legend(fontsize=7)
    axes[1].bar(np.arange(ds.sizes["pair"]), ds.column_efficiency, color="#4c72b0")
    axes[1].set_xticks(np.arange(ds.sizes["pair"]), ds.pair.values, rotation=70, fontsize=7)
    axes[1].set_ylabel("TOPs/W (paper boundary)")
    if second:
        axes[1].legend(fontsize=7)
    axes[1].set_title("every pair of Table 3's LUT Tensor Core column", fontsize=9)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    published = reference(PAPER, ID, "published_accelerators")
    rows = [[r["name"], r["process"], r["engine"], r["activation"], r["weight"],
             r["efficiency"] + " (published)"] for r in published.value]
    columns = []
    for library in ds.library.values:
        lib = ds.sel(library=library)
        for scope in ds.scope.values:
            one = lib.sel(scope=scope)
            shapes = " / ".join(shape_label(one.m.sel(boundary=b), one.n.sel(boundary=b),
                                            one.k.sel(boundary=b)) for b in ("paper", "full"))
            value = lambda f, one=one: " / ".join(f"{float(one[f].sel(boundary=b)):.2f}"
                                                  for b in ("paper", "full"))
            rows.append([f"LUT Tensor Core, {scope} {shapes}, "
                         f"{LIBRARY_LABELS[str(library)]}", "28nm (model)", "LUT",
                         ds.attrs["activation"].upper(), ds.attrs["weight"].upper(),
                         f"{value('efficiency')} TOPs/W @0.9V, DC default activity "
                         f"({value('efficiency_random')} at 1/2 toggle per node)"])
        columns.append(f"{LIBRARY_LABELS[str(library)]}: " + ", ".join(
            f"{p} {float(v):.1f} ({float(r):.1f}){'' if met else ' (cannot close)'}"
            for p, v, r, met in zip(ds.pair.values, lib.column_efficiency.values,
                                    lib.column_efficiency_random.values,
                                    lib.column_meets.values == 1)))
    return (f"Published rows: {published.source}. The LUT Tensor Core rows are computed: "
            "closed at 1 GHz, paper boundary / full accounting, in each library.\n\n"
            + markdown_table(["design", "process", "engine", "activations", "weights",
                              "PE energy efficiency"], rows)
            + "\nEvery pair of the LUT Tensor Core column, PE array at the paper boundary, "
              "TOPs/W under DC's default activity (1/2 toggle per node): "
            + "; ".join(columns) + ".\n\n" + closure_note(ds) + "\n")


def claims(ds: xr.Dataset):
    return library_claims(_claims, ds)


def _claims(ds: xr.Dataset):
    module = EXPERIMENT
    paper = reference(PAPER, ID, "lut_tensor_core_pe_efficiency").value
    pe = ds.efficiency.sel(scope="PE array (best M N K)")
    ours, full = float(pe.sel(boundary="paper")), float(pe.sel(boundary="full"))
    random = float(ds.efficiency_random.sel(scope="PE array (best M N K)", boundary="paper"))
    dp4 = float(ds.efficiency.sel(scope="DP4 unit", boundary="paper"))
    one = ds.sel(scope="PE array (best M N K)", boundary="paper")
    column = reference(PAPER, ID, "lut_tensor_core_column").value
    return [paper_claim(
        module, "lut_tensor_core_pe_efficiency",
        ours=f"{ours:.2f} TOPs/W at the paper boundary under DC's default activity (array "
             f"{shape_label(one.m, one.n, one.k)}; DP4 unit {dp4:.2f}); {random:.2f} under 1/2 "
             f"toggle per node; full accounting {full:.2f}",
        holds=abs(ours / paper - 1) <= TOLERANCE, ours_value=ours, band=TOLERANCE,
        tolerance=f"within {TOLERANCE:.0%} at the paper boundary (library cells scaled to "
                  "28nm, 0.9 V)",
        deviation=f"{ours / paper - 1:+.0%} (full accounting {full / paper - 1:+.0%})"),
        paper_claim(
        module, "lut_tensor_core_column",
        ours=f"all {ds.sizes['pair']} pairs of the column build at M N K = "
             f"{int(one.m * one.n * one.k)}: {float(ds.column_efficiency.min()):.1f}-"
             f"{float(ds.column_efficiency.max()):.1f} TOPs/W at the paper boundary (the table "
             "below lists each)",
        holds=ds.sizes["pair"] == len(column["activations"]) * len(column["weights"])
        and bool(np.all(np.isfinite(ds.column_efficiency.values))),
        tolerance="every listed pair buildable and priced")]


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

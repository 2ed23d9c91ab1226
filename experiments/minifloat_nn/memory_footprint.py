"""The largest GEMM per kernel that fits the 128 KiB scratchpad (MiniFloat-NN Sec. IV).

A, B and C sit in the scratchpad in the kernel's input format (``lutcore.snitch.footprint_bytes``,
as the Snitch GEMM driver allocates them). For a ladder of sizes "RxK" (M = N = R), each kernel's
footprint is computed and the largest fitting size (most FLOP) is reported, with the largest K
that fits at each R. Stack and runtime data in the scratchpad are not counted.
"""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.snitch as snitch
from experiments import ConfigError, Experiment, markdown_table, paper_claim, reference
from experiments.minifloat_nn._snitch_sizes import check_sizes, parse_size

ID = "mfnn-memory"
TITLE = "Largest GEMM per format that fits the 128 KiB scratchpad (MiniFloat-NN Sec. IV)"
PAPER = "minifloat_nn"
# the reference keys claims() states in the full run
CLAIMS = ("fit_limits",)


@dataclasses.dataclass(frozen=True)
class Config:
    """kernels: of ``lutcore.snitch.KERNELS``; sizes: the ladder "RxK" (M = N = R), K = R and
    2R for R = 32 .. 256 by default; capacity_kib: scratchpad size."""

    kernels: tuple[str, ...] = snitch.KERNELS
    sizes: tuple[str, ...] = ("32x32", "32x64", "64x64", "64x128", "128x128", "128x256",
                              "256x256", "256x512")
    capacity_kib: int = snitch.SNITCH_CLUSTER.tcdm_bytes // 1024

    def __post_init__(self):
        check_sizes(self.sizes, self.kernels)
        if self.capacity_kib < 1:
            raise ConfigError(f"capacity_kib: need a positive integer, got {self.capacity_kib}")


def _max_depth(kernel: str, rows: int, capacity: int) -> int:
    """Largest K (a whole number of 64-bit words) with R x K inputs and R x R output fitting."""
    spec = snitch.kernel_spec(kernel)
    free = capacity // spec.bytes - rows * rows
    depth = max(free // (2 * rows), 0)
    return depth - depth % spec.values_per_word


def run(config: Config) -> xr.Dataset:
    kernels, sizes = list(config.kernels), list(config.sizes)
    capacity = config.capacity_kib * 1024
    footprint = np.array([[snitch.footprint_bytes(kernel, *parse_size(s)) for s in sizes]
                          for kernel in kernels], np.int64)
    flop = np.array([2 * np.prod(parse_size(s)) for s in sizes], np.int64)
    fits = footprint <= capacity
    largest = []
    for row in fits:
        fitting = list(np.flatnonzero(row))
        largest.append(sizes[max(fitting, key=lambda i: flop[i])] if fitting else "none")
    rows = sorted({parse_size(s)[0] for s in sizes})
    ds = xr.Dataset(
        {"footprint_bytes": (("kernel", "size"), footprint),
         "fits": (("kernel", "size"), fits.astype(np.int8)),
         "largest_fitting": ("kernel", largest),
         "max_k": (("kernel", "rows"), np.array([[_max_depth(k, r, capacity) for r in rows]
                                                 for k in kernels], np.int64))},
        coords={"kernel": kernels, "size": sizes, "rows": rows, "flop": ("size", flop)})
    ds["footprint_bytes"].attrs["units"] = "bytes (A + B + C in the input format)"
    ds["max_k"].attrs["units"] = "largest K fitting with M = N = rows"
    ds.attrs.update({"capacity_bytes": capacity,
                     "size_convention": "RxK: M = N = R, inner dimension K"})
    return ds


def plot(ds: xr.Dataset):
    fig, ax = plt.subplots(figsize=(8, 3.6))
    kernels, sizes = list(ds.kernel.values), list(ds.size.values)
    width = 0.8 / len(kernels)
    x = np.arange(len(sizes))
    for i, kernel in enumerate(kernels):
        ax.bar(x + (i - (len(kernels) - 1) / 2) * width,
               ds["footprint_bytes"].sel(kernel=kernel) / 1024, width,
               label=kernel.replace("_", " "))
    ax.axhline(ds.attrs["capacity_bytes"] / 1024, color="k", ls="--", label="scratchpad")
    ax.set_yscale("log")
    ax.set_xticks(x, sizes)
    ax.set_xlabel("GEMM size R x K (M = N = R)")
    ax.set_ylabel("A + B + C [KiB]")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(True, axis="y", alpha=0.3, which="both")
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    rows = [[kernel, str(ds["largest_fitting"].sel(kernel=kernel).item())]
            + [f"{int(ds['footprint_bytes'].sel(kernel=kernel, size=s)) / 1024:g}"
               + ("" if int(ds["fits"].sel(kernel=kernel, size=s)) else " (n/f)")
               for s in ds.size.values]
            + [", ".join(f"{int(r)}: {int(ds['max_k'].sel(kernel=kernel, rows=r))}"
                         for r in ds.rows.values)]
            for kernel in ds.kernel.values]
    text = markdown_table(["kernel", "largest fitting"] + [f"{s} [KiB]" for s in ds.size.values]
                          + ["max K per R"], rows)
    return text + (f"\nScratchpad {ds.attrs['capacity_bytes'] // 1024} KiB; n/f: does not "
                   "fit. A, B, C in the input format; sizes R x K with M = N = R.\n")


def claims(ds: xr.Dataset):
    module = EXPERIMENT
    paper = reference(PAPER, ID, "fit_limits").value
    kernels = [k for k in paper if k in ds.kernel.values]
    if not kernels or any(paper[k] not in ds.size.values for k in kernels):
        return []
    ours = {k: str(ds["largest_fitting"].sel(kernel=k).item()) for k in kernels}
    others = {k: str(ds["largest_fitting"].sel(kernel=k).item()) for k in ds.kernel.values
              if k not in paper}
    text = ", ".join(f"{k}: {v}" for k, v in ours.items())
    if others:
        text += "; also " + ", ".join(f"{k}: {v}" for k, v in others.items())
    bad = {k: v for k, v in ours.items() if v != paper[k]}
    return [paper_claim(module, "fit_limits", ours=text, holds=not bad,
                        tolerance="same largest size on the ladder " + ", ".join(ds.size.values),
                        deviation="; ".join(f"{k}: {v} instead of {paper[k]}"
                                            for k, v in bad.items()))]


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

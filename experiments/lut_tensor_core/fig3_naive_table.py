"""The naive LUT mpGEMM tile of Fig. 3: 1xK FP16 activations, INT1 weights, a 2^K-entry table.

Every entry comes from ``lutcore.lut``: the table from the precompute operator with the naive
scheme, the lookups from ``lut_gemm`` with the literal gather engine, one weight column per
possible INT1 pattern. The reference dot products are exact rational sums (``fractions``).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.lut as lut
import lutcore.numerics as nm
from experiments import ConfigError, Experiment, markdown_table, paper_claim, reference

ID = "lut-fig3"
TITLE = "Naive LUT-based mpGEMM tile: FP16 activations, INT1 weights (LUT Tensor Core Fig. 3)"
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("table_entries", "lookup_replaces_dot_product", "full_product_table")


@dataclasses.dataclass(frozen=True)
class Config:
    """k: activations per tile (Fig. 3: 4); seed of the FP16 activations (standard normal)."""

    k: int = 4
    seed: int = 0

    def __post_init__(self):
        if not 1 <= self.k <= 8:
            raise ConfigError(f"k: must be in 1..8 (a 2^k-entry table), got {self.k}")


def run(config: Config) -> xr.Dataset:
    rng = np.random.default_rng(config.seed)
    a = np.asarray(lut.to_format(rng.standard_normal((1, config.k)), "fp16"))
    patterns = (np.arange(2 ** config.k)[:, None] >> np.arange(config.k)) & 1  # [2^k, k]
    scheme = lut.make_scheme("naive", config.k, 1)
    table = np.asarray(lut.precompute_tables(a, scheme))[0, 0]
    looked_up = np.asarray(lut.lut_gemm(a, patterns, scheme, lookup="gather"))[0]
    exact = [sum((Fraction(float(x)) * int(b) for x, b in zip(a[0], row)), Fraction(0))
             for row in patterns]
    ds = xr.Dataset(
        {"activation": ("act", a[0]),
         "weight": (("entry", "act"), patterns.astype(np.uint8)),
         "table": ("entry", table),
         "lookup": ("entry", looked_up),
         "dot_exact": ("entry", np.array([float(x) for x in exact])),
         "lookup_is_exact": ("entry", np.array([Fraction(float(v)) == x
                                                for v, x in zip(looked_up, exact)]))},
        coords={"entry": np.arange(2 ** config.k), "act": np.arange(config.k)})
    ds["activation"].attrs = {"long_name": "FP16 activations a_0..a_{k-1}", "units": "1"}
    ds["weight"].attrs = {"long_name": "INT1 weight pattern of the column looking up this entry"}
    ds["table"].attrs = {"long_name": "precomputed table entry sum_i a_i w_i", "units": "1"}
    ds["lookup"].attrs = {"long_name": "mpGEMM output through one table lookup", "units": "1"}
    ds["dot_exact"].attrs = {"long_name": "exact dot product (rational arithmetic)", "units": "1"}
    # §2.2's table of every FP16 activation value times every INT4 weight, by contrast
    ds.attrs.update(k=config.k, fp16_patterns=2 ** nm.FORMATS["fp16"].width,
                    int4_entries_per_value=lut.table_entries("naive", 1, 4))
    return ds


def _pattern(ds, e):
    return "".join(str(int(b)) for b in ds.weight.sel(entry=e).values[::-1])


def plot(ds: xr.Dataset):
    fig, ax = plt.subplots(figsize=(8, 3.6))
    entries = ds.entry.values
    ax.bar(entries, ds.table, color="#4c72b0", label="table entry (precomputed once)")
    ax.plot(entries, ds.dot_exact, "o", color="#dd8452", ms=7, mfc="none",
            label="dot product a · w (exact)")
    ax.axhline(0, color="0.5", lw=0.6)
    ax.set_xticks(entries, [_pattern(ds, e) for e in entries], rotation=90, fontsize=8)
    ax.set_xlabel(f"INT1 weight pattern w_{ds.attrs['k'] - 1}..w_0 = table index")
    ax.set_ylabel("value")
    acts = ", ".join(f"{float(x):.4g}" for x in ds.activation.values)
    ax.set_title(f"Fig. 3: one {2 ** ds.attrs['k']}-entry table replaces every dot product "
                 f"(a = [{acts}], FP16)", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    rows = [[int(e), _pattern(ds, e), f"{float(ds.table.sel(entry=e)):.6g}",
             f"{float(ds.lookup.sel(entry=e)):.6g}", f"{float(ds.dot_exact.sel(entry=e)):.6g}",
             "yes" if bool(ds.lookup_is_exact.sel(entry=e)) else "NO"] for e in ds.entry.values]
    return markdown_table(["index", "weights w_{k-1}..w_0", "table entry", "lookup result",
                           "exact dot product", "equal"], rows, right=4)


def claims(ds: xr.Dataset):
    module = EXPERIMENT
    entries = ds.sizes["entry"]
    want = reference(PAPER, ID, "table_entries").value
    exact = bool(ds.lookup_is_exact.all())
    worst = float(np.abs(ds.lookup - ds.dot_exact).max())
    claims = [paper_claim(module, "lookup_replaces_dot_product",
                          ours=f"all {entries} lookups equal the exact dot products "
                               f"(max |difference| {worst:g})" if exact else
                               f"lookups differ from the exact dot products by up to {worst:g}",
                          holds=exact, tolerance="bit-exact")]
    full = reference(PAPER, ID, "full_product_table").value
    values, levels = int(ds.attrs["fp16_patterns"]), int(ds.attrs["int4_entries_per_value"])
    claims.append(paper_claim(
        module, "full_product_table",
        ours=f"every FP16 bit pattern ({values} = 2^{values.bit_length() - 1}, "
             f"lutcore.numerics) times a naive 1-activation INT4 table "
             f"({levels} = 2^{levels.bit_length() - 1} entries, lutcore.lut): "
             f"{values * levels} = 2^{(values * levels).bit_length() - 1} entries",
        holds=[values.bit_length() - 1, levels.bit_length() - 1] == full, tolerance="exact"))
    if ds.attrs["k"] == 4:  # the paper's statement is about its 1x4 tile
        claims.insert(0, paper_claim(module, "table_entries", ours=f"{entries} entries",
                                     holds=entries == want, tolerance="exact",
                                     ours_value=entries))
    return claims


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

"""Error of INT8 table quantization vs exact tables and vs INT8 activation quantization
(LUT Tensor Core §3.1.3; the paper's own evidence is the LLM perplexity of Table 5).

For FP16 activations of three distributions (Gaussian; heavy-tailed Student-t, nu = 3; Gaussian
with a few large outlier channels, the pattern Dettmers et al. 2022, LLM.int8(), report for LLM
activations) and random low-bit weights, every method runs through ``lutcore.lut.lut_gemm``:
- tables INTb: exact tables quantized to INTb, one scale per table (§3.1.3);
- activations INT8 per token: the usual W-A8 alternative, one scale per row of A;
- activations INT8 per group: one scale per group of K activations, the tables' granularity.
The reference is the exact-table result (= the float64 product of the FP16 activations). The
statistic is the normwise relative error ||Y - Y_ref||_F / ||Y_ref||_F; for table quantization
the worst |error| is also compared with the bound of ``lutcore.lut.table_quantization_bound``.
"""

from __future__ import annotations

import dataclasses
import math

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.lut as lut
from experiments import (
    ConfigError,
    Experiment,
    Footprint,
    bounded,
    check_choice,
    markdown_table,
    paper_claim,
    reference,
)

ID = "lut-tablequant"
TITLE = "INT8 table quantization error vs activation quantization (LUT Tensor Core Sec. 3.1.3)"
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("group4_table8", "int8_tables_keep_accuracy", "finer_than_activation_quantization")
DISTRIBUTIONS = ("gaussian", "student_t3", "outlier_channels")
ACCURACY_LIMIT = 1e-2  # our criterion for "keeps accuracy": <= 1 % normwise GEMM error
HEADLINE_K = 4  # the paper's group size


@dataclasses.dataclass(frozen=True)
class Config:
    """m x ktot FP16 activations times n x ktot weights; k_values: group sizes; w_bits: weight
    widths; table_bits: table-quantization widths; outlier_*: share and gain of the outlier
    channels; seeds: independent draws (errors are averaged over them)."""

    m: int = 64
    ktot: int = 4096
    n: int = 256
    k_values: tuple[int, ...] = (2, 3, 4, 5, 6)
    w_bits: tuple[int, ...] = (1, 2, 4)
    table_bits: tuple[int, ...] = (8, 4)
    distributions: tuple[str, ...] = DISTRIBUTIONS
    outlier_fraction: float = bounded(0.01, min=0.0, max=1.0)
    # FP16 holds 65504: a larger gain turns a 6.5-sigma outlier into inf (the errors NaN)
    outlier_scale: float = bounded(50.0, above=0.0, max=1e4)
    seeds: int = 3

    FOOTPRINT = Footprint(((5e8, ()), (256.0, ("ktot", "n")), (256.0, ("m", "ktot"))),
                          "256 B per ktot x (n + m), 2026-12-05: k = 8 tables peaked at 441 and "
                          "841 MB for ktot x n = 512 x 64 and 8192 x 256 (m = 16)")

    def __post_init__(self):
        check_choice("distributions", self.distributions, DISTRIBUTIONS)
        if min(self.m, self.ktot, self.n, self.seeds) < 1:
            raise ConfigError("m, ktot, n, seeds: must be positive")
        if not all(1 <= k <= 8 for k in self.k_values):
            raise ConfigError(f"k_values: each must be in 1..8, got {self.k_values}")
        if not all(1 <= w <= 8 for w in self.w_bits):
            raise ConfigError(f"w_bits: each must be in 1..8, got {self.w_bits}")
        if not all(2 <= b <= 16 for b in self.table_bits):
            raise ConfigError(f"table_bits: each must be in 2..16, got {self.table_bits}")


def methods(config: Config) -> list[str]:
    return ([f"tables INT{b}" for b in config.table_bits]
            + ["activations INT8 per token", "activations INT8 per group"])


def activations(rng, config: Config, distribution: str):
    """[m, ktot] FP16 activation values of one distribution."""
    shape = (config.m, config.ktot)
    if distribution == "gaussian":
        x = rng.standard_normal(shape)
    elif distribution == "student_t3":
        x = rng.standard_t(3, shape)
    else:
        x = rng.standard_normal(shape)
        channels = rng.choice(config.ktot, max(1, round(config.outlier_fraction * config.ktot)),
                              replace=False)
        x[:, channels] *= config.outlier_scale
    return np.asarray(lut.to_format(x, "fp16"))


def _quantized_activations(a, k):
    """Per-token INT8 activations as (codes [M, K], scale [M]): the GEMM runs on the integer
    codes, exact in any order, and each row is scaled after it, one rounding, as a W-A8 kernel
    does; per-group (k) INT8 activations dequantized (float64): one scale per table, no exact
    sum spans more than one table."""
    codes, per_token = lut.symmetric_quantize(a, 8)
    groups = lut.group_activations(a, k)
    group_codes, scale = lut.symmetric_quantize(groups, 8)
    per_group = np.asarray(group_codes * scale[..., None]).reshape(a.shape[0], -1)
    return (np.asarray(codes), np.asarray(per_token)), per_group[:, :a.shape[1]]


def _entries_per_scale(k: int) -> int:
    """Entries of one group's table over the scales table quantization gives it."""
    tables = lut.precompute_tables(np.ones((1, k)), lut.make_scheme("symmetric", k, 1))
    _, codes, scale = lut.quantize_tables(tables, 8)
    return int(np.asarray(codes).size // np.asarray(scale).size)


def _norm(x) -> float:
    """Frobenius norm from an exact sum of squares (math.fsum): np.linalg.norm sums by BLAS,
    whose order and last bit depend on the CPU."""
    x = np.asarray(x).ravel()
    return math.sqrt(math.fsum(x * x))


def run(config: Config) -> xr.Dataset:
    names = methods(config)
    dims = (len(config.distributions), len(config.k_values), len(config.w_bits))
    error = np.zeros(dims + (len(names), config.seeds))
    bound_ratio = np.zeros(dims + (len(config.table_bits), config.seeds))
    for s in range(config.seeds):
        rng = np.random.default_rng(s)
        for d, dist in enumerate(config.distributions):
            a = activations(rng, config, dist)
            for wi, w_bits in enumerate(config.w_bits):
                w = rng.integers(0, 1 << w_bits, (config.n, config.ktot))
                zero = ((1 << w_bits) - 1) / 2  # symmetric codes, as Eq. 2 makes them
                for ki, k in enumerate(config.k_values):
                    scheme = lut.make_scheme("symmetric", k, w_bits)
                    # the weights' lookups, prepared once for the five products below
                    prepared = lut.prepare_weights(w, scheme, zero=zero)
                    exact = np.asarray(lut.apply_weights(a, prepared))
                    norm = _norm(exact)
                    outputs = []
                    for bi, bits in enumerate(config.table_bits):
                        out = np.asarray(lut.apply_weights(a, prepared, table_bits=bits))
                        _, _, table_scale = lut.quantize_tables(lut.precompute_tables(a, scheme),
                                                                bits)
                        bound = np.asarray(lut.table_quantization_bound(table_scale, scheme,
                                                                        zero=zero))
                        bound_ratio[d, ki, wi, bi, s] = np.max(np.abs(out - exact) / bound)
                        outputs.append(out)
                    (codes, row_scale), per_group = _quantized_activations(a, k)
                    outputs += [np.asarray(lut.apply_weights(codes, prepared)) * row_scale[:, None],
                                np.asarray(lut.apply_weights(per_group, prepared))]
                    error[d, ki, wi, :, s] = [_norm(o - exact) / norm for o in outputs]
    coords = {"distribution": list(config.distributions), "k": list(config.k_values),
              "w_bits": list(config.w_bits), "quantizer": names,
              "table_bits": list(config.table_bits), "seed": np.arange(config.seeds)}
    ds = xr.Dataset({"rel_error": (("distribution", "k", "w_bits", "quantizer", "seed"), error),
                     "bound_ratio": (("distribution", "k", "w_bits", "table_bits", "seed"),
                                     bound_ratio)}, coords=coords)
    ds["entries_per_scale"] = ("k", [_entries_per_scale(k) for k in config.k_values])
    ds["entries_per_scale"].attrs = {"long_name": "table entries sharing one quantization "
                                     "scale (symmetric tables)", "units": "1"}
    ds["rel_error"].attrs = {"long_name": "normwise relative error vs exact tables",
                             "units": "1"}
    ds["bound_ratio"].attrs = {"long_name": "max |error| / analytic bound (<= 1 required)",
                               "units": "1"}
    ds.attrs.update(shape=f"A[{config.m}, {config.ktot}] (FP16) x W[{config.n}, {config.ktot}]",
                    outliers=f"{config.outlier_fraction:g} of channels x {config.outlier_scale:g}")
    return ds


def _mean(ds):
    return ds.rel_error.mean("seed")


def plot(ds: xr.Dataset):
    dists = ds.distribution.values
    w_plot = 2 if 2 in ds.w_bits.values else int(ds.w_bits[0])
    fig, axes = plt.subplots(1, len(dists), figsize=(4.2 * len(dists), 3.8), sharey=True,
                             squeeze=False)
    styles = {"activations INT8 per token": ("#c44e52", "--"),
              "activations INT8 per group": ("#8172b2", "-.")}
    palette = ["#4c72b0", "#55a868", "#dd8452", "#64b5cd", "#937860", "#da8bc3"]
    tables = [str(q) for q in ds.quantizer.values if str(q) not in styles]
    styles.update({q: (palette[i % len(palette)], "-") for i, q in enumerate(tables)})
    err = _mean(ds)
    for ax, dist in zip(axes[0], dists):
        for method in ds.quantizer.values:
            color, line = styles[str(method)]
            ax.semilogy(ds.k, err.sel(distribution=dist, w_bits=w_plot, quantizer=method), line,
                        color=color, marker="o", label=str(method))
        ax.set_title(f"{dist} activations (FP16), W_INT{w_plot}", fontsize=10)
        ax.set_xlabel("K (activations per table)")
        ax.set_xticks(ds.k.values)
    axes[0][0].set_ylabel("normwise relative GEMM error")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncols=len(labels), fontsize=8)
    fig.suptitle(f"Table quantization, {ds.attrs['shape']}; outliers: {ds.attrs['outliers']}",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def table(ds: xr.Dataset) -> str:
    err = _mean(ds)
    rows = [[str(d), int(k), int(w)]
            + [f"{float(err.sel(distribution=d, k=k, w_bits=w, quantizer=m)):.2e}"
               for m in ds.quantizer.values]
            for d in ds.distribution.values for k in ds.k.values for w in ds.w_bits.values]
    errors = markdown_table(["activations", "K", "W_BIT", *map(str, ds.quantizer.values)], rows,
                            right=len(ds.quantizer))
    ratio = ds.bound_ratio.max(("distribution", "k", "w_bits", "seed"))
    bound = markdown_table(["table bits", "max abs error / bound"],
                           [[int(b), f"{float(ratio.sel(table_bits=b)):.3f}"]
                            for b in ds.table_bits.values], right=1)
    return (f"Normwise relative error vs exact tables, mean of {ds.sizes['seed']} draws; "
            f"{ds.attrs['shape']}.\n\n" + errors
            + "\n**Worst error relative to the analytic bound (all points)**\n\n" + bound)


def claims(ds: xr.Dataset):
    module = EXPERIMENT
    if 8 not in ds.table_bits.values or HEADLINE_K not in ds.k.values:
        return []
    err = _mean(ds).sel(k=HEADLINE_K)
    tables = err.sel(quantizer="tables INT8")
    per_token = err.sel(quantizer="activations INT8 per token")
    worst = float(tables.max())
    where = tables.where(tables == tables.max(), drop=True)
    worst_at = f"{str(where.distribution.values[0])}, W_BIT={int(where.w_bits.values[0])}"
    ratio = (tables / per_token)
    group = reference(PAPER, ID, "group4_table8").value
    per_scale = int(ds.entries_per_scale.sel(k=group["group"]))
    return [
        paper_claim(module, "group4_table8",
                    ours=f"K={group['group']} symmetric tables: {per_scale} entries per "
                         f"quantization scale (lutcore.lut.quantize_tables)",
                    holds=per_scale == group["entries"], tolerance="exact"),
        paper_claim(module, "int8_tables_keep_accuracy",
                    ours=f"K=4 INT8 tables: normwise GEMM error {float(tables.min()):.2e} to "
                         f"{worst:.2e} (worst: {worst_at}) over "
                         f"{', '.join(map(str, ds.distribution.values))} and W_BIT "
                         f"{list(map(int, ds.w_bits.values))}",
                    holds=worst <= ACCURACY_LIMIT,
                    tolerance=f"<= {ACCURACY_LIMIT:.0%} normwise relative error (our criterion: "
                              "the paper measures perplexity, see lut-table5 / issue 7)"),
        paper_claim(module, "finer_than_activation_quantization",
                    ours=f"K=4 INT8 table error / INT8 per-token activation error: "
                         f"{float(ratio.min()):.2f} to {float(ratio.max()):.2f}",
                    holds=bool((ratio <= 1).all()),
                    tolerance="table error <= activation-quantization error at every point"),
    ]


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

"""Where the ExSdotp unit departs from correct rounding: FPnew's RTL vs IEEE 754 (issue #8).

Millions of ExSdotp operations per format pair and rounding mode, run through the rtl model
(``model="rtl"``, the bit-level model of ``fpnew_sdotp_multi``) and the ideal one (exact sum,
one rounding, IEEE 754 flags), on two input sets: uniformly random finite operands, and
cancellation-heavy ones (half of them with c*d = -a*b to within an ulp of d, all with e the
negated rounded a*b + c*d to within two ulps). Every difference is classified by kind; for pairs
that both SDOTP lanes run, the two lanes are compared too. Then the accumulation study of Fig. 9
is rerun with the rtl unit to see whether any of it matters there.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.numerics as nm
from experiments import (
    ConfigError,
    Experiment,
    Footprint,
    markdown_table,
    paper_claim,
    reference,
)

ID = "mfnn-rtl"
TITLE = "Where the ExSdotp unit departs from correct rounding (FPnew RTL vs IEEE 754, issue #8)"
PAPER = "minifloat_nn"
# the reference keys claims() states in the full run
CLAIMS = ("issue_vectors", "rne_matches_ideal_on_ordinary_inputs", "rtz_departures_one_ulp_low",
          "cancellation_cases_differ_few_percent", "lanes_same_results_nx_may_differ",
          "fig9_conclusion_holds_with_rtl")
PAIR_NAMES = tuple(f"{s}->{d}" for s, d in nm.EXPANDING_PAIRS)
INPUTS = ("random", "cancellation")
RESULT_KINDS = ("wrong_sign_zero", "wrong_sign_tiny", "one_ulp_toward_zero", "one_ulp_away",
                "other_result")
FLAG_KINDS = ("missing_nx", "spurious_nx", "uf_differs", "other_flags")
KINDS = ("any_result", *RESULT_KINDS, "any_flags", *FLAG_KINDS)
DIRECTED = ("rtz", "rdn", "rup", "rod")
Rounding = Literal["rne", "rtz", "rdn", "rup", "rmm", "rod"]


@dataclasses.dataclass(frozen=True)
class Config:
    """samples: operations per pair, rounding mode and input set; fig9_*: the Fig. 9 rerun
    (normal inputs as in mfnn-fig9, accumulated by the ideal and the rtl ExSdotp unit)."""

    pairs: tuple[str, ...] = PAIR_NAMES
    roundings: tuple[Rounding, ...] = nm.ROUNDING_MODES
    samples: int = 1_000_000
    fig9_pairs: tuple[str, ...] = ("fp16->fp32", "fp8->fp16")
    fig9_roundings: tuple[Rounding, ...] = ("rne", "rtz")
    fig9_lengths: tuple[int, ...] = (1, 4, 16, 64, 256, 1024, 4096)
    fig9_trials: int = 1000
    seed: int = 0

    FOOTPRINT = Footprint(((5e8, ()), (128.0, ("samples",)),
                           (48.0, ("fig9_trials", "fig9_lengths"))),
                          "128 B per sample, 2026-12-05: one pair peaked at 465 and 667 MB for "
                          "5000 and 2e6 samples; the Fig. 9 rerun as mfnn-fig9's, 48 B per trial "
                          "x step")

    def __post_init__(self):
        bad = [p for p in (*self.pairs, *self.fig9_pairs) if p not in PAIR_NAMES]
        if bad:
            raise ConfigError(f"pairs: {bad} not supported; "
                              f"allowed values: {', '.join(PAIR_NAMES)}")
        if self.samples < 1 or self.fig9_trials < 2:
            raise ConfigError("samples must be >= 1 and fig9_trials >= 2")
        if min(self.fig9_lengths) < 1 or list(self.fig9_lengths) != sorted(set(self.fig9_lengths)):
            raise ConfigError(f"fig9_lengths: need increasing positive integers, "
                              f"got {self.fig9_lengths}")


# --------------------------------------------------------------------------------------------
# Inputs


def _finite(bits, fmt):
    """Finite patterns: inf/NaN exponents lose their lowest bit."""
    bits = np.asarray(bits).astype(np.uint64)
    biased = (bits >> np.uint64(fmt.man_bits)) & np.uint64((1 << fmt.exp_bits) - 1)
    special = biased == (1 << fmt.exp_bits) - 1
    return np.where(special, bits ^ np.uint64(1 << fmt.man_bits), bits).astype(fmt.dtype)


def _uniform(rng, fmt, n):
    return _finite(rng.integers(0, 1 << fmt.width, n, dtype=np.uint64), fmt)


def _operands(rng, src, dst, n: int, inputs: str):
    """Five operand arrays of one input set (module docstring)."""
    a, b, c, d = (_uniform(rng, src, n) for _ in range(4))
    if inputs == "random":
        return a, b, c, d, _uniform(rng, dst, n)
    pair = rng.random(n) < 0.5                      # c*d = -a*b to within an ulp of d
    c = np.where(pair, a ^ (1 << (src.width - 1)), c).astype(src.dtype)
    near_b = _finite((b.astype(np.int64) + rng.integers(-1, 2, n)) % (1 << src.width), src)
    d = np.where(pair, near_b, d).astype(src.dtype)
    rounded = np.asarray(nm.exsdotp(a, b, c, d, np.zeros(n, dst.dtype), src=src, dst=dst))
    return a, b, c, d, _finite(_step(-1, rounded, rng.integers(-2, 3, n), dst), dst)


def _step(scale, bits, ulps, fmt):
    """Patterns of scale * value + ulps units in the last place, stepping through zero."""
    sign = 1 << (fmt.width - 1)
    bits = bits.astype(np.int64)
    signed = np.where(bits & sign, -(bits & (sign - 1)), bits & (sign - 1)) * scale + ulps
    return np.where(signed < 0, sign | -signed, signed)


# --------------------------------------------------------------------------------------------
# Classification


def _classify(ideal_bits, ideal_flags, rtl_bits, rtl_flags, dst) -> dict[str, np.ndarray]:
    """Boolean masks, one per kind: how the rtl result and flags differ from IEEE's."""
    ideal_bits, rtl_bits = ideal_bits.astype(np.int64), rtl_bits.astype(np.int64)
    sign = 1 << (dst.width - 1)
    mag_i, mag_r = ideal_bits & (sign - 1), rtl_bits & (sign - 1)
    result = ideal_bits != rtl_bits
    flipped = result & (mag_i == mag_r)
    same_sign = result & ((ideal_bits & sign) == (rtl_bits & sign))
    kinds = {"any_result": result,
             "wrong_sign_zero": flipped & (mag_i == 0),
             "wrong_sign_tiny": flipped & (mag_i != 0),
             "one_ulp_toward_zero": same_sign & (mag_i - mag_r == 1),
             "one_ulp_away": same_sign & (mag_r - mag_i == 1)}
    kinds["other_result"] = result & ~np.logical_or.reduce([kinds[k] for k in RESULT_KINDS[:-1]])
    nx_i, nx_r = (ideal_flags & nm.FLAG_NX) != 0, (rtl_flags & nm.FLAG_NX) != 0
    others = nm.FLAG_NV | nm.FLAG_DZ | nm.FLAG_OF
    kinds.update({"any_flags": ideal_flags != rtl_flags,
                  "missing_nx": nx_i & ~nx_r, "spurious_nx": nx_r & ~nx_i,
                  "uf_differs": ((ideal_flags ^ rtl_flags) & nm.FLAG_UF) != 0,
                  "other_flags": ((ideal_flags ^ rtl_flags) & others) != 0})
    return kinds


def _lanes(pair: str) -> list[str]:
    src, dst = pair.split("->")
    return [lane.name for lane in nm.SDOTP_LANES if lane.covers(src, dst)]


def _deviations(config: Config, rng):
    """Counts per (pair, rounding, inputs, kind), with and without a first-adder sticky bit,
    and the share of operations where the two lanes differ (NaN: one lane only)."""
    shape = (len(config.pairs), len(config.roundings), len(INPUTS))
    count = np.zeros((*shape, len(KINDS)), np.int64)
    count_sticky = np.zeros_like(count)
    lane_result, lane_flags = np.full(shape, np.nan), np.full(shape, np.nan)
    for i, pair in enumerate(config.pairs):
        src, dst = (nm.FORMATS[f] for f in pair.split("->"))
        lanes = _lanes(pair)
        for k, inputs in enumerate(INPUTS):
            ops = _operands(rng, src, dst, config.samples, inputs)
            for j, rounding in enumerate(config.roundings):
                ideal = nm.exsdotp_flags(*ops, src=src, dst=dst, rounding=rounding)
                trace = nm.exsdotp_rtl_trace(*ops, src=src, dst=dst, rounding=rounding,
                                             lane=lanes[0])
                kinds = _classify(*map(np.asarray, (*ideal, trace.bits, trace.flags)), dst)
                sticky = np.asarray(trace.first_sticky)
                count[i, j, k] = [kinds[kind].sum() for kind in KINDS]
                count_sticky[i, j, k] = [(kinds[kind] & sticky).sum() for kind in KINDS]
                if len(lanes) > 1:
                    other = nm.exsdotp_flags(*ops, src=src, dst=dst, rounding=rounding,
                                             model="rtl", lane=lanes[1])
                    lane_result[i, j, k] = np.mean(np.asarray(other[0]) != np.asarray(trace.bits))
                    lane_flags[i, j, k] = np.mean(np.asarray(other[1]) != np.asarray(trace.flags))
    return count, count_sticky, lane_result, lane_flags


def _fig9(config: Config, rng):
    """Normwise relative error vs float64 of the ideal/rtl ExSdotp and the ExFMA cascade."""
    steps = max(config.fig9_lengths)
    at = np.asarray(config.fig9_lengths) - 1
    error = np.zeros((len(config.fig9_pairs), len(config.fig9_roundings),
                      len(config.fig9_lengths), 3))
    changed = np.zeros(error.shape[:3])
    for i, pair in enumerate(config.fig9_pairs):
        src, dst = pair.split("->")
        a, b = (nm.from_float64(rng.standard_normal((config.fig9_trials, 2 * steps)), src)
                for _ in range(2))
        golden = np.asarray(nm.accumulate_dot(a, b, src=src, dst=dst, unit="fp64"))[:, at]
        for j, rounding in enumerate(config.fig9_roundings):
            runs = [nm.accumulate_dot(a, b, src=src, dst=dst, unit="exsdotp", rounding=rounding,
                                      model=model) for model in nm.MODELS]
            runs.append(nm.accumulate_dot(a, b, src=src, dst=dst, unit="exfma_cascade",
                                          rounding=rounding))
            runs = [np.asarray(x)[:, at] for x in runs]
            for m, acc in enumerate(runs):
                error[i, j, :, m] = np.abs(acc - golden).mean(0) / np.abs(golden).mean(0)
            changed[i, j] = np.mean(runs[0] != runs[1], axis=0)
    return error, changed


def _issue_vectors():
    """The issue's fixed vectors through the rtl model: (bits, flags) per vector."""
    out = []
    for v in reference(PAPER, ID, "issue_vectors").value:
        src, dst = v["pair"].split("->")
        bits, flags = nm.exsdotp_flags(*v["operands"], src=src, dst=dst,
                                       rounding=v["rounding"], model="rtl")
        out.append((int(bits), int(flags)))
    return np.array(out, np.int64)


def run(config: Config) -> xr.Dataset:
    rng = np.random.default_rng(config.seed)
    count, count_sticky, lane_result, lane_flags = _deviations(config, rng)
    error, changed = _fig9(config, rng)
    vectors = _issue_vectors()
    dims = ("pair", "rounding", "inputs")
    ds = xr.Dataset(
        {"count": ((*dims, "kind"), count),
         "count_first_sticky": ((*dims, "kind"), count_sticky),
         "lane_result_differs": (dims, lane_result),
         "lane_flags_differ": (dims, lane_flags),
         "fig9_error": (("fig9_pair", "fig9_rounding", "length", "unit"), error),
         "fig9_changed": (("fig9_pair", "fig9_rounding", "length"), changed),
         "vector_rtl": (("vector", "output"), vectors)},
        coords={"pair": list(config.pairs), "rounding": list(config.roundings),
                "inputs": list(INPUTS), "kind": list(KINDS),
                "fig9_pair": list(config.fig9_pairs),
                "fig9_rounding": list(config.fig9_roundings),
                "length": list(config.fig9_lengths),
                "unit": ["exsdotp_ideal", "exsdotp_rtl", "exfma_cascade"],
                "vector": np.arange(len(vectors)), "output": ["bits", "flags"]})
    ds["rate"] = ds["count"] / config.samples
    attrs = {
        "count": ("operations whose rtl result/flags differ from IEEE, by kind", "1"),
        "count_first_sticky": ("of those, operations where the first adder's sticky bit was "
                               "set", "1"),
        "rate": ("count / samples", "1"),
        "lane_result_differs": ("share of operations where the 8->16 and 16->32 lanes give "
                                "different results (NaN: one lane runs the pair)", "1"),
        "lane_flags_differ": ("share where the two lanes give different flags", "1"),
        "fig9_error": ("normwise relative error vs float64, mean|x - x64| / mean|x64|", "1"),
        "fig9_changed": ("share of accumulators where the rtl and ideal ExSdotp differ", "1"),
        "vector_rtl": ("rtl bits and flags of the issue's fixed vectors", "1"),
    }
    for name, (long_name, units) in attrs.items():
        ds[name].attrs = {"long_name": long_name, "units": units}
    ds["length"].attrs = {"long_name": "ExSdotp steps accumulated", "units": "steps (2 products)"}
    ds.attrs.update({"samples": config.samples, "fig9_trials": config.fig9_trials,
                     "seed": config.seed})
    return ds


# --------------------------------------------------------------------------------------------
# Figure, table, claims


def plot(ds: xr.Dataset):
    fig, axes = plt.subplots(1, 3, figsize=(17, 5), layout="constrained",
                             gridspec_kw={"width_ratios": [1, 1, 1.2]})
    rates = ds["rate"].sel(kind="any_result")
    floor = 0.5 / ds.attrs["samples"]
    for ax, inputs in zip(axes, INPUTS):
        r = rates.sel(inputs=inputs).values
        image = ax.imshow(np.log10(np.maximum(r, floor)), cmap="viridis", aspect="auto",
                          vmin=np.log10(floor), vmax=0)
        for (y, x), value in np.ndenumerate(r):
            ax.text(x, y, "0" if value == 0 else f"{value:.1e}", ha="center", va="center",
                    fontsize=7, color="white" if value < 1e-2 else "black")
        ax.set_xticks(range(ds.rounding.size), [m.upper() for m in ds.rounding.values])
        ax.set_yticks(range(ds.pair.size), ds.pair.values if inputs == INPUTS[0] else [])
        ax.set_title(f"RTL result != IEEE, {inputs} inputs")
    fig.colorbar(image, ax=axes[1], label="log10 share of operations", shrink=0.8)
    ax = axes[2]
    style = {"exsdotp_ideal": "o-", "exsdotp_rtl": "x--", "exfma_cascade": "s:"}
    for pair in ds.fig9_pair.values:
        for rounding in ds.fig9_rounding.values:
            for unit, fmt in style.items():
                err = ds["fig9_error"].sel(fig9_pair=pair, fig9_rounding=rounding, unit=unit)
                ax.loglog(ds.length, err, fmt, ms=4, label=f"{pair} {rounding.upper()} {unit}")
    ax.set_xlabel("ExSdotp steps accumulated (2 products each)")
    ax.set_ylabel("relative error vs FP64")
    ax.set_title("Fig. 9 rerun: ideal vs rtl ExSdotp")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    return fig


def _pct(x: float) -> str:
    return "0" if x == 0 else f"{100 * x:.3g}%"


def table(ds: xr.Dataset) -> str:
    rows = []
    for pair in ds.pair.values:
        for rounding in ds.rounding.values:
            cells = [pair, rounding.upper()]
            for inputs in INPUTS:
                rate = ds["rate"].sel(pair=pair, rounding=rounding, inputs=inputs)
                count = ds["count"].sel(pair=pair, rounding=rounding, inputs=inputs)
                top = [f"{k} {int(count.sel(kind=k))}" for k in (*RESULT_KINDS, *FLAG_KINDS)
                       if int(count.sel(kind=k))]
                cells += [_pct(float(rate.sel(kind="any_result"))),
                          _pct(float(rate.sel(kind="any_flags"))), ", ".join(top) or "-"]
            lanes = ds["lane_result_differs"].sel(pair=pair, rounding=rounding)
            flags = ds["lane_flags_differ"].sel(pair=pair, rounding=rounding)
            cells.append("-" if np.isnan(lanes).all() else
                         f"{_pct(float(lanes.max()))} / {_pct(float(flags.max()))}")
            rows.append(cells)
    note = (f"\nShares of {ds.attrs['samples']:,} operations per pair, mode and input set whose "
            "rtl result or flags differ from IEEE 754 (ideal model); kinds are counts (a flag "
            "difference can fall in several). Lanes: share where the 8->16 and 16->32 lanes "
            "differ in result / flags (worst input set).\n\n")
    fig9 = []
    for pair in ds.fig9_pair.values:
        for rounding in ds.fig9_rounding.values:
            for length in ds.length.values:
                e = ds["fig9_error"].sel(fig9_pair=pair, fig9_rounding=rounding, length=length)
                fig9.append([pair, rounding.upper(), int(length),
                             f"{float(e.sel(unit='exsdotp_ideal')):.4g}",
                             f"{float(e.sel(unit='exsdotp_rtl')):.4g}",
                             f"{float(e.sel(unit='exfma_cascade')):.4g}",
                             _pct(float(ds['fig9_changed'].sel(fig9_pair=pair,
                                                               fig9_rounding=rounding,
                                                               length=length)))])
    return (markdown_table(["pair", "mode", "random: result", "flags", "kinds",
                            "cancellation: result", "flags", "kinds", "lanes"], rows, right=0)
            + note
            + markdown_table(["Fig. 9 pair", "mode", "steps", "ExSdotp ideal", "ExSdotp rtl",
                              "ExFMA cascade", "accumulators changed"], fig9, right=5)
            + "\nFig. 9 rerun: normwise relative error vs float64 "
              f"({ds.attrs['fig9_trials']} trials of normal inputs).\n")


def claims(ds: xr.Dataset):
    module = EXPERIMENT
    return [_vectors_claim(ds, module), *_rne_claims(ds, module), *_rtz_claims(ds, module),
            *_lanes_claims(ds, module), _fig9_claim(ds, module)]


def _vectors_claim(ds, module):
    ref = reference(PAPER, ID, "issue_vectors").value
    got = ds["vector_rtl"].values
    bad = [i for i, v in enumerate(ref)  # flags null: the issue states the result only
           if got[i, 0] != v["rtl"][0] or v["rtl"][1] not in (None, got[i, 1])]
    return paper_claim(
        module, "issue_vectors",
        ours=f"{len(ref) - len(bad)} of {len(ref)} vectors give the stated rtl bits and flags"
             + (f"; differing: {bad}" if bad else ""),
        holds=not bad, tolerance="bit-exact results and flags")


def _rne_claims(ds, module):
    if "rne" not in ds.rounding.values:
        return []
    count, rate = ds["count"], ds["rate"]
    rne = rate.sel(rounding="rne", kind="any_result")
    worst = {inputs: _pct(float(rne.sel(inputs=inputs).max())) for inputs in INPUTS}
    signs = int(count.sel(rounding="rne", kind=["wrong_sign_zero", "wrong_sign_tiny"]).sum())
    total = int(count.sel(rounding="rne", kind="any_result").sum())
    return [paper_claim(
        module, "rne_matches_ideal_on_ordinary_inputs",
        ours=(f"RNE results differ on {worst['random']} of random inputs (worst pair), "
              f"on up to {worst['cancellation']} of cancellation-heavy ones"),
        holds=float(rne.sel(inputs="random").max()) == 0,
        tolerance="no RNE result difference on random inputs",
        deviation=f"{signs} of the {total} RNE differences are signs of zero or tiny results")]


def _rtz_claims(ds, module):
    if "rtz" not in ds.rounding.values:
        return []
    rtz = ds["count"].sel(rounding="rtz")
    low = int(rtz.sel(kind="one_ulp_toward_zero").sum())
    high = int(rtz.sel(kind=["one_ulp_away", "other_result"]).sum())
    sticky = int(ds["count_first_sticky"].sel(rounding="rtz", kind="one_ulp_toward_zero").sum())
    signs = int(rtz.sel(kind=["wrong_sign_zero", "wrong_sign_tiny"]).sum())
    canc = ds["rate"].sel(rounding="rtz", inputs="cancellation", kind="any_result")
    rand = ds["rate"].sel(rounding="rtz", inputs="random", kind="any_result")
    median = float(canc.median())
    return [paper_claim(
        module, "rtz_departures_one_ulp_low",
        ours=(f"RTZ: {low} results one ulp toward zero ({sticky} with a first-adder sticky "
              f"bit), {high} other magnitude differences, {signs} sign differences"),
        holds=high == 0 and sticky == low and low > 0,
        tolerance="every same-sign RTZ difference one ulp toward zero, with a sticky bit",
        deviation="sign differences of zero/tiny results are a separate kind"), paper_claim(
        module, "cancellation_cases_differ_few_percent",
        ours=(f"RTZ, cancellation-heavy inputs: {_pct(float(canc.min()))}-"
              f"{_pct(float(canc.max()))} by pair (median {_pct(median)}); uniformly random "
              f"inputs: {_pct(float(rand.min()))}-{_pct(float(rand.max()))}"),
        holds=0.01 <= median <= 0.1, tolerance="median over pairs between 1% and 10%",
        deviation=("the share depends on the input distribution, which the issue does not "
                   "give: ours makes the products cancel, so the first adder rarely "
                   "drops bits; uniformly random operands (large e, small products of "
                   "either sign) trigger it far more often"))]


def _lanes_claims(ds, module):
    lanes = ds["lane_result_differs"]
    if np.isnan(lanes).all():
        return []
    nearest = [m for m in ("rne", "rmm") if m in ds.rounding.values]
    directed = [m for m in DIRECTED if m in ds.rounding.values]
    same_nearest = float(lanes.sel(rounding=nearest).max()) == 0 if nearest else True
    worst = float(lanes.sel(rounding=directed).max()) if directed else 0.0
    flags = float(ds["lane_flags_differ"].max())
    return [paper_claim(
        module, "lanes_same_results_nx_may_differ",
        ours=(f"results differ between the lanes on 0 operations in RNE/RMM and on up to "
              f"{_pct(worst)} in directed modes; flags on up to {_pct(flags)}"
              if same_nearest else f"results differ under RNE/RMM too (up to {_pct(worst)})"),
        holds=same_nearest and worst == 0 and flags > 0,
        tolerance="identical results in every mode, some flag differences",
        deviation=("in RTZ/RDN/RUP/ROD the 8->16 lane's 25-bit first adder drops bits the "
                   "16->32 lane's 51-bit one keeps, so the results differ too (confirmed "
                   "on a Verilator simulation of the RTL)") if worst else "")]


def _fig9_claim(ds, module):
    error = ds["fig9_error"]
    ideal, rtl, cascade = (error.sel(unit=u) for u in ("exsdotp_ideal", "exsdotp_rtl",
                                                        "exfma_cascade"))
    change = float(np.abs(rtl - ideal).max() / ideal.where(ideal > 0).min())
    changed = ds["fig9_changed"].max("length")
    parts = [f"{p} {r.upper()}: {_pct(float(changed.sel(fig9_pair=p, fig9_rounding=r)))} "
             "of accumulators changed"
             for p in ds.fig9_pair.values for r in ds.fig9_rounding.values]
    better, tied = int((rtl < cascade).sum()), int((rtl == cascade).sum())
    tie_lengths = sorted({int(n) for n in ds.length.values[(rtl == cascade).any(
        ["fig9_pair", "fig9_rounding"]).values]})
    # one step accumulates nothing (a reported tie); the claim is judged on accumulations
    summed = ds.length > 1
    holds = bool((rtl < cascade).where(summed, True).all()) and not bool((rtl > cascade).any())
    return paper_claim(
        module, "fig9_conclusion_holds_with_rtl",
        ours=(f"rtl ExSdotp error below the ExFMA cascade's at {better}/{rtl.size} points, tied "
              f"at {tied} (steps {tie_lengths or 'none'}), above at {rtl.size - better - tied}; "
              f"{'; '.join(parts)}; largest error change {float(np.abs(rtl - ideal).max()):.3g}"),
        holds=holds,
        tolerance="rtl ExSdotp error strictly below the cascade's at every accumulation (2 or "
                  "more steps) and never above it; one step, where nothing accumulates, is a "
                  "reported tie",
        deviation=(f"ties at steps {tie_lengths}, as with the ideal unit (mfnn-fig9): one step "
                   "from a zero accumulator rounds once in both units, nothing is accumulated; "
                   if tied else "")
        + f"largest rtl-ideal error change relative to the smallest error: {change:.3g}")


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

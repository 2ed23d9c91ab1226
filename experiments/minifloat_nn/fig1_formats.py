"""The FP formats and the operations that support them (MiniFloat-NN Fig. 1 and Table I).

Every number comes from ``lutcore.numerics``: format properties from ``FPFormat``; the support
table by *calling* ``exsdotp``, ``exvsum``, ``vsum`` and ``exfma`` on every (src, dst) pair of
formats and checking 1*1 + 1*1 + 1 = 3 (1*1 + 1 = 2 for ExFMA); the lane column from the SDOTP
lane widths.
"""

from __future__ import annotations

import dataclasses

import jax
import matplotlib.pyplot as plt
import ml_dtypes
import numpy as np
import xarray as xr

import lutcore.gpu as gpu
import lutcore.numerics as nm
from experiments import (
    Experiment,
    check_choice,
    markdown_table,
    paper_claim,
    reference,
)

ID = "mfnn-fig1"
TITLE = "FP formats and the MiniFloat-NN operations supporting them (MiniFloat-NN Fig. 1, Table I)"
PAPER = "minifloat_nn"
# the reference keys claims() states in the full run
CLAIMS = ("format_widths", "expanding_pairs", "fp8_to_fp32_extension", "vsum_formats",
          "narrow_unit_pairs", "bf16_tf32_keep_fp32_range", "dlfloat_16_bits",
          "nannarelli_custom_format", "fp8_same_range_as_fp16", "h100_fp8_speedup",
          "dlfloat_intermediate", "fp16alt_ieee", "gpu_tf32_bf16_speedups")
OPS = ("exsdotp", "exvsum", "vsum", "exfma")


@dataclasses.dataclass(frozen=True)
class Config:
    """formats: FPnew format names to tabulate (all by default)."""

    formats: tuple[str, ...] = tuple(nm.FORMATS)

    def __post_init__(self):
        check_choice("formats", self.formats, tuple(nm.FORMATS))


def _one(fmt):
    return fmt.bias << fmt.man_bits


def _supported(op: str, src: nm.FPFormat, dst: nm.FPFormat) -> bool:
    """Whether lutcore's ``op`` accepts (src, dst); an accepted op must compute correctly."""
    a, e = _one(src), _one(dst)
    try:
        if op == "exsdotp":
            out, want = nm.exsdotp(a, a, a, a, e, src=src, dst=dst), 3.0
        elif op == "exvsum":
            out, want = nm.exvsum(a, a, e, src=src, dst=dst), 3.0
        elif op == "vsum":
            if src != dst:
                return False
            out, want = nm.vsum(a, a, e, fmt=src), 3.0
        else:
            out, want = nm.exfma(a, a, e, src=src, dst=dst), 2.0
    except ValueError:
        return False
    got = float(nm.to_float64(out, dst))
    if got != want:
        raise AssertionError(f"{op} {src}->{dst}: 1s give {got}, expected {want}")
    return True


def run(config: Config) -> xr.Dataset:
    """Format properties (dim ``format``) and the support table (dims ``op, src, dst``)."""
    fmts = [nm.FORMATS[f] for f in config.formats]
    props = {
        "exp_bits": [f.exp_bits for f in fmts], "man_bits": [f.man_bits for f in fmts],
        "width": [f.width for f in fmts], "bias": [f.bias for f in fmts],
        "emax": [f.emax for f in fmts], "emin": [f.emin for f in fmts],
        "max_value": [f.max_value for f in fmts], "min_normal": [f.min_normal for f in fmts],
        "min_subnormal": [f.min_subnormal for f in fmts], "epsilon": [f.epsilon for f in fmts],
    }
    ds = xr.Dataset({k: ("format", np.asarray(v)) for k, v in props.items()},
                    coords={"format": list(config.formats), "op": list(OPS),
                            "src": list(config.formats), "dst": list(config.formats),
                            "lane": [lane.name for lane in nm.SDOTP_LANES]})
    ds["dynamic_range_decades"] = np.log10(ds["max_value"] / ds["min_subnormal"])
    # one scalar call per (op, src, dst): op by op, not one compiled program per format pair
    # (50 XLA compilations took 7.5 s CPU; eager, 4.6 s)
    with jax.disable_jit():
        supported = [[[_supported(op, s, d) for d in fmts] for s in fmts] for op in OPS]
    ds["supported"] = (("op", "src", "dst"), np.array(supported))
    ds["lane_covers"] = (("lane", "src", "dst"), np.array(
        [[[lane.covers(s, d) for d in fmts] for s in fmts] for lane in nm.SDOTP_LANES]))
    if "fp16alt" in config.formats:
        ds = ds.merge(_fp16alt_checks())
    ds["max_value"].attrs["long_name"] = "largest finite value"
    ds["min_subnormal"].attrs["long_name"] = "smallest positive subnormal"
    ds["epsilon"].attrs["long_name"] = "2^-man_bits (distance from 1 to the next value)"
    ds["supported"].attrs["long_name"] = "operation accepts src -> dst and computes correctly"
    return ds


def plot(ds: xr.Dataset):
    fig, ax = plt.subplots(figsize=(11, 0.55 * ds.sizes["format"] + 1.4))
    order = list(ds.format.values)[::-1]
    for y, name in enumerate(order):
        e, m = int(ds.exp_bits.sel(format=name)), int(ds.man_bits.sel(format=name))
        for start, size, color, label in ((0, 1, "#d62728", "sign"), (1, e, "#1f77b4", "exponent"),
                                          (1 + e, m, "#2ca02c", "mantissa")):
            ax.barh(y, size, left=start, color=color, edgecolor="white", height=0.7,
                    label=label if y == 0 else None)
        info = ds.sel(format=name)
        ax.text(1 + e + m + 0.8, y, f"e{e} m{m}:  max {float(info.max_value):.3g},  "
                f"min sub {float(info.min_subnormal):.2g},  eps {float(info.epsilon):.2g}",
                va="center", fontsize=8)
    ax.set_yticks(range(len(order)), [n.upper() for n in order])
    ax.set_xlim(0, 64 + 48)
    ax.set_xticks(range(0, 65, 8))
    ax.set_xlabel("bits")
    ax.legend(loc="upper right", fontsize=8, ncols=3)
    ax.set_title("FP formats of the MiniFloat-NN FPU (computed from lutcore.numerics.FORMATS)")
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    formats = markdown_table(
        ["format", "exp", "man", "bias", "max", "min normal", "min subnormal", "epsilon"],
        [[name, int(f.exp_bits), int(f.man_bits), int(f.bias), f"{float(f.max_value):.6g}",
          f"{float(f.min_normal):.4g}", f"{float(f.min_subnormal):.4g}",
          f"{float(f.epsilon):.4g}"]
         for name, f in ((n, ds.sel(format=n)) for n in ds.format.values)],
        right=7)
    rows = []
    for op in ds.op.values:
        for src, dst in _pairs(ds, op):
            if op == "exfma" and src == dst:
                continue  # plain FMA: not a MiniFloat-NN instruction
            lanes = [str(lane) for lane in ds.lane.values
                     if bool(ds.lane_covers.sel(lane=lane, src=src, dst=dst))]
            rows.append([op, f"{src} -> {dst}",
                         ", ".join(lanes) or "none" if op in ("exsdotp", "exvsum") else "-"])
    support = markdown_table(["operation", "src -> dst", "ExSdotp lanes that fit it"], rows)
    return (formats + "\n**Table I (computed): operations and the format pairs they accept**\n\n"
            + support)


def _pairs(ds, op):
    sup = ds.supported.sel(op=op)
    return [(str(s), str(d)) for s in ds.src.values for d in ds.dst.values
            if bool(sup.sel(src=s, dst=d))]


def claims(ds: xr.Dataset):
    module = EXPERIMENT

    def ref(key):
        return reference(PAPER, ID, key).value

    widths = {str(f): [int(ds.exp_bits.sel(format=f)), int(ds.man_bits.sel(format=f))]
              for f in ds.format.values}
    want_widths = {k: v for k, v in ref("format_widths").items() if k in widths}
    sdotp = set(_pairs(ds, "exsdotp"))
    # the paper's pairs: "four inputs in a w-bit source format, and an accumulator in a 2w-bit
    # destination format" (Sec. III); lutcore's other pairs are its own extension
    doubling = {p for p in sdotp if _width(ds, p[1]) == 2 * _width(ds, p[0])}
    extension = sdotp - doubling
    want_pairs = {tuple(p) for p in ref("expanding_pairs")}
    vsum = {s for s, _ in _pairs(ds, "vsum")}
    want_vsum = set(ref("vsum_formats"))
    narrow = next(lane for lane in nm.SDOTP_LANES if lane.name == "8->16")
    not_narrow = sorted(p for p in doubling if not narrow.covers(*p))
    want_not_narrow = sorted(tuple(p) for p in ref("narrow_unit_pairs"))
    fmt = lambda pairs: ", ".join(f"{s}->{d}" for s, d in sorted(pairs)) or "none"
    lanes = {p: [lane.name for lane in nm.SDOTP_LANES if lane.covers(*p)] for p in extension}
    return [
        paper_claim(module, "format_widths", ours=str(widths), holds=widths == want_widths,
                    tolerance="exact"),
        paper_claim(module, "expanding_pairs",
                    ours=f"ExSdotp pairs with a 2w-bit destination: {fmt(doubling)}",
                    holds=doubling == want_pairs, tolerance="same set",
                    deviation="" if doubling == want_pairs else
                    f"missing {fmt(want_pairs - doubling)}; extra {fmt(doubling - want_pairs)}"),
        paper_claim(module, "fp8_to_fp32_extension",
                    ours=f"lutcore also runs {fmt(extension)} (a 4w-bit destination); lanes "
                         "that fit: " + "; ".join(f"{s}->{d}: {', '.join(lanes[(s, d)]) or 'none'}"
                                                  for s, d in sorted(extension)),
                    holds=bool(extension) and all(lanes[p] == ["16->32"] for p in extension),
                    tolerance="supported, on the 16->32 lane only"),
        paper_claim(module, "vsum_formats", ours=", ".join(sorted(vsum)), holds=vsum == want_vsum,
                    tolerance="same set"),
        paper_claim(
            module, "narrow_unit_pairs",
            ours=f"of the paper's pairs, the 8->16 lane cannot run: {fmt(not_narrow)}",
            holds=not_narrow == want_not_narrow, tolerance="same set"),
        *_background_claims(module, ds),
    ]


def _range(ds: xr.Dataset, fmt: str) -> tuple[int, int]:
    return int(ds.emin.sel(format=fmt)), int(ds.emax.sel(format=fmt))


def _background_claims(module, ds: xr.Dataset):
    """Sec. I-II's statements on the formats around Fig. 1, from ``lutcore.numerics``'s rules
    (and the H100's tensor-core rates in ``lutcore.gpu``)."""
    claims = []
    if {"fp32", "fp16alt"} <= set(ds.format.values):
        tf32 = reference(PAPER, ID, "bf16_tf32_keep_fp32_range").value["tf32"]
        fp32, bf16 = _range(ds, "fp32"), _range(ds, "fp16alt")
        same = bf16 == fp32 and tf32[0] == int(ds.exp_bits.sel(format="fp32"))
        claims.append(paper_claim(
            module, "bf16_tf32_keep_fp32_range",
            ours=f"FP16alt (bfloat16's fields, e8 m7): exponents {bf16[0]}..{bf16[1]}, FP32's "
                 f"{fp32[0]}..{fp32[1]}; TF32's exponent field is FP32's 8 bits (its "
                 f"{nm.field_width(*tf32)} bits are no storable lutcore format)",
            holds=same, tolerance="same exponent range as FP32"))
    dl = reference(PAPER, ID, "dlfloat_16_bits").value
    dlfloat = nm.FPFormat(dl["exponent"], dl["mantissa"], "dlfloat")
    claims.append(paper_claim(
        module, "dlfloat_16_bits",
        ours=f"FPFormat({dl['exponent']}, {dl['mantissa']}): {dlfloat.width} bits, max "
             f"{dlfloat.max_value:.4g}, epsilon {dlfloat.epsilon:.3g}",
        holds=dlfloat.width == dl["bits"], tolerance="exact"))
    nan = reference(PAPER, ID, "nannarelli_custom_format").value
    as_printed = nm.field_width(nan["exponent"], nan["second_field"])
    sixteen = nan["bits"] - 1 - nan["exponent"]
    claims.append(paper_claim(
        module, "nannarelli_custom_format",
        ours=f"a sign, a {nan['exponent']}-bit exponent and a {nan['second_field']}-bit field "
             f"(the only reading in which a format has two such fields: a {nan['second_field']}-"
             f"bit mantissa): {as_printed} bits; a {nan['bits']}-bit format with a "
             f"{nan['exponent']}-bit exponent has a mantissa of {sixteen} bits "
             f"({nm.field_width(nan['exponent'], sixteen)} bits)",
        holds=False, verdict="paper-inconsistent",
        reason=f"the sentence calls the type 16-bit, but sign + {nan['exponent']} + "
               f"{nan['second_field']} bits = {as_printed}; the '9-bit exponent' cannot be an "
               "exponent (a second one), and as a mantissa it makes the format 17 bits wide"))
    if {"fp8", "fp16"} <= set(ds.format.values):
        fp8, fp16 = _range(ds, "fp8"), _range(ds, "fp16")
        claims.append(paper_claim(
            module, "fp8_same_range_as_fp16",
            ours=f"normal exponents FP8 {fp8[0]}..{fp8[1]}, FP16 {fp16[0]}..{fp16[1]}; largest "
                 f"values {float(ds.max_value.sel(format='fp8')):g} and "
                 f"{float(ds.max_value.sel(format='fp16')):g}, smallest subnormals "
                 f"2^{int(np.log2(float(ds.min_subnormal.sel(format='fp8'))))} and "
                 f"2^{int(np.log2(float(ds.min_subnormal.sel(format='fp16'))))}; largest / "
                 f"smallest subnormal: {float(ds.dynamic_range_decades.sel(format='fp8')):.2f} "
                 f"and {float(ds.dynamic_range_decades.sel(format='fp16')):.2f} decades",
            holds=fp8 == fp16, tolerance="same exponent range (a 5-bit exponent field)",
            deviation="the same exponent range, not the same values at its ends: 2 mantissa bits "
                      "instead of 10 lower the largest value and the subnormals"))
    claims += [_peak_ratio_claim(module, gpu.H100, "fp8", "fp16", "h100_fp8_speedup"),
               _peak_ratio_claim(module, gpu.A100, "bf16", "tf32", "gpu_tf32_bf16_speedups")]
    return claims + _reading_claims(module, ds)


def _peak_ratio_claim(module, spec, fast: str, slow: str, key: str):
    """A datasheet speed-up: ``spec``'s dense tensor-core peak in ``fast`` over ``slow``."""
    speedup = spec.tensor_macs(fast) / spec.tensor_macs(slow)
    return paper_claim(
        module, key,
        ours=f"lutcore.gpu {spec.name.upper()} dense tensor-core peaks: {fast.upper()} "
             f"{spec.tensor_peak(fast) / 1e12:.0f} / {slow.upper()} "
             f"{spec.tensor_peak(slow) / 1e12:.0f} TFLOPS = {speedup:g}x",
        holds=speedup == reference(PAPER, ID, key).value, tolerance="exact", ours_value=speedup)


# --- DLFloat's place between FP16 and bfloat16, FP16alt's IEEE handling (issue 31) --------------

IEEE_MODES = ("rne", "rtz", "rdn", "rup", "rmm")
FP16ALT_SAMPLES = 1 << 15  # random operand triples of the FP16alt Vsum check


def _fp16alt_checks(seed: int = 31) -> xr.Dataset:
    """FP16alt's value set against ml_dtypes' bfloat16 (every pattern), and FPnew's datapath
    (the rtl model) against the IEEE result, a + c + e rounded once, on a three-term Vsum of
    small operands (exponent fields 0-8: subnormals and the normals next to them)."""
    patterns = np.arange(1 << 16, dtype=np.uint16)
    ours = np.asarray(nm.to_float64(patterns, "fp16alt"))
    with np.errstate(invalid="ignore"):  # NaN patterns: compared only where finite
        bf16 = patterns.view(ml_dtypes.bfloat16).astype(np.float64)
    finite = np.isfinite(bf16)
    rng = np.random.default_rng(seed)
    fmt = nm.FORMATS["fp16alt"]

    def operands():
        return (rng.integers(0, 2, FP16ALT_SAMPLES) << 15 | rng.integers(0, 9, FP16ALT_SAMPLES)
                << fmt.man_bits | rng.integers(0, 128, FP16ALT_SAMPLES)).astype(np.uint16)

    a, c, e = operands(), operands(), operands()
    differ, subnormal = [], []
    for mode in IEEE_MODES:
        rtl = np.asarray(nm.vsum(a, c, e, fmt="fp16alt", rounding=mode, model="rtl"))
        differ.append(int((rtl != np.asarray(nm.vsum(a, c, e, fmt="fp16alt",
                                                       rounding=mode))).sum()))
        subnormal.append(int(((rtl & 0x7F80) == 0).sum() - ((rtl & 0x7FFF) == 0).sum()))
    return xr.Dataset(
        {"fp16alt_bf16_values_equal": int((ours[finite] == bf16[finite]).sum()),
         "fp16alt_bf16_finite": int(finite.sum()),
         "fp16alt_subnormal_patterns": int(((patterns & 0x7F80) == 0).sum() - 2),
         "fp16alt_vsum_rtl_vs_ieee_differ": ("mode", differ),
         "fp16alt_vsum_subnormal_results": ("mode", subnormal)},
        coords={"mode": list(IEEE_MODES)})


def _reading_claims(module, ds: xr.Dataset) -> list:
    out = []
    if {"fp16", "fp16alt"} <= set(ds.format.values):
        dl = reference(PAPER, ID, "dlfloat_16_bits").value
        dlfloat = nm.FPFormat(dl["exponent"], dl["mantissa"], "dlfloat")
        rng = {"fp16": float(ds.max_value.sel(format="fp16")), "dlfloat": dlfloat.max_value,
               "bfloat16 (fp16alt)": float(ds.max_value.sel(format="fp16alt"))}
        eps = {"fp16": float(ds.epsilon.sel(format="fp16")), "dlfloat": dlfloat.epsilon,
               "bfloat16 (fp16alt)": float(ds.epsilon.sel(format="fp16alt"))}
        between = (sorted(rng.values()) == list(rng.values())
                   and sorted(eps.values()) == list(eps.values()))
        out.append(paper_claim(
            module, "dlfloat_intermediate",
            ours="largest finite value " + ", ".join(f"{k} {v:.3g}" for k, v in rng.items())
                 + "; epsilon " + ", ".join(f"{k} 2^{int(np.log2(v))}" for k, v in eps.items())
                 + " (lutcore's IEEE-like reading of the fields)",
            holds=between, tolerance="DLFloat strictly between in range and in precision"))
    if "fp16alt_vsum_rtl_vs_ieee_differ" in ds:
        differ = ds.fp16alt_vsum_rtl_vs_ieee_differ
        out.append(paper_claim(
            module, "fp16alt_ieee",
            ours=f"FP16alt (e{int(ds.exp_bits.sel(format='fp16alt'))} "
                 f"m{int(ds.man_bits.sel(format='fp16alt'))}, bfloat16's fields): "
                 f"{int(ds.fp16alt_bf16_values_equal)} of {int(ds.fp16alt_bf16_finite)} finite "
                 f"patterns decode to ml_dtypes' bfloat16 values, "
                 f"{int(ds.fp16alt_subnormal_patterns)} of them subnormal; FPnew's datapath "
                 f"(rtl model) on {FP16ALT_SAMPLES} three-term FP16alt Vsums of small operands "
                 "differs from the IEEE result (exact sum, rounded once) in "
                 + ", ".join(f"{m} {int(differ.sel(mode=m))}" for m in ds.mode.values)
                 + " cases; subnormal results kept (not flushed): "
                 + ", ".join(f"{m} {int(ds.fp16alt_vsum_subnormal_results.sel(mode=m))}"
                             for m in ds.mode.values),
            holds=int(differ.sum()) == 0 and int(ds.fp16alt_bf16_values_equal)
            == int(ds.fp16alt_bf16_finite) and int(ds.fp16alt_vsum_subnormal_results.min()) > 0,
            tolerance="IEEE results in the five IEEE modes, subnormals kept"))
    return out


def _width(ds: xr.Dataset, fmt: str) -> int:
    return int(ds.width.sel(format=fmt))


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

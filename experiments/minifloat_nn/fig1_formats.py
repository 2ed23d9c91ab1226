"""The FP formats and the operations that support them (MiniFloat-NN Fig. 1 and Table I).

Every number comes from ``lutcore.numerics``: format properties from ``FPFormat``; the support
table by *calling* ``exsdotp``, ``exvsum``, ``vsum`` and ``exfma`` on every (src, dst) pair of
formats and checking 1*1 + 1*1 + 1 = 3 (1*1 + 1 = 2 for ExFMA); the lane column from the SDOTP
lane widths.
"""

from __future__ import annotations

import dataclasses
import sys

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.numerics as nm
from experiments import ConfigError, markdown_table, paper_claim, reference

ID = "mfnn-fig1"
TITLE = "FP formats and the MiniFloat-NN operations supporting them (MiniFloat-NN Fig. 1, Table I)"
PAPER = "minifloat_nn"
OPS = ("exsdotp", "exvsum", "vsum", "exfma")


@dataclasses.dataclass(frozen=True)
class Config:
    """formats: FPnew format names to tabulate (all by default)."""

    formats: tuple[str, ...] = tuple(nm.FORMATS)

    def __post_init__(self):
        bad = [f for f in self.formats if f not in nm.FORMATS]
        if bad:
            raise ConfigError(f"formats: {bad} unknown; allowed values: {', '.join(nm.FORMATS)}")


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
    ds["supported"] = (("op", "src", "dst"), np.array(
        [[[_supported(op, s, d) for d in fmts] for s in fmts] for op in OPS]))
    ds["lane_covers"] = (("lane", "src", "dst"), np.array(
        [[[lane.covers(s, d) for d in fmts] for s in fmts] for lane in nm.SDOTP_LANES]))
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
          f"{float(f.epsilon):.4g}"] for name, f in ((n, ds.sel(format=n)) for n in ds.format.values)],
        right=7)
    rows = []
    for op in ds.op.values:
        for src, dst in _pairs(ds, op):
            if op == "exfma" and src == dst:
                continue  # plain FMA: not a MiniFloat-NN instruction
            lanes = [str(l) for l in ds.lane.values
                     if bool(ds.lane_covers.sel(lane=l, src=src, dst=dst))]
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
    module = sys.modules[__name__]

    def ref(key):
        return reference(PAPER, ID, key).value

    widths = {str(f): [int(ds.exp_bits.sel(format=f)), int(ds.man_bits.sel(format=f))]
              for f in ds.format.values}
    want_widths = {k: v for k, v in ref("format_widths").items() if k in widths}
    sdotp = set(_pairs(ds, "exsdotp"))
    want_pairs = {tuple(p) for p in ref("expanding_pairs")}
    vsum = {s for s, _ in _pairs(ds, "vsum")}
    want_vsum = set(ref("vsum_formats"))
    narrow = next(l for l in nm.SDOTP_LANES if l.name == "8->16")
    not_narrow = sorted(p for p in sdotp if not narrow.covers(*p))
    want_not_narrow = sorted(tuple(p) for p in ref("narrow_unit_pairs"))
    extra = sorted(set(not_narrow) - set(want_not_narrow))
    fmt = lambda pairs: ", ".join(f"{s}->{d}" for s, d in sorted(pairs)) or "none"
    return [
        paper_claim(module, "format_widths", ours=str(widths), holds=widths == want_widths,
                    tolerance="exact"),
        paper_claim(module, "expanding_pairs", ours=fmt(sdotp), holds=sdotp == want_pairs,
                    tolerance="same set",
                    deviation="" if sdotp == want_pairs else
                    f"missing {fmt(want_pairs - sdotp)}; extra {fmt(sdotp - want_pairs)}"),
        paper_claim(module, "vsum_formats", ours=", ".join(sorted(vsum)), holds=vsum == want_vsum,
                    tolerance="same set"),
        paper_claim(
            module, "narrow_unit_pairs",
            ours=f"pairs the 8->16 lane cannot run: {fmt(not_narrow)}",
            holds=not_narrow == want_not_narrow, tolerance="same set",
            deviation="" if not extra else
            (f"also {fmt(extra)}: a 24-bit FP32 significand does not fit the 8->16 lane's "
             "10-bit destination mantissa field, so by field widths FP8->FP32 needs the "
             "16->32 lane; the paper's sentence counts only the 16-bit-source exceptions")),
    ]

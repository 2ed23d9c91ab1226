"""Area of MAC, ADD, conventional LUT and LUT Tensor Core units vs weight bits, W_INTX A_FP16
(LUT Tensor Core Fig. 13).

DP4 units with N = 4 columns (M = 1, N = 4, K = 4), as the paper configures them to match the
A100. Bit-serial units (ADD, both LUTs) need W cycles for W-bit weights, so their area is compared
at equal throughput: area x W, i.e. W copies working on the W bit-planes at once. MAC
dequantizes the weights and is one cycle at any width. Both boundaries: the paper's (operands on
ports, FP16 accumulation as released; the conventional LUT precomputes one table per N = 4
columns, §3.1.1) and the full accounting (operand and table storage, 32-bit accumulation, a
table per unit).
"""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments import ConfigError, Experiment, markdown_table, paper_claim, reference
from experiments.lut_tensor_core._ppa_sweep import (
    BOUNDARY_STYLES,
    COLORS,
    LIBRARY_LABELS,
    LIBRARY_MARKERS,
    METHOD_LABELS,
    PRIMARY,
    check_config,
    library_claims,
    library_tables,
    per_library,
    sweep,
)

ID = "lut-fig13"
TITLE = "Area vs weight bits of MAC/ADD/LUT DP4 units, W_INTX A_FP16 (LUT Tensor Core Fig. 13)"
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("conventional_lut_loses_above", "add_wins_up_to", "lut_tensor_core_wins_up_to",
          "conventional_three_steps_overhead", "table_overhead_bottleneck",
          "better_than_conventional_lut", "mac_needs_dequantization",
          "add_one_addition_per_weight_bit")
METHODS = ("mac", "add", "lut_conventional", "lut_tensor_core")


@dataclasses.dataclass(frozen=True)
class Config:
    """w_bits: weight widths; activation: format; m, n, k: the unit's shape."""

    w_bits: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
    activation: str = "fp16"
    m: int = 1
    n: int = 4
    k: int = 4

    def __post_init__(self):
        if not all(1 <= w <= 8 for w in self.w_bits):
            raise ConfigError(f"w_bits: each must be in 1..8, got {self.w_bits}")
        check_config(activations={"activation": self.activation})
        if min(self.m, self.n) < 1 or not 1 <= self.k <= 8:
            raise ConfigError("m, n: must be >= 1; k: must be in 1..8")


def run(config: Config) -> xr.Dataset:
    return per_library(_run, config)


def _run(config: Config, library: str) -> xr.Dataset:
    designs = [(m, config.activation, f"int{w}") for w in config.w_bits for m in METHODS]
    ds = sweep(designs, [(config.m, config.n, config.k)], library=library).isel(shape=0,
                                                                                drop=True)
    full_rate = 2 * config.m * config.n * config.k * 1e-3  # TOPs of one result per cycle, 1 GHz
    iso = ds.area * full_rate / ds.throughput
    shape = (ds.sizes["boundary"], len(config.w_bits), len(METHODS))
    area = iso.values.reshape(shape)
    parts = (ds.part_area * full_rate / ds.throughput).values.reshape(shape + (-1,))
    own = sweep([("lut_conventional", config.activation, f"int{w}") for w in config.w_bits],
                [(config.m, config.n, config.k)], boundaries=("paper",), table_share=1,
                library=library)
    own_area = (own.area * full_rate / own.throughput).values[0, :, 0] * 1e6
    return xr.Dataset(
        {"conventional_own_table": (("w_bits",), own_area, {
            "units": "um^2", "long_name": "conventional LUT with a table per unit "
                                          "(table_share=1), paper boundary"}),
         "iso_area": (("boundary", "w_bits", "unit"), area * 1e6,
                      {"units": "um^2", "long_name": "area at equal throughput (28nm)"}),
         "part_area": (("boundary", "w_bits", "unit", "part"), parts * 1e6, {"units": "um^2"}),
         **{f: (("boundary", "w_bits", "unit"), ds[f].values.reshape(shape), ds[f].attrs)
            for f in ("meets_timing", "stages", "throughput")}},
        coords={"boundary": list(ds.boundary.values), "w_bits": list(config.w_bits),
                "unit": list(METHODS), "part": list(ppa.PARTS)},
        attrs={"shape": f"M{config.m} N{config.n} K{config.k}",
               "activation": config.activation})


def wins_up_to(ds: xr.Dataset, method: str, boundary: str = "paper") -> int:
    """Largest weight width up to which ``method`` is smaller than every other design at every
    width (0 if never), at ``boundary``."""
    area = ds.iso_area.sel(boundary=boundary)
    others = [m for m in ds.unit.values if m != method]
    return _prefix(ds, area.sel(unit=method) < area.sel(unit=others).min("unit"))


def smaller_than_mac_up_to(ds: xr.Dataset, method: str, boundary: str = "paper") -> int:
    area = ds.iso_area.sel(boundary=boundary)
    return _prefix(ds, area.sel(unit=method) < area.sel(unit="mac"))


def _prefix(ds, mask) -> int:
    widths = ds.w_bits.values
    last = 0
    for w, ok in zip(widths, mask.values):
        if not ok:
            break
        last = int(w)
    return last


def plot(ds: xr.Dataset):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for method in ds.unit.values:
        for boundary in ds.boundary.values:
            ax.plot(ds.w_bits, ds.iso_area.sel(unit=method, boundary=boundary, library=PRIMARY),
                    BOUNDARY_STYLES[str(boundary)], marker=LIBRARY_MARKERS[PRIMARY], ms=3,
                    color=COLORS[str(method)], label=f"{METHOD_LABELS[str(method)]} ({boundary})")
        for library in ds.library.values[1:]:  # a second library: markers only
            ax.plot(ds.w_bits, ds.iso_area.sel(unit=method, boundary="paper", library=library),
                    ls="", marker=LIBRARY_MARKERS[str(library)], ms=4, mfc="none",
                    color=COLORS[str(method)])
    ax.set_yscale("log")
    ax.set_xlabel("weight bits (W_INTX)")
    ax.set_ylabel("area at equal throughput (um$^2$, 28nm)")
    ax.set_title(f"DP units {ds.attrs['shape']}, A_{ds.attrs['activation'].upper()}, closed at "
                 f"1 GHz; {LIBRARY_LABELS[PRIMARY]} (solid: paper boundary, dotted: full), "
                 "hollow: " + ", ".join(LIBRARY_LABELS[str(x)] for x in ds.library.values[1:])
                 + " paper boundary", fontsize=8)
    ax.set_xticks(ds.w_bits.values)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=6, ncols=2)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    return library_tables(_table, ds)


def _table(ds: xr.Dataset) -> str:
    rows = [[int(w)] + [" / ".join(f"{float(ds.iso_area.sel(w_bits=w, unit=m, boundary=b)):.0f}"
                                   for b in ("paper", "full"))
                        for m in ds.unit.values] for w in ds.w_bits.values]
    return (f"Area at equal throughput (um^2, 28nm, closed at 1 GHz) of {ds.attrs['shape']} units, "
            f"A_{ds.attrs['activation'].upper()}; each cell: paper boundary / full accounting."
            "\n\n"
            + markdown_table(["W bits", *[METHOD_LABELS[str(m)] for m in ds.unit.values]],
                             rows, right=ds.sizes["unit"]))


def claims(ds: xr.Dataset):
    return library_claims(_claims, ds)


def _claims(ds: xr.Dataset):
    module = EXPERIMENT
    if ds.sizes["w_bits"] < 4:
        return []
    out = []
    for key, method, ours in (
            ("conventional_lut_loses_above", "lut_conventional",
             smaller_than_mac_up_to(ds, "lut_conventional")),
            ("add_wins_up_to", "add", smaller_than_mac_up_to(ds, "add")),
            ("lut_tensor_core_wins_up_to", "lut_tensor_core", wins_up_to(ds, "lut_tensor_core"))):
        paper = reference(PAPER, ID, key).value
        what = "all other designs" if method == "lut_tensor_core" else "MAC"
        test = wins_up_to if method == "lut_tensor_core" else smaller_than_mac_up_to
        full = test(ds, method, "full")
        if method == "lut_conventional":
            own = _prefix(ds, ds.conventional_own_table
                          < ds.iso_area.sel(boundary="paper", unit="mac"))
            full = f"{full}; a table per unit instead of one per 4 columns: {own}"
        out.append(paper_claim(
            module, key, ours=f"{METHOD_LABELS[method]} smaller than {what} up to {ours} bit(s) "
                              f"at the paper boundary (full accounting: {full})",
            holds=ours == paper, tolerance="same crossover width at the paper boundary",
            deviation="" if ours == paper else f"crossover at {ours} bits, paper {paper}"))
    return out + _reading_claims(module, ds)


# --- Sec. 2.3 / Fig. 5, Sec. 4.1.1 and Fig. 13's bottleneck (issue 31's third reading) ----------

# The conventional unit's parts by the three steps of Fig. 5; table storage is its own part in
# the full accounting (at the paper boundary the tables arrive on ports, as the operands do).
STEPS = {"table precompute and storage": ("precompute", "tables"),
         "table lookup": ("lookup", "broadcast"),
         "partial sum addition": ("adder_tree", "accumulate")}


def _step_shares(ds: xr.Dataset, boundary: str, unit: str = "lut_conventional"):
    """{step: [share of the unit's area per weight width]}, and the rest (registers, control)."""
    parts = ds.part_area.sel(boundary=boundary, unit=unit)
    total = parts.sum("part")
    return {step: (parts.sel(part=list(names)).sum("part") / total).values
            for step, names in STEPS.items()}


def _reading_claims(module, ds: xr.Dataset) -> list:
    widths = list(map(int, ds.w_bits.values))
    iso = ds.iso_area
    out = []
    shares = {b: _step_shares(ds, b) for b in ("paper", "full")}
    table = "table precompute and storage"
    largest = all(max(s, key=lambda k: s[k].min()) == table and
                  all((s[table] > s[k]).all() for k in s if k != table) for s in shares.values())
    out.append(paper_claim(
        module, "conventional_three_steps_overhead",
        ours="conventional LUT unit's area by step (precompute and storage / lookup / partial-sum "
             "addition), W_INT1: " + "; ".join(
                 f"{b} boundary {' / '.join(f'{s[k][0]:.0%}' for k in STEPS)}"
                 for b, s in shares.items())
             + f"; precompute and storage over W_INT{widths[0]}-{widths[-1]}: "
             + ", ".join(f"{b} {s[table].min():.0%}-{s[table].max():.0%}"
                         for b, s in shares.items()),
        holds=largest, tolerance="precompute and storage the largest step at every weight width"))
    paper = iso.sel(boundary="paper")
    loses = [w for w in widths if float(paper.sel(w_bits=w, unit="lut_conventional"))
             >= float(paper.sel(w_bits=w, unit="mac"))]
    without = {w: float(iso.sel(boundary="paper", w_bits=w, unit="lut_conventional")
                        * (1 - shares["paper"][table][widths.index(w)])
                        / iso.sel(boundary="paper", w_bits=w, unit="mac")) for w in loses}
    at = [widths.index(w) for w in loses]
    main = all(shares["paper"][table][i] > max(shares["paper"][k][i] for k in STEPS if k != table)
               for i in at)
    under = [w for w, r in without.items() if r < 1]
    out.append(paper_claim(
        module, "table_overhead_bottleneck",
        ours=f"where the conventional LUT has no area advantage over MAC (W_INT"
             f"{loses[0] if loses else '-'}-{loses[-1] if loses else '-'}, paper boundary), "
             "precompute and storage are its "
             f"largest part: {shares['paper'][table][at].min():.0%}-"
             f"{shares['paper'][table][at].max():.0%} of its area; without them it would take "
             + ", ".join(f"W_INT{w} {r:.2f}x" for w, r in without.items()) + " of MAC's area"
             + (f" (under MAC up to W_INT{under[-1]}; above, its W bit-plane lookups and "
                "additions alone exceed MAC)" if under else ""),
        holds=bool(loses) and main,
        tolerance="precompute and storage the largest part of the conventional unit where it "
                  "loses to MAC"))
    gain = (iso.sel(unit="lut_conventional") / iso.sel(unit="lut_tensor_core"))
    out.append(paper_claim(
        module, "better_than_conventional_lut",
        ours="conventional LUT / LUT Tensor Core area at equal throughput, W_INT"
             f"{widths[0]}-{widths[-1]}: " + ", ".join(
                 f"{b} boundary {float(gain.sel(boundary=b).min()):.2f}x-"
                 f"{float(gain.sel(boundary=b).max()):.2f}x" for b in ds.boundary.values),
        holds=bool((gain > 1).all()), tolerance="smaller at every weight width, both boundaries"))
    dequant = {b: (ds.part_area.sel(boundary=b, unit="mac", part="dequantize")
                   / ds.part_area.sel(boundary=b, unit="mac").sum("part")).values
               for b in ds.boundary.values}
    out.append(paper_claim(
        module, "mac_needs_dequantization",
        ours="MAC unit (W_INTX A_FP16): INT-to-FP16 weight conversion before the multipliers, "
             + ", ".join(f"{b} boundary {v.min():.1%}-{v.max():.1%} of its area"
                         for b, v in dequant.items()),
        holds=all((v > 0).all() for v in dequant.values()),
        tolerance="a dequantization part at every weight width"))
    cycles = (ds.throughput.sel(unit="add", w_bits=widths[0]) / ds.throughput.sel(unit="add"))
    out.append(paper_claim(
        module, "add_one_addition_per_weight_bit",
        ours="ADD unit, results per cycle relative to W_INT1: " + ", ".join(
            f"W_INT{w} 1/{float(cycles.sel(boundary='paper', w_bits=w)):g}" for w in widths)
             + " (one pass of its adders per weight bit)",
        holds=bool(np.allclose(cycles, ds.w_bits / widths[0], rtol=1e-9, atol=0)),
        tolerance="W_BIT passes for W_BIT-bit weights"))
    return out


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

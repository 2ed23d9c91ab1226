"""Weight reinterpretation and table symmetrization (LUT Tensor Core §3.1.2, Fig. 7, Eqs. 2-6).

Everything is computed by ``lutcore.lut``: the Fig. 7 mapping q -> q' is read off the symmetric
scheme's lookup plan (the signed bit-plane shifts a code turns into); the worked example's
coefficients of A, B, C, D come from running the bit-serial and the symmetric tables on the unit
activation vectors (the GEMM is linear, so a = I gives each activation's coefficient); the
table halving from the precompute operator; offline negation from comparing both weight encodings.
"""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.lut as lut
from experiments import (
    ConfigError,
    Experiment,
    Footprint,
    contradiction_claim,
    markdown_table,
    paper_claim,
    reference,
)

ID = "lut-fig7"
TITLE = ("Reinterpreting {0,1} as {-1,1}: symmetric tables of half the size "
         "(LUT Tensor Core Fig. 7, Eqs. 2-6)")
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("reinterpretation_mapping", "adjusted_scale_zero", "worked_example",
          "worked_example_middle_line", "table_halving", "offline_negation")
ACTS = ("A", "B", "C", "D")


@dataclasses.dataclass(frozen=True)
class Config:
    """w_bits of the Fig. 7 mapping (4 in the paper); the worked example (K = 4, W = 0100 over
    A..D, s = 2, z = 1/2) is fixed by the paper; gemm_* size the offline-negation check."""

    w_bits: int = 4
    gemm_m: int = 64
    gemm_n: int = 64
    gemm_k: int = 256
    seed: int = 0

    FOOTPRINT = Footprint(((5e8, ()), (64.0, ("gemm_k", "gemm_n")), (64.0, ("gemm_m", "gemm_k"))),
                          "64 B per gemm_k x (gemm_n + gemm_m), 2026-12-05: peaks of 472 and 572 "
                          "MB for 8 x 8 x 64 and 256 x 256 x 4096")

    def __post_init__(self):
        if not 1 <= self.w_bits <= 8:
            raise ConfigError(f"w_bits: must be in 1..8, got {self.w_bits}")
        if min(self.gemm_m, self.gemm_n, self.gemm_k) < 1:
            raise ConfigError("gemm_m, gemm_n, gemm_k: must be positive")


def _reinterpreted_codes(w_bits):
    """q' of every code q: what its bit planes look up, sum_b sign_b 2^b T[entry_b], read with
    the one-activation table T = [-a] at a = 1 (so T holds the {-1,+1} value of a 0 bit)."""
    scheme = lut.make_scheme("symmetric", 1, w_bits)
    codes = np.arange(2 ** w_bits)[:, None]
    entry, coeff, _ = lut.lookup_plan(codes, scheme, 1.0, 0.0)
    table = np.asarray(lut.precompute_tables(np.ones((1, 1)), scheme))[0, 0]
    return (np.asarray(coeff) * table[np.asarray(entry)])[:, 0, :-1].sum(axis=-1)  # no zero plane


def run(config: Config) -> xr.Dataset:
    rng = np.random.default_rng(config.seed)
    # Worked example: W3W2W1W0 = 0100 over A..D (A <-> W3); s = 2, z = 1/2
    w_example = np.array([[0, 1, 0, 0]])
    bitserial = lut.make_scheme("bitserial", 4, 1)
    symmetric = lut.make_scheme("symmetric", 4, 1)
    coef = {name: np.asarray(lut.lut_gemm(np.eye(4), w_example, s, scale=2.0, zero=0.5))[:, 0]
            for name, s in (("original", bitserial), ("reinterpreted", symmetric))}
    s_prime, z_prime = (float(np.asarray(v)) for v in symmetric.affine(2.0, 0.5))

    # Tables of one FP16 group: the full {-1,+1} table is odd (Eq. 4); its top-bit-0 half is
    # what the symmetric precompute stores
    a = np.asarray(lut.to_format(rng.standard_normal((1, 4)), "fp16"))
    bits = (np.arange(16)[:, None] >> np.arange(4)) & 1
    full = (2 * bits - 1) @ a[0]
    half = np.asarray(lut.precompute_tables(a, symmetric))[0, 0]
    bitserial_table = np.asarray(lut.precompute_tables(a, bitserial))[0, 0]
    odd_violations = int(np.sum(full != -full[~np.arange(16) & 15]))

    # Offline negation (Eq. 6) vs a NOT at every lookup (Eq. 5) on a random 4-bit GEMM
    act = np.asarray(lut.to_format(rng.standard_normal((config.gemm_m, config.gemm_k)), "fp16"))
    w = rng.integers(0, 16, (config.gemm_n, config.gemm_k))
    results, negations = {}, {}
    for offline in (False, True):
        scheme = lut.make_scheme("symmetric", 4, 4, offline_negation=offline)
        results[offline] = np.asarray(lut.lut_gemm(act, w, scheme, zero=7.5))
        negations[offline] = lut.op_counts(config.gemm_m, config.gemm_n, config.gemm_k,
                                           scheme=scheme).index_negations

    ds = xr.Dataset(
        {"reinterpreted": ("code", _reinterpreted_codes(config.w_bits)),
         "coefficient": (("form", "act"), np.stack([coef["original"], coef["reinterpreted"]])),
         "s_prime": s_prime, "z_prime": z_prime,
         "table_full": ("index", full), "table_bitserial": ("index", bitserial_table),
         "table_half": ("half_index", half),
         "odd_violations": odd_violations,
         "offline_max_difference": float(np.abs(results[True] - results[False]).max()),
         "index_negations": ("negation", [negations[False], negations[True]])},
        coords={"code": np.arange(2 ** config.w_bits), "form": ["original", "reinterpreted"],
                "act": list(ACTS), "index": np.arange(16), "half_index": np.arange(8),
                "negation": ["per lookup (Eq. 5)", "offline (Eq. 6)"]})
    ds["reinterpreted"].attrs = {"long_name": "q' = sum_b 2^b (2 bit_b - 1), from the lookup plan"}
    ds["coefficient"].attrs = {"long_name": "coefficient of each activation in W . a "
                               "(W3W2W1W0 = 0100 over A..D, s=2, z=1/2)"}
    ds["odd_violations"].attrs = {"long_name": "indices where LUT[w] != -LUT[~w]"}
    ds["index_negations"].attrs = {"long_name": "index NOT operations of a "
                                   f"{config.gemm_m}x{config.gemm_n}x{config.gemm_k} mpGEMM"}
    ds.attrs["w_bits"] = config.w_bits
    return ds


def plot(ds: xr.Dataset):
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    codes = ds.code.values
    left.plot(codes, codes, "o-", color="0.6", label="q (stored uint)")
    left.plot(codes, ds.reinterpreted, "s-", color="#4c72b0", label="q' = 2q - (2^W - 1)")
    left.axhline(0, color="0.5", lw=0.6)
    left.set_xlabel(f"{ds.attrs['w_bits']}-bit weight code q")
    left.set_ylabel("value the LUT unit sees")
    left.set_title("Fig. 7: {0,1} read as {-1,+1} makes q' symmetric", fontsize=10)
    left.legend(fontsize=8)
    x = np.arange(len(ACTS))
    for i, form in enumerate(ds.form.values):
        kind = "bit-serial 16-entry" if i == 0 else "symmetric 8-entry"
        right.bar(x + (i - 0.5) * 0.38, ds.coefficient.sel(form=form), 0.38,
                  label=f"{form} ({kind} table)")
    right.set_xticks(x, ACTS)
    right.axhline(0, color="0.5", lw=0.6)
    right.set_ylabel("coefficient in the dot product")
    right.set_title(f"W = 0100: both give -A + B - C - D (s' = {float(ds.s_prime):g}, "
                    f"z' = {float(ds.z_prime):g})", fontsize=10)
    right.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    mapping = markdown_table(["q"] + [str(int(c)) for c in ds.code.values],
                             [["q'"] + [str(int(v)) for v in ds.reinterpreted.values]])
    example = markdown_table(["form", *ACTS],
                             [[str(f), *[f"{float(v):g}"
                                         for v in ds.coefficient.sel(form=f).values]]
                              for f in ds.form.values], right=4)
    sizes = markdown_table(
        ["table (K = 4)", "entries", "LUT[w] = -LUT[~w] violations", "index NOTs of the GEMM"],
        [["bit-serial {0,1}", ds.sizes["index"], "-", "-"],
         ["symmetric {-1,+1}, NOT per lookup", ds.sizes["half_index"], int(ds.odd_violations),
          int(ds.index_negations[0])],
         ["symmetric {-1,+1}, offline negation", ds.sizes["half_index"], int(ds.odd_violations),
          int(ds.index_negations[1])]], right=3)
    return ("**Fig. 7 mapping**\n\n" + mapping + "\n**Worked example (coefficients of A..D)**\n\n"
            + example + "\n**Table sizes and negation**\n\n" + sizes)


def claims(ds: xr.Dataset):
    module = EXPERIMENT
    ref = lambda key: reference(PAPER, ID, key).value
    mapped = [int(v) for v in ds.reinterpreted.values]
    claims = []
    if ds.attrs["w_bits"] == 4:
        claims.append(paper_claim(module, "reinterpretation_mapping", ours=str(mapped),
                                  holds=mapped == ref("reinterpretation_mapping"),
                                  tolerance="exact"))
    sz = [float(ds.s_prime), float(ds.z_prime)]
    claims.append(paper_claim(module, "adjusted_scale_zero", ours=f"s' = {sz[0]:g}, z' = {sz[1]:g}",
                              holds=sz == ref("adjusted_scale_zero"), tolerance="exact"))
    coef = {str(f): [float(v) for v in ds.coefficient.sel(form=f).values] for f in ds.form.values}
    want = ref("worked_example")
    claims.append(paper_claim(
        module, "worked_example",
        ours="; ".join(f"{f}: {c}" for f, c in coef.items()),
        holds=all(c == want for c in coef.values()), tolerance="exact",
        deviation="the result -A + B - C - D is what W = 0100 gives (the middle line that leads "
                  "to it does not: worked_example_middle_line)"))
    claims.append(_middle_line_claim(module, coef["original"]))
    sizes = [ds.sizes["index"], ds.sizes["half_index"]]
    claims.append(paper_claim(
        module, "table_halving",
        ours=f"{sizes[0]} -> {sizes[1]} entries; LUT[w] = -LUT[~w] fails at "
             f"{int(ds.odd_violations)} of 16 indices",
        holds=sizes == ref("table_halving") and int(ds.odd_violations) == 0, tolerance="exact"))
    diff, nots = float(ds.offline_max_difference), [int(v) for v in ds.index_negations.values]
    claims.append(paper_claim(
        module, "offline_negation",
        ours=f"same results (max |difference| {diff:g}); index NOTs {nots[0]} -> {nots[1]}",
        holds=diff == 0 and nots[1] == 0 < nots[0], tolerance="bit-identical results"))
    return claims


def _terms(coefficients) -> str:
    """A linear form over A..D as the paper writes it: -A + B - C - D."""
    text = " ".join(f"{'-' if x < 0 else '+'} {'' if abs(x) == 1 else f'{abs(x):g}'}{a}"
                    for x, a in zip(coefficients, ACTS) if x)
    return text[2:] if text.startswith("+ ") else text.replace("- ", "-", 1)


def _middle_line_claim(module, computed: list[float]):
    """Sec. 3.1.2's middle line, s_w (q_i - z_w) with the q_i it writes, against its own result
    and the bits of 0100 (the paper's arithmetic; lutcore's lookups give the result)."""
    v = reference(PAPER, ID, "worked_example_middle_line").value
    middle = [v["s_w"] * (q - v["z_w"]) for q in v["middle_q"]]
    bits = [int(b) for b in "0100"]  # W3W2W1W0 over A..D, as the result reads it
    from_bits = [v["s_w"] * (b - v["z_w"]) for b in bits]
    shown = middle != v["result"] and from_bits == v["result"]
    return contradiction_claim(
        module, "worked_example_middle_line",
        ours=f"middle line as written: {_terms(middle)}; its result: {_terms(v['result'])}; "
             f"W = 0100 gives {_terms(from_bits)}; lutcore's lookups: {_terms(computed)}",
        shown=shown, tolerance="the middle line equals its result",
        reason=f"the middle line writes q = {v['middle_q']} for A..D, three 1 bits where 0100 "
               f"has one: its terms sum to {_terms(middle)}, not the {_terms(v['result'])} it "
               "states, which is right for 0100 (C and D need 2·(0 - 0.5))")


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

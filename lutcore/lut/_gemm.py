"""LUT-based mixed-precision GEMM through tables and lookups, and the LMMA tile semantics.

Every product of an activation and a low-bit weight is replaced by lookups into precomputed
tables (§2.2, §3.1). A column's lookups are summed per *span* of table groups that share a scale
and zero point; the scale and zero point are applied after, span after span. Exact tables sum
to integers times 2^-24 in a span, so the prepared engine computes each span as one dense product
of the activations with the lookups' integer weights: exact, in any order. Quantized tables have
a scale per table: their lookups of all M x N x G (row, column, group) positions are one
contraction of the tables with a one-hot *selection* tensor (sign x shift x scale at the
looked-up entry, zero elsewhere). A literal gather engine (``lookup="gather"``) computes the
sums one lookup at a time, for checking and for tables too large for a selection tensor.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from lutcore import _checks as check
from lutcore import numerics as nm

from ._schemes import MAX_W_BITS, TableScheme, make_scheme
from ._tables import group_activations, precompute_tables, quantize_tables

LOOKUPS = ("auto", "onehot", "gather")
ONEHOT_MAX_ENTRIES = 256  # beyond this a selection tensor costs more than gathering
# The LUT unit's formats: the FP ones of lutcore.numerics (FPnew's names, FP8 = E5M2) and
# two's-complement integers; a new format passes as a ``Format`` record.
FORMATS = nm.FormatSet((*nm.FORMATS, "int8", "int16", "int32"),
                       means={k: f.name for k, f in nm.FORMATS.items()},
                       admits=lambda f: nm.FORMATS.admits(f) or not f.is_float)
ACTIVATION_FORMATS = FORMATS.subset(("fp32", "fp16", "fp16alt", "fp8", "fp8alt", "int8", "int16"))
ACCUM_FORMATS = FORMATS.subset(("fp32", "fp16", "int32"))


def per_group(name, value, n: int, ktot: int, k: int):
    """A scale or zero point as [N, G] over the G = ceil(ktot/k) table groups.

    ``value``: a scalar, [N] (per output column) or [N, S] (group-wise along K: S quantization
    groups of ktot/S weights each, a whole number of table groups, as GGUF/GPTQ-style formats use).
    """
    groups = -(-ktot // k)
    value = jnp.asarray(value, jnp.float64)
    if value.ndim == 0 or value.shape == (n,):
        return jnp.broadcast_to(value.reshape(-1, 1) if value.ndim else value, (n, groups))
    if value.ndim == 2 and value.shape[0] == n and value.shape[1] >= 1:
        s = value.shape[1]
        if ktot % s == 0 and (ktot // s) % k == 0:
            return jnp.repeat(value, groups // s, axis=1)
    raise ValueError(f"{name} must be a scalar, [N] = ({n},) or [N, S] with Ktot/S a multiple "
                     f"of k = {k} (Ktot = {ktot}); got shape {value.shape}")


def _check_operands(a, w, scheme: TableScheme):
    a, w = jnp.asarray(a), jnp.asarray(w)
    if a.ndim != 2 or w.ndim != 2:
        raise ValueError(f"a must be [M, Ktot] and w [N, Ktot]; got a{a.shape}, w{w.shape}")
    if a.shape[1] != w.shape[1]:
        raise ValueError(f"a and w must share Ktot; got a{a.shape}, w{w.shape}")
    _check_codes(w, scheme)
    return a, w


def _check_codes(w, scheme: TableScheme, *, layers: bool = False):
    if w.ndim != 2 + layers:
        raise ValueError(f"w must be {'[L, N, Ktot]' if layers else '[N, Ktot]'}, got shape "
                         f"{w.shape}")
    levels = 3 if scheme.name == "ternary" else 1 << scheme.w_bits
    check.codes("w", w, levels, what=f"codes of {scheme.name} weights (w_bits={scheme.w_bits})")


def _check_table_bits(table_bits):
    if table_bits is not None:
        check.positive_int("table_bits", table_bits, min=2, max=16, note=", or None")


def _check_affine(scale, zero):
    check.finite("scale", scale)
    check.finite("zero", zero)


def lookup_plan(w, scheme: TableScheme, scale, zero):
    """What the weight side feeds the LUT array: entries, signed shifts and the scales.

    w: [N, Ktot] codes; scale, zero: see ``per_group``. Returns entry [N, G, P+1], coeff
    [N, G, P+1] (unscaled) and s_eff [N, G]; the last plane is the zero-point lookup
    (coefficient 0 when z_eff = 0, e.g. symmetric weights).
    """
    n, ktot = w.shape
    s_eff, z_eff = scheme.affine(per_group("scale", scale, n, ktot, scheme.k),
                                 per_group("zero", zero, n, ktot, scheme.k))
    stored = jax.vmap(jax.vmap(scheme.encode))(group_activations(w, scheme.k))  # [N, G, P]
    entry, sign = scheme.resolve(stored)
    coeff = sign * jnp.asarray(scheme.plane_weights)
    sum_entry, sum_sign = scheme.sum_entry
    zero_coeff = (-z_eff * sum_sign)[..., None]
    entry = jnp.concatenate([entry, jnp.full_like(entry[..., :1], sum_entry)], axis=-1)
    return entry, jnp.concatenate([coeff, zero_coeff], axis=-1), s_eff


EXACT_SPAN = 1 << 13  # 2^53 / 2^40: an FP16 activation is below 2^40 units of 2^-24 (see spans)


def _affine_groups(value, n: int, ktot: int, k: int) -> int:
    """Table groups that share one value of a scale or zero point (see ``per_group``)."""
    groups = -(-ktot // k)
    return groups // jnp.shape(value)[1] if jnp.ndim(value) == 2 else groups


def _span(scheme: TableScheme, per_affine: int, groups: int) -> int:
    """Table groups whose lookups are summed before the scale: at most EXACT_SPAN / (k * max
    |weight|), so that the sum of FP16, FP8, INT8 or INT16 products stays below 2^53 units
    (exact); a divisor of ``per_affine`` (the groups that share a scale and zero point) where
    there are several such groups; with one, the last span is padded with zero activations."""
    weight = max(abs(c) for row in scheme.coefficients for c in row) * sum(scheme.plane_weights)
    cap = max(1, EXACT_SPAN // int(scheme.k * weight))
    if per_affine == groups:
        return min(cap, groups)
    return max(d for d in range(1, min(cap, per_affine) + 1) if per_affine % d == 0)


def _spans(w, scheme: TableScheme, scale, zero):
    """Span length (table groups), s_eff and z_eff per span [J, N] and the padded Ktot."""
    n, ktot = w.shape[-2:]
    groups = -(-ktot // scheme.k)
    span = _span(scheme, math.gcd(_affine_groups(scale, n, ktot, scheme.k),
                                  _affine_groups(zero, n, ktot, scheme.k)), groups)
    s_eff, z_eff = scheme.affine(per_group("scale", scale, n, ktot, scheme.k),
                                 per_group("zero", zero, n, ktot, scheme.k))
    return span, s_eff[:, ::span].T, z_eff[:, ::span].T, -(-groups // span) * span * scheme.k


def _pad_k(x, kpad: int):
    """Zero columns up to kpad (zero activations, or codes looked up against them)."""
    return jnp.pad(x, [(0, 0), (0, kpad - x.shape[1])])


def _integer_weights(w, scheme: TableScheme):
    """[N, Ktot] codes -> [G*k, N] int16: the integer each activation is multiplied by in its
    column's lookups (sum over planes of sign * shift * the looked-up entry's coefficient);
    symmetric tables: 2q - (2^W - 1). Exact tables looked up sum to a @ this, exactly."""
    stored = jax.vmap(jax.vmap(scheme.encode))(group_activations(w, scheme.k))  # [N, G, P]
    entry, sign = scheme.resolve(stored)
    coeff = sign * jnp.asarray(scheme.plane_weights)
    weights = jnp.einsum("ngp,ngpi->ngi", coeff, jnp.asarray(scheme.coefficients)[entry])
    return weights.reshape(w.shape[0], -1).T.astype(jnp.int16)


def _affine_sum(m: int, spans, span_sums, s_eff, z_eff):
    """sum over spans j, in order from +0, of s_eff[j] * (P_j - z_eff[j] * A_j) -> [M, N].

    span_sums(spans[j]) -> (P_j [M, N], A_j [M]): span j's lookup sums and activation sum,
    exact when the tables are. One code for every lookup engine, one rounding per operation
    (the pinned ISA has no FMA): exact spans give the same bits whatever summed them.
    """
    def step(acc, x):
        span, s, z = x
        p, total = span_sums(span)
        return acc + s * (p - z * total[:, None]), None

    acc = jnp.zeros((m, s_eff.shape[1]))
    return lax.scan(step, acc, (spans, s_eff, z_eff))[0]


class PreparedWeights(NamedTuple):
    """Static weights prepared, once, for the lookups of many inputs.

    weights [G*k, N] int16 (``_integer_weights``), scale and zero [J, N] (s_eff, z_eff per span
    of exactly summed lookups): exact tables, whose lookups sum to a @ weights span by span.
    select [G*E, N] float64: the one-hot selection tensor for quantized tables — for each column
    the signed, shifted, scaled weight of every table entry it looks up (zero elsewhere); None
    when prepared with ``quantized_tables=False``. A leading axis stacks layers
    (``prepare_layers``). Only the activation tables are recomputed per input.
    """

    weights: jax.Array
    scale: jax.Array
    zero: jax.Array
    select: jax.Array
    scheme: TableScheme
    ktot: int


@functools.partial(jax.jit, static_argnames=("scheme", "selection"))
def _prepare(w, scale, zero, scheme, selection=True):
    _, s_eff, z_eff, kpad = _spans(w, scheme, scale, zero)
    return (_integer_weights(_pad_k(w, kpad), scheme), s_eff, z_eff,
            _selection_tensor(w, scale, zero, scheme) if selection else None)


def _selection_tensor(w, scale, zero, scheme):
    # The scale rides on the signed shifts (exact for power-of-two shifts). Applied after the
    # contraction instead, XLA CPU fuses it into the dot and leaves its fast GEMM (4x slower).
    # Built in the [G, E, N] layout as one fused pass over the output: each entry adds its
    # column's lookups plane by plane, in plane order from +0 (the order of a scatter-add of
    # ``lookup_plan``; tests/test_lut.py holds that reference), with no [N, G, P] plan written
    # (4x faster than the scatter for the LLM's layers).
    n, ktot = w.shape
    s_eff, z_eff = (v.T for v in scheme.affine(per_group("scale", scale, n, ktot, scheme.k),
                                               per_group("zero", zero, n, ktot, scheme.k)))
    columns = jnp.pad(w.T, [(0, -ktot % scheme.k), (0, 0)]).reshape(-1, scheme.k, n)  # [G, k, N]
    stored = jax.vmap(jax.vmap(scheme.encode, in_axes=1, out_axes=1))(columns)  # [G, P, N]
    entry, sign = scheme.resolve(stored)
    sum_entry, sum_sign = scheme.sum_entry
    # lookup_plan's coefficients times s_eff, [P+1, G, N], the zero-point lookup last; written
    # out before the sums, so that XLA cannot fuse a product into its sum as one FMA
    values = lax.optimization_barrier(jnp.concatenate(
        [(sign * jnp.asarray(scheme.plane_weights)[:, None]).swapaxes(0, 1) * s_eff,
         ((-z_eff * sum_sign) * s_eff)[None]]))
    entries = jnp.arange(scheme.entries)[None, :, None]  # [1, E, 1]
    select = jnp.zeros((columns.shape[0], scheme.entries, n))
    for p, value in enumerate(values):
        hit = entries == (entry[:, p, None] if p < scheme.planes else sum_entry)
        select = select + jnp.where(hit, value[:, None], 0.0)
    return select.reshape(-1, n)


@check.entry
def prepare_weights(w, scheme: TableScheme, *, scale=1.0, zero=0.0,
                    quantized_tables: bool = True) -> PreparedWeights:
    """Encode [N, Ktot] weight codes for ``apply_weights`` (see ``lut_gemm`` for the arguments);
    ``quantized_tables=False`` leaves out the selection tensor that only they need."""
    w = w if isinstance(w, jax.Array) else np.asarray(w)
    _check_codes(w, scheme)  # on the host for host codes: no device round trip
    _check_affine(scale, zero)
    return PreparedWeights(*_prepare(w, scale, zero, scheme, bool(quantized_tables)), scheme,
                           int(w.shape[1]))


@functools.partial(jax.jit, static_argnames=("scheme",))
def _prepare_layers(w, scale, zero, scheme):
    # One layer at a time into the stacked result: each layer's scatter indices and selection
    # tensor are reused buffers, and no per-layer arrays are stacked afterwards (half the
    # memory written, which the kernel's page faults make the larger cost).
    return lax.map(lambda layer: _prepare(*layer, scheme), (w, scale, zero))


@check.entry
def prepare_layers(w, scheme: TableScheme, *, scale=1.0, zero=0.0) -> PreparedWeights:
    """``prepare_weights`` of a stack of layers: w [L, N, Ktot] codes; scale, zero: scalars or
    arrays with a leading layer axis, [L] or [L, N] or [L, N, S] (each layer's as
    ``prepare_weights`` takes it). The selection tensor is [L, G*E, N], equal layer by layer to
    ``prepare_weights``'s."""
    w = w if isinstance(w, jax.Array) else np.asarray(w)
    _check_codes(w, scheme, layers=True)
    _check_affine(scale, zero)
    layers = w.shape[0]
    scale, zero = (jnp.broadcast_to(jnp.asarray(v, jnp.float64),
                                    (layers,) + jnp.shape(v)[1:]) for v in (scale, zero))
    return PreparedWeights(*_prepare_layers(w, scale, zero, scheme), scheme,
                           int(w.shape[-1]))


@functools.partial(jax.jit, static_argnames=("scheme", "table_bits"))
def _apply(a, prepared: PreparedWeights, scheme, table_bits):
    if table_bits is not None:  # one scale per table: no exact sum spans more than one table
        tables = quantize_tables(precompute_tables(a, scheme), table_bits)[0]
        return tables.reshape(a.shape[0], -1) @ prepared.select
    # Exact tables: a column's lookups in a span sum exactly to the activations times its
    # integer weights (tests/test_lut.py: bit for bit against the lookups), so each span is one
    # dense product, exact in any order.
    m, (kpad, n), spans = a.shape[0], prepared.weights.shape, prepared.scale.shape[0]
    a = _pad_k(a.astype(jnp.float64), kpad)  # zero activations add 0
    pieces = (a.reshape(m, spans, -1).swapaxes(0, 1),
              prepared.weights.astype(jnp.float64).reshape(spans, -1, n))
    return _affine_sum(m, pieces, lambda x: (x[0] @ x[1], jnp.sum(x[0], axis=1)),
                       prepared.scale, prepared.zero)


@check.entry
def apply_weights(a, prepared: PreparedWeights, *, table_bits=None):
    """[M, N] = a @ W.T of prepared weights: the tables of a [M, Ktot] looked up. Exact tables:
    span by span the activations times the lookups' integer weights, then scale and zero
    point in span order; INT``table_bits`` tables: one contraction with the selection tensor."""
    a = jnp.asarray(a)
    if a.ndim != 2 or a.shape[1] != prepared.ktot:
        raise ValueError(f"a must be [M, {prepared.ktot}] for these weights, got {a.shape}")
    _check_table_bits(table_bits)
    if table_bits is not None and prepared.select is None:
        raise ValueError("table_bits: these weights were prepared with quantized_tables=False; "
                         "allowed values: None")
    return _apply(a, prepared._replace(scheme=None, ktot=None), prepared.scheme, table_bits)


@functools.partial(jax.jit, static_argnames=("scheme", "table_bits"))
def _gather_gemm(a, w, scale, zero, scheme, table_bits):
    # the literal engine: each lookup gathered, summed per group and span in group order
    span, s_eff, z_eff, kpad = _spans(w, scheme, scale, zero)
    a, w = _pad_k(a, kpad), _pad_k(w, kpad)
    tables = precompute_tables(a, scheme)
    if table_bits is not None:
        tables = quantize_tables(tables, table_bits)[0]
    entry, coeff, _ = lookup_plan(w, scheme, 1.0, 0.0)  # [N, G, P+1]; the zero plane last
    groups = jnp.arange(tables.shape[1])[:, None]

    def column(args):
        idx, c = args  # [G, P]
        return jnp.sum(tables[:, groups, idx[:, :-1]] * c[:, :-1], axis=2)  # [M, G]

    lookups = lax.map(column, (entry, coeff))  # [N, M, G]
    sum_entry, sum_sign = scheme.sum_entry
    totals = sum_sign * tables[:, :, sum_entry]  # [M, G]: sum(a) of each group
    m, n = a.shape[0], w.shape[0]
    spans = (lookups.reshape(n, m, -1, span).sum(-1).transpose(2, 1, 0),
             totals.reshape(m, -1, span).sum(-1).T)
    return _affine_sum(m, spans, lambda x: x, s_eff, z_eff)


@check.entry
def lut_gemm(a, w, scheme: TableScheme, *, scale=1.0, zero=0.0, table_bits=None,
             lookup: str = "auto"):
    """[M, N] = a @ (scale * (w - zero)).T through the tables of ``scheme`` (any of SCHEMES).

    a: [M, Ktot] activations; w: [N, Ktot] integer codes (ternary: {0, 1, 2} with zero=1);
    scale, zero: scalars, [N] or group-wise [N, S] (see ``per_group``); table_bits: None (exact
    float64 tables) or b for INTb table quantization; lookup: "onehot" (prepared selection
    tensor), "gather" (one lookup at a time) or "auto" (onehot up to 256 entries per table).
    """
    a, w = _check_operands(a, w, scheme)
    _check_table_bits(table_bits)
    _check_affine(scale, zero)
    check.one_of("lookup", lookup, LOOKUPS)
    if lookup == "auto":
        lookup = "onehot" if scheme.entries <= ONEHOT_MAX_ENTRIES else "gather"
    if lookup == "gather":
        return _gather_gemm(a, w, scale, zero, scheme, table_bits)
    prepared = prepare_weights(w, scheme, scale=scale, zero=zero,
                               quantized_tables=table_bits is not None)
    return apply_weights(a, prepared, table_bits=table_bits)


def mpgemm(a, w, *, w_bits, scale=1.0, zero=0.0, k=4, symmetric=True, table_bits=None):
    """LUT-based mpGEMM (LUT Tensor Core §3.1): [M, N] ~= a @ (scale * (w - zero)).T.

    a: [M, Ktot] activations (FP16/BF16/FP8 values or INT8/INT16, any real dtype);
    w: [N, Ktot] unsigned codes in [0, 2^w_bits); scale, zero: scalars or [N] (Eq. 1), or
    group-wise [N, S]. Computed through bit-serial tables of k activations: symmetric
    (2^(k-1) entries, Eq. 2-6, offline negation) or plain bit-serial (2^k entries). With
    ``table_bits=None`` tables are exact, so integer ``a`` with scale 1 and integer or
    half-integer ``zero`` reproduce the integer product exactly; ``table_bits=8`` quantizes every
    table to INT8 with its own scale (§3.1.3). Returns float64.
    """
    scheme = make_scheme("symmetric" if symmetric else "bitserial", k, w_bits)
    return lut_gemm(a, w, scheme, scale=scale, zero=zero, table_bits=table_bits)


def table_quantization_bound(table_scale, scheme: TableScheme, *, scale=1.0, zero=0.0, n=None,
                             ktot=None):
    """Worst-case |mpgemm(table_bits=b) - mpgemm(exact)|, [M, N] numpy float64, from the table
    scales [M, G].

    Each quantized entry is off by at most its table's scale/2, and a column looks up
    sum_p 2^p = 2^W - 1 plane entries (times its sign) plus |z_eff| zero-point entries per group:
    |err[m, n]| <= sum_g |s_eff[n, g]| * (2^W - 1 + |z_eff[n, g]|) / 2 * table_scale[m, g].
    ``n``, ``ktot``: needed only when scale and zero are both scalars.
    """
    groups = table_scale.shape[-1]
    shape = jnp.broadcast_shapes(jnp.shape(scale)[:1], jnp.shape(zero)[:1])
    n = shape[0] if shape else (n or 1)
    ktot = ktot or groups * scheme.k
    s_eff, z_eff = scheme.affine(per_group("scale", scale, n, ktot, scheme.k),
                                 per_group("zero", zero, n, ktot, scheme.k))
    per_entry = np.asarray(jnp.abs(s_eff) * (sum(scheme.plane_weights) + jnp.abs(z_eff)) / 2)
    table_scale = np.asarray(table_scale, np.float64)  # [M, G]; per_entry [N, G]
    # Summed group by group in order, each product and sum rounded once (numpy ufuncs: no FMA,
    # no reassociation), so the bound has the same last bit on every CPU; a dot's summation
    # order follows the machine's vector width.
    bound = np.zeros((table_scale.shape[0], per_entry.shape[0]))
    for g in range(groups):
        bound += table_scale[:, g, None] * per_entry[None, :, g]
    return bound


# --------------------------------------------------------------------------------------------
# Number formats of the LMMA operands


def to_format(x, fmt: str):
    """Values of x representable in ``fmt`` (float64): FP formats round to nearest even
    (``lutcore.numerics.round_float``); int8/int16/int32 round half-even and saturate."""
    x, fmt = jnp.asarray(x, jnp.float64), FORMATS.lookup(fmt)
    if not fmt.is_float:
        return jnp.clip(jnp.round(x), -fmt.max_value - 1, fmt.max_value)
    return nm.round_float(x, fmt)


@dataclasses.dataclass(frozen=True)
class LMMA:
    """One LUT-based MMA instruction (§3.3.1): O[M, N] = A[M, K] x W[N, K] + Acc[M, N].

    Its mnemonic is lmma.m{M}n{N}k{K}.{A}.{W}.{Accum}.{O}; ``table_bits`` adds INTb table
    quantization (the paper's A_LUT_INT8). W is int1..int8 (bit-serial, symmetric tables) or
    ternary (k = 3, 5-bit packed index).
    """

    m: int = 2
    n: int = 64
    k: int = 4
    a_dtype: str | nm.Format = "fp16"
    w_dtype: str = "int1"
    accum: str | nm.Format = "fp32"
    out: str | nm.Format = "fp32"
    table_bits: int | None = None

    def __post_init__(self):
        for name in ("m", "n", "k"):
            check.positive_int(f"LMMA {name}", getattr(self, name))
        weights = tuple(f"int{b}" for b in range(1, MAX_W_BITS + 1)) + ("ternary",)
        check.one_of("LMMA w_dtype", self.w_dtype, weights)
        act = ACTIVATION_FORMATS.lookup(self.a_dtype, "LMMA a_dtype")
        accum = ACCUM_FORMATS.lookup(self.accum, "LMMA accum")
        ACCUM_FORMATS.lookup(self.out, "LMMA out")
        if not accum.is_float and (self.table_bits is not None or act.is_float):
            raise ValueError("accum='int32' needs exact integer tables: an int a_dtype and "
                             "table_bits=None")
        _check_table_bits(self.table_bits)
        # building the scheme validates k against the weight type (make_scheme raises the
        # ValueError of check_scheme_args); the scheme itself is cached there for later use
        _ = self.scheme

    @property
    def scheme(self) -> TableScheme:
        if self.w_dtype == "ternary":
            return make_scheme("ternary", self.k)
        return make_scheme("symmetric", self.k, int(self.w_dtype[3:]))

    @property
    def mnemonic(self) -> str:
        a = self.a_dtype if self.table_bits is None else f"lut_int{self.table_bits}"
        return f"lmma.m{self.m}n{self.n}k{self.k}.{a}.{self.w_dtype}.{self.accum}.{self.out}"


def _round_accum(x, fmt):
    if not FORMATS.lookup(fmt).is_float:  # two's-complement wrap, as an integer accumulator does
        half = 1 << (FORMATS.lookup(fmt).width - 1)
        wide = jnp.round(x).astype(jnp.int64)
        return ((wide + half) % (2 * half) - half).astype(jnp.float64)
    return to_format(x, fmt)


def lmma(instr: LMMA, tables, entry, coeff, acc):
    """Execute one instruction: tables [M, E] of one K-group, the group's lookup plan entry and
    coeff [N, P] (see ``lookup_plan``), acc [M, N] -> O [M, N] in ``instr.out``.

    The lookups of all bit planes are summed exactly inside the unit, added to Acc once and
    rounded to the accumulator format, then written in the output format.
    """
    looked_up = jnp.sum(tables[:, entry] * coeff, axis=-1)  # [M, N, P] -> [M, N]
    return _round_accum(_round_accum(acc + looked_up, instr.accum), instr.out)


@functools.partial(jax.jit, static_argnames=("instr",))
def _tiled(a, w, scale, zero, instr):
    scheme = instr.scheme
    tables = precompute_tables(to_format(a, instr.a_dtype), scheme)
    if instr.table_bits is not None:
        tables = quantize_tables(tables, instr.table_bits)[0]
    entry, coeff, s_eff = lookup_plan(w, scheme, scale, zero)
    # the accumulator fragment stays in Accum (each LMMA issued with O = Accum) ...
    chained = dataclasses.replace(instr, out=instr.accum)

    def step(acc, group):
        t, e, c = group
        return lmma(chained, t, e, c, acc), None

    acc0 = jnp.zeros((a.shape[0], w.shape[0]))
    acc, _ = lax.scan(step, acc0, (tables.swapaxes(0, 1), entry.swapaxes(0, 1),
                                   coeff.swapaxes(0, 1)))
    # ... and the epilogue applies the column scale and converts to O
    return _round_accum(acc * s_eff[:, 0], instr.out)


@check.entry
def tiled_mpgemm(a, w, instr: LMMA, *, scale=1.0, zero=0.0):
    """A full mpGEMM as the LMMA instruction stream computes it, with its roundings.

    a: [M, Ktot] (rounded into ``instr.a_dtype`` first); w: [N, Ktot] codes. The K-groups are
    issued in order, each adding into an accumulator kept in ``instr.accum``; the M x N tiling
    does not change any value (every output element sees the same sequence), so all tiles run at
    once; ``op_counts`` gives the instruction count. Returns [M, N] float64 values of ``instr.out``.
    """
    a, w = _check_operands(a, w, instr.scheme)
    _check_affine(scale, zero)
    if jnp.ndim(scale) > 1 or jnp.ndim(zero) > 1:
        raise ValueError("tiled_mpgemm applies the scale in the epilogue: scale and zero must be "
                         "scalars or [N] (group-wise scales: use lut_gemm)")
    return _tiled(a, w, scale, zero, instr)


@check.entry
def lmma_instructions(m: int, n: int, ktot: int, instr: LMMA) -> int:
    """LMMA instructions a [m, ktot] x [n, ktot] mpGEMM issues (tiles padded up)."""
    for name, size in (("m", m), ("n", n), ("ktot", ktot)):
        check.integers(name, size, min=1)
    return int(np.ceil(m / instr.m) * np.ceil(n / instr.n) * np.ceil(ktot / instr.k))

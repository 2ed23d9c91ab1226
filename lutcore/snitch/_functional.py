"""Functional execution of the GEMM kernels: the instruction sequence of ``_kernels``, bit-exact.

Per output C[m, n], one accumulator register of ``lanes`` SIMD lanes, initialised to +0:
* FMA kernels: body instruction j (K word j, ``w`` values) updates lane i with the FMA of
  element i of the A word and of the B^T word (``vfmac``; one rounding per lane and step);
* ExSdotp kernels: lane i gets a0*b0 + a1*b1 + acc from elements 2i, 2i+1 (``vfdotpex``).
Then the tail: ExVsum / Vsum stages (``vfsumex``, ``vfsum``), each adding neighbouring lanes
pairwise into a zeroed register (one rounding per stage), and the pack into the input format
(``vfcpk*``, one conversion). The order of the output blocks over cores and the 8-way unroll
do not change any result: each output is computed by one accumulator in K order.

Two instructions are not in ``lutcore.numerics`` (its exact sum fits 64-bit integers only up
to FP16 products): ``vfmac.s`` is an exact FP32 FMA here (the product is exact in float64; the
sum is rounded to odd in float64, then to FP32: correct for every rounding mode, as
53 >= 24 + 2); ``fmadd.d`` is float64 ``a * b + c`` with two roundings (an FMA would round once:
at most one FP64 ulp per step apart, far below the errors this model reports) on every machine:
XLA would fuse the two into one FMA where the CPU has one (``_rounded_product``).
``vfmul.s`` (FP32's first K word) is the FMA with a +0 addend: the same value (a zero may
differ in sign).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

import lutcore.numerics as nm
from lutcore import _checks as check

from ._kernels import kernel_spec


class GemmResult(NamedTuple):
    """c_bits: [M, N] C as stored (input-format bit patterns; float64 values for FP64).
    c: [M, N] float64 values of the stored C. reduced: [M, N] float64 values of the reduced
    accumulator before the final pack (FP32 for the SIMD kernels, FP64 for FP64)."""

    c_bits: jnp.ndarray
    c: jnp.ndarray
    reduced: jnp.ndarray


def _round_to_odd_sum(x, y):
    """float64 x + y rounded to odd (TwoSum gives the exact error of the nearest sum)."""
    s = x + y
    bp = s - x
    err = (x - (s - bp)) + (y - bp)
    # Truncate toward zero: step back one ulp when the nearest sum overshot |x + y|.
    overshoot = (err != 0) & (jnp.sign(err) != jnp.sign(s))
    low = jnp.where(overshoot, jnp.nextafter(s, jnp.zeros_like(s)), s)
    odd = (lax.bitcast_convert_type(low, jnp.uint64) & 1) == 1
    away = jnp.nextafter(low, jnp.copysign(jnp.inf, low))
    return jnp.where((err == 0) | odd, low, away)


def _fma_fp32(a, b, c, rounding):
    """Exact FP32 FMA over bit patterns (module docstring)."""
    product = nm.to_float64(a, "fp32") * nm.to_float64(b, "fp32")   # exact: 48 <= 53 bits
    return nm.from_float64(_round_to_odd_sum(product, nm.to_float64(c, "fp32")), "fp32",
                           rounding)


def _rounded_product(a, b, opaque_zero):
    """float64 a * b, rounded before any sum: XOR-ing its bits with a zero that XLA cannot see
    (a runtime argument) stops XLA from contracting ``acc + a * b`` into an FMA, which it does
    only where the CPU has one, so that the result would depend on the machine."""
    bits = lax.bitcast_convert_type(a * b, jnp.uint64) ^ opaque_zero
    return lax.bitcast_convert_type(bits, jnp.float64)


def _body_step(kernel: str, rounding: str, opaque_zero):
    """acc[..., lanes] <- body instruction on one A word and one B^T word ([..., w] each)."""
    spec = kernel_spec(kernel)
    if spec.src == "fp64":
        return lambda acc, a, b: acc + _rounded_product(a[..., :1], b[..., :1], opaque_zero)
    if spec.src == "fp32":
        return lambda acc, a, b: _fma_fp32(a, b, acc, rounding)
    if spec.products_per_lane == 1:
        return lambda acc, a, b: nm.exfma(a, b, acc, src=spec.src, dst=spec.acc,
                                          rounding=rounding)
    return lambda acc, a, b: nm.exsdotp(a[..., 0::2], b[..., 0::2], a[..., 1::2], b[..., 1::2],
                                        acc, src=spec.src, dst=spec.acc, rounding=rounding)


# Lane reductions of the tail: lanes (2j, 2j+1) + a zeroed destination, one rounding.
_REDUCTIONS = {
    "vfsumex.h.b": lambda v, z, r: nm.exvsum(v[..., 0::2], v[..., 1::2], z, src="fp8",
                                             dst="fp16", rounding=r),
    "vfsumex.s.h": lambda v, z, r: nm.exvsum(v[..., 0::2], v[..., 1::2], z, src="fp16",
                                             dst="fp32", rounding=r),
    "vfsum.s": lambda v, z, r: nm.vsum(v[..., 0::2], v[..., 1::2], z, fmt="fp32", rounding=r),
}
_REDUCED_FORMAT = {"vfsumex.h.b": "fp16", "vfsumex.s.h": "fp32", "vfsum.s": "fp32"}


@functools.partial(jax.jit, static_argnames=("kernel", "rounding"))
def _run(a_bits, bt_bits, opaque_zero, kernel: str, rounding: str):
    spec = kernel_spec(kernel)
    (m, k), n, w = a_bits.shape, bt_bits.shape[0], spec.values_per_word
    a_words = a_bits.reshape(m, k // w, w)[:, None]       # [M, 1, steps, w]
    b_words = bt_bits.reshape(n, k // w, w)[None]         # [1, N, steps, w]
    wide = spec.src == "fp64"
    acc_dtype = jnp.float64 if wide else nm.FORMATS[spec.acc].dtype
    init = jnp.zeros((m, n, spec.lanes), acc_dtype)
    step = _body_step(kernel, rounding, opaque_zero)

    def body(acc, j):
        a = lax.dynamic_index_in_dim(a_words, j, axis=2, keepdims=False)
        b = lax.dynamic_index_in_dim(b_words, j, axis=2, keepdims=False)
        return step(acc, jnp.broadcast_to(a, (m, n, w)), jnp.broadcast_to(b, (m, n, w))), None

    acc, _ = lax.scan(body, init, jnp.arange(k // w))
    if wide:
        return acc[..., 0], acc[..., 0], acc[..., 0]
    fmt = spec.acc
    for op in spec.reduce:
        fmt = _REDUCED_FORMAT[op]
        zero = jnp.zeros(acc.shape[:-1] + (acc.shape[-1] // 2,), nm.FORMATS[fmt].dtype)
        acc = _REDUCTIONS[op](acc, zero, rounding)
    reduced = acc[..., 0]
    c_bits = reduced if fmt == spec.src else nm.convert(reduced, fmt, spec.src, rounding)
    return c_bits, nm.to_float64(c_bits, spec.src), nm.to_float64(reduced, fmt)


def run_gemm(kernel: str, a_bits, bt_bits, *, rounding: str = "rne") -> GemmResult:
    """Execute ``kernel`` on A and B^T as the cluster does; results per output, bit-exact.

    a_bits: [M, K] and bt_bits: [N, K] (B stored transposed, as the kernels read it): bit
    patterns of the kernel's input format (float64 values for ``fp64_fma``). Shapes must be
    ones ``kernel_profile`` accepts. ``rounding``: the FPU's dynamic rounding mode, one of
    ``lutcore.numerics.ROUNDING_MODES`` (``fp64_fma`` supports "rne" only).
    """
    spec = kernel_spec(kernel)
    a_bits, bt_bits = jnp.asarray(a_bits), jnp.asarray(bt_bits)
    if a_bits.ndim != 2 or bt_bits.ndim != 2 or a_bits.shape[1] != bt_bits.shape[1]:
        raise ValueError(f"need a_bits [M, K] and bt_bits [N, K]; got {a_bits.shape}, "
                         f"{bt_bits.shape}")
    if a_bits.shape[1] % spec.values_per_word:
        raise ValueError(f"{kernel}: K={a_bits.shape[1]} is not a multiple of "
                         f"{spec.values_per_word} values per 64-bit word")
    if rounding not in nm.ROUNDING_MODES or (spec.src == "fp64" and rounding != "rne"):
        allowed = ("rne",) if spec.src == "fp64" else nm.ROUNDING_MODES
        raise ValueError(f"{kernel}: rounding {rounding!r} not supported; allowed: "
                         f"{', '.join(allowed)}")
    if spec.src != "fp64":
        check.patterns("run_gemm a_bits", a_bits, nm.FORMATS[spec.src], label=spec.src)
        check.patterns("run_gemm bt_bits", bt_bits, nm.FORMATS[spec.src], label=spec.src)
    dtype = jnp.float64 if spec.src == "fp64" else nm.FORMATS[spec.src].dtype
    return GemmResult(*_run(a_bits.astype(dtype), bt_bits.astype(dtype), jnp.uint64(0),
                            kernel=kernel, rounding=rounding))

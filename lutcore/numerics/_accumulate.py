"""Long dot products accumulated by the MiniFloat-NN units: the accuracy model of Fig. 9.

One step consumes two products (one ExSdotp instruction): the fused unit computes
acc + a0*b0 + a1*b1 with one rounding; the ExFMA cascade (paper Fig. 3) rounds after each
product; the golden model accumulates in float64 (products of <= 11-bit significands are exact
there, so each step rounds only the sum, like an FP64 FMA). The ExSdotp unit can be the ideal
one or FPnew's RTL (``model="rtl"``, on its default lane).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _checks as check
from ._formats import Format, as_format, check_patterns, rounding_code, to_float64
from ._fused import MODELS, exfma_cascade, exsdotp

UNITS = ("exsdotp", "exfma_cascade", "fp64")


# The rounding mode is a traced code, as in the kernels it calls: one compiled scan per formats,
# unit and model serves every mode (mfnn-rtl's Fig. 9 rerun compiled one per mode).
@functools.partial(jax.jit, static_argnames=("src", "dst", "unit", "model"))
def _accumulate(a, b, rounding, src: Format, dst: Format, unit: str, model: str):
    pairs = (a[..., 0::2], b[..., 0::2], a[..., 1::2], b[..., 1::2])
    steps = [jnp.moveaxis(x, -1, 0) for x in pairs]   # scan over the step axis

    if unit == "fp64":
        def step(acc, xs):
            a0, b0, a1, b1 = (to_float64(x, src) for x in xs)
            acc = acc + a0 * b0
            acc = acc + a1 * b1
            return acc, acc

        init = jnp.zeros(a.shape[:-1], jnp.float64)
    else:
        if unit == "exsdotp":
            op = functools.partial(exsdotp, model=model)
        else:
            op = exfma_cascade

        def step(acc, xs):
            acc = op(*xs, acc, src=src, dst=dst, rounding=rounding)
            return acc, acc

        init = jnp.zeros(a.shape[:-1], dst.dtype)
    _, history = lax.scan(step, init, steps)
    history = jnp.moveaxis(history, 0, -1)
    return history if unit == "fp64" else to_float64(history, dst)


@check.entry
def accumulate_dot(a, b, *, src, dst, unit: str, rounding: str = "rne", model: str = "ideal"):
    """Running dot product of ``a`` and ``b`` as computed by one unit, after every step.

    a, b: [..., 2n] ``src`` bit patterns. Returns float64 [..., n]: the accumulator after each
    step (step i has consumed products 0 .. 2i+1), starting from +0. ``unit``: "exsdotp",
    "exfma_cascade" (results in ``dst``) or "fp64" (the golden model). ``model``: of the
    ExSdotp unit, "ideal" or "rtl" (see ``exsdotp``).
    """
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; allowed: {', '.join(UNITS)}")
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; allowed: {', '.join(MODELS)}")
    if model != "ideal" and unit != "exsdotp":
        raise ValueError(f"model={model!r} models the ExSdotp unit only, not unit={unit!r}")
    src, dst = as_format(src), as_format(dst)
    a, b = (jnp.asarray(check_patterns(f"accumulate_dot {name}", x, src), src.dtype)
            for name, x in (("a", a), ("b", b)))
    if a.shape != b.shape or a.shape[-1] % 2:
        raise ValueError(f"a and b need one shape with an even last axis; got {a.shape}, {b.shape}")
    return _accumulate(a, b, np.uint8(rounding_code(rounding)), src=src, dst=dst, unit=unit,
                       model=model)

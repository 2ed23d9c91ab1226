"""Checked arguments at lutcore's public entry points: the one home of the rules every size,
code, bit pattern and real parameter obeys, and of their messages.

Each check raises ``ValueError`` (``TypeError`` for an object of the wrong kind) naming the
argument, the value found and the allowed range, and returns the value unchanged. A check runs
once per public call, on concrete values: a value traced by ``jax.jit`` or ``jax.vmap`` passes
through unchecked (the caller that traces it checks its own inputs), so no check enters
compiled code; and a public function marked ``entry`` switches off the checks of the public
functions it calls (a tensor core prices hundreds of blocks from its own checked sizes).
"""

from __future__ import annotations

import functools
import math
import numbers
import threading
from collections.abc import Mapping

import jax
import numpy as np

__all__ = ["codes", "entry", "finite", "instance", "integers", "named", "one_of", "patterns",
           "positive_int"]

_DEPTH = threading.local()  # public calls in progress on this thread


def entry(function):
    """Mark a public function: the checks its own body makes run; those of the public
    functions it calls in turn do not (their arguments are computed from checked ones), so a
    call is checked once however many blocks it prices."""
    @functools.wraps(function)
    def checked_once(*args, **kwargs):
        depth = getattr(_DEPTH, "value", 0)
        _DEPTH.value = depth + 1
        try:
            return function(*args, **kwargs)
        finally:
            _DEPTH.value = depth
    return checked_once


def _skipped(value) -> bool:
    """True where a check steps aside: a value traced by jit/vmap, or a call made by another
    public function (``entry``)."""
    return getattr(_DEPTH, "value", 0) > 1 or isinstance(value, jax.core.Tracer)


def _first_bad(array: np.ndarray, bad: np.ndarray):
    """The first offending element, and where it is when ``array`` has more than one."""
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    value = array[index].item()
    return f"{value!r} (at index {list(index)} of shape {array.shape})" if array.ndim else repr(
        value)


def _range(low, high, kind: str) -> str:
    if low is not None and high is not None:
        return f"{kind} in [{low}, {high}]"
    if low is not None:
        return f"{kind} >= {low}"
    return f"{kind} <= {high}" if high is not None else kind


def _real_array(name: str, value, allowed: str) -> np.ndarray:
    """``value`` as a numpy array of reals (ints or floats; no bools, strings or objects)."""
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{name}: {value!r} is not allowed; allowed values: {allowed}")
    return array


def integers(name: str, value, *, min=1, max=None, note: str = ""):
    """Integer-valued reals (Python or numpy, scalars or arrays; 2.0 passes, 2.5 does not)
    within [min, max]: a size, a count, a bit width. ``note`` follows the range in the message
    (what the bound keeps). NaN, inf, bools and strings are refused."""
    if type(value) is int and (min is None or value >= min) and (max is None or value <= max):
        return value  # the common case, without numpy
    if _skipped(value):
        return value
    allowed = _range(min, max, "integers") + note
    array = _real_array(name, value, allowed)
    bad = ~np.isfinite(array) | (array != np.round(array)) if array.dtype.kind == "f" else (
        np.zeros(array.shape, bool))
    if min is not None:
        bad |= array < min
    if max is not None:
        bad |= array > max
    if bad.any():
        raise ValueError(f"{name}: {_first_bad(array, bad)} is not allowed; "
                         f"allowed values: {allowed}")
    return value


def positive_int(name: str, value, *, min=1, max=None, note: str = "") -> int:
    """A Python (or numpy) integer scalar >= ``min`` (1 unless told): a static argument such
    as a group size, a bit width or an instruction's shape; 2.0 is refused here."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}: {value!r} is not allowed; allowed values: "
                         f"{_range(min, max, 'integers')}{note}")
    return integers(name, int(value), min=min, max=max, note=note)


def finite(name: str, value, *, min=None, max=None, above=None):
    """Finite reals (scalars or arrays) within [min, max], or strictly above ``above`` (a
    clock, a scale, a fraction)."""
    if _skipped(value):
        return value
    kind = "finite numbers" + (f" > {above}" if above is not None else "")
    allowed = _range(min, max, kind)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        ok = (math.isfinite(value) and (min is None or value >= min)
              and (max is None or value <= max) and (above is None or value > above))
        if ok:
            return value
    array = _real_array(name, value, allowed)
    bad = ~np.isfinite(array)
    if min is not None:
        bad |= array < min
    if max is not None:
        bad |= array > max
    if above is not None:
        bad |= array <= above
    if bad.any():
        raise ValueError(f"{name}: {_first_bad(array, bad)} is not allowed; "
                         f"allowed values: {allowed}")
    return value


def codes(name: str, value, levels: int, *, what: str = "codes", low: int = 0):
    """An integer array (integer dtype: a float is a value, not a code) whose entries lie in
    [low, low + levels): weight codes, trits, table indices."""
    if _skipped(value):
        return value
    high = low + levels - 1
    allowed = f"integer {what} in [{low}, {high}]"
    dtype = getattr(value, "dtype", None)
    if (dtype is not None and dtype.kind == "u" and low == 0
            and 1 << (8 * dtype.itemsize) <= levels):
        return value  # the dtype holds nothing else (no copy of a device array)
    on_device = isinstance(value, jax.Array) and any(d.platform != "cpu"
                                                     for d in value.devices())
    if on_device and dtype.kind in "iu" and value.size:
        # an accelerator's array: its two bounds in one transfer, not the whole array
        bounds = np.asarray(jax.numpy.stack([value.min(), value.max()]))
        if low <= int(bounds[0]) and int(bounds[1]) <= high:
            return value
    array = np.asarray(value)  # a host array: no copy
    if array.dtype.kind not in "iu":
        raise ValueError(f"{name}: {what} must be integers, got {array.dtype} "
                         f"{_first_bad(array, np.ones(array.shape, bool)) if array.size else ''}"
                         f"; allowed values: {allowed}")
    if array.size and (array.min() < low or array.max() > high):  # two passes, no temporaries
        bad = (array < low) | (array > high)
        if bad.any():
            raise ValueError(f"{name}: {_first_bad(array, bad)} is not allowed; "
                             f"allowed values: {allowed}")
    return value


def patterns(name: str, value, fmt, *, label: str | None = None):
    """Bit patterns of the binary format ``fmt`` (anything with ``width`` and a name; ``label``:
    the name the caller's format set calls it, default ``str(fmt)``): integers in
    [0, 2^width). A float is refused, not truncated: it is a value (encode it with
    ``lutcore.numerics.from_float64``). A signed integer array exactly ``width`` bits wide is
    the same bits read two's-complement (int8 -1 is the fp8 pattern 0xFF) and passes."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind == "i" and 8 * dtype.itemsize == fmt.width:
        return value
    label = str(fmt) if label is None else label
    try:
        return codes(name, value, 1 << fmt.width, what=f"{label} bit patterns")
    except ValueError as err:
        raise ValueError(f"{err} (a value is encoded by from_float64(x, {label!r}))") from None


def instance(name: str, value, cls: type, allowed: str):
    """``value`` is a ``cls`` (a record such as a ``GPUSpec``); else a TypeError saying what
    is allowed and how to get one."""
    if not isinstance(value, cls):
        raise TypeError(f"{name}: {value!r} is not a {cls.__name__}; allowed values: {allowed}")
    return value


def one_of(name: str, value, allowed):
    """``value`` is one of ``allowed`` (a choice among names or numbers: a mode, a layout);
    else a ValueError naming ``name``, the value and the allowed ones."""
    try:
        if value in allowed:
            return value
    except TypeError:  # an unhashable value against a set or mapping
        pass
    raise ValueError(f"{name} {value!r} unknown; allowed values: {', '.join(map(str, allowed))}")


def named(table: Mapping, value, *, what: str, record: type | None = None):
    """The record of ``table`` (names to records: a registry) that ``value`` names, or ``value``
    itself if it is a ``record`` (a new one, not registered, passes as it is); else a
    ValueError naming ``what``, the value and the allowed names."""
    if record is not None and isinstance(value, record):
        return value
    try:
        return table[value]
    except (KeyError, TypeError):  # TypeError: an unhashable value (a list, an array)
        also = f", or a {record.__name__}" if record is not None else ""
        raise ValueError(f"unknown {what} {value!r}; allowed values: "
                         f"{', '.join(map(str, table))}{also}") from None

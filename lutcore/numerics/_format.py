"""The number formats lutcore speaks of: one ``Format`` record each, the one home of their facts.

A record states its fields (sign, exponent and mantissa bits), its special-value convention and
its ml_dtypes equivalent; bias, range, byte width and bit-pattern dtype follow from them. Every
package derives what it needs from the records and declares, as a ``FormatSet``, only which
formats it supports and the names it calls them by. The papers' names are aliases: ``fp16alt``
and ``bf16`` are one format; ``fp8`` is E5M2 in FPnew (MiniFloat-NN) but E4M3 on the H100-class
tensor cores of the LUT Tensor Core paper, so a lookup without a package's set refuses it and
names both candidates.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

import jax.numpy as jnp
import ml_dtypes
import numpy as np

from .. import _checks as check

IEEE = "ieee"  # IEEE 754: exponent all ones is +-inf (fraction 0) or NaN
FINITE = "fn"  # OCP "fn": no infinities; only exponent and fraction all ones is NaN
INTEGER = "int"  # two's complement integer: no exponent field, man_bits value bits
SPECIALS = (IEEE, FINITE, INTEGER)

_UINT = {8: jnp.uint8, 16: jnp.uint16, 32: jnp.uint32, 64: jnp.uint64}


def field_width(exp_bits: int, man_bits: int) -> int:
    """Bits of a binary encoding: sign, exponent field, fraction field (any widths, also
    formats a ``Format`` cannot store, e.g. TF32's 19 bits)."""
    return 1 + exp_bits + man_bits


@dataclasses.dataclass(frozen=True)
class Format:
    """A number format: a sign bit, ``exp_bits`` exponent bits, ``man_bits`` fraction bits
    (value bits for an integer), and its special-value convention (``SPECIALS``).

    Floats have the IEEE bias 2^(exp_bits-1) - 1 and subnormals, and store a bit pattern in an
    8/16/32/64-bit word. Equality and hash see only the fields that fix the values (not the
    name), so a record can be a static argument of a jitted function.
    """

    exp_bits: int
    man_bits: int
    name: str = dataclasses.field(default="", compare=False)
    aliases: tuple[str, ...] = dataclasses.field(default=(), compare=False)
    specials: str = IEEE
    ml_dtype_name: str | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self):
        label = self.name or f"Format({self.exp_bits}, {self.man_bits})"
        check.one_of(f"{label}: specials", self.specials, SPECIALS)
        if self.specials == INTEGER:
            if self.exp_bits != 0 or not 0 <= self.man_bits <= 63:
                raise ValueError(f"{label}: an integer has exp_bits 0 and 0 <= man_bits <= 63")
        elif not (2 <= self.exp_bits <= 11 and 1 <= self.man_bits <= 52):
            raise ValueError(f"{label}: need 2 <= exp_bits <= 11 and 1 <= man_bits <= 52")
        elif self.width not in _UINT:
            raise ValueError(f"{label} is {self.width} bits wide; bit patterns are stored in "
                             f"{sorted(_UINT)}-bit words")
        if isinstance(self.aliases, str) or self.name in self.aliases:
            raise ValueError(f"{label}: aliases must be a tuple of other names")

    @property
    def is_float(self) -> bool:
        return self.specials != INTEGER

    @property
    def width(self) -> int:
        """Total bits, sign included."""
        return field_width(self.exp_bits, self.man_bits)

    @property
    def nbytes(self) -> int | float:
        """Bytes per element (a fraction for sub-byte integers)."""
        return self.width // 8 if self.width % 8 == 0 else self.width / 8

    @property
    def precision(self) -> int:
        """Significand bits including the hidden one (p)."""
        return self.man_bits + 1

    @property
    def bias(self) -> int:
        return (1 << (self.exp_bits - 1)) - 1 if self.is_float else 0

    @property
    def emax(self) -> int:
        """Exponent of the largest finite value (an "fn" format uses the all-ones exponent)."""
        return (1 << self.exp_bits) - (2 if self.specials == IEEE else 1) - self.bias

    @property
    def emin(self) -> int:
        """Exponent of the smallest normal value."""
        return 1 - self.bias

    @property
    def max_value(self) -> float:
        if not self.is_float:
            return float((1 << self.man_bits) - 1)
        top_fraction = 2.0 ** -self.man_bits * (1 if self.specials == IEEE else 2)
        return float(np.ldexp(2.0 - top_fraction, self.emax))

    @property
    def min_normal(self) -> float:
        return float(np.ldexp(1.0, self.emin))

    @property
    def min_subnormal(self) -> float:
        return float(np.ldexp(1.0, self.emin - self.man_bits))

    @property
    def epsilon(self) -> float:
        """Distance from 1 to the next larger value, 2^-man_bits."""
        return float(np.ldexp(1.0, -self.man_bits))

    @property
    def dtype(self):
        """Unsigned integer dtype holding one bit pattern."""
        return _UINT[self.width]

    @property
    def ml_dtype(self):
        """The numpy/ml_dtypes dtype with these values, or None where none exists."""
        if self.ml_dtype_name is None:
            return None
        return np.dtype(getattr(ml_dtypes, self.ml_dtype_name, None) or self.ml_dtype_name)

    @property
    def inf_bits(self) -> int:
        return ((1 << self.exp_bits) - 1) << self.man_bits

    @property
    def qnan_bits(self) -> int:
        """The canonical quiet NaN: sign 0, exponent all ones, only the fraction MSB set."""
        return self.inf_bits | (1 << (self.man_bits - 1))

    @property
    def max_bits(self) -> int:
        return self.inf_bits - 1

    def __str__(self):
        return self.name or f"e{self.exp_bits}m{self.man_bits}"


def _integers(*widths: int) -> tuple[Format, ...]:
    return tuple(Format(0, b - 1, f"int{b}", specials=INTEGER,
                        ml_dtype_name=f"int{b}" if b in (2, 4, 8, 16, 32) else None)
                 for b in widths)


TABLE: tuple[Format, ...] = (
    Format(11, 52, "fp64", ml_dtype_name="float64"),
    Format(8, 23, "fp32", ml_dtype_name="float32"),
    Format(5, 10, "fp16", ml_dtype_name="float16"),
    # bfloat16 widths; FPnew's FP16alt (MiniFloat-NN Sec. III-A) with IEEE subnormals
    Format(8, 7, "bf16", aliases=("fp16alt", "bfloat16"), ml_dtype_name="bfloat16"),
    # FPnew's FP8 (MiniFloat-NN Sec. III-A); OCP E5M2 is the same format
    Format(5, 2, "fp8_e5m2", aliases=("fp8",), ml_dtype_name="float8_e5m2"),
    # FPnew's FP8alt: E4M3 with IEEE infinities, max 240 (not OCP E4M3FN)
    Format(4, 3, "fp8_e4m3", aliases=("fp8alt",), ml_dtype_name="float8_e4m3"),
    # OCP E4M3FN, the FP8 of H100-class tensor cores (LUT Tensor Core paper): max 448
    Format(4, 3, "fp8_e4m3fn", aliases=("fp8",), specials=FINITE, ml_dtype_name="float8_e4m3fn"),
    *_integers(1, 2, 3, 4, 5, 6, 7, 8, 16, 32),
)


def _check_table(table: tuple[Format, ...]):
    names = [f.name for f in table]
    clashes = {n for n in names if names.count(n) > 1}
    clashes |= {a for f in table for a in f.aliases if a in names}
    if clashes:
        raise ValueError(f"format names used twice: {', '.join(sorted(clashes))}")


_check_table(TABLE)


def format_named(name: str, among: Iterable[Format] = TABLE) -> Format:
    """The format ``name`` (a canonical name or an alias) among ``among``. A name unknown there
    is a ValueError listing the names; an alias of several formats one naming the candidates."""
    pool = tuple(among)
    for fmt in pool:
        if fmt.name == name:
            return fmt
    hits = [fmt for fmt in pool if name in fmt.aliases]
    if len(hits) > 1:
        raise ValueError(f"format name {name!r} is ambiguous: it means "
                         f"{' or '.join(f.name for f in hits)}; name one of them")
    if not hits:
        raise ValueError(f"unknown format {name!r}; known formats: "
                         f"{', '.join(f.name for f in pool)}")
    return hits[0]


class FormatSet(Mapping[str, Format]):
    """The formats a package supports, keyed (in order) by the names it calls them.

    ``labels``: canonical names or aliases; ``means`` picks the format an ambiguous alias means
    here (it must be one of that alias's formats). ``admits``: which other ``Format`` records
    (e.g. a new one passed as an object) the package can work with. Indexing takes a label or
    any other name of a member; ``lookup`` also takes records and gives ValueErrors.
    """

    def __init__(self, labels: Iterable[str], *, means: Mapping[str, str] | None = None,
                 admits: Callable[[Format], bool] = lambda fmt: True):
        means = dict(means or {})
        self._by_label: dict[str, Format] = {}
        for label in labels:
            fmt = format_named(means.pop(label, label))
            if label not in (fmt.name, *fmt.aliases):
                raise ValueError(f"{label!r} is not a name of {fmt.name}")
            if not admits(fmt):
                raise ValueError(f"format {fmt.name} is not admitted by this set")
            self._by_label[label] = fmt
        if means:
            raise ValueError(f"means names formats not in the set: {', '.join(means)}")
        self.admits = admits

    def __getitem__(self, name: str) -> Format:
        if name in self._by_label:
            return self._by_label[name]
        hits = {f for f in self._by_label.values() if name == f.name or name in f.aliases}
        if len(hits) != 1:
            raise KeyError(name)
        return hits.pop()

    def __iter__(self):
        return iter(self._by_label)

    def __len__(self):
        return len(self._by_label)

    def __contains__(self, name) -> bool:
        try:
            self[name]
        except (KeyError, TypeError):
            return False
        return True

    def lookup(self, fmt: str | Format, what: str | None = None) -> Format:
        """``fmt`` as a supported record: a name of a member, or a record ``admits`` accepts.
        ``what``: the argument's name for the error message."""
        allowed = f"allowed values: {', '.join(self)}"
        if isinstance(fmt, Format):
            if not self.admits(fmt):
                raise ValueError(f"{what or 'format'} {fmt} ({fmt.specials}) is not supported "
                                 f"here; {allowed} or a Format like them")
            return fmt
        if fmt not in self:
            raise ValueError(f"{what} {fmt!r} unknown; {allowed}" if what
                             else f"unknown format {fmt!r}; known formats: {', '.join(self)}")
        return self[fmt]

    def label(self, fmt: Format) -> str:
        """The name this set calls ``fmt`` by (its own name for a record not in the set)."""
        return next((k for k, v in self._by_label.items() if v.name == fmt.name and v == fmt),
                    str(fmt))

    def subset(self, labels: Iterable[str]) -> FormatSet:
        """The members ``labels`` (names this set knows) as a set of their own."""
        picked = {label: self[label] for label in labels}
        return FormatSet(picked, means={k: v.name for k, v in picked.items()},
                         admits=self.admits)

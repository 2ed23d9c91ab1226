"""Which SIMD lane of the MiniFloat-NN SDOTP module can execute a format pair.

An ExSdotp lane is sized by the widest exponent and mantissa among the formats it is built for;
narrower formats map onto the low exponent / high mantissa bits of those fields (paper Sec. III).
So a lane covers (src, dst) when both fit its source and destination fields.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from ._formats import FORMATS, Format, as_format


@dataclasses.dataclass(frozen=True)
class SdotpLane:
    """An ExSdotp lane built for ``src_formats`` -> ``dst_formats`` (FPnew format names)."""

    name: str
    src_formats: tuple[str, ...]
    dst_formats: tuple[str, ...]

    def _fields(self, names):
        fmts = [FORMATS[n] for n in names]
        return max(f.exp_bits for f in fmts), max(f.man_bits for f in fmts)

    def covers(self, src: str | Format, dst: str | Format) -> bool:
        src, dst = as_format(src), as_format(dst)
        (se, sm), (de, dm) = self._fields(self.src_formats), self._fields(self.dst_formats)
        return (src.exp_bits <= se and src.man_bits <= sm
                and dst.exp_bits <= de and dst.man_bits <= dm)


# The two lane kinds of the 64-bit SIMD wrapper (paper Fig. 5: two of each).
SDOTP_LANES = (
    SdotpLane("8->16", ("fp8", "fp8alt"), ("fp16", "fp16alt")),
    SdotpLane("16->32", ("fp16", "fp16alt"), ("fp32",)),
)


class SdotpWidths(NamedTuple):
    """Internal widths (bits) of an ExSdotp datapath, as fpnew_sdotp_multi sizes them."""

    p_src: int         # S: widest source mantissa + 1 (PRECISION_BITS of the source)
    p_dst: int         # P: max(widest destination mantissa, 2 * source mantissa + 1) + 1
    first_adder: int   # 2P + 3: max + int, the intermediate addend aligned below max
    second_adder: int  # 2P + S + 4: the first sum << S + min
    normalizer: int    # 2P + S + 5: leading-zero count and normalization shift
    exponent: int      # max(destination exponent + 2, clog2(2P + S + 5)), unsigned


def sdotp_widths(src_man_bits: int, dst_man_bits: int, dst_exp_bits: int) -> SdotpWidths:
    """The widths of an ExSdotp lane whose widest source format has ``src_man_bits`` fraction
    bits and whose widest destination format has ``dst_exp_bits`` / ``dst_man_bits``
    (fpnew_sdotp_multi: SUPER_DST_MAN_BITS = max(dst man, 2 * src man + 1); the adders' widths
    and the exponent datapath follow from P and S)."""
    p_src = src_man_bits + 1
    p_dst = max(dst_man_bits, 2 * src_man_bits + 1) + 1
    normalizer = 2 * p_dst + p_src + 5
    return SdotpWidths(p_src=p_src, p_dst=p_dst, first_adder=2 * p_dst + 3,
                       second_adder=normalizer - 1, normalizer=normalizer,
                       exponent=max(dst_exp_bits + 2, (normalizer - 1).bit_length()))

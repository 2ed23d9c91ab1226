"""Which SIMD lane of the MiniFloat-NN SDOTP module can execute a format pair.

An ExSdotp lane is sized by the widest exponent and mantissa among the formats it is built for;
narrower formats map onto the low exponent / high mantissa bits of those fields (paper Sec. III).
So a lane covers (src, dst) when both fit its source and destination fields.
"""

from __future__ import annotations

import dataclasses

from ._formats import FORMATS, FPFormat, as_format


@dataclasses.dataclass(frozen=True)
class SdotpLane:
    """An ExSdotp lane built for ``src_formats`` -> ``dst_formats`` (FPnew format names)."""

    name: str
    src_formats: tuple[str, ...]
    dst_formats: tuple[str, ...]

    def _fields(self, names):
        fmts = [FORMATS[n] for n in names]
        return max(f.exp_bits for f in fmts), max(f.man_bits for f in fmts)

    def covers(self, src: str | FPFormat, dst: str | FPFormat) -> bool:
        src, dst = as_format(src), as_format(dst)
        (se, sm), (de, dm) = self._fields(self.src_formats), self._fields(self.dst_formats)
        return src.exp_bits <= se and src.man_bits <= sm and dst.exp_bits <= de and dst.man_bits <= dm


# The two lane kinds of the 64-bit SIMD wrapper (paper Fig. 5: two of each).
SDOTP_LANES = (
    SdotpLane("8->16", ("fp8", "fp8alt"), ("fp16", "fp16alt")),
    SdotpLane("16->32", ("fp16", "fp16alt"), ("fp32",)),
)

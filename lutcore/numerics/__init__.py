"""Number formats and bit-exact fused arithmetic over raw bit patterns (MiniFloat-NN, FPnew)."""

from ._accumulate import UNITS, accumulate_dot
from ._formats import (FORMATS, ROUNDING_MODES, FPFormat, Unpacked, as_format, convert, decode,
                       from_float64, round_to_format, to_float64)
from ._units import SDOTP_LANES, SdotpLane
from ._fused import (EXPANDING_PAIRS, VSUM_FORMATS, exfma, exfma_cascade, exsdotp, exvsum,
                     vsum)

__all__ = [
    "UNITS", "accumulate_dot",
    "FORMATS", "ROUNDING_MODES", "FPFormat", "Unpacked", "as_format", "convert", "decode",
    "from_float64", "round_to_format", "to_float64",
    "SDOTP_LANES", "SdotpLane",
    "EXPANDING_PAIRS", "VSUM_FORMATS", "exfma", "exfma_cascade", "exsdotp", "exvsum", "vsum",
]

"""Number formats and bit-exact fused arithmetic over raw bit patterns (MiniFloat-NN, FPnew)."""

from ._accumulate import UNITS, accumulate_dot
from ._flush import flush_operand, fp_add_ftz
from ._format import (
                       FINITE,
                       IEEE,
                       INTEGER,
                       SPECIALS,
                       TABLE,
                       Format,
                       FormatSet,
                       field_width,
                       format_named,
)
from ._formats import (
                       FLAG_DZ,
                       FLAG_NV,
                       FLAG_NX,
                       FLAG_OF,
                       FLAG_UF,
                       FORMATS,
                       ROUNDING_MODES,
                       STATUS_FLAGS,
                       FPFormat,
                       Unpacked,
                       as_format,
                       convert,
                       decode,
                       from_float64,
                       round_float,
                       round_to_format,
                       round_with_flags,
                       to_float64,
)
from ._fused import (
                       EXPANDING_PAIRS,
                       MODELS,
                       VSUM_FORMATS,
                       Outputs,
                       exfma,
                       exfma_cascade,
                       exsdotp,
                       exsdotp_flags,
                       exsdotp_rtl_trace,
                       exvsum,
                       exvsum_flags,
                       vsum,
                       vsum_flags,
)
from ._rtl import lane_widths
from ._units import SDOTP_LANES, SdotpLane, SdotpWidths, sdotp_widths

__all__ = [
    "UNITS", "accumulate_dot",
    "FLAG_DZ", "FLAG_NV", "FLAG_NX", "FLAG_OF", "FLAG_UF", "FORMATS", "ROUNDING_MODES",
    "STATUS_FLAGS", "FPFormat", "Unpacked", "as_format", "convert", "decode", "from_float64",
    "FINITE", "IEEE", "INTEGER", "SPECIALS", "TABLE", "Format", "FormatSet", "field_width",
    "format_named", "round_float", "round_to_format", "round_with_flags", "to_float64",
    "flush_operand", "fp_add_ftz",
    "SDOTP_LANES", "SdotpLane", "SdotpWidths", "lane_widths", "sdotp_widths",
    "EXPANDING_PAIRS", "MODELS", "VSUM_FORMATS", "Outputs", "exfma", "exfma_cascade", "exsdotp",
    "exsdotp_flags", "exsdotp_rtl_trace", "exvsum", "exvsum_flags", "vsum", "vsum_flags",
]

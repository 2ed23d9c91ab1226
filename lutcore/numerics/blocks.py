"""The building blocks of ``lutcore.numerics``: status flags, the special-value conventions,
bit-level rounding, flush-to-zero operands, the ExSdotp lanes and their widths, the operations
that also return their status flags, and the RTL trace of the fused datapath.
"""

from lutcore import _face

from ._accumulate import UNITS
from ._flush import flush_operand, fp_add_ftz
from ._format import FINITE, IEEE, INTEGER, SPECIALS, field_width
from ._formats import (
    FLAG_DZ,
    FLAG_NV,
    FLAG_NX,
    FLAG_OF,
    FLAG_UF,
    STATUS_FLAGS,
    FPFormat,
    Unpacked,
    round_to_format,
    round_with_flags,
)
from ._fused import Outputs, exsdotp_flags, exsdotp_rtl_trace, exvsum_flags, vsum_flags
from ._rtl import lane_widths
from ._units import SDOTP_LANES, SdotpLane, SdotpWidths, sdotp_widths

__all__ = _face.public(globals())

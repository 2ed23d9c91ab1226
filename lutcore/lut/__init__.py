"""LUT-based mixed-precision GEMM, bit-faithful to LUT Tensor Core §3.1 (tables, lookups, LMMA).

``mpgemm`` is the entry point; ``lut_gemm`` takes any table scheme (naive, bit-serial,
symmetric with or without offline negation, ternary); ``precompute_tables``/``quantize_tables``
are the precompute operator and table quantization; ``prepare_weights``/``apply_weights`` keep
static weights prepared for the lookups (the lookups' integer weights for exact tables, summed
exactly span by span; a selection tensor for quantized ones; ``prepare_layers``: a model's
stacked layers);
``LMMA``/``tiled_mpgemm`` the instruction semantics with accumulator roundings;
``released_lmma`` the LMMA of the authors' released FP16 array, bit for bit; ``op_counts`` the
work the cost models consume.
"""

from lutcore import _face

from . import blocks
from ._counts import OpCounts, op_counts
from ._gemm import (
    ACCUM_FORMATS,
    ACTIVATION_FORMATS,
    LMMA,
    LOOKUPS,
    PreparedWeights,
    apply_weights,
    lmma,
    lut_gemm,
    mpgemm,
    prepare_layers,
    prepare_weights,
    table_quantization_bound,
    tiled_mpgemm,
)
from ._release import released_lmma
from ._schemes import SCHEMES, TableScheme, make_scheme, pack_ternary, unpack_ternary
from ._tables import precompute_tables, quantize_tables

__all__ = _face.public(globals())
__getattr__ = _face.forward(__name__, blocks)  # the names it showed before

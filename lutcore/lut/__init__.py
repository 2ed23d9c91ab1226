"""LUT-based mixed-precision GEMM, bit-faithful to LUT Tensor Core §3.1 (tables, lookups, LMMA).

``mpgemm`` is the entry point; ``lut_gemm`` takes any table scheme (naive, bit-serial,
symmetric with or without offline negation, ternary); ``precompute_tables``/``quantize_tables``
are the precompute operator and table quantization; ``prepare_weights``/``apply_weights`` keep
static weights as a lookup selection tensor (``prepare_layers``: a model's stacked layers);
``LMMA``/``tiled_mpgemm`` the instruction semantics with accumulator roundings;
``released_lmma`` the LMMA of the authors' released FP16 array, bit for bit; ``op_counts`` the
work the cost models consume.
"""

from ._counts import OpCounts, op_counts, tile_table_bits, tile_weight_bits
from ._gemm import (
                    ACCUM_FORMATS,
                    ACTIVATION_FORMATS,
                    LMMA,
                    LOOKUPS,
                    PreparedWeights,
                    apply_weights,
                    lmma,
                    lmma_instructions,
                    lookup_plan,
                    lookup_sum,
                    lut_gemm,
                    mpgemm,
                    per_group,
                    prepare_layers,
                    prepare_weights,
                    table_quantization_bound,
                    tiled_mpgemm,
                    to_format,
)
from ._release import release_b_tile, released_lmma, scale_exponent_field
from ._schemes import SCHEMES, TableScheme, make_scheme, pack_ternary, table_entries, unpack_ternary
from ._tables import group_activations, precompute_tables, quantize_tables, symmetric_quantize

__all__ = [
    "OpCounts", "op_counts", "tile_table_bits", "tile_weight_bits",
    "ACCUM_FORMATS", "ACTIVATION_FORMATS", "LMMA", "LOOKUPS", "PreparedWeights",
    "apply_weights", "lmma", "lmma_instructions", "lookup_plan", "lookup_sum", "lut_gemm",
    "mpgemm", "per_group", "prepare_layers", "prepare_weights", "table_quantization_bound",
    "tiled_mpgemm", "to_format",
    "release_b_tile", "released_lmma", "scale_exponent_field",
    "SCHEMES", "TableScheme", "make_scheme", "pack_ternary", "table_entries", "unpack_ternary",
    "group_activations", "precompute_tables", "quantize_tables", "symmetric_quantize",
]

"""The building blocks of ``lutcore.lut``: the lookup engine's pieces (lookup plans and sums,
per-group scales, rounding to a format), table grouping and quantization, tile sizes, and the
released array's weight tiles and exponent fields.
"""

from lutcore import _face

from ._counts import tile_table_bits, tile_weight_bits
from ._gemm import lmma_instructions, lookup_plan, per_group, to_format
from ._release import release_b_tile, scale_exponent_field
from ._schemes import table_entries
from ._tables import group_activations, symmetric_quantize

__all__ = _face.public(globals())

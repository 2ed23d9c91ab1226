"""Hardware cost models: a cell library with sources, structural blocks, and the dot-product
units and tensor-core arrays of the LUT Tensor Core paper, validated by open logic synthesis.

``tensor_core(method, act, weight, m, n, k, boundary=...)`` prices an array (vectorized over
m, n, k) at the paper's design boundary (the unit the authors synthesized, ``_paper``) or with
the full accounting (operand and table storage, wide accumulation); ``metrics`` turns it into
the paper's figures of merit (area, power, compute density, energy efficiency) at 28nm / 1 GHz;
``operand_delivery`` prices what a paper-boundary array leaves to its environment. The blocks
(``ripple_adder``, ``fp_adder``, ...) compose new units.
``lutcore.ppa.synth`` (imported on demand: it needs Amaranth and Yosys) generates RTL of a
sample of these units and synthesizes it against a liberty of the same cells.
"""

from ._arrays import (ACCUMULATORS, ACTIVATIONS, ACTIVITY, BOUNDARIES, BUILDERS,
                      DEFAULT_ACCUMULATOR, DEFAULT_TABLE_SHARE, LUT_METHODS, LUT_VARIANTS,
                      METHODS, OPERANDS, PARTS, TABLE_ENTRIES, ArrayPPA, Datapath, LutVariant,
                      Metrics, Operand, UnitSpec, accumulator_format, entry_format, metrics,
                      operand, tensor_core, unit_spec)
from ._blocks import (TEXTBOOK, Blocks, Cost, adder_tree, array_multiplier, barrel_shifter,
                      broadcast, clog2, conditional_negate, fp_adder, fp_multiplier, gates,
                      incrementer, int_to_fp, leading_zero_count, mux_tree, parallel, register,
                      ripple_adder, series, times)
from ._cells import CELLS, GE_AREA, LIBRARY, Cell
from ._dse import (MAX_TABLE_K, BestArray, best_arrays, best_index, buildable,
                   power_of_two_shapes, shape_objective)
from ._paper import delivered_bits, operand_delivery
from ._fpu import (FPU_FORMATS, FPU_GROUPS, FPU_WIDTH, PIPELINE_STAGES, NodeScale, Precisions,
                   SdotpLaneSpec, cast_unit, exfma_cascade, exfma_precisions, exfma_unit,
                   exsdotp_precisions, exsdotp_simd, exsdotp_unit, fpu, fpu_groups, kge,
                   leakage_nw, node_scale, noncomp_unit, op_energy, sdotp_lanes, super_format)

__all__ = [
    "ACCUMULATORS", "ACTIVATIONS", "ACTIVITY", "BOUNDARIES", "BUILDERS", "DEFAULT_ACCUMULATOR",
    "DEFAULT_TABLE_SHARE", "LUT_METHODS", "LUT_VARIANTS", "METHODS", "OPERANDS", "PARTS",
    "TABLE_ENTRIES", "ArrayPPA", "Datapath", "LutVariant", "Metrics", "Operand", "UnitSpec",
    "accumulator_format", "entry_format", "metrics", "operand", "tensor_core", "unit_spec",
    "delivered_bits", "operand_delivery",
    "TEXTBOOK", "Blocks", "Cost", "adder_tree", "array_multiplier", "barrel_shifter", "broadcast", "clog2",
    "conditional_negate", "fp_adder", "fp_multiplier", "gates", "incrementer", "int_to_fp",
    "leading_zero_count", "mux_tree", "parallel", "register", "ripple_adder", "series", "times",
    "CELLS", "GE_AREA", "LIBRARY", "Cell",
    "MAX_TABLE_K", "BestArray", "best_arrays", "best_index", "buildable", "power_of_two_shapes",
    "shape_objective",
    "FPU_FORMATS", "FPU_GROUPS", "FPU_WIDTH", "PIPELINE_STAGES", "NodeScale", "Precisions",
    "SdotpLaneSpec", "cast_unit", "exfma_cascade", "exfma_precisions", "exfma_unit",
    "exsdotp_precisions", "exsdotp_simd", "exsdotp_unit", "fpu", "fpu_groups", "kge",
    "leakage_nw", "node_scale", "noncomp_unit", "op_energy", "sdotp_lanes", "super_format",
]

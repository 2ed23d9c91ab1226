"""Hardware cost models: a cell library with sources, structural blocks, and the dot-product
units and tensor-core arrays of the LUT Tensor Core paper, validated by open logic synthesis.

``tensor_core(method, act, weight, m, n, k)`` prices an array (vectorized over m, n, k);
``metrics`` turns it into the paper's figures of merit (area, power, compute density, energy
efficiency) at 28nm / 1 GHz. The blocks (``ripple_adder``, ``fp_adder``, ...) compose new units.
``release_lut_array`` prices the structure of the authors' released FP16 array (``_release``: its
facts, from their RTL). ``lutcore.ppa.synth`` (imported on demand: it needs Amaranth and Yosys)
generates RTL of a sample of these units and of the released array and synthesizes it against a
library of the same cells.
"""

from ._arrays import (ACTIVATIONS, ACTIVITY, LUT_METHODS, METHODS, OPERANDS, PARTS,
                      ArrayPPA, Metrics, Operand, metrics, operand, tensor_core)
from ._blocks import (Cost, adder_tree, array_multiplier, barrel_shifter, broadcast, clog2,
                      conditional_negate, fp_adder, fp_multiplier, gates, incrementer, int_to_fp,
                      leading_zero_count, mux_tree, parallel, register, ripple_adder, series,
                      times)
from ._cells import CELLS, GE_AREA, LIBRARY, Cell
from ._dse import best_index, power_of_two_shapes
from ._release import RELEASE, RELEASE_PARTS, ReleasedArray, ReleasedArrayCost, release_lut_array
from ._fpu import (FPU_FORMATS, FPU_GROUPS, FPU_WIDTH, PIPELINE_STAGES, NodeScale, Precisions,
                   SdotpLaneSpec, cast_unit, exfma_cascade, exfma_precisions, exfma_unit,
                   exsdotp_precisions, exsdotp_simd, exsdotp_unit, fpu, fpu_groups, kge,
                   leakage_nw, node_scale, noncomp_unit, op_energy, sdotp_lanes, super_format)

__all__ = [
    "ACTIVATIONS", "ACTIVITY", "LUT_METHODS", "METHODS", "OPERANDS", "PARTS",
    "ArrayPPA", "Metrics", "Operand", "metrics", "operand", "tensor_core",
    "Cost", "adder_tree", "array_multiplier", "barrel_shifter", "broadcast", "clog2",
    "conditional_negate", "fp_adder", "fp_multiplier", "gates", "incrementer", "int_to_fp",
    "leading_zero_count", "mux_tree", "parallel", "register", "ripple_adder", "series", "times",
    "CELLS", "GE_AREA", "LIBRARY", "Cell",
    "best_index", "power_of_two_shapes",
    "RELEASE", "RELEASE_PARTS", "ReleasedArray", "ReleasedArrayCost", "release_lut_array",
    "FPU_FORMATS", "FPU_GROUPS", "FPU_WIDTH", "PIPELINE_STAGES", "NodeScale", "Precisions",
    "SdotpLaneSpec", "cast_unit", "exfma_cascade", "exfma_precisions", "exfma_unit",
    "exsdotp_precisions", "exsdotp_simd", "exsdotp_unit", "fpu", "fpu_groups", "kge",
    "leakage_nw", "node_scale", "noncomp_unit", "op_energy", "sdotp_lanes", "super_format",
]

"""Hardware cost models: cell libraries with sources, structural blocks and faster architectures,
timing closure, and the dot-product units and tensor-core arrays of the LUT Tensor Core paper,
validated by open logic synthesis.

``tensor_core(method, act, weight, m, n, k, boundary=..., library=..., clock_ghz=...)`` prices
an array (vectorized over m, n, k) at the paper's design boundary (the unit the authors
synthesized, ``_paper``) or with the full accounting (operand and table storage, wide
accumulation), in a cell library (``LIBRARIES``), closed at a clock or unconstrained;
``metrics`` turns it into the paper's figures of merit (area, power under an ``activity`` model,
compute density, energy efficiency, whether it meets the clock) at 28nm / 1 GHz;
``operand_delivery`` prices what a paper-boundary array leaves to its environment. The blocks
(``ripple_adder``, ``fp_adder``, ...) compose new units; ``blocks(library, adder, multiplier)``
binds them to a library and architectures; ``close`` prices a unit at a period.
``release_lut_array`` is the authors' released FP16 array (``_release``: its facts, from their
RTL), priced part by part as ``tensor_core("lut_tensor_core", "fp16", ...)`` at the paper
boundary. ``lutcore.ppa.synth`` (imported on demand: it needs Amaranth and Yosys) generates RTL
of a sample of these units and of the released array and synthesizes it against a library of
the same cells.
"""

from ._archs import (
                      booth_dadda_multiplier,
                      carry_select_adder,
                      carry_select_incrementer,
                      prefix_adder,
                      prefix_incrementer,
)
from ._arrays import (
                      BOUNDARIES,
                      BOUNDARY,
                      LUT_METHODS,
                      METHODS,
                      Boundary,
                      Metrics,
                      boundary_named,
                      metrics,
                      operand_delivery,
                      tensor_core,
                      unit_spec,
)
from ._blocks import (
                      TEXTBOOK,
                      Blocks,
                      Cost,
                      adder_tree,
                      array_multiplier,
                      barrel_shifter,
                      broadcast,
                      clog2,
                      conditional_negate,
                      fp_adder,
                      fp_multiplier,
                      gates,
                      incrementer,
                      int_to_fp,
                      leading_zero_count,
                      mux_tree,
                      parallel,
                      per_cell,
                      register,
                      ripple_adder,
                      series,
                      times,
)
from ._cells import CELLS, GE_AREA, LIBRARY, Cell, CellLibrary
from ._dse import (
                      MAX_TABLE_K,
                      BestArray,
                      best_arrays,
                      best_index,
                      buildable,
                      power_of_two_shapes,
                      shape_objective,
)
from ._fpu import (
                      CLOSED_UNITS,
                      FPU_FORMATS,
                      FPU_GROUPS,
                      FPU_WIDTH,
                      PIPELINE_STAGES,
                      SYNTHESIS_CLOCK_GHZ,
                      SYNTHESIS_NODE_NM,
                      NodeScale,
                      Precisions,
                      SdotpLaneSpec,
                      cast_unit,
                      closed_unit,
                      exfma_cascade,
                      exfma_precisions,
                      exfma_unit,
                      exsdotp_precisions,
                      exsdotp_simd,
                      exsdotp_unit,
                      fpu,
                      fpu_groups,
                      kge,
                      leakage_nw,
                      node_scale,
                      noncomp_unit,
                      op_energy,
                      sdotp_lanes,
                      super_format,
                      synthesis_period_ps,
)
from ._libraries import LIBRARIES, LIBRARY_NAMES, library
from ._paper import delivered_bits
from ._power import ACTIVITY, ACTIVITY_MODELS, DC_DEFAULT_TOGGLES, dynamic_energy
from ._release import RELEASE, RELEASE_PARTS, ReleasedArray, ReleasedArrayCost, release_lut_array
from ._timing import (
                      ADDERS,
                      GRADES,
                      MULTIPLIERS,
                      Closure,
                      Grade,
                      blocks,
                      close,
                      node_delay_ps,
                      period_ps,
)
from ._unit import (
                      ACCUMULATORS,
                      ACTIVATIONS,
                      ARRAY_FORMATS,
                      LUT_VARIANTS,
                      PARTS,
                      TABLE_ENTRIES,
                      ArrayPPA,
                      Datapath,
                      LutVariant,
                      Operand,
                      UnitSpec,
                      accumulator_format,
                      entry_format,
                      operand,
)

__all__ = [
    "ACCUMULATORS", "ACTIVATIONS", "ACTIVITY", "BOUNDARIES", "BOUNDARY", "Boundary",
    "boundary_named", "LUT_METHODS", "LUT_VARIANTS", "METHODS", "ARRAY_FORMATS", "PARTS",
    "TABLE_ENTRIES", "ArrayPPA", "Datapath", "LutVariant", "Metrics", "Operand", "UnitSpec",
    "accumulator_format", "entry_format", "metrics", "operand", "tensor_core", "unit_spec",
    "delivered_bits", "operand_delivery",
    "TEXTBOOK", "Blocks", "Cost", "adder_tree", "array_multiplier", "barrel_shifter",
    "broadcast", "clog2", "conditional_negate", "fp_adder", "fp_multiplier", "gates",
    "incrementer", "int_to_fp", "leading_zero_count", "mux_tree", "parallel", "per_cell",
    "register", "ripple_adder", "series", "times",
    "booth_dadda_multiplier", "carry_select_adder", "carry_select_incrementer", "prefix_adder",
    "prefix_incrementer",
    "CELLS", "GE_AREA", "LIBRARY", "Cell", "CellLibrary", "LIBRARIES", "LIBRARY_NAMES", "library",
    "ACTIVITY_MODELS", "DC_DEFAULT_TOGGLES", "dynamic_energy",
    "ADDERS", "GRADES", "MULTIPLIERS", "Closure", "Grade", "blocks", "close", "node_delay_ps",
    "period_ps",
    "MAX_TABLE_K", "BestArray", "best_arrays", "best_index", "buildable", "power_of_two_shapes",
    "shape_objective",
    "RELEASE", "RELEASE_PARTS", "ReleasedArray", "ReleasedArrayCost", "release_lut_array",
    "CLOSED_UNITS", "FPU_FORMATS", "FPU_GROUPS", "FPU_WIDTH", "PIPELINE_STAGES",
    "SYNTHESIS_CLOCK_GHZ", "SYNTHESIS_NODE_NM", "NodeScale", "Precisions", "SdotpLaneSpec",
    "cast_unit", "closed_unit", "exfma_cascade", "exfma_precisions", "exfma_unit",
    "exsdotp_precisions", "exsdotp_simd", "exsdotp_unit", "fpu", "fpu_groups", "kge",
    "leakage_nw", "node_scale", "noncomp_unit", "op_energy", "sdotp_lanes", "super_format",
    "synthesis_period_ps",
]

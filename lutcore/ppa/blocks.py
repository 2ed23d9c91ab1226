"""The building blocks of ``lutcore.ppa``, to compose and price new units: cells and libraries,
structural blocks and faster architectures, timing closure, power, the units' vocabulary
(operands, unit specs, datapaths, LUT variants), the shape-DSE helpers and the released array's
parts. ``bind(library, adder, multiplier)`` binds the blocks to a library and architectures;
``close`` prices a unit at a period.
"""

from lutcore import _face

from ._archs import (
    booth_dadda_multiplier,
    carry_select_adder,
    carry_select_incrementer,
    prefix_adder,
    prefix_incrementer,
)
from ._arrays import boundary_named, unit_spec
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
from ._cells import CELLS, GE_AREA, LIBRARY, Cell
from ._dse import (
    MAX_TABLE_K,
    BestArray,
    best_index,
    buildable,
    power_of_two_shapes,
    shape_objective,
)
from ._libraries import LIBRARY_NAMES
from ._paper import delivered_bits
from ._power import ACTIVITY_MODELS, DC_DEFAULT_TOGGLES, dynamic_energy
from ._release import RELEASE, RELEASE_PARTS, ReleasedArray, ReleasedArrayCost
from ._timing import ADDERS, GRADES, MULTIPLIERS, Closure, Grade, close, node_delay_ps, period_ps
from ._timing import blocks as bind
from ._unit import (
    ACCUMULATORS,
    LUT_VARIANTS,
    PARTS,
    TABLE_ENTRIES,
    Datapath,
    LutVariant,
    Operand,
    UnitSpec,
    accumulator_format,
    entry_format,
    operand,
)

__all__ = _face.public(globals())

"""Design-space exploration over tensor-core shapes (LUT Tensor Core §4.2.2, Fig. 14): which
shapes a method can build, and the best shape of each array size."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _checks as check
from ._arrays import LUT_METHODS, boundary_named, metrics, operand_delivery, tensor_core
from ._power import ACTIVITY_MODELS

# LUT tables stop at K = 8 (2^8 entries, 2^7 symmetric): the paper's K sweep (Fig. 11) and shape
# DSE (Fig. 14) do not go beyond, and K = 4 is its choice.
MAX_TABLE_K = 8


def power_of_two_shapes(total: int, *, k_max: int | None = None) -> np.ndarray:
    """Every (M, N, K) of powers of two with M * N * K = total (and K <= k_max): [S, 3] ints.

    The paper sweeps MNK = 512, the A100 INT8 tensor core's M8 N4 K16 (§4.2.2)."""
    check.positive_int("total", total, note=", a power of two")
    if total & (total - 1):
        raise ValueError(f"total: {total} is not allowed; allowed values: a power of two "
                         "(1, 2, 4, ...)")
    if k_max is not None:
        check.positive_int("k_max", k_max)
    e = total.bit_length() - 1
    shapes = [(1 << i, 1 << j, 1 << (e - i - j)) for i in range(e + 1) for j in range(e + 1 - i)]
    if k_max is not None:
        shapes = [s for s in shapes if s[2] <= k_max]
    return np.array(shapes, dtype=np.int64)


def buildable(method: str, k) -> np.ndarray:
    """Whether ``method`` builds arrays of inner dimension ``k`` (elementwise): LUT methods only
    up to ``MAX_TABLE_K``."""
    k = np.asarray(k)
    return k <= MAX_TABLE_K if method in LUT_METHODS else np.ones(k.shape, bool)


def best_index(objective, feasible=None) -> int:
    """Index of the smallest objective (e.g. area x power) among the feasible points; ties go to
    the first (shapes are listed in a fixed order)."""
    values = np.asarray(objective, dtype=float)
    if feasible is not None:
        values = np.where(np.asarray(feasible), values, np.inf)
    if not np.isfinite(values).any():
        raise ValueError("no feasible design point")
    return int(np.argmin(values))


class BestArray(NamedTuple):
    """The best shape of one array size, its figures of merit (``Metrics`` fields, floats) and,
    at the paper boundary, those of its operand delivery (``operand_delivery``; {} at full)."""

    shape: tuple[int, int, int]
    metrics: dict
    delivery: dict = {}


def shape_objective(array, delivery=None):
    """The paper's DSE criterion, area x power (Fig. 14), of ``Metrics`` (arrays); with the
    operand delivery of a paper-boundary array added to both, so that the choice of shape sees
    where the operands come from once the array holds none."""
    area, power = np.asarray(array.area), np.asarray(array.power)
    if delivery is not None:
        area, power = area + np.asarray(delivery.area), power + np.asarray(delivery.power)
    return area * power


@check.entry
def best_arrays(method: str, act: str, weight: str, sizes, *, node: str = "28nm",
                freq_ghz: float = 1.0, boundary: str = "paper", activity: str = "random",
                **options) -> tuple[BestArray, ...]:
    """For each array size M * N * K in ``sizes``, the buildable power-of-two shape with the least
    ``shape_objective`` (area x power under ``activity``, with the operand delivery at the paper
    boundary) among those that close at the clock (``options``' ``clock_ghz``; all when none
    does), at ``node`` and ``freq_ghz``; ``boundary`` and ``options`` go to ``tensor_core``. The
    metrics hold ``Metrics``' fields (power and efficiency under ``activity``; 'meets_timing'
    from the closure, with its 'stages' and 'grade' where closed), and the power and efficiency
    under each of ``ACTIVITY_MODELS`` ('power_random', ...). One evaluation prices every size's
    shapes together."""
    per_size = [s[buildable(method, s[:, 2])] for s in map(power_of_two_shapes, map(int, sizes))]
    everything = np.concatenate(per_size)
    bound = boundary_named(boundary)
    cost = tensor_core(method, act, weight, *everything.T, boundary=bound, **options)
    every = {a: metrics(cost, node=node, freq_ghz=freq_ghz, activity=a) for a in ACTIVITY_MODELS}
    array = every[activity]
    delivery = (metrics(operand_delivery(method, act, weight, *everything.T, **options),
                        node=node, freq_ghz=freq_ghz, activity=activity)
                if bound.operand_delivery else None)
    objective = shape_objective(array, delivery)
    closure = {f: getattr(cost, f) for f in ("stages", "grade") if getattr(cost, f) is not None}
    values = {**array._asdict(), "meets_timing": cost.meets_timing, **closure,
              **{f"{f}_{a}": getattr(m, f) for a, m in every.items()
                 for f in ("power", "efficiency")}}
    values = {f: np.broadcast_to(np.asarray(v, dtype=float), objective.shape)
              for f, v in values.items()}
    extra = ({f: np.broadcast_to(np.asarray(getattr(delivery, f)), objective.shape)
              for f in ("area", "power")} if delivery is not None else {})
    out, start = [], 0
    for shapes in per_size:
        rows = slice(start, start + len(shapes))
        start += len(shapes)
        meets = values["meets_timing"][rows] == 1
        best = best_index(objective[rows], meets if meets.any() else None)
        out.append(BestArray(shape=tuple(int(x) for x in shapes[best]),
                             metrics={f: float(v[rows][best]) for f, v in values.items()},
                             delivery={f: float(v[rows][best]) for f, v in extra.items()}))
    return tuple(out)

"""Block sets for a library and a choice of architectures, and timing closure: price a unit at a
clock with the cheapest architectures that meet it.

``blocks(library, adder=..., multiplier=...)`` binds the block functions (``_blocks``,
``_archs``) to one cell library and one adder and multiplier architecture. A speed grade is one
(adder, multiplier) pair (``GRADES``: every pair of ``ADDERS`` x ``MULTIPLIERS``); closure
evaluates a unit under every grade and keeps, per design point, the grade of least area whose
path fits the period (``close``: a combinational unit; where none fits, the fastest grade,
flagged ``meets_timing`` False). ``tensor_core`` (``choose_pipelined``) goes one step further
only where no grade fits unpipelined: it cuts the register-to-register path into equal stages
(a cut as wide as every output's accumulator word), the cheapest grade-and-stages that fit,
among grades whose accumulator loop fits (a loop cannot be cut); where none does, the grade of
fastest loop cut down to its loop, flagged.

Clock targets map onto a library through its delay yardstick (``CellLibrary.to_28nm.delay``,
FO4-based for every library but NanGate45, which scales constant-field): a period at "28nm" is
``period / to_28nm.delay`` ps of the library. MiniFloat-NN's 12nm worst-case clocks first go to
12nm typical by the paper's own corner spread (its cluster: 950 MHz worst case, 1.26 GHz at
0.8 V, 25 C; Sec. IV), then to 28nm by constant-field delay scaling (x 28/12; FinFET delays do
not scale with the node name, so this is an estimate, stated in the experiment).

One grade per unit: DC also sizes gates on the critical path, buffers high fan-out nets, and
mixes architectures along one path (a fast adder only where the slack is short); none of that
is modelled, so closed areas here are upper bounds of what DC would reach at the same period.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from .. import _checks as check
from . import _archs
from ._blocks import (
    Blocks,
    Cost,
    adder_tree,
    array_multiplier,
    barrel_shifter,
    bind_fp,
    broadcast,
    conditional_negate,
    gates,
    incrementer,
    leading_zero_count,
    mux_tree,
    register,
    ripple_adder,
    ripple_partial_adder,
    xp,
)
from ._cells import CellLibrary
from ._libraries import library as _library


class AdderArchitecture(NamedTuple):
    """An adder architecture: adder(bits, library), incrementer(bits, library) and the adder
    for an addend that overlaps ``overlap`` of ``width`` positions (FPnew's aligned adds)."""

    adder: Callable[..., Cost]
    incrementer: Callable[..., Cost]
    partial: Callable[..., Cost]


def _full_width(adder):
    """A fast adder takes an aligned addend at full width (the constant-zero positions' generate
    gates, which synthesis removes, are counted: at most one AND2 per position too many)."""
    return lambda width, overlap, library: adder(width, library)


def _prefix(network: str) -> AdderArchitecture:
    adder = functools.partial(_archs.prefix_adder, network=network)
    return AdderArchitecture(
        adder=lambda bits, library: adder(bits, library=library),
        incrementer=lambda bits, library: _archs.prefix_incrementer(bits, network, library),
        partial=_full_width(lambda bits, library: adder(bits, library=library)))


ADDERS = {
    "ripple": AdderArchitecture(ripple_adder, incrementer, ripple_partial_adder),
    "carry_select": AdderArchitecture(_archs.carry_select_adder,
                                      _archs.carry_select_incrementer,
                                      _full_width(_archs.carry_select_adder)),
    "brent_kung": _prefix("brent_kung"),
    "sklansky": _prefix("sklansky"),
    "kogge_stone": _prefix("kogge_stone"),
}
MULTIPLIERS = ("array", "booth_dadda")


class Grade(NamedTuple):
    """One speed grade: the adder and the multiplier architecture of a whole unit."""

    adder: str
    multiplier: str


GRADES = tuple(Grade(a, m) for a, m in itertools.product(ADDERS, MULTIPLIERS))


def _multiplier(name: str, adder: Callable, lib: CellLibrary) -> Callable[..., Cost]:
    if name == "array":
        return functools.partial(array_multiplier, library=lib)
    return lambda n_bits, m_bits: _archs.booth_dadda_multiplier(n_bits, m_bits, adder, lib)


@functools.cache
def blocks(library: str | CellLibrary = "nangate45", adder: str = "ripple",
           multiplier: str = "array") -> Blocks:
    """The blocks of ``library`` with ``adder`` (``ADDERS``) and ``multiplier``
    (``MULTIPLIERS``) architectures; a Booth multiplier's final adder is ``adder``. One object
    per arguments (so its FP blocks' memory lasts)."""
    lib = _library(library)
    check.one_of("adder", adder, ADDERS)
    check.one_of("multiplier", multiplier, MULTIPLIERS)
    arch = ADDERS[adder]
    add = functools.partial(arch.adder, library=lib)
    return _bound(lib, f"{adder}+{multiplier}", add,
                  functools.partial(arch.incrementer, library=lib),
                  functools.partial(arch.partial, library=lib),
                  _multiplier(multiplier, add, lib))


def _bound(lib: CellLibrary, architecture: str, adder, incrementer_, partial, multiplier):
    """A Blocks set of ``lib``'s architecture-independent blocks and these four."""
    on = functools.partial
    return bind_fp(Blocks(
        gates=gates, cell_delay=lib.delay.__getitem__, adder=adder, incrementer=incrementer_,
        conditional_negate=on(conditional_negate, library=lib), multiplier=multiplier,
        mux_tree=on(mux_tree, library=lib), barrel_shifter=on(barrel_shifter, library=lib),
        register=register, broadcast=on(broadcast, library=lib), adder_tree=adder_tree,
        fp_adder=None, fp_multiplier=None, int_to_fp=None,
        leading_zero_count=on(leading_zero_count, library=lib), partial_adder=partial,
        library=lib, architecture=architecture))


# ---------------------------------------------------------------------------------------------
# Clock targets


WORST_CASE_SLOWDOWN = 1.26 / 0.95  # MiniFloat-NN Sec. IV: 950 MHz worst case, 1.26 GHz typical
PAPER_NODE_NM = 28.0  # the LUT Tensor Core paper's TSMC 28nm (§4.1.1), our "28nm" yardstick


@check.entry
def period_ps(freq_ghz: float, library: str | CellLibrary = "nangate45", *,
              node_nm: float = PAPER_NODE_NM, worst_case: bool = False) -> float:
    """The clock period of ``freq_ghz`` at ``node_nm`` (typical corner, or the worst case with
    ``worst_case``) in ps of ``library``: to typical by ``WORST_CASE_SLOWDOWN``, to 28nm by
    constant-field delay scaling (x 28 / node_nm), to the library by its yardstick."""
    lib = _library(library)
    check.finite("freq_ghz", freq_ghz, above=0)
    check.finite("node_nm", node_nm, above=0)
    period = 1e3 / freq_ghz
    if worst_case:
        period /= WORST_CASE_SLOWDOWN
    return period * (PAPER_NODE_NM / node_nm) / lib.to_28nm.delay


def node_delay_ps(delay, library: str | CellLibrary = "nangate45", *,
                  node_nm: float = PAPER_NODE_NM, worst_case: bool = False):
    """A ``library`` delay (ps) as ps at ``node_nm`` (and the worst case): ``period_ps``'s
    mapping inverted, so ``node_delay_ps(period_ps(f, ...), ...) == 1e3 / f``."""
    lib = _library(library)
    ps = delay * lib.to_28nm.delay * (node_nm / PAPER_NODE_NM)
    return ps * WORST_CASE_SLOWDOWN if worst_case else ps


# ---------------------------------------------------------------------------------------------
# Closure


class Closure(NamedTuple):
    """A unit closed at a period: ``value`` (what the builder returned, at the chosen grade),
    the grade index into ``GRADES`` and whether it meets the period, per design point."""

    value: object
    grade: jnp.ndarray
    meets_timing: jnp.ndarray


def every_grade(build: Callable[[Blocks], object], library: str | CellLibrary = "nangate45"):
    """``build`` under every grade: its pytree with a leading axis of len(GRADES)."""
    lib = _library(library)
    built = [build(blocks(lib, g.adder, g.multiplier)) for g in GRADES]
    return jax.tree_util.tree_map(lambda *xs: xp(*xs).stack(xp(*xs).broadcast_arrays(*xs)),
                                  *built)


def choose_grade(area, delay, period):
    """Per design point ([G, ...] areas and delays): the least-area grade with delay <= period
    (ties: the first), else the fastest (ties: the least area); and whether it meets."""
    ns = xp(area, delay)
    area, delay = ns.asarray(area), ns.asarray(delay)
    meets = delay <= period
    cheapest = ns.argmin(ns.where(meets, area, ns.inf), axis=0)
    fastest = ns.argmin(delay + 1e-9 * area / (1 + ns.max(area)), axis=0)
    any_meets = ns.any(meets, axis=0)
    return ns.where(any_meets, cheapest, fastest), any_meets


def choose_pipelined(area, delay, loop, cut_area, period, overhead):
    """Per design point, over [G, ...] grades (``tensor_core``'s closure): the least-area grade
    whose register-to-register ``delay`` fits ``period``; where none does, the least-area grade
    and stage count whose path, cut into equal stages (each cut adding ``cut_area`` of
    flip-flops, each stage ``overhead`` of clock-to-Q and setup), fits, among grades whose
    accumulator ``loop`` fits (a loop cannot be cut); where no loop fits, the cheapest grade of
    fastest loop, cut down to that loop, flagged. Returns (grade, stages, meets) of shape
    [...]."""
    ns = xp(area, delay, loop, cut_area)
    area, delay, loop = (ns.asarray(x) for x in (area, delay, loop))
    plain = delay <= period
    stages = ns.ceil((delay - overhead) / max(period - overhead, 1e-9) - 1e-9)
    stages = ns.where(plain, 1.0, ns.maximum(stages, 2.0))
    cuttable = loop <= period
    cost = ns.where(ns.any(plain, axis=0), ns.where(plain, area, ns.inf),
                    ns.where(cuttable, area + (stages - 1) * cut_area, ns.inf))
    meets = ns.any(plain | cuttable, axis=0)
    # no loop fits: the grades of fastest loop, each cut down to that loop, the cheapest
    fastest = ns.min(loop, axis=0)
    to_loop = ns.maximum(ns.ceil((delay - overhead) / (fastest - overhead) - 1e-9), 1.0)
    flagged = ns.where(loop <= fastest, area + (to_loop - 1) * cut_area, ns.inf)
    grade = ns.where(meets, ns.argmin(cost, axis=0), ns.argmin(flagged, axis=0))
    at = functools.partial(lambda x, g: ns.take_along_axis(x, g[None], axis=0)[0], g=grade)
    return grade, ns.where(meets, at(stages), at(to_loop)), meets


def take_grade(tree, grade):
    """Every leaf [G, *batch, *rest] of ``tree`` at ``grade`` [*batch]."""
    def take(leaf):
        ns = xp(leaf, grade)
        index = ns.reshape(grade, grade.shape + (1,) * (leaf.ndim - 1 - grade.ndim))
        index = ns.broadcast_to(index, (1, *leaf.shape[1:]))
        return ns.take_along_axis(leaf, index, axis=0)[0]
    return jax.tree_util.tree_map(take, tree)


def close(build: Callable[[Blocks], Cost], period: float,
          library: str | CellLibrary = "nangate45") -> Closure:
    """The unit ``build(blocks) -> Cost`` (a combinational path, e.g. an FPU unit) closed at
    ``period`` ps of ``library``: its cheapest grade whose delay fits."""
    lib = _library(library)
    graded = every_grade(build, lib)
    grade, meets = choose_grade(graded.area(lib), graded.delay, period)
    return Closure(take_grade(graded, grade), grade, meets)

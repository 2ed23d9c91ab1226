"""Near-ties of a timed tactic choice (``_tiles`` T3 / T11 / T13 selections): the tactic an
autotuner, a plugin's profile or an engine's build picks, and a what-if for reporting
(``lut-fig16``) where another tactic is within a margin of it where they are timed."""

from __future__ import annotations

import jax.numpy as jnp

# timed_choice's near-ties what-if: the slowest (1) or fastest (-1) tied tactic where it runs
TIE_SIDES = (1, -1)


def timed_choice(at, run, tie=None):
    """The candidate a timed selection runs, from ``at`` and ``run``, every candidate's seconds
    at the M where the choice is made and where it runs (last axis): the fastest at the choice
    (the first of equals); with ``tie`` = (margin, side), a what-if for reporting near-ties
    (never the model's value): of the candidates slower there than the fastest by less than the
    fraction margin (inside a profiler's noise), it and the ones runnable at M, the slowest
    (side 1) or fastest (-1) at the run (the fastest's where another only equals it)."""
    if tie is None:
        return jnp.argmin(at, axis=-1)
    tie_margin, tie_side = tie
    best = jnp.argmin(at, axis=-1)[..., None]
    fastest = jnp.take_along_axis(at, best, axis=-1)
    tied = (at < fastest * (1 + tie_margin)) & jnp.isfinite(run)
    score = jnp.where(tied & (jnp.arange(at.shape[-1]) != best), tie_side * run, -jnp.inf)
    other = jnp.argmax(score, axis=-1)[..., None]  # an equal time keeps the model's choice
    better = jnp.take_along_axis(score, other, axis=-1) > tie_side * jnp.take_along_axis(
        run, best, axis=-1)
    return jnp.where(better, other, best)[..., 0]

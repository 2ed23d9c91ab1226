"""Perplexity and next-token accuracy on fixed, non-overlapping windows of a token stream."""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ._config import LlamaConfig
from ._model import GemmPath, Model, _forward


def token_windows(ids, length: int, count: int) -> np.ndarray:
    """[count, length] consecutive, non-overlapping windows from the start of ids [n]."""
    ids = np.asarray(ids)
    if length < 2 or count < 1:
        raise ValueError(f"need length >= 2 and count >= 1, got length={length}, count={count}")
    if count * length > ids.size:
        raise ValueError(f"{count} windows of {length} tokens need {count * length} tokens; "
                         f"the text has {ids.size}")
    return ids[:count * length].reshape(count, length)


class WindowScores(NamedTuple):
    """Per window [B]: summed negative log-likelihood (nats) of its length-1 next-token
    predictions and how many of them the argmax got right."""

    nll: np.ndarray
    correct: np.ndarray
    predictions: int  # per window

    @property
    def perplexity(self) -> float:
        """exp(mean NLL) over every prediction of every window."""
        return float(np.exp(self.nll.sum() / (self.nll.size * self.predictions)))

    @property
    def accuracy(self) -> float:
        return float(self.correct.sum() / (self.correct.size * self.predictions))


@functools.partial(jax.jit, static_argnames=("config", "path", "scheme"))
def _window_scores(params, tokens, config: LlamaConfig, path: GemmPath, scheme):
    logits = _forward(params, tokens, config, path, scheme)[:-1]
    target = tokens[1:]
    log_prob = jnp.take_along_axis(logits, target[:, None], axis=-1)[:, 0]
    nll = jnp.sum(jax.nn.logsumexp(logits, axis=-1) - log_prob)
    return nll, jnp.sum(jnp.argmax(logits, axis=-1) == target)


def score_windows(model: Model, windows) -> WindowScores:
    """Score every window of windows [B, T] on its own (positions restart at 0 in each)."""
    windows = np.asarray(windows)
    if windows.ndim != 2 or windows.shape[1] < 2:
        raise ValueError(f"windows must be [B, T] with T >= 2, got shape {windows.shape}")
    scores = [_window_scores(model.params, jnp.asarray(w), model.config, model.path, model.scheme)
              for w in windows]
    return WindowScores(np.array([float(n) for n, _ in scores]),
                        np.array([int(c) for _, c in scores]), windows.shape[1] - 1)

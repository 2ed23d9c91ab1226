"""Fitting helpers of ``calibrate_gpu`` (and its ``_fit_attention``): the calibration sets,
relative least squares and bisection."""

from __future__ import annotations

import functools
import pathlib

import numpy as np
import yaml

MEASURED = pathlib.Path(__file__).resolve().parents[1] / "experiments/reference/measured"


@functools.cache
def _load(name: str) -> dict:
    data = yaml.safe_load((MEASURED / name).read_text())
    if data["role"] != "calibration":
        raise ValueError(f"{name} is not a calibration set (role {data['role']!r})")
    return data


def relative_fit(columns, gap, measured) -> tuple[float, ...]:
    """Coefficients c minimizing sum(((sum_i c_i columns_i - gap) / measured)^2): what a
    row's ``gap`` (measured minus modeled) is made of, in relative terms of each row."""
    measured = np.asarray(measured, float)
    design = np.stack([np.broadcast_to(np.asarray(c, float), measured.shape) for c in columns],
                      axis=1) / measured[:, None]
    coefficients, *_ = np.linalg.lstsq(design, np.asarray(gap, float) / measured, rcond=None)
    return tuple(map(float, coefficients))


def relative_line(x, y):
    """Intercept a and slope b of y = a + b x minimizing sum(((a + b x - y) / y)^2)."""
    return relative_fit((1.0, x), y, y)


def _bisect(error_at, low: float = 0.3, high: float = 1.0) -> float:
    """The value in [low, high] at which ``error_at(value)`` (relative error vs the
    measurement, falling as the value rises) crosses 0."""
    for _ in range(30):
        mid = (low + high) / 2
        low, high = (mid, high) if error_at(mid) > 0 else (low, mid)
    return (low + high) / 2

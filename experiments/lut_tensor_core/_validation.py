"""The GPU model's validation groups, read from ``lut-fig16``'s dataset: per role, GPU and
category, the rows, MAPE and bias of the model's error, and the near-ties' part in them. Light
(numpy and xarray): the report reads the groups (``workflow/scripts/build_report.py``) without
loading the models."""

from __future__ import annotations

import numpy as np
import xarray as xr

# A MAPE is evidence about the model's accuracy only over enough rows: a GPU x category group
# of validation rows counts toward a verdict from this many rows on (issue 31, item 5).
MIN_ROWS = 10


def speedup_groups(gpu: str) -> tuple[str, str]:
    """The validation groups a modeled end-to-end speedup on ``gpu`` rests on
    (``Claim.rests_on``): that GPU's forward passes and the GEMMs they are made of."""
    return f"{gpu} e2e", f"{gpu} gemm"


def tie_errors(ds: xr.Dataset) -> np.ndarray:
    """[3, point] errors (%): the model's choice, then every near-tied choice (``tie_margin``
    at the M where it is timed) at its fastest, then at its slowest where the GEMM runs."""
    values = np.stack([ds[v].values for v in ("modeled", "modeled_tie_fast", "modeled_tie_slow")])
    return (values - ds.measured.values) / ds.measured.values * 100


def tie_sensitive(ds: xr.Dataset) -> np.ndarray:
    """The points a near-tied choice moves by more than ``tie_margin``: a tie at a GEMM's own M
    moves its time by less (the other tactic is within the margin there), so these turn on a
    choice made at another M (a plugin's profile, an engine's optimum) or on more of the tile
    than its time (the fused attention takes its tile's pipes, ``_simulator.price``)."""
    values = np.stack([ds.modeled_tie_fast.values, ds.modeled_tie_slow.values])
    return (np.abs(values / ds.modeled.values - 1) > ds.attrs["tie_margin"]).any(axis=0)


def summary(ds: xr.Dataset, by_source: bool = False) -> list[dict]:
    """MAPE (%), bias and largest |error| per (role, device, category) (and source,
    ``by_source``): rows, sources behind it, its tie-sensitive rows (``tie_sensitive``) and its
    MAPE range (least, most) with each row at the least / most distant of its values
    (``tie_errors``)."""
    out = []
    fields = [ds.role.values, ds.device.values, ds.category.values]
    fields += [ds.source.values] if by_source else []
    for key in sorted(set(zip(*fields))):
        pick = np.logical_and.reduce([f == k for f, k in zip(fields, key)])
        errors, tied = ds.error.values[pick], np.abs(tie_errors(ds)[:, pick])
        out.append({"role": key[0], "device": key[1], "category": key[2],
                    "rows": int(pick.sum()), "mape": float(np.abs(errors).mean()),
                    "bias": float(errors.mean()), "largest": float(np.abs(errors).max()),
                    "sources": sorted(set(ds.source.values[pick])),
                    "tie_rows": int(tie_sensitive(ds)[pick].sum()),
                    "tie_mape": (float(tied.min(axis=0).mean()), float(tied.max(axis=0).mean()))})
    return out


def validated(ds: xr.Dataset, category: str) -> list[dict]:
    """The validation groups of ``category`` with at least ``MIN_ROWS`` rows."""
    return [r for r in summary(ds) if r["role"] == "validation" and r["category"] == category
            and r["rows"] >= MIN_ROWS]

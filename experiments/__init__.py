"""Experiments: one module per paper figure or table, run by id (the contract: ``_framework``)."""

import importlib.util

_MISSING = [m for m in ("xarray", "h5netcdf", "matplotlib", "yaml")
            if importlib.util.find_spec(m) is None]
if _MISSING:
    raise ImportError(f"experiments needs lutcore's pipeline extra ({', '.join(_MISSING)} "
                      "missing): python3 -m pip install 'lutcore[pipeline]'")

from experiments._framework import (
    MEMORY_BOUND_GB,
    REFERENCE_DIR,
    VERDICTS,
    Bounds,
    Claim,
    ConfigError,
    Experiment,
    Footprint,
    bounded,
    cache_dir,
    check_choice,
    collect_claims,
    contradiction_claim,
    describe,
    get,
    ids,
    make_config,
    markdown_table,
    paper_claim,
    reference,
    registry,
    use_cache_dir,
)

__all__ = ["MEMORY_BOUND_GB", "REFERENCE_DIR", "VERDICTS", "Bounds", "Claim", "ConfigError",
           "Experiment", "Footprint", "bounded", "cache_dir", "check_choice", "collect_claims",
           "contradiction_claim", "describe", "get", "ids", "make_config", "markdown_table",
           "paper_claim", "reference", "registry", "use_cache_dir"]

"""One sweep serves every PPA experiment (Figs. 11-14, Tables 2-3): boundaries x designs x
array shapes.

A design is (method, activation, weight); a shape is (M, N, K); a boundary is "paper" (the array
the authors synthesized) or "full" (with operand and table storage), ``lutcore.ppa.BOUNDARIES``.
``sweep`` prices each design on every shape with ``lutcore.ppa.tensor_core`` and reports the
paper's figures of merit at 28nm and 1 GHz (``lutcore.ppa.metrics``), the area of each part of
the array, and at the paper boundary the operand delivery the shape DSE adds
(``lutcore.ppa.operand_delivery``).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments._framework import ConfigError

NODE, FREQ_GHZ = "28nm", 1.0  # the paper's synthesis target (Sec. 4.1.1)
METHOD_LABELS = {"mac": "MAC", "add": "ADD", "lut_conventional": "Conventional LUT",
                 "unpu": "UNPU", "unpu_reinterpret": "+ weight reinterpretation",
                 "unpu_offline_negation": "+ negation circuit elimination",
                 "lut_tensor_core": "LUT Tensor Core"}
COLORS = {"mac": "#c44e52", "add": "#dd8452", "lut_conventional": "#8172b2", "unpu": "#937860",
          "unpu_reinterpret": "#64b5cd", "unpu_offline_negation": "#55a868",
          "lut_tensor_core": "#4c72b0"}
BOUNDARY_LABELS = {"paper": "paper boundary (as synthesized)",
                   "full": "full accounting (storage, 32-bit acc.)"}
BOUNDARY_STYLES = {"paper": "-", "full": ":"}  # line styles of the two boundaries in figures
FIELDS = ("area", "power", "delay", "throughput", "density", "efficiency", "meets_timing",
          "power_dc_default")
UNITS = {"area": "mm^2", "power": "mW", "delay": "ps", "throughput": "TOPs",
         "density": "TOPs/mm^2", "efficiency": "TOPs/W", "meets_timing": "1",
         "power_dc_default": "mW"}
NAMES = {"area": "area", "power": "power (dynamic + leakage)",
         "delay": "critical path", "throughput": "peak throughput",
         "density": "compute density", "efficiency": "energy efficiency",
         "meets_timing": "critical path fits 1 GHz",
         "power_dc_default": "power under Design Compiler's default activity"}
LUT_ONLY = ("entry",)  # tensor_core options that only the LUT methods take


def label(method: str, act: str, weight: str) -> str:
    """e.g. 'LUT Tensor Core W_INT1 A_FP16'."""
    return f"{METHOD_LABELS[method]} W_{weight.upper()} A_{act.upper()}"


def _groups(designs):
    """{(method, act kind, weight kind): [design index]}: designs one stacked call prices."""
    out: dict = {}
    for i, (method, act, weight) in enumerate(designs):
        kind = (method, ppa.operand(act).is_float, ppa.operand(weight).is_float)
        out.setdefault(kind, []).append(i)
    return out


def _price(method, acts, weights, shapes, boundary, options):
    """({field: array} of the arrays (``FIELDS``), Metrics of their delivery or None,
    ArrayPPA), stacked designs."""
    opts = {k: v for k, v in options.items()
            if method in ppa.LUT_METHODS or k not in LUT_ONLY}
    if len(acts) == 1:  # one design: unstacked, the shapes every single call shares
        acts, weights = acts[0], weights[0]
    cost = ppa.tensor_core(method, acts, weights, *shapes.T, boundary=boundary, **opts)
    values = ppa.metrics(cost, node=NODE, freq_ghz=FREQ_GHZ)
    values = {**values._asdict(), "power_dc_default": ppa.metrics(
        cost, node=NODE, freq_ghz=FREQ_GHZ, activity="dc_default").power}
    delivery = (ppa.metrics(ppa.operand_delivery(method, acts, weights, *shapes.T, **opts),
                            node=NODE, freq_ghz=FREQ_GHZ) if boundary == "paper" else None)
    return values, delivery, cost


def sweep(designs: list[tuple[str, str, str]], shapes, *, boundaries=ppa.BOUNDARIES,
          library: str = "nangate45", clock_ghz: float | None = None,
          **options) -> xr.Dataset:
    """designs: [(method, act, weight)]; shapes: [S, 3] (M, N, K); priced in ``library``
    (``lutcore.ppa.LIBRARIES``), closed at ``clock_ghz`` if given; ``options`` go to
    ``tensor_core`` (``entry`` to the LUT methods only). Dataset over (boundary, design, shape):
    the figures of merit (``power_dc_default``: the power under Design Compiler's default
    activity; ``meets_timing``: the critical path fits 1 GHz), ``part_area``,
    ``delivery_area``/``delivery_power`` (paper boundary; NaN at full) and ``objective``, the
    DSE criterion (``lutcore.ppa.shape_objective``).
    Designs of one method and kind are priced in one stacked call. Shapes a method cannot build
    (``lutcore.ppa.buildable``: LUT tables with K > 8) are NaN."""
    shapes = np.asarray(shapes, dtype=np.int64).reshape(-1, 3)
    lib = ppa.library(library)
    options = {**options, "library": lib, "clock_ghz": clock_ghz}
    size = (len(boundaries), len(designs), len(shapes))
    out = {f: np.full(size, np.nan) for f in FIELDS + ("delivery_area", "delivery_power",
                                                     "objective")}
    parts = np.full(size + (len(ppa.PARTS),), np.nan)
    for b, boundary in enumerate(boundaries):
        for (method, *_), rows in _groups(designs).items():
            acts, weights = ([designs[i][j] for i in rows] for j in (1, 2))
            values, delivery, cost = _price(method, acts, weights, shapes, boundary, options)
            keep = ppa.buildable(method, shapes[:, 2])
            grid = lambda v: np.where(keep, np.broadcast_to(np.asarray(v), (len(rows),
                                                                           len(shapes))), np.nan)
            for f in FIELDS:
                out[f][b, rows] = grid(values[f])
            out["objective"][b, rows] = grid(ppa.shape_objective(
                ppa.Metrics(**{f: values[f] for f in ppa.Metrics._fields}), delivery))
            if delivery is not None:
                out["delivery_area"][b, rows] = grid(delivery.area)
                out["delivery_power"][b, rows] = grid(delivery.power)
            scale = np.asarray(values["area"]) / np.asarray(cost.area)  # um^2 -> mm^2 at 28nm
            for p, part in enumerate(ppa.PARTS):
                parts[b, rows, :, p] = grid(np.asarray(cost.parts[part].area(lib)) * scale)
    methods, acts, weights = zip(*designs)
    coords = {"boundary": list(boundaries),
              "design": [label(*d) for d in designs], "method": ("design", list(methods)),
              "activation": ("design", list(acts)), "weight": ("design", list(weights)),
              "m": ("shape", shapes[:, 0]), "n": ("shape", shapes[:, 1]),
              "k": ("shape", shapes[:, 2]), "part": list(ppa.PARTS)}
    dims = ("boundary", "design", "shape")
    ds = xr.Dataset({f: (dims, out[f], {"units": UNITS[f], "long_name": NAMES[f]})
                     for f in FIELDS}, coords=coords)
    ds["part_area"] = (dims + ("part",), parts, {"units": "mm^2", "long_name": "area by part"})
    ds["delivery_area"] = (dims, out["delivery_area"], {
        "units": "mm^2", "long_name": "operand delivery: one flip-flop per held operand bit"})
    ds["delivery_power"] = (dims, out["delivery_power"], {
        "units": "mW", "long_name": "operand delivery power"})
    ds["objective"] = (dims, out["objective"], {
        "units": "mm^2 mW", "long_name": "area x power (with the delivery at the paper "
                                         "boundary), the DSE criterion"})
    mapping = ("NanGate 45nm cells, constant-field scaling" if lib.name == "nangate45" else
               f"{lib.name} cells, NanGate45's 28nm GE and FO4 yardstick")
    ds.attrs.update(node=f"{NODE} ({mapping})", library=lib.name,
                    clock=f"{FREQ_GHZ:g} GHz"
                    + (f", closed at {clock_ghz:g} GHz" if clock_ghz else ", unconstrained"),
                    activity=f"{ppa.ACTIVITY} toggles/cycle (random); power_dc_default: "
                             "Design Compiler's default activity", cells=lib.description,
                    **{f"option_{k}": str(v) for k, v in options.items()
                       if k not in ("library", "clock_ghz")})
    return ds


def best_shapes(ds: xr.Dataset) -> xr.DataArray:
    """Index of the best shape (least ``objective``) per (boundary, design)."""
    best = np.array([[ppa.best_index(ds.objective.values[b, d], np.isfinite(
        ds.objective.values[b, d])) for d in range(ds.sizes["design"])]
        for b in range(ds.sizes["boundary"])])
    return xr.DataArray(best, dims=("boundary", "design"),
                        coords={"boundary": ds.boundary, "design": ds.design})


def at_best(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` at its best shape per (boundary, design), without the shape dimension."""
    return ds.isel(shape=best_shapes(ds))


def check_config(*, activations=None, weights=None, array_size=None,
                 allowed_weights=("int1", "int2", "int4", "int8")) -> None:
    """One ConfigError naming the offending key and the allowed values, for the PPA configs:
    activations / weights are {key: value or tuple of values}; array_size a power of two."""
    for key, values in (activations or {}).items():
        bad = [v for v in ((values,) if isinstance(values, str) else values)
               if v not in ppa.ACTIVATIONS]
        if bad:
            raise ConfigError(f"{key}: {bad} unknown; allowed values: "
                              f"{', '.join(ppa.ACTIVATIONS)}")
    for key, values in (weights or {}).items():
        bad = [v for v in ((values,) if isinstance(values, str) else values)
               if v not in allowed_weights]
        if bad:
            raise ConfigError(f"{key}: {bad} not allowed; allowed values: "
                              f"{', '.join(allowed_weights)}")
    if array_size is not None and (array_size < 8 or array_size & (array_size - 1)):
        raise ConfigError(f"array_size: must be a power of two >= 8, got {array_size}")


def shape_label(m, n, k) -> str:
    return f"M{int(m)}N{int(n)}K{int(k)}"

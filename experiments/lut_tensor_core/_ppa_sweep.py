"""One sweep serves every PPA experiment (Figs. 11-14, Tables 2-3): designs x array shapes.

A design is (method, activation, weight); a shape is (M, N, K). ``sweep`` prices each design on
every shape with ``lutcore.ppa.tensor_core`` and reports the paper's figures of merit at 28nm and
1 GHz (``lutcore.ppa.metrics``), plus the area of each part of the array.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments import ConfigError

NODE, FREQ_GHZ = "28nm", 1.0  # the paper's synthesis target (Sec. 4.1.1)
METHOD_LABELS = {"mac": "MAC", "add": "ADD", "lut_conventional": "Conventional LUT",
                 "unpu": "UNPU", "unpu_reinterpret": "+ weight reinterpretation",
                 "unpu_offline_negation": "+ negation circuit elimination",
                 "lut_tensor_core": "LUT Tensor Core"}
COLORS = {"mac": "#c44e52", "add": "#dd8452", "lut_conventional": "#8172b2", "unpu": "#937860",
          "unpu_reinterpret": "#64b5cd", "unpu_offline_negation": "#55a868",
          "lut_tensor_core": "#4c72b0"}


def label(method: str, act: str, weight: str) -> str:
    """e.g. 'LUT Tensor Core W_INT1 A_FP16'."""
    return f"{METHOD_LABELS[method]} W_{weight.upper()} A_{act.upper()}"


def sweep(designs: list[tuple[str, str, str]], shapes, *, library: str = "nangate45",
          clock_ghz: float | None = None) -> xr.Dataset:
    """designs: [(method, act, weight)]; shapes: [S, 3] (M, N, K). Dataset over (design, shape),
    priced in ``library`` (``lutcore.ppa.LIBRARIES``), closed at ``clock_ghz`` if given
    (``lutcore.ppa.tensor_core``); ``power_dc_default``: the power under Design Compiler's
    default activity; ``meets_timing``: whether the critical path fits the 1 GHz clock.

    Shapes a method cannot build (``lutcore.ppa.buildable``: LUT tables with K > 8) are NaN."""
    shapes = np.asarray(shapes, dtype=np.int64).reshape(-1, 3)
    fields = ("area", "power", "delay", "throughput", "density", "efficiency", "meets_timing")
    out = {f: np.full((len(designs), len(shapes)), np.nan)
           for f in (*fields, "power_dc_default")}
    parts = np.full((len(designs), len(shapes), len(ppa.PARTS)), np.nan)
    lib = ppa.library(library)
    for d, (method, act, weight) in enumerate(designs):
        cost = ppa.tensor_core(method, act, weight, shapes[:, 0], shapes[:, 1], shapes[:, 2],
                               library=lib, clock_ghz=clock_ghz)
        values = ppa.metrics(cost, node=NODE, freq_ghz=FREQ_GHZ)
        dc_power = ppa.metrics(cost, node=NODE, freq_ghz=FREQ_GHZ, activity="dc_default").power
        buildable = ppa.buildable(method, shapes[:, 2])
        for f in fields:
            out[f][d] = np.where(buildable, np.asarray(getattr(values, f)), np.nan)
        out["power_dc_default"][d] = np.where(buildable, np.asarray(dc_power), np.nan)
        scale = np.asarray(values.area) / np.asarray(cost.area)  # um^2 in the library -> mm^2
        parts[d] = np.stack([np.asarray(cost.parts[p].area(lib)) * scale for p in ppa.PARTS],
                            -1)
        parts[d][~buildable] = np.nan
    methods, acts, weights = zip(*designs)
    coords = {"design": [label(*d) for d in designs], "method": ("design", list(methods)),
              "activation": ("design", list(acts)), "weight": ("design", list(weights)),
              "m": ("shape", shapes[:, 0]), "n": ("shape", shapes[:, 1]),
              "k": ("shape", shapes[:, 2]), "part": list(ppa.PARTS)}
    units = {"area": "mm^2", "power": "mW", "delay": "ps", "throughput": "TOPs",
             "density": "TOPs/mm^2", "efficiency": "TOPs/W", "meets_timing": "1",
             "power_dc_default": "mW"}
    names = {"area": "area", "power": "power (dynamic + leakage)",
             "delay": "critical path" + (" (closed)" if clock_ghz else " (unpipelined)"),
             "throughput": "peak throughput", "density": "compute density",
             "efficiency": "energy efficiency", "meets_timing": "critical path fits 1 GHz",
             "power_dc_default": "power under Design Compiler's default activity"}
    ds = xr.Dataset({f: (("design", "shape"), out[f], {"units": units[f], "long_name": names[f]})
                     for f in out}, coords=coords)
    ds["part_area"] = (("design", "shape", "part"), parts,
                       {"units": "mm^2", "long_name": "area by part"})
    mapping = ("NanGate 45nm cells, constant-field scaling" if lib.name == "nangate45" else
               f"{lib.name} cells, NanGate45's 28nm GE and FO4 yardstick")
    ds.attrs.update(node=f"{NODE} ({mapping})",
                    clock=f"{FREQ_GHZ:g} GHz"
                    + (f", closed at {clock_ghz:g} GHz" if clock_ghz else ", unconstrained"),
                    activity=f"{ppa.ACTIVITY} toggles/cycle (random); power_dc_default: "
                             "Design Compiler's default activity", cells=lib.description)
    return ds


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

"""One sweep serves every PPA experiment (Figs. 11-14, Tables 2-3): boundaries x designs x
array shapes, in each cell library.

A design is (method, activation, weight); a shape is (M, N, K); a boundary is "paper" (the array
the authors synthesized) or "full" (with operand and table storage), ``lutcore.ppa.BOUNDARIES``.
``sweep`` prices each design on every shape with ``lutcore.ppa.tensor_core`` in one library,
closed at the paper's clock, and reports the paper's figures of merit at 28nm and 1 GHz
(``lutcore.ppa.metrics``), the area of each part of the array, and at the paper boundary the
operand delivery the shape DSE adds (``lutcore.ppa.operand_delivery``). ``per_library`` runs an
experiment in every library of ``LIBRARIES`` (NanGate45 judges the claims, ASAP7 stands beside:
``library_claims``, ``library_tables``).

Power: ``power``/``efficiency`` are under ``POWER``, Design Compiler's default activity, the
paper's flow (Sec. 4.1.1 synthesizes with DC; the release's dc.tcl reports power with no
activity file); ``power_random``/``efficiency_random`` under lutcore's 1/2 toggle per node
beside it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import xarray as xr

import lutcore.ppa as ppa
from experiments import ConfigError

NODE, FREQ_GHZ = "28nm", 1.0  # the paper's synthesis target (Sec. 4.1.1)
CLOCK_GHZ = FREQ_GHZ  # every design is closed at the clock it is evaluated at
LIBRARIES = ("nangate45", "asap7")  # the first judges the claims; the second stands beside
PRIMARY = LIBRARIES[0]
LIBRARY_LABELS = {"nangate45": "NanGate45", "asap7": "ASAP7"}
POWER = "dc_default"  # the judged power model: DC's report_power without an activity file
OTHER_POWER = "random"
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
LIBRARY_MARKERS = {"nangate45": "o", "asap7": "^"}  # ASAP7: a second marker, not a second line
FIELDS = ("area", "power", "delay", "throughput", "density", "efficiency", "meets_timing",
          "stages", "grade", "power_random", "efficiency_random")
UNITS = {"area": "mm^2", "power": "mW", "delay": "ps", "throughput": "TOPs",
         "density": "TOPs/mm^2", "efficiency": "TOPs/W", "meets_timing": "1", "stages": "1",
         "grade": "1",
         "power_random": "mW", "efficiency_random": "TOPs/W"}
NAMES = {"area": "area", "power": "power (dynamic + leakage), DC default activity",
         "delay": "critical path (closed: per pipeline stage)", "throughput": "peak throughput",
         "density": "compute density", "efficiency": "energy efficiency, DC default activity",
         "meets_timing": "closes at 1 GHz (28nm)", "stages": "pipeline stages (1: none)",
         "grade": "adder+multiplier grade closure picked (index of lutcore.ppa.GRADES)",
         "power_random": "power, 1/2 toggle per node",
         "efficiency_random": "energy efficiency, 1/2 toggle per node"}
LUT_ONLY = ("entry",)  # tensor_core options that only the LUT methods take


def label(method: str, act: str, weight: str) -> str:
    """e.g. 'LUT Tensor Core W_INT1 A_FP16'."""
    return f"{METHOD_LABELS[method]} W_{weight.upper()} A_{act.upper()}"


def _groups(designs, closed: bool):
    """{(method, act kind, weight kind[, act, weight]): [design index]}: designs one stacked
    call prices. Closed MAC designs go one by one: a Booth multiplier is built for one operand
    width at a time."""
    out: dict = {}
    for i, (method, act, weight) in enumerate(designs):
        kind = (method, ppa.operand(act).is_float, ppa.operand(weight).is_float)
        if closed and method == "mac":
            kind += (act, weight)
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
    judged, other = (ppa.metrics(cost, node=NODE, freq_ghz=FREQ_GHZ, activity=a)
                     for a in (POWER, OTHER_POWER))
    grade = np.nan if cost.grade is None else cost.grade  # None: unconstrained
    values = {**judged._asdict(), "meets_timing": cost.meets_timing, "stages": cost.stages,
              "grade": grade,
              "power_random": other.power, "efficiency_random": other.efficiency}
    delivery = (ppa.metrics(ppa.operand_delivery(method, acts, weights, *shapes.T, **opts),
                            node=NODE, freq_ghz=FREQ_GHZ, activity=POWER)
                if boundary == "paper" else None)
    return values, delivery, cost


def sweep(designs: list[tuple[str, str, str]], shapes, *, boundaries=ppa.BOUNDARIES,
          library: str = PRIMARY, clock_ghz: float | None = CLOCK_GHZ,
          **options) -> xr.Dataset:
    """designs: [(method, act, weight)]; shapes: [S, 3] (M, N, K); priced in ``library``
    (``lutcore.ppa.LIBRARIES``), closed at ``clock_ghz`` (None: unconstrained); ``options`` go
    to ``tensor_core`` (``entry`` to the LUT methods only). Dataset over (boundary, design,
    shape): the figures of merit (``FIELDS``; ``meets_timing``: the design closes, ``stages``:
    its pipeline stages), ``part_area``,
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
        for (method, *_), rows in _groups(designs, clock_ghz is not None).items():
            acts, weights = ([designs[i][j] for i in rows] for j in (1, 2))
            values, delivery, cost = _price(method, acts, weights, shapes, boundary, options)
            keep = ppa.buildable(method, shapes[:, 2])
            size_ = (len(rows), len(shapes))

            def grid(v, keep=keep, size=size_):
                return np.where(keep, np.broadcast_to(np.asarray(v), size), np.nan)

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
                    activity="power, efficiency: Design Compiler's default activity (toggle "
                             "rate 0.1, static probability 0.5, cell by cell); *_random: "
                             f"{ppa.ACTIVITY} toggles/cycle", cells=lib.description,
                    **{f"option_{k}": str(v) for k, v in options.items()
                       if k not in ("library", "clock_ghz")})
    return ds


def best_shapes(ds: xr.Dataset) -> xr.DataArray:
    """Index of the best shape per (boundary, design): the least ``objective`` among the
    shapes that close at the clock (``lutcore.ppa.best_index``), among all when none does."""
    def best(b, d):
        objective, meets = ds.objective.values[b, d], ds.meets_timing.values[b, d] == 1
        feasible = np.isfinite(objective) & (meets if meets.any() else True)
        return ppa.best_index(objective, feasible)
    found = [[best(b, d) for d in range(ds.sizes["design"])] for b in range(ds.sizes["boundary"])]
    return xr.DataArray(np.array(found), dims=("boundary", "design"),
                        coords={"boundary": ds.boundary, "design": ds.design})


def at_best(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` at its best shape per (boundary, design), without the shape dimension."""
    return ds.isel(shape=best_shapes(ds))


# ---------------------------------------------------------------------------------------------
# Libraries: NanGate45 judges, ASAP7 beside


def per_library(run_one, config, libraries=LIBRARIES) -> xr.Dataset:
    """``run_one(config, library)`` in every library, stacked on a leading 'library' dimension
    (every variable gets it; a coordinate only where it differs, e.g. a best shape)."""
    runs = [run_one(config, library) for library in libraries]
    ds = xr.concat(runs, dim="library", coords="different", compat="equals",
                   combine_attrs="drop_conflicts")
    return ds.assign_coords(library=list(libraries)).assign_attrs(
        cells="; ".join(ppa.library(x).description for x in libraries),
        clock=f"{FREQ_GHZ:g} GHz, closed at {CLOCK_GHZ:g} GHz (28nm; each library through its "
              "delay yardstick: " + ", ".join(
                  f"{LIBRARY_LABELS[x]} {ppa.period_ps(CLOCK_GHZ, x):.0f} ps" for x in libraries)
              + ")")


def library_claims(claims_one, ds: xr.Dataset) -> list:
    """``claims_one`` judged in ``PRIMARY``, each claim's ``ours`` followed by what the other
    libraries give and, where the verdict differs, that it flips."""
    primary = claims_one(ds.sel(library=PRIMARY))
    others = {str(x): {c.claim: c for c in claims_one(ds.sel(library=x))}
              for x in ds.library.values if x != PRIMARY}
    out = []
    for claim in primary:
        notes = []
        for name, found in others.items():
            other = found.get(claim.claim)
            if other is None:
                continue
            flip = (f"the verdict flips: {other.verdict} in {LIBRARY_LABELS[name]}"
                    if other.verdict != claim.verdict else f"{other.verdict} there too")
            notes.append(f" [{LIBRARY_LABELS[name]}, beside ({flip}): {other.ours}]")
        out.append(dataclasses.replace(claim, ours=claim.ours + "".join(notes)))
    return out


def library_tables(table_one, ds: xr.Dataset) -> str:
    """``table_one`` of the judging library, then of each other one, and the closure (where
    ``ds`` has ``meets_timing``)."""
    parts = [f"**{LIBRARY_LABELS[PRIMARY]}** (judges the claims). "
             + table_one(ds.sel(library=PRIMARY))]
    parts += [f"**{LIBRARY_LABELS[str(x)]}** (beside). " + table_one(ds.sel(library=x))
              for x in ds.library.values if x != PRIMARY]
    if "meets_timing" in ds:
        parts.append(closure_note(ds))
    return "\n\n".join(parts) + "\n"


def closure_note(ds: xr.Dataset) -> str:
    """Which designs do not close at the clock (flagged), which were pipelined and which
    adder+multiplier grades closure picked, per library and boundary, over whatever dimensions
    ``ds`` keeps."""
    lines = []
    for x in ds.library.values:
        for b in ds.boundary.values:
            one = ds.sel(library=x, boundary=b)
            flagged = _designs_where(one, one.meets_timing == 0)
            staged = _designs_where(one, (one.stages > 1) & (one.meets_timing == 1))
            lines.append(f"{LIBRARY_LABELS[str(x)]}, {b} boundary: "
                         f"{'cannot close (flagged): ' + flagged if flagged else 'all close'}"
                         + (f"; pipelined to close: {staged}" if staged else "")
                         + (f"; grades: {_grades(one)}" if "grade" in one else ""))
    return f"Closure: {ds.attrs.get('clock', '')}. " + "; ".join(lines) + "."


def _grades(one: xr.Dataset) -> str:
    """Per method, the adder+multiplier grades (``lutcore.ppa.GRADES``) closure picked over its
    points, e.g. 'MAC kogge_stone+booth_dadda'."""
    by = next((d for d in ("design", "unit") if d in one.grade.dims), one.grade.dims[0])
    methods = one.method.values if by == "design" else one[by].values
    picked: dict = {}
    for i, method in enumerate(methods):
        values = one.grade.isel({by: i}).values
        for g in np.unique(values[np.isfinite(values)]).astype(int):
            grade = ppa.GRADES[g]
            names = picked.setdefault(str(method), [])
            names += [f"{grade.adder}+{grade.multiplier}"] * (
                f"{grade.adder}+{grade.multiplier}" not in names)
    return ", ".join(f"{METHOD_LABELS.get(k, k)} {'/'.join(v)}" for k, v in picked.items())


def _designs_where(one: xr.Dataset, mask: xr.DataArray) -> str:
    """Per method (or unit, or the first dimension), where ``mask`` holds: its activations and
    the points of all its designs, e.g. 'MAC A_FP16/A_FP8 (110 of 110 points)'."""
    by = next((d for d in ("design", "unit") if d in mask.dims), mask.dims[0])
    methods = one.method.values if by == "design" else mask[by].values
    groups: dict = {}
    for i, method in enumerate(methods):
        m = mask.isel({by: i}).values
        entry = groups.setdefault(str(method), [[], 0, 0])
        entry[2] += m.size
        if m.any():
            entry[1] += int(m.sum())
            if by == "design":
                act = f"A_{str(one.activation.values[i]).upper()}"
                entry[0] += [act] if act not in entry[0] else []
    return ", ".join(f"{METHOD_LABELS.get(k, k)}" + (f" {'/'.join(acts)}" if acts else "")
                     + (f" ({hits} of {total} points)" if total > 1 else "")
                     for k, (acts, hits, total) in groups.items() if hits)


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

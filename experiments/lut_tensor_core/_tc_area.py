"""Tensor-core array area per SM for the GPU experiments (Figs. 15, 17, Table 1), from lutcore.ppa.

A GPU SM holds ``TENSOR_CORES_PER_SM`` arrays; each is priced by ``lutcore.ppa.tensor_core`` at
its best power-of-two M x N x K shape of the given size (least area x power, as the paper's DSE,
Fig. 14, with the operand delivery at the paper boundary), in a cell library, closed at the
paper's synthesis clock (1 GHz, ``_ppa_sweep.CLOCK_GHZ``) and reported at 28nm and the paper's
normalization clock (Table 1: 1.41 GHz), power under ``_ppa_sweep.POWER`` (both models in the
metrics), at the paper's design boundary or with the full accounting.

The paper sizes its LUT arrays two ways (``SIZINGS``): 1x = an M x N x K = 512 array, the A100
INT8 tensor core (Fig. 15 caption, Sec. 4.2.2; ``lutcore.gpu.LUT_ARRAY_1X``), or 1x = the A100
FP16 tensor core, 256 FMA per clock (Table 1 footnote: "x means that of A100 FP16 Tensor Core
array size").
"""

from __future__ import annotations

import functools

import lutcore.gpu as gpu
import lutcore.ppa as ppa
from experiments.lut_tensor_core._ppa_sweep import CLOCK_GHZ as CLOSURE_GHZ
from experiments.lut_tensor_core._ppa_sweep import POWER, PRIMARY

NODE, CLOCK_GHZ = "28nm", 1.41  # Table 1 footnote: normalized to 28nm at 1.41 GHz
SIZINGS = {
    "512-lookup": gpu.LUT_ARRAY_1X,  # Fig. 15 caption: 1x = M N K = 512, the A100 INT8 TC
    "256-fma": gpu.A100.tensor_macs("fp16") // gpu.TENSOR_CORES_PER_SM,  # Table 1 footnote
}


def lut_sm_macs(scale: int, sizing: str = "512-lookup") -> int:
    """1-bit lookups (M N K) per SM per clock of LUT arrays of ``scale`` x 1x, 1x as ``sizing``
    (``SIZINGS``) defines it."""
    if sizing not in SIZINGS:
        raise ValueError(f"sizing {sizing!r} unknown; allowed values: {', '.join(SIZINGS)}")
    return scale * SIZINGS[sizing] * gpu.TENSOR_CORES_PER_SM


@functools.cache
def array_metrics(method: str, act: str, weight: str, sizes: tuple[int, ...],
                  boundary: str = "paper", library: str = PRIMARY, options: tuple = ()) -> tuple:
    """For each array size M N K in ``sizes``, its best-shape array (``lutcore.ppa.best_arrays``)
    at ``boundary`` in ``library``, closed at 1 GHz, with the ``tensor_core`` options (sorted
    (key, value) pairs): a dict {'shape', 'area' mm^2, 'power' mW, 'delay', 'throughput',
    'density', 'efficiency', 'meets_timing', 'power_random', ...} (ppa.metrics units) at 28nm /
    1.41 GHz."""
    best = ppa.best_arrays(method, act, weight, sizes, node=NODE, freq_ghz=CLOCK_GHZ,
                           boundary=boundary, activity=POWER, library=library,
                           clock_ghz=CLOSURE_GHZ, **dict(options))
    return tuple({"shape": b.shape, **b.metrics} for b in best)


def sm_arrays(method: str, act: str, weight: str, macs_per_sm, *, boundary: str = "paper",
              library: str = PRIMARY, **options) -> list[dict]:
    """The best array of each SM size in ``macs_per_sm`` (MACs, or LUT lookups, per clock per
    SM, shared by ``TENSOR_CORES_PER_SM`` arrays) in ``library``, with 'sm_area' (mm^2 of the
    SM's arrays); ``options`` go to ``tensor_core`` (e.g. ``entry="int8"`` for INT8 tables)."""
    per_core = tuple(int(m) // gpu.TENSOR_CORES_PER_SM for m in macs_per_sm)
    found = array_metrics(method, act, weight, per_core, boundary, library,
                          tuple(sorted(options.items())))
    return [{**a, "sm_area": a["area"] * gpu.TENSOR_CORES_PER_SM} for a in found]


def closure_text(found: dict) -> str:
    """{label: [array dict of ``sm_arrays``]} -> how each closed at 1 GHz, grouped by outcome:
    the adder+multiplier grade (``lutcore.ppa.GRADES``), pipeline stages where more than one,
    or 'cannot close (flagged)' with the fastest grade; e.g. 'brent_kung+array: MAC A_FP16 (1)'.
    """
    outcomes: dict = {}
    for label, arrays in found.items():
        for a in arrays:
            grade = ppa.GRADES[int(a["grade"])]
            status = f"{grade.adder}+{grade.multiplier}" + (
                f", {int(a['stages'])} stages" if a["stages"] > 1 else "")
            if a["meets_timing"] != 1:
                status = f"cannot close (flagged), fastest {status}"
            counts = outcomes.setdefault(status, {})
            counts[label] = counts.get(label, 0) + 1
    return "; ".join(f"{status}: " + ", ".join(f"{k} ({n})" for k, n in counts.items())
                     for status, counts in outcomes.items())

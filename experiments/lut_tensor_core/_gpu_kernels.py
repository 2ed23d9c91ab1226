"""Shared pieces of the GPU kernel experiments (lut-fig4, lut-fig15, lut-fig18): config checks,
the projection shapes M0-M3 of a model layer, tensor-core areas per SM."""

from __future__ import annotations

import lutcore.gpu as gpu
from experiments import ConfigError
from experiments.lut_tensor_core._tc_area import sm_arrays

SHAPE_NAMES = ("M0", "M1", "M2", "M3")  # the layer's projections in execution order


def check_positive(key: str, values) -> None:
    """ConfigError unless ``values`` (one or a tuple) are positive integers, at least one."""
    values = values if isinstance(values, tuple) else (values,)
    if not values or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
        raise ConfigError(f"{key}: must be positive integers, got {values!r}")


def layer_shapes(model: str) -> list[tuple[str, str, int, int]]:
    """[(M0..M3, projection name, N, K)]: the four weight GEMMs of one decoder layer (fused
    QKV, output, FFN up (+gate), FFN down) of ``model``; the paper does not list its M0-M3, so
    they are taken as these four projections in execution order."""
    gemms = gpu.layer_gemms(gpu.llm_shape(model), 1)[:4]
    return [(label, g.name, g.n, g.k) for label, g in zip(SHAPE_NAMES, gemms)]


def tensor_core_areas(specs, act: str, weight_bits: int = 1) -> list[float]:
    """mm^2 per SM (28nm, ``_tc_area``) of each spec's arrays, priced in one evaluation: LUT
    arrays for ``weight_bits``-bit weights when the specs have them (1-bit lookups per clock =
    their size), else MAC tensor cores of ``act`` x ``act`` at the spec's MACs per clock."""
    if all(spec.lut_scale for spec in specs):
        arrays = sm_arrays("lut_tensor_core", act, f"int{weight_bits}",
                           [spec.lut_macs(1) for spec in specs])
    else:
        arrays = sm_arrays("mac", act, act, [spec.tensor_macs(act) for spec in specs])
    return [a["sm_area"] for a in arrays]

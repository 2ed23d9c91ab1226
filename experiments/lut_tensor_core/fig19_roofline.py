"""Roofline of the W_FP16 A_FP16 and W_INT1 A_FP16 tensor cores on the A100 memory system
(LUT Tensor Core Fig. 19).

Two roofs under the GPU's DRAM bandwidth (``lutcore.gpu`` datasheet spec): the FP16 MAC tensor
cores' dense peak, and the W_INT1 peak of the LUT arrays that give Sec. 5's multiple of it
(``GPUSpec.lut_peak``). Points, for one mpGEMM (by default Sec. 4.3's LLAMA2-13B shape):
operational intensity = 2 M N K / DRAM bytes, the bytes from the tile model's traffic
(``lutcore.gpu.dram_traffic``), for

- ``fp16_mac``: the cuBLAS-like FP16 kernel on the CTA tile the tile model picks for it;
- the LUT kernel, one co-optimization of Sec. 5 after the other: ``naive_lut`` (unhalved 2^K
  tables, the FP16 kernel's tile, thread blocks sharing nothing through L2),
  ``halved_tables`` (symmetric 2^(K-1) tables: weight reinterpretation), ``elongated_tiles``
  (the elongated tile the tile model picks for the LUT kernel) and ``optimized`` (swizzled
  thread blocks: rasterized waves share their operand panels through L2).

Areas: those LUT arrays against the FP16 MAC tensor cores, per SM, at 28nm (``lutcore.ppa``
through ``_tc_area``), at the paper's design boundary and with the full accounting.
"""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.gpu as gpu
from experiments import Experiment, check_choice, markdown_table, paper_claim, reference
from experiments.lut_tensor_core._gpu_kernels import check_positive
from experiments.lut_tensor_core._tc_area import sm_arrays
from experiments.lut_tensor_core.fig15_mpgemm import AREA_TOLERANCE

ID = "lut-fig19"
TITLE = ("Roofline of the W_FP16 A_FP16 and W_INT1 A_FP16 tensor cores on the A100 memory "
         "system (LUT Tensor Core Fig. 19)")
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("roofline_area", "fp16_compute_bound", "naive_lut_memory_bound",
          "optimized_near_ridge")
ROOFS = ("fp16_mac", "lut_int1")
# point: (roof, kernel options of lutcore.gpu.dram_traffic, tile: the FP16 kernel's or the LUT's)
POINTS = {
    "fp16_mac": ("fp16_mac", {}, "fp16"),
    "naive_lut": ("lut_int1", {"table": "bitserial", "l2_reuse": False}, "fp16"),
    "halved_tables": ("lut_int1", {"l2_reuse": False}, "fp16"),
    "elongated_tiles": ("lut_int1", {"l2_reuse": False}, "lut"),
    "optimized": ("lut_int1", {}, "lut"),
}
TILE = ("tm", "tn", "tk", "wm", "wn")
NEAR = 2.0  # "close to the ridge point": within a factor of 2 of it either side (log-log chart)
BOUNDARIES = ("paper", "full")


@dataclasses.dataclass(frozen=True)
class Config:
    """gpu, model: registry names; tokens: M; projection: which weight GEMM of a layer."""

    gpu: str = "a100"
    model: str = "llama2-13b"
    tokens: int = 2048
    projection: str = "ffn_up"

    def __post_init__(self):
        check_choice("gpu", self.gpu, tuple(gpu.GPUS))
        check_choice("model", self.model, tuple(gpu.LLMS))
        check_positive("tokens", self.tokens)
        names = tuple(g.name for g in gpu.layer_gemms(gpu.llm_shape(self.model), 1))
        check_choice("projection", self.projection, names)


def lut_scale(spec: gpu.GPUSpec, flops_ratio: int) -> int:
    """The LUT array scale whose W_INT1 peak is ``flops_ratio`` x the FP16 tensor-core peak."""
    scale = flops_ratio * spec.tensor_macs("fp16") / (gpu.LUT_ARRAY_1X * gpu.TENSOR_CORES_PER_SM)
    if scale not in gpu.LUT_SCALES:
        raise ValueError(f"{flops_ratio}x the FP16 peak needs LUT scale {scale}, not one of "
                         f"{gpu.LUT_SCALES}")
    return int(scale)


def _tile(result) -> tuple:
    return tuple(int(np.asarray(getattr(result, f"{a}_{b}"))) for a, b in (
        ("tile", "m"), ("tile", "n"), ("tile", "k"), ("warp", "m"), ("warp", "n")))


def run(config: Config) -> xr.Dataset:
    spec = gpu.gpu_spec(config.gpu)
    shape = {g.name: g for g in gpu.layer_gemms(gpu.llm_shape(config.model),
                                                config.tokens)}[config.projection]
    m, n, k = shape.m, shape.n, shape.k
    flops_ratio = reference(PAPER, ID, "roofline_area").value[1]  # the design Sec. 5 names
    scale = lut_scale(spec, flops_ratio)
    lut = gpu.with_lut_tensor_core(spec, scale)
    tiles = {"fp16": _tile(gpu.gemm_latency(spec, "cublas", m, n, k)),
             "lut": _tile(gpu.gemm_latency(lut, "lut_tensor_core", m, n, k, weight_bits=1))}
    peaks = {"fp16_mac": spec.tensor_peak("fp16"), "lut_int1": lut.lut_peak(1)}
    flop = 2.0 * m * n * k
    dram, tile = [], []
    for roof, options, which in POINTS.values():
        t = tiles[which]
        kernel = ("cublas", spec, {}) if roof == "fp16_mac" else (
            "lut_tensor_core", lut, {"weight_bits": 1})
        dram.append(gpu.dram_traffic(kernel[1], kernel[0], m, n, k, t[:3], t[3:], **kernel[2],
                                     **options))
        tile.append(t)
    intensity = flop / np.asarray(dram)
    roof_of = [r for r, _, _ in POINTS.values()]
    attainable = np.minimum([peaks[r] for r in roof_of], intensity * spec.dram_bandwidth)
    area = {b: 100 * sm_arrays("lut_tensor_core", "fp16", "int1", [lut.lut_macs(1)],
                               boundary=b)[0]["sm_area"]
            / sm_arrays("mac", "fp16", "fp16", [spec.tensor_macs("fp16")],
                        boundary=b)[0]["sm_area"] for b in BOUNDARIES}
    ds = xr.Dataset(
        {"peak": ("roof", [peaks[r] / 1e12 for r in ROOFS], {"units": "TFLOPS"}),
         "ridge": ("roof", [peaks[r] / spec.dram_bandwidth for r in ROOFS],
                   {"units": "FLOP/B", "long_name": "peak / DRAM bandwidth"}),
         "dram_bytes": ("point", np.asarray(dram) / 1e6, {"units": "MB"}),
         "intensity": ("point", intensity, {"units": "FLOP/B"}),
         "attainable": ("point", attainable / 1e12, {"units": "TFLOPS"}),
         "tile": (("point", "tile_dim"), np.asarray(tile)),
         "area_fraction": ("boundary", [area[b] for b in BOUNDARIES],
                           {"units": "%", "long_name": "LUT arrays / FP16 MAC tensor cores, "
                                                       "per SM, 28nm"})},
        coords={"roof": list(ROOFS), "point": list(POINTS), "point_roof": ("point", roof_of),
                "tile_dim": list(TILE), "boundary": list(BOUNDARIES)},
        attrs={"gpu": config.gpu, "gemm": f"{config.model} {config.projection} M{m} N{n} K{k}",
               "dram_bandwidth_gbs": spec.dram_bandwidth / 1e9, "lut_scale": scale,
               "flops_ratio": flops_ratio})
    return ds


def _ridge(ds, point) -> float:
    return float(ds.ridge.sel(roof=str(ds.point_roof.sel(point=point).values)))


def plot(ds: xr.Dataset):
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    x = np.logspace(0, 4, 200)
    bandwidth = ds.attrs["dram_bandwidth_gbs"] * 1e9 / 1e12
    for roof, color in zip(ds.roof.values, ("#4c72b0", "#c44e52")):
        peak = float(ds.peak.sel(roof=roof))
        ax.plot(x, np.minimum(peak, bandwidth * x), color=color,
                label=f"{'W_FP16 A_FP16 MAC TC' if roof == 'fp16_mac' else 'W_INT1 A_FP16 LUT TC'}"
                      f" ({peak:.0f} TFLOPS)")
        ax.axvline(float(ds.ridge.sel(roof=roof)), color=color, ls=":", lw=0.8)
    path = [p for p in ds.point.values if p != "fp16_mac"]
    ax.plot(ds.intensity.sel(point=path), ds.attainable.sel(point=path), "--", color="#c44e52",
            lw=0.8)
    for point in ds.point.values:
        ax.plot(float(ds.intensity.sel(point=point)), float(ds.attainable.sel(point=point)), "o",
                color="#4c72b0" if point == "fp16_mac" else "#c44e52", ms=5)
        ax.annotate(str(point).replace("_", " "), (float(ds.intensity.sel(point=point)),
                                                   float(ds.attainable.sel(point=point))),
                    textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set(xscale="log", yscale="log", xlabel="operational intensity (FLOP / DRAM byte)",
           ylabel="attainable TFLOPS", title=f"{ds.attrs['gpu'].upper()} "
           f"{ds.attrs['dram_bandwidth_gbs']:.0f} GB/s; {ds.attrs['gemm']}")
    ax.title.set_fontsize(8)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    rows = []
    for point in ds.point.values:
        ridge, i = _ridge(ds, point), float(ds.intensity.sel(point=point))
        t = [int(v) for v in ds.tile.sel(point=point).values]
        rows.append([point, str(ds.point_roof.sel(point=point).values),
                     f"{t[0]}x{t[1]}x{t[2]} (warp {t[3]}x{t[4]})",
                     f"{float(ds.dram_bytes.sel(point=point)):.0f}", f"{i:.0f}", f"{ridge:.0f}",
                     "compute" if i >= ridge else "memory",
                     f"{float(ds.attainable.sel(point=point)):.0f}"])
    areas = ", ".join(f"{b} {float(ds.area_fraction.sel(boundary=b)):.1f} %"
                      for b in ds.boundary.values)
    return (f"{ds.attrs['gemm']} on {ds.attrs['gpu'].upper()} "
            f"({ds.attrs['dram_bandwidth_gbs']:.0f} GB/s DRAM); LUT arrays {ds.attrs['lut_scale']}"
            f"x 512 lookups per tensor core ({ds.attrs['flops_ratio']}x the FP16 peak at W_INT1),"
            f" {areas} of the FP16 MAC tensor cores' area (28nm, paper boundary, full "
            "accounting).\n\n"
            + markdown_table(["point", "roof", "CTA tile", "DRAM (MB)", "FLOP/B", "ridge",
                              "bound", "TFLOPS"], rows, right=5))


def claims(ds: xr.Dataset):
    module = EXPERIMENT
    fraction, ratio = reference(PAPER, ID, "roofline_area").value
    area = float(ds.area_fraction.sel(boundary="paper"))
    peaks = float(ds.peak.sel(roof="lut_int1") / ds.peak.sel(roof="fp16_mac"))

    def where(point):
        i, ridge = float(ds.intensity.sel(point=point)), _ridge(ds, point)
        return i, ridge, f"{point} {i:.0f} FLOP/B against its roof's ridge {ridge:.0f}"

    fp16, naive, best = where("fp16_mac"), where("naive_lut"), where("optimized")
    path = " -> ".join(f"{p} {float(ds.intensity.sel(point=p)):.0f}" for p in ds.point.values
                       if p != "fp16_mac")
    return [
        paper_claim(module, "roofline_area",
                    ours=f"LUT arrays of {peaks:.2f}x the FP16 tensor cores' theoretical FLOPs "
                         f"at W_INT1 ({ds.attrs['lut_scale']}x 512 lookups per tensor core): "
                         f"{area:.1f} % of their area at the paper boundary, "
                         f"{float(ds.area_fraction.sel(boundary='full')):.1f} % with the full "
                         "accounting",
                    holds=round(peaks, 6) == ratio and abs(area / fraction - 1) <= AREA_TOLERANCE,
                    ours_value=area, paper_value=fraction, band=AREA_TOLERANCE,
                    tolerance=f"{ratio}x the FLOPs, area within {AREA_TOLERANCE:.0%} at the "
                              "paper boundary",
                    deviation=f"{area / fraction - 1:+.0%}"),
        paper_claim(module, "fp16_compute_bound", ours=fp16[2], holds=fp16[0] >= fp16[1],
                    tolerance="intensity at or beyond the FP16 roof's ridge"),
        paper_claim(module, "naive_lut_memory_bound", ours=naive[2], holds=naive[0] < naive[1],
                    tolerance="intensity below the LUT roof's ridge"),
        paper_claim(module, "optimized_near_ridge",
                    ours=f"{best[2]} ({best[0] / best[1]:.2f}x the ridge); the path, FLOP/B: "
                         f"{path}",
                    holds=1 / NEAR <= best[0] / best[1] <= NEAR and best[0] > naive[0],
                    tolerance=f"within {NEAR:g}x of the ridge either side, above the naive point",
                    deviation="" if best[0] <= NEAR * best[1] else
                    "past the ridge: with swizzled waves the tile model reads little more than "
                    "the compulsory traffic (tables, 1-bit weights, FP16 outputs once), so the "
                    "optimized point is compute-bound"),
    ]


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

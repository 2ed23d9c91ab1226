"""Fit the lutcore.gpu constants that calibration sets determine, and print them.

Reads only measured sets whose ``role`` is ``calibration`` (experiments/reference/measured/).
Per GPU, by least squares on relative errors (each row weighs the same):

- ``kernel_latency`` (vidur_*.yaml): the median time of Vidur's residual adds under 1 MB (a
  PyTorch element-wise kernel with next to no work: its time is the fixed cost of a kernel);
- ``dram_latency`` (vidur_*.yaml): the RMSNorms (sarathi-serve's scalar row kernel: one
  dependent load per thread iteration, one row per SM at a time), seconds = kernel_latency +
  rounds x loads per row x latency;
- ``gemm_prologue`` and ``gemv_dram_efficiency`` (vidur_*.yaml): the M = 1 projection GEMMs
  (cuBLAS GEMV-class kernels, DRAM-bound), seconds = kernel_latency + t1 + bytes / (eta x DRAM),
  bytes = the weights, the input row and the output row;
- ``gemv_dram_efficiency`` of the A100 SXM4 module (aiconfigurator_a100_sxm.yaml, ``OWN_GEMV``):
  the DRAM fraction for which the tile model is unbiased on its own BF16 GEMMs with M <= 16
  (cuBLAS GEMV-class kernels, DRAM-bound; CUDA graph over 5 weight copies, so L2 defeated), by
  bisection, gemm_prologue as Vidur's card sets it: the module's own measurement, not the
  300 W PCIe card's (Vidur's 0.8314 of 1935 GB/s stays the PCIe card's);
- ``tensor_efficiency`` of the A100 (mamf_stas00.yaml, thonking_inputs_a100.yaml and
  torchperf_sxm.yaml: every 16-bit GEMM row of a 400 W SXM4 module): the 16-bit fraction for
  which the tile model at the module's 1410 MHz boost clock is unbiased (mean relative error 0)
  on them, by bisection; the A100 PCIe shares it (same GA100 die and libraries);
- ``sustained_clock_ghz`` of the A100 PCIe (vidur_a100.yaml, measured on 300 W PCIe cards):
  the SM clock at which the tile model with the A100's fraction is unbiased on the
  compute-bound projection GEMMs (M >= 1024), by bisection (the 300 W card sustains a lower
  tensor clock than the 400 W module; that is the only compute difference of the two);
- ``INPUT_RATE`` (thonking_inputs_a100.yaml): the tensor-core rate with integer and zero inputs
  relative to random ones, each from one kernel timed with both (a compute-bound 8192^3 GEMM,
  whose rate follows the power-limited SM clock);
- ``allreduce_latency``, ``allreduce_hop_latency`` and ``allreduce_efficiency``
  (aiconfigurator_nccl.yaml: nccl-tests, device time, one node): all-reduces of p GPUs,
  seconds = t0 + 2 (p - 1) x t_step + 2 (p - 1) / p x bytes / (eta x NVLink per direction)
  (Vidur's host-timed all-reduces, which set t0 and eta before, are kept as a check);
- ``tensor_efficiency`` of the H100 (vidur_h100.yaml): the 16-bit fraction for which the tile
  model, with every other constant as in lutcore.gpu, is unbiased (mean relative error 0) on
  the compute-bound projection GEMMs (M >= 1024), by bisection;
- TensorRT-LLM's FP8 rate on the H100 (aiconfigurator_h100_sxm.yaml; ``library_efficiency``):
  the fraction for which the tile model of TensorRT-LLM's FP8 Linear (``cublas_quantize``: its
  dynamic activation quantization, then the FP8 GEMM) is unbiased on the compute-bound rows
  (M >= 1024), by bisection: the application shapes, as the H100's 16-bit fraction rests on
  Vidur's;
- TensorRT-LLM's FP8 rate on the H200: the H100's times the ratio of the two FP8 MAMF rows
  (mamf_stas00.yaml, like for like: the best shapes of one search on each GPU); the GPUs' own FP8
  fractions (other libraries) reproduce their MAMF rows;
- TensorRT-LLM's 16-bit rate on the A100 and the H100 (aiconfigurator_{a100,h100}_sxm.yaml,
  ``library_efficiency``): the fraction for which its BF16 Linear (``trtllm_gemm``: the cuBLAS
  its release ships) is unbiased on the compute-bound rows (M >= 1024), by bisection; on the
  shapes both time, the H100 rows run 6-11 % faster than Vidur's (older PyTorch / cuBLAS), so
  the rate is the library's, beside the GPU's own 16-bit fraction;
- the best-shape 16-bit fractions of the A100 and the H100 (``best_shape`` in
  ``library_efficiency``, mamf_stas00.yaml): those that reproduce the BF16 MAMF rows, the rate
  of TensorRT-LLM's weight-only plugin, whose tactic is timed at the shape; checked (not fitted)
  on its A100 GEMMs at M >= 1024 (aiconfigurator_a100_sxm.yaml, ``weight_only_bias``);
- the A100's INT8 fraction (aiconfigurator_a100_sxm.yaml): the fraction for which TensorRT-LLM's
  SmoothQuant INT8 GEMMs (``trtllm_smoothquant``) are unbiased at M >= 1024, by bisection;
- the fixed cost of TensorRT's per-layer profiler (``_library.TIMING_OVERHEAD``,
  aiconfigurator_a100_sxm.yaml): on the M <= 4 rows of the sets it timed (the TensorRT
  plugins' SmoothQuant and weight-only GEMMs: the rows of least work), the constant c
  minimizing sum(((device time + c - measured) / measured)^2), the device time the tile model's;
- the H100's ``wgmma_chain`` (aiconfigurator_h100_sxm_trtllm_rc3.yaml: TensorRT-LLM 1.0.0rc3's
  plugin GEMMs, with the profiler cost above): SM clocks per register-sourced wgmma of its sm90
  weight-only loop, the value for which its weight-only rows above the plugin's GEMV (M >= 16)
  are unbiased, by bisection (the H200 takes it: the same SM);
- the seconds per round of the FP8 quantize step's absolute-max blocks (``_library.QUANTIZE_ROUND``,
  aiconfigurator_h100_sxm.yaml): on its FP8 rows with M <= 64 (where the step's fixed grid
  shows), the t minimizing sum(((model + rounds x t - measured) / measured)^2), the model's
  round time set to 0; then TensorRT-LLM's H100 FP8 rate (above) with it in place;
- TensorRT-LLM's attention costs per architecture (aiconfigurator_attention_{a100,h100}_sxm
  .yaml, ``attention_constants``): its FMHA's rate, per-call time and time per round of CTAs
  on the context rows, its generation kernel's per-call and per-sequence times;
- HF eager's contiguous kernel time (its norms and activation) and attention call
  (llmservingsim_rtx3090.yaml, <= 16 tokens), and its strided kernels' fixed time with their
  CUDA-core operations per element written (``_operators.EAGER_STRIDED_OPERATIONS``; the same
  set's rotary rows at <= 16 and at >= 512 tokens, where those kernels are issue-bound): each
  leaving its rows unbiased;
- the time of a round of FlashAttention-2's CTAs on Hopper (``_flash.FLASH_ATTENTION_2
  .round_seconds``, fa3_paper_h100.yaml: the kernel alone, causal, head dim 128, 512-16k
  tokens): the value leaving its rows unbiased, by bisection (the kernel's iterations priced
  from the S10 mma.sync rate and the SFU / FP32 lanes, nothing else fitted).

Vidur's A100 profiles were taken on A100 80GB PCIe cards (vidur_a100.yaml: ``device:
a100-pcie``, with the evidence); the memory constants fitted there are the PCIe card's (DRAM
fractions of its own peak) and carry over to the A100 SXM4 module (same GA100 die and memory
controllers), whose spec differs only in its datasheet bandwidth and clock. The 16-bit tensor
fraction is fitted on the SXM4 module's own measurements instead (three sources, four modules),
and Vidur's PCIe GEMMs set the PCIe card's sustained clock.

The values are copied into lutcore/gpu/_specs.py, where each names this tool and its set; a
test recomputes them. Usage: PYTHONPATH=. python tools/calibrate_gpu.py
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
from _fit import _bisect, _load, relative_fit, relative_line
from _fit_attention import ATTENTION_SETS, attention_constants

# the GPU each Vidur profile set was taken on, and the GPUs of its all-reduce sets
VIDUR = {"a100-pcie": "vidur_a100.yaml", "h100": "vidur_h100.yaml"}
ALLREDUCE = {"a100": "a100", "a100-pcie": "a100", "h100": "h100"}
# the spec whose memory constants a GPU takes from a Vidur set
MEMORY_FROM = {"a100": "a100-pcie", "a100-pcie": "a100-pcie", "h100": "h100"}


def _projections(model: dict) -> dict:
    tp, head = model["tensor_parallel"], model["hidden"] // model["heads"]
    return {"qkv_projection": ((model["heads"] + 2 * model["kv_heads"]) * head // tp,
                               model["hidden"]),
            "output_projection": (model["hidden"], model["heads"] * head // tp),
            "ffn_up": ((1 + model["gated"]) * model["ffn"] // tp, model["hidden"]),
            "ffn_down": (model["hidden"], model["ffn"] // tp)}


def _spec(name: str):
    import lutcore.gpu as gpu  # the datasheet numbers and every other constant in place

    return gpu.gpu_spec(name)


def vidur_rows(gpu: str):
    """(add bytes, add seconds), (GEMV bytes, GEMV seconds), (norm round trips, norm seconds)
    of Vidur's profiles of ``gpu``; a norm's round trips are its rounds of one row per SM times
    the dependent loads of a row (lutcore.gpu._operators, scalar row kernels)."""
    adds, gemvs, norms = [], [], []
    sms = _spec(gpu).sms
    for entry in _load(VIDUR[gpu])["sets"]:
        model = entry["model"]
        trips = np.ceil(model["hidden"] / min(model["hidden"], 1024))
        for point in entry["points"]:
            row = dict(zip(entry["columns"], point))
            adds.append((3 * 2.0 * row["tokens"] * model["hidden"], row["ffn_residual"]))
            norms += [(np.ceil(row["tokens"] / sms) * trips, row[name])
                      for name in ("attention_norm", "ffn_norm")]
            if row["tokens"] == 1:
                gemvs += [(2.0 * (n * k + n + k), row[name])
                          for name, (n, k) in _projections(model).items()]
    return np.array(adds).T, np.array(gemvs).T, np.array(norms).T


def memory_constants(gpu: str) -> dict:
    (add_bytes, add_s), (gemv_bytes, gemv_s), (trips, norm_s) = vidur_rows(gpu)
    t0 = float(np.median(add_s[add_bytes < 2 ** 20]))
    t1, gemv_per_byte = relative_line(gemv_bytes, gemv_s)
    # norm seconds = t0 + trips x latency, relative least squares with the intercept t0 fixed
    latency = float(np.sum(trips * (norm_s - t0) / norm_s ** 2) / np.sum((trips / norm_s) ** 2))
    return {"kernel_latency": t0, "gemm_prologue": t1 - t0,
            "gemv_dram_efficiency": 1 / (gemv_per_byte * _spec(gpu).dram_bandwidth),
            "dram_latency": latency}


def allreduce_constants(gpu: str) -> dict:
    """The ring all-reduce's fixed latency, step latency and NVLink fraction of ``gpu``, by
    relative least squares on its nccl-tests rows (module doc)."""
    entry = next(e for e in _load("aiconfigurator_nccl.yaml")["sets"] if e["device"] == gpu)
    workers, size, seconds = (np.array(c, float) for c in zip(*entry["points"]))
    steps = 2 * (workers - 1)
    design = np.stack([np.ones_like(size), steps, steps / workers * size], axis=1)
    (t0, step, per_byte), *_ = np.linalg.lstsq(design / seconds[:, None],
                                               np.ones_like(seconds), rcond=None)
    return {"allreduce_latency": float(t0), "allreduce_hop_latency": float(step),
            "allreduce_efficiency": 1 / (per_byte * _spec(gpu).nvlink_bandwidth)}


def input_rates() -> dict:
    """{inputs: rate relative to random inputs} from the input-data calibration set."""
    rates = {"random": 1.0}
    for entry in _load("thonking_inputs_a100.yaml")["sets"]:
        rows = {row[3]: row[4] for row in entry["points"]}
        rates.update({kind: tflops / rows["random"] for kind, tflops in rows.items()
                      if kind != "random"})
    return rates


def mamf_error(entry: dict, fraction: float) -> float:
    """Relative error of the tile model on a MAMF row with the row's format at ``fraction``."""
    import lutcore.gpu as gpu  # the model with every other constant in place

    (m, n, k, tflops), = entry["points"]
    spec, act = gpu.gpu_spec(entry["device"]), entry["act"]
    spec = _with_efficiency(spec, act, fraction)
    seconds = float(gpu.gemm_latency(spec, "cublas", m, n, k, act=act,
                                     weight_bits=8 * gpu.ACT_BYTES[act]).seconds)
    return seconds / (2.0 * m * n * k / (tflops * 1e12)) - 1


def _mamf_rows() -> dict:
    return {(e["device"], e["act"]): e for e in _load("mamf_stas00.yaml")["sets"]}


def mamf_efficiencies() -> dict:
    """{(gpu, dtype): fraction} with which the tile model reproduces each MAMF row."""
    return {key: _bisect(lambda f, e=entry: mamf_error(e, f))
            for key, entry in _mamf_rows().items()}


# The calibration sets with 16-bit GEMMs of the A100 SXM4 module (device "a100")
SXM_SETS = ("mamf_stas00.yaml", "thonking_inputs_a100.yaml", "torchperf_sxm.yaml")


def sxm_errors(fraction: float) -> np.ndarray:
    """Relative errors of the tile model on every 16-bit GEMM row of the A100 SXM4 module in
    ``SXM_SETS``, with the A100's 16-bit fraction at ``fraction`` (the rows priced as lut-fig16
    prices them, ``_measured.gemm_points``)."""
    import lutcore.gpu as gpu
    from experiments.lut_tensor_core import _measured

    spec = _with_efficiency(gpu.gpu_spec("a100"), "fp16", fraction)
    errors = []
    for name in SXM_SETS:
        data = _load(name)
        for entry in data["sets"]:
            if (entry.get("device", data.get("device")) == "a100" and entry["kind"] == "gemm"
                    and entry.get("act", "fp16") in ("fp16", "bf16")):
                _, _, measured, modeled = _measured.gemm_points(data, entry, spec=spec)
                errors += list(modeled / measured - 1)
    return np.array(errors)


def sxm_efficiency() -> float:
    """The 16-bit fraction leaving the A100 SXM4 module's calibration GEMMs unbiased."""
    return _bisect(lambda f: float(np.mean(sxm_errors(f))))


def pcie_sustained_clock(fraction: float) -> float:
    """GHz at which the compute-bound Vidur GEMMs of the A100 PCIe (M >= 1024) are unbiased
    with the 16-bit ``fraction`` (module doc)."""
    return _bisect(lambda c: vidur_bias("a100-pcie", fraction, c), 0.8, 1.6)


def vidur_bias(name: str, fraction: float, clock_ghz: float | None = None) -> float:
    """Mean relative error of the tile model on the compute-bound Vidur GEMMs (M >= 1024)
    of ``name`` with 16-bit tensor cores at ``fraction`` (and the SM at ``clock_ghz``, default
    the spec's)."""
    import lutcore.gpu as gpu

    rows = []
    for entry in _load(VIDUR[name])["sets"]:
        for point in entry["points"]:
            row = dict(zip(entry["columns"], point))
            if row["tokens"] >= 1024:
                rows += [(row["tokens"], n, k, row[op])
                         for op, (n, k) in _projections(entry["model"]).items()]
    m, n, k, measured = (np.array(c, float) for c in zip(*rows))
    spec = _with_efficiency(gpu.gpu_spec(name), "fp16", fraction)
    if clock_ghz is not None:
        spec = dataclasses.replace(spec, sustained_clock_ghz=clock_ghz)
    seconds = np.asarray(gpu.gemm_latency(spec, "cublas", m, n, k).seconds)
    return float(np.mean(seconds / measured - 1))


def vidur_efficiency(name: str) -> float:
    """The 16-bit fraction leaving the compute-bound Vidur GEMMs (M >= 1024) unbiased."""
    return _bisect(lambda f: vidur_bias(name, f))


# TensorRT-LLM's GEMMs (aiconfigurator, role calibration): (GPU, act) -> set
APPLICATION_SETS = {("h100", "fp8"): "aiconfigurator_h100_sxm.yaml",
                    ("a100", "int8"): "aiconfigurator_a100_sxm.yaml",
                    ("h100", "bf16"): "aiconfigurator_h100_sxm.yaml",
                    ("a100", "bf16"): "aiconfigurator_a100_sxm.yaml"}
# the set of TensorRT-LLM's weight-only plugin GEMMs that sets a GPU's ``wgmma_chain``
WEIGHT_ONLY_SETS = {"h100": "aiconfigurator_h100_sxm_trtllm_rc3.yaml"}
# the rate each sets: TensorRT-LLM's own FP8 and 16-bit rates (library_efficiency), the A100's
# INT8 rate
LIBRARY = {("h100", "fp8"): "tensorrt_llm", ("a100", "int8"): "",
           ("h100", "bf16"): "tensorrt_llm", ("a100", "bf16"): "tensorrt_llm"}


def application_errors(gpu_name: str, act: str, fraction: float,
                       min_m: int = 1024) -> np.ndarray:
    """Relative errors of the tile model on the ``act`` rows of the ``APPLICATION_SETS`` set of
    ``gpu_name`` with M >= ``min_m`` (priced as lut-fig16 prices them), with that format's
    fraction at ``fraction``."""
    import lutcore.gpu as gpu
    from experiments.lut_tensor_core import _measured

    data = _load(APPLICATION_SETS[gpu_name, act])
    spec = _with_efficiency(gpu.gpu_spec(gpu_name), act, fraction, LIBRARY[gpu_name, act])
    errors = []
    for entry in data["sets"]:
        if entry.get("act") == act:
            _, _, measured, modeled = _measured.gemm_points(data, entry, spec=spec)
            keep = np.array([point[0] for point in entry["points"]]) >= min_m
            errors += list((modeled / measured - 1)[keep])
    return np.array(errors)


def tensor_efficiencies() -> dict:
    """{(gpu, dtype, library): fraction}: A100 16-bit from its SXM4 sets, H100 16-bit from
    Vidur, the FP8 MAMF fractions, TensorRT-LLM's H100 FP8 rate and the A100's INT8 fraction
    from TensorRT-LLM's GEMMs, TensorRT-LLM's H200 FP8 rate from the H100's and the MAMF rows
    (module doc)."""
    mamf = mamf_efficiencies()
    out = {(g, d, ""): f for (g, d), f in mamf.items() if d == "fp8"}
    out.update({(g, d, LIBRARY[g, d]): _bisect(
        lambda f, g=g, d=d: float(np.mean(application_errors(g, d, f))), 0.2, 1.0)
        for g, d in APPLICATION_SETS})
    out.update({(g, "bf16", "best_shape"): mamf[g, "bf16"] for g in ("a100", "h100")})
    out[("a100", "fp16", "")] = sxm_efficiency()
    out[("h100", "fp16", "")] = vidur_efficiency("h100")
    out[("h200", "fp8", "tensorrt_llm")] = (out[("h100", "fp8", "tensorrt_llm")]
                                            * mamf[("h200", "fp8")] / mamf[("h100", "fp8")])
    return out


def weight_only_bias(min_m: int = 1024) -> float:
    """Mean relative error of lutcore.gpu on TensorRT-LLM's A100 weight-only GEMMs with M >=
    ``min_m`` (aiconfigurator_a100_sxm.yaml): the check of their ``best_shape`` rate."""
    from experiments.lut_tensor_core import _measured

    data = _load("aiconfigurator_a100_sxm.yaml")
    errors = []
    for entry in data["sets"]:
        if entry.get("kernel") == "trtllm_weight_only":
            _, _, measured, modeled = _measured.gemm_points(data, entry)
            keep = np.array([point[0] for point in entry["points"]]) >= min_m
            errors += list((modeled / measured - 1)[keep])
    return float(np.mean(errors))


def weight_only_errors(chain: float, gpu_name: str = "h100") -> np.ndarray:
    """Relative errors of lutcore.gpu on TensorRT-LLM's weight-only GEMMs of ``gpu_name``'s
    ``WEIGHT_ONLY_SETS`` set at the M its tensor-core tactics run (above its GEMV's
    ``TRTLLM_WO_GEMV_MAX_M``), with the SM's wgmma chain interval at ``chain`` clocks."""
    import lutcore.gpu as gpu
    from experiments.lut_tensor_core import _measured
    from lutcore.gpu._tiles import TRTLLM_WO_GEMV_MAX_M

    data = _load(WEIGHT_ONLY_SETS[gpu_name])
    spec = dataclasses.replace(gpu.gpu_spec(gpu_name), wgmma_chain=chain)
    errors = []
    for entry in data["sets"]:
        if entry.get("kernel") == "trtllm_weight_only":
            _, _, measured, modeled = _measured.gemm_points(data, entry, spec=spec)
            keep = np.array([point[0] for point in entry["points"]]) > TRTLLM_WO_GEMV_MAX_M
            errors += list((modeled / measured - 1)[keep])
    return np.array(errors)


def wgmma_chain(gpu_name: str = "h100") -> float:
    """SM clocks per register-sourced wgmma of the sm90 weight-only loop (module doc): the value
    leaving ``weight_only_errors`` unbiased, by bisection (a longer interval, a slower model)."""
    return _bisect(lambda chain: -float(np.mean(weight_only_errors(chain, gpu_name))), 0.0, 400.0)


def profiler_overhead(max_m: int = 4) -> float:
    """Seconds TensorRT's per-layer profiler adds to a layer (module doc): relative least
    squares of the intercept alone on the A100 calibration rows it timed with M <= ``max_m``."""
    import lutcore.gpu as gpu
    from experiments.lut_tensor_core import _measured

    data = _load("aiconfigurator_a100_sxm.yaml")
    device, measured = [], []
    for entry in data["sets"]:
        if entry.get("timing") == "trt_layer_profiler":
            plain = {key: value for key, value in entry.items() if key != "timing"}
            _, _, seconds, modeled = _measured.gemm_points(data, plain, spec=gpu.A100)
            keep = np.array([point[0] for point in entry["points"]]) <= max_m
            device += list(modeled[keep])
            measured += list(seconds[keep])
    device, measured = np.array(device), np.array(measured)
    return relative_fit((1.0,), measured - device, measured)[0]


def quantize_round(max_m: int = 64) -> float:
    """Seconds per round of the FP8 quantize step's absolute-max blocks (module doc)."""
    import lutcore.gpu as gpu
    from experiments.lut_tensor_core import _measured
    from lutcore.gpu import _kernels

    data = _load("aiconfigurator_h100_sxm.yaml")
    rounds = _kernels.scale_rounds(gpu.H100)
    model, measured = [], []
    for entry in data["sets"]:
        if entry.get("act") == "fp8":
            _, _, seconds, modeled = _measured.gemm_points(data, entry)
            keep = np.array([point[0] for point in entry["points"]]) <= max_m
            model += list(modeled[keep] - rounds * _kernels.QUANTIZE_ROUND)
            measured += list(seconds[keep])
    model, measured = np.array(model), np.array(measured)
    return relative_fit((rounds,), measured - model, measured)[0]


def _with_efficiency(spec, act: str, fraction: float, library: str = ""):
    """``spec`` with the fraction of ``act`` (of ``library``'s kernels, if given) at
    ``fraction``."""
    if library:
        others = tuple(e for e in spec.library_efficiency if e[:2] != (library, act))
        return dataclasses.replace(spec, library_efficiency=others + ((library, act, fraction),))
    if act in ("fp16", "bf16"):
        return dataclasses.replace(spec, tensor_efficiency=fraction)
    others = tuple((d, f) for d, f in spec.dtype_efficiency if d != act)
    return dataclasses.replace(spec, dtype_efficiency=others + ((act, fraction),))


# Hugging Face eager's ATen kernels (lutcore.gpu._frameworks.HF_EAGER): the memory-bound
# operators of LLMServingSim's RTX 3090 layers at up to 16 tokens (a few KB a kernel: their
# time is the kernels' fixed time); the contiguous ones (norms, activation) set kernel_latency,
# the rotary's strided ones their own (eager_rotary)
EAGER_SET, EAGER_OPS, EAGER_TOKENS = ("llmservingsim_rtx3090.yaml",
                                      ("attention_norm", "ffn_norm", "activation"), 16)


def eager_errors(kernel_latency: float, ops: tuple = EAGER_OPS, **fields) -> np.ndarray:
    """Relative errors of the HF-eager operators ``ops`` (tokens <= ``EAGER_TOKENS``) of
    ``EAGER_SET`` with its ATen kernels' fixed time at ``kernel_latency`` (and the framework's
    other ``fields``)."""
    import lutcore.gpu as gpu
    from experiments.lut_tensor_core import _measured

    data = _load(EAGER_SET)
    entry, = data["sets"]
    framework = dataclasses.replace(gpu.FRAMEWORKS["hf_eager"], kernel_latency=kernel_latency,
                                    **fields)
    deployment = dataclasses.replace(_measured._deployment(entry), framework=framework)
    rows = np.array([p for p in entry["points"] if p[0] <= EAGER_TOKENS], float)
    parts = gpu.layer_breakdown(gpu.gpu_spec(data["device"]),
                                _measured._shape(entry["name"], entry["model"]), deployment,
                                gpu.workload(1, rows[:, 0]), launch=0.0)
    return np.concatenate([np.asarray(parts[op]) / rows[:, entry["columns"].index(op)] - 1
                           for op in ops])


def eager_kernel_latency() -> float:
    """The fixed device time of an eager ATen kernel leaving ``eager_errors`` unbiased."""
    return _bisect(lambda t: -float(np.mean(eager_errors(t))), 0.0, 1e-5)


def eager_attention_call(kernel_latency: float) -> float:
    """The device time transformers' attention call adds to its FMHA kernel: the value leaving
    its rows of ``EAGER_SET`` at up to ``EAGER_TOKENS`` tokens unbiased."""
    return _bisect(lambda t: -float(np.mean(eager_errors(kernel_latency, ("attention",),
                                                         attention_call=t))), 0.0, 1e-5)


EAGER_STREAM_TOKENS = 512  # rotary rows this long are issue-bound (the fixed time is < 25 %)


def eager_rotary() -> tuple[float, float]:
    """(strided_latency, operations): the fixed time of one of the eager rotary's strided ATen
    kernels (lutcore.gpu._frameworks.HF_EAGER) and their CUDA-core operations per element
    written (lutcore.gpu._operators.EAGER_STRIDED_OPERATIONS), the pair leaving the rotary rows
    of ``EAGER_SET`` unbiased both at up to ``EAGER_TOKENS`` tokens (the fixed time's rows) and
    at >= ``EAGER_STREAM_TOKENS`` (the issue's), each row priced as its kernels' fixed time plus
    ops x elements written / CUDA-core rate (issue-bound at every length: two linear equations)."""
    import lutcore.gpu as gpu
    from lutcore.gpu._operators import EAGER_ROTARY

    data = _load(EAGER_SET)
    entry, = data["sets"]
    model, spec = entry["model"], gpu.gpu_spec(data["device"])
    kernels, _, write = EAGER_ROTARY
    points = np.array(entry["points"], float)
    equations = []
    for rows in (points[points[:, 0] <= EAGER_TOKENS], points[points[:, 0] >= EAGER_STREAM_TOKENS]):
        measured = rows[:, entry["columns"].index("rotary_embedding")]
        written = (rows[:, 0] * (model["heads"] + model["kv_heads"]) * model["hidden"]
                   / model["heads"] * write)
        equations.append(((2 * kernels / measured).sum(),
                          (written / spec.vector_flops / measured).sum(), len(rows)))
    latency, operations = np.linalg.solve([e[:2] for e in equations], [e[2] for e in equations])
    return float(latency), float(operations)


# Sets timing FlashAttention-2's kernel alone, per architecture (lutcore.gpu._flash)
FLASH_SETS = {"hopper": "fa3_paper_h100.yaml"}


def flash_errors(architecture: str, round_seconds: float) -> np.ndarray:
    """Relative errors of the FlashAttention-2 rows of ``FLASH_SETS[architecture]`` with a
    round of the kernel's CTAs at ``round_seconds`` there."""
    import lutcore.gpu as gpu
    from experiments.lut_tensor_core import _measured

    data = _load(FLASH_SETS[architecture])
    flash = gpu.FRAMEWORKS["flash_attn"].flash
    kernel = dataclasses.replace(flash, round_seconds=(
        *((a, t) for a, t in flash.round_seconds if a != architecture),
        (architecture, round_seconds)))
    framework = dataclasses.replace(gpu.FRAMEWORKS["flash_attn"], flash=kernel)
    out = []
    for entry in data["sets"]:
        deployment = dataclasses.replace(_measured._deployment(entry), framework=framework)
        _, _, measured, modeled = _measured.attention_points(data, entry, deployment=deployment)
        out.append(modeled / measured - 1)
    return np.concatenate(out)


def flash_round_seconds(architecture: str) -> float:
    """The time of a round of FlashAttention-2's CTAs (``FlashKernel.round_seconds``) leaving
    its ``FLASH_SETS`` rows unbiased."""
    return _bisect(lambda t: -float(np.mean(flash_errors(architecture, t))), 0.0, 2e-5)


# The GPUs whose GEMM DRAM rate is fitted on their own L2-defeated GEMV-class GEMMs instead of
# the Vidur card's (module doc): GPU -> (set, format)
OWN_GEMV = {"a100": ("aiconfigurator_a100_sxm.yaml", "bf16")}


def gemv_errors(gpu_name: str, eta: float, max_m: int = 16) -> np.ndarray:
    """Relative errors of the tile model on the ``OWN_GEMV`` rows of ``gpu_name`` with
    M <= ``max_m`` (DRAM-bound GEMV-class GEMMs, priced as lut-fig16 prices them) with its GEMM
    DRAM fraction at ``eta``."""
    from experiments.lut_tensor_core import _measured

    name, act = OWN_GEMV[gpu_name]
    data = _load(name)
    spec = dataclasses.replace(_spec(gpu_name), gemv_dram_efficiency=eta)
    errors = []
    for entry in data["sets"]:
        if entry.get("act") == act:
            _, _, measured, modeled = _measured.gemm_points(data, entry, spec=spec)
            keep = np.array([point[0] for point in entry["points"]]) <= max_m
            errors += list((modeled / measured - 1)[keep])
    return np.array(errors)


def own_gemv_efficiency(gpu_name: str) -> float:
    """The GEMM DRAM fraction leaving ``gpu_name``'s own GEMV-class rows unbiased."""
    return _bisect(lambda eta: float(np.mean(gemv_errors(gpu_name, eta))), 0.3, 1.0)


def constants() -> dict:
    """{gpu: {field: value}} of the memory and all-reduce constants of every calibrated GPU."""
    memory = {g: memory_constants(g) for g in VIDUR}
    out = {gpu: {**memory[MEMORY_FROM[gpu]], **allreduce_constants(ALLREDUCE[gpu])}
           for gpu in MEMORY_FROM}
    for gpu in OWN_GEMV:
        out[gpu]["gemv_dram_efficiency"] = own_gemv_efficiency(gpu)
    return out


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    for gpu, values in constants().items():
        print(gpu, ", ".join(f"{k}={v:.4g}" for k, v in values.items()))
    print("input rates", ", ".join(f"{k}={v:.4f}" for k, v in input_rates().items()))
    fractions = tensor_efficiencies()
    for (gpu, dtype, library), fraction in fractions.items():
        print(gpu, dtype, library, f"efficiency={fraction:.4f}")
    print("a100 weight-only at M >= 1024 (check of best_shape)", f"bias={weight_only_bias():+.4f}")
    print("trt_layer_profiler", f"timing_overhead={profiler_overhead():.4g}")
    for gpu in WEIGHT_ONLY_SETS:
        print(gpu, f"wgmma_chain={wgmma_chain(gpu):.4g}")
    print("fp8 quantize step", f"round={quantize_round():.4g}")
    eager = eager_kernel_latency()
    print("hf_eager", f"kernel_latency={eager:.4g}",
          f"attention_call={eager_attention_call(eager):.4g}",
          "strided_latency={:.4g} rotary_operations={:.4g}".format(*eager_rotary()))
    for architecture in FLASH_SETS:
        print("flash_attention_2", architecture,
              f"round_seconds={flash_round_seconds(architecture):.4g}")
    for architecture in ATTENTION_SETS:
        print("tensorrt_llm", architecture, ", ".join(
            f"{k}={v:.4g}" for k, v in attention_constants(architecture).items()))
    clock = pcie_sustained_clock(fractions["a100", "fp16", ""])
    print("a100-pcie", f"sustained_clock_ghz={clock:.4f}")

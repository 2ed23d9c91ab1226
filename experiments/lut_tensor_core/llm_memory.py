"""Weight memory of the paper's LLMs by weight bit width, against the GPUs' memory (LUT Tensor
Core Sec. 2.1), with the paper's background statements on low-bit LLMs (Sec. 2.1, 5, 6).

Parameters are counted from the public shapes in ``lutcore.gpu.LLMS``: every decoder layer's
projection GEMMs (``layer_gemms``: fused QKV, output, FFN up/gate, FFN down) and the LM head,
plus the input embedding where the model does not tie it to the LM head (LLaMA 2 and the other
LLaMA-architecture models; OPT and BLOOM tie them). Norms and biases (< 0.1 %) are left out.
Bytes at b-bit weights are parameters x b / 8; ternary weights take lutcore.lut's packing, 5
bits per 3 weights. GPU memory is ``lutcore.gpu``'s datasheet capacity.
"""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.gpu as gpu
import lutcore.lut as lut
from experiments import (
    ConfigError,
    Experiment,
    check_choice,
    markdown_table,
    paper_claim,
    reference,
)

ID = "lut-memory"
TITLE = "Weight memory of the LLMs by weight bits vs GPU memory (LUT Tensor Core Sec. 2.1)"
PAPER = "lut_tensor_core"
# the reference keys claims() states in the full run
CLAIMS = ("llama2_70b_fp16_memory", "exceeds_gpu_memory")
TIED = ("opt-175b", "bloom-176b")  # tie_word_embeddings in their public configs
MEMORY_TOLERANCE = 0.05  # the paper's "140GB" is a round figure


@dataclasses.dataclass(frozen=True)
class Config:
    """models: of ``lutcore.gpu.LLMS``; weights: weight formats ("fp16", "int1".."int8",
    "ternary"); gpus: of ``lutcore.gpu.GPUS``."""

    models: tuple[str, ...] = tuple(gpu.LLMS)
    weights: tuple[str, ...] = ("fp16", "int8", "int4", "int2", "ternary", "int1")
    gpus: tuple[str, ...] = ("a100", "h100")  # Sec. 2.1: "a modern GPU like NVIDIA A100 or H100"

    def __post_init__(self):
        bad = [m for m in self.models if m not in gpu.LLMS]
        if bad:
            raise ConfigError(f"models: {bad} unknown; allowed values: {', '.join(gpu.LLMS)}")
        bad = [w for w in self.weights if _bits(w) is None]
        if bad:
            raise ConfigError(f"weights: {bad} unknown; allowed values: fp16, int1..int8, "
                              "ternary")
        check_choice("gpus", self.gpus, tuple(gpu.GPUS))


def _bits(weights: str) -> float | None:
    """Bits per weight; ternary from the packing lutcore.lut implements (Eq. 8 per 3 weights)."""
    if weights == "ternary":
        return lut.tile_weight_bits(lut.LMMA(n=1, k=3, w_dtype="ternary")) / 3
    if weights == "fp16":
        return 16.0
    if weights.startswith("int") and weights[3:].isdigit() and 1 <= int(weights[3:]) <= 8:
        return float(weights[3:])
    return None


def parameters(name: str) -> int:
    """Weights of ``name``: layer projections x layers, LM head, untied input embedding."""
    model = gpu.llm_shape(name)
    *layer, head = gpu.layer_gemms(model, tokens=1)
    count = model.layers * sum(g.n * g.k for g in layer) + head.n * head.k
    return count + (0 if name in TIED else model.vocab * model.hidden)


def run(config: Config) -> xr.Dataset:
    params = np.array([parameters(m) for m in config.models], dtype=np.int64)
    bits = np.array([_bits(w) for w in config.weights])
    ds = xr.Dataset(
        {"parameters": ("model", params),
         "bits": ("weights", bits),
         "weight_bytes": (("model", "weights"), params[:, None] * bits[None, :] / 8),
         "gpu_memory": ("gpu", [float(gpu.gpu_spec(g).dram) for g in config.gpus])},
        coords={"model": list(config.models), "weights": list(config.weights),
                "gpu": list(config.gpus)})
    ds["parameters"].attrs = {"long_name": "weights (projections, LM head, untied embedding)",
                              "units": "1"}
    ds["bits"].attrs = {"long_name": "bits per weight", "units": "bit"}
    ds["weight_bytes"].attrs = {"long_name": "weight memory", "units": "B"}
    ds["gpu_memory"].attrs = {"long_name": "GPU memory (datasheet)", "units": "B"}
    return ds


def plot(ds: xr.Dataset):
    fig, ax = plt.subplots(figsize=(10, 4))
    x = np.arange(ds.sizes["model"])
    width = 0.8 / ds.sizes["weights"]
    for i, w in enumerate(ds.weights.values):
        ax.bar(x + i * width, ds.weight_bytes.sel(weights=w) / 1e9, width, label=str(w))
    for g in ds.gpu.values:
        ax.axhline(float(ds.gpu_memory.sel(gpu=g)) / 1e9, ls="--", color="k", lw=0.8)
        ax.text(x[-1] + 0.9, float(ds.gpu_memory.sel(gpu=g)) / 1e9, f" {g}", fontsize=8)
    ax.set_xticks(x + width * (ds.sizes["weights"] - 1) / 2, ds.model.values, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("weight memory (GB, log scale)")
    ax.set_title("LLM weights by weight bits; dashed: GPU memory", fontsize=10)
    ax.legend(fontsize=8, ncols=3)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    rows = [[str(m), f"{int(ds.parameters.sel(model=m)) / 1e9:.2f}",
             *[f"{float(ds.weight_bytes.sel(model=m, weights=w)) / 1e9:.1f}"
               for w in ds.weights.values]] for m in ds.model.values]
    gpus = ", ".join(f"{g} {float(ds.gpu_memory.sel(gpu=g)) / 1e9:.1f} GB"
                     for g in ds.gpu.values)
    return (f"Weight memory in GB (1e9 B); GPU memory: {gpus}.\n\n"
            + markdown_table(["model", "parameters (1e9)",
                              *[f"{w} ({float(b):.3g} bit)" for w, b in
                                zip(ds.weights.values, ds.bits.values)]],
                             rows, right=1 + ds.sizes["weights"]))


def claims(ds: xr.Dataset):
    module = EXPERIMENT
    if "llama2-70b" not in ds.model.values or "fp16" not in ds.weights.values:
        return []
    fp16 = float(ds.weight_bytes.sel(model="llama2-70b", weights="fp16"))
    paper = reference(PAPER, ID, "llama2_70b_fp16_memory").value
    ok = abs(fp16 / 1e9 / paper - 1) <= MEMORY_TOLERANCE
    memory = {str(g): float(ds.gpu_memory.sel(gpu=g)) for g in ds.gpu.values}
    return [
        paper_claim(module, "llama2_70b_fp16_memory",
                    ours=f"{int(ds.parameters.sel(model='llama2-70b')) / 1e9:.2f}e9 weights x 2 B "
                         f"= {fp16 / 1e9:.1f} GB ({fp16 / 2 ** 30:.1f} GiB)",
                    holds=ok, tolerance=f"within {MEMORY_TOLERANCE:.0%}",
                    ours_value=fp16 / 1e9, band=MEMORY_TOLERANCE,
                    deviation=f"{fp16 / 1e9 / paper - 1:+.1%}: the paper rounds 70B x 2 B"),
        paper_claim(module, "exceeds_gpu_memory",
                    ours=f"{fp16 / 1e9:.1f} GB vs " + ", ".join(
                        f"{g} {m / 1e9:.1f} GB ({fp16 / m:.2f}x)" for g, m in memory.items()),
                    holds=all(fp16 > m for m in memory.values()),
                    tolerance="more than each GPU's memory"),
    ]


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

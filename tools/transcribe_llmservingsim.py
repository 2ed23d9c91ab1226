"""Transcribe LLMServingSim's per-layer GPU profiles into experiments/reference/measured/.

LLMServingSim (casys-kaist/LLMServingSim) profiles every operator of a Hugging Face decoder
(its own copy of transformers' eager LlamaModel, llm_profile/models/llama.py, with a Timer
around each op) with the PyTorch profiler's record_function ranges, FP16
(llm_profile/profiler/layers/main.py: ``config.dtype = torch.float16``), 10 warm-up and 30
measured steps, and writes llm_profile/perf_models/<gpu>/<model>/tp<n>/layers.csv (layer_name,
input tokens, kv_cache, tp_size, latency in ns; one prompt of ``input`` tokens, nothing cached).
The ops are eager PyTorch: the projections are separate cuBLAS GEMMs (q, k, v; gate, up), the
RMSNorm is transformers' eager one (cast, pow, mean, rsqrt, two multiplies: several kernels),
rotary and SiLU x up are eager element-wise kernels.

Usage: python tools/transcribe_llmservingsim.py <LLMServingSim git dir> [--commit SHA]
(nothing is fetched). Writes llmservingsim_rtx3090.yaml (role calibration) and
llmservingsim_h100.yaml (role validation; roles fixed by issue 30 before any comparison):
Llama-3.1-8B at TP 1, the decoder-layer operators at the token counts of ``TOKENS``.
"""

from __future__ import annotations

import csv
import io

from snapshot import git, snapshot_args, write_measured

MODEL = "meta-llama/Llama-3.1-8B"
SHAPE = {"hidden": 4096, "ffn": 14336, "heads": 32, "kv_heads": 8, "gated": True,
         "tensor_parallel": 1}  # the model's config.json
TOKENS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024,
          1536, 2048)
# lutcore.gpu layer operator <- LLMServingSim layer names (summed: two GEMMs of one operator)
OPERATORS = {"attention_norm": ("input_layernorm",), "q_projection": ("q_proj",),
             "kv_projection": ("k_proj", "v_proj"), "rotary_embedding": ("rope",),
             "attention": ("attn",), "output_projection": ("o_proj",),
             "ffn_norm": ("post_layernorm",), "ffn_up": ("gate_proj", "up_proj"),
             "activation": ("act_fn",), "ffn_down": ("down_proj",)}
PROTOCOL = {
    "timing": "device",
    "method": "PyTorch profiler record_function ranges around each op, 10 warm-up and 30 "
              "measured steps (llm_profile/profiler/layers/main.py defaults); the CSV value "
              "per op, token count and TP degree",
    "dtype": "fp16",
    "library": "Hugging Face transformers eager Llama (LLMServingSim's llm_profile/models/"
               "llama.py), cuBLAS GEMMs",
    "clocks": "default application clocks (not stated)",
}
DEVICES = {"RTX3090": ("rtx3090", "calibration", "GeForce RTX 3090 24GB"),
           "H100": ("h100", "validation", "H100 (form factor not stated; device h100, SXM)")}


def transcribe(gitdir: str, commit: str, folder: str) -> dict:
    device, role, form = DEVICES[folder]
    path = f"llm_profile/perf_models/{folder}/{MODEL}/tp1/layers.csv"
    times: dict = {}
    for row in csv.DictReader(io.StringIO(git(gitdir, "show", f"{commit}:{path}"))):
        if int(row["kv_cache"]) == 0 and int(row["tp_size"]) == 1:
            times[(int(row["input"]), row["layer_name"])] = int(row["latency(ns)"]) * 1e-9
    points = [[t] + [round(sum(times[(t, name)] for name in names), 12)
                     for names in OPERATORS.values()] for t in TOKENS]
    return {"source": f"casys-kaist/LLMServingSim@{commit}", "file": path,
            "citation": ("J. Cho et al., LLMServingSim: A HW/SW Co-Simulation Infrastructure for "
                         "LLM Inference Serving at Scale, IISWC 2024; llm_profile layer profiles"),
            "role": role, "device": device, "form_factor": form, "protocol": PROTOCOL,
            "sets": [{"name": "Llama-3.1-8B tp1 prefill", "kind": "layer_operators",
                      "file": path, "model": SHAPE,
                      "deployment": {"preset": "hf_eager"},
                      "columns": ["tokens"] + list(OPERATORS), "units": "seconds",
                      "points": points}]}


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    for folder, (device, _, _) in DEVICES.items():
        header = (f"# Transcribed by tools/transcribe_llmservingsim.py from "
                  f"casys-kaist/LLMServingSim@{commit}\n# (llm_profile/perf_models/{folder}/"
                  f"{MODEL}/tp1/layers.csv); do not edit by hand.\n")
        write_measured(f"llmservingsim_{device}.yaml", header,
                       transcribe(gitdir, commit, folder))


if __name__ == "__main__":
    main()

"""Transcribe Vidur's per-operator GPU profiles into experiments/reference/measured/.

Vidur (A. Agrawal et al., "Vidur: A Large-Scale Simulation Framework for LLM Inference",
MLSys 2024, github.com/microsoft/vidur) profiles every non-attention operator of one decoder
layer (sarathi-serve kernels: cuBLAS GEMMs, fused RMSNorm, rotary embedding, SiLU-and-mul,
residual add) in FP16, per model, tensor-parallel degree and token count, and publishes the
median kernel times in data/profiling/compute/<gpu>/<model>/mlp.csv.

Usage: python tools/transcribe_vidur.py <vidur git dir> [--commit SHA]
(the git dir of a clone or snapshot; nothing is fetched). Writes vidur_a100.yaml and
vidur_h100.yaml: for each LLaMA-family model (the architecture lutcore.gpu models: gated FFN,
rotary, pre-norm), tensor-parallel degree and token count of TOKENS, the operator medians in
seconds.
"""

from __future__ import annotations

import csv
import io
import subprocess

from snapshot import git, snapshot_args, write_measured

MODELS = ("meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-70b-hf", "meta-llama/Meta-Llama-3-8B",
          "meta-llama/Meta-Llama-3-70B", "codellama/CodeLlama-34b-Instruct-hf",
          "internlm/internlm-20b", "Qwen/Qwen-72B")
TOKENS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
# Vidur's operator names (CudaTimer / linear_metric_name) -> lutcore.gpu layer operators
OPERATORS = {"input_layernorm": "attention_norm", "attn_pre_proj": "qkv_projection",
             "attn_rope": "rotary_embedding", "attn_post_proj": "output_projection",
             "post_attention_layernorm": "ffn_norm", "mlp_up_proj": "ffn_up",
             "mlp_act": "activation", "mlp_down_proj": "ffn_down", "add": "ffn_residual"}
PROTOCOL = {
    "timing": "device",
    "method": "median over 20 active steps (after warm-up) of the CUDA kernel time of each "
              "operator's record_function range, read from the PyTorch (Kineto) profiler "
              "(vidur/profiling/mlp/main.py default --profile_method record_function; "
              "common/cuda_timer.py); launch gaps and host time excluded",
    "dtype": "fp16",
    "library": "sarathi-serve kernels on PyTorch (cuBLAS GEMMs via ColumnParallelLinear / "
               "RowParallelLinear; RMSNorm, rotary and SiLU-and-mul as sarathi-serve's scalar "
               "row kernels, csrc/*.cu: deployment row_kernels scalar; residual add: PyTorch)",
    "clocks": "default application clocks (not locked; not stated)",
}
# The GPU each profile folder was measured on. Vidur's docs/profiling.md: "For compute profiling,
# only the SKU matters not the network configuration of the node. So, we don't discriminate
# between a100_pair_nvlink (Azure Standard_NC96ads_A100_v4 with 4 A100s) and a100_dgx ... the
# same compute data is used in both in the folder called a100", a100_pair_nvlink being "4 80GB
# A100 PCIe GPUs"; commit 2bb7a08 added the Llama-3 A100 profiles "on a100_pairwise_nvlink ...
# only on 4xA100"; and the M = 1 projections (DRAM-bound) of Llama-2-70B and Llama-3-70B, which
# have the same shapes, agree within 1 % (an SXM4's 2,039 GB/s against a PCIe card's 1,935 would
# show as 5 %): the A100 folder is PCIe cards. The H100 folder is DGX H100 (README) and reaches
# 894 TFLOPS, above the H100 NVL's and PCIe's 835 / 756 TFLOPS peaks: SXM.
DEVICE = {"a100": "a100-pcie", "h100": "h100"}
FORM = {"a100": "A100 80GB PCIe, 300 W (Azure Standard_NC96ads_A100_v4: 4 cards, pairwise "
                "NVLink), see tools/transcribe_vidur.py for the evidence",
        "h100": "H100 80GB SXM5 (DGX H100)"}



def transcribe(gitdir: str, commit: str, gpu: str) -> dict:
    sets = []
    for model in MODELS:
        path = f"data/profiling/compute/{gpu}/{model}/mlp.csv"
        try:
            text = git(gitdir, "show", f"{commit}:{path}")
        except subprocess.CalledProcessError:
            continue  # not profiled on this GPU
        rows = list(csv.DictReader(io.StringIO(text)))
        first = rows[0]
        shape = {"hidden": int(first["n_embd"]), "ffn": int(first["n_expanded_embd"]),
                 "heads": int(first["n_head"]), "kv_heads": int(first["n_kv_head"]),
                 "gated": first["use_gated_mlp"] == "True"}
        for tp in sorted({int(r["num_tensor_parallel_workers"]) for r in rows}):
            points, seen = [], set()
            for row in rows:
                tokens = int(row["num_tokens"])
                if (int(row["num_tensor_parallel_workers"]) != tp or tokens not in TOKENS
                        or tokens in seen):
                    continue
                seen.add(tokens)  # the file repeats some token counts; keep the first row
                points.append([tokens] + [round(float(row[f"time_stats.{op}.median"]) * 1e-3,
                                                12) for op in OPERATORS])
            points.sort()
            sets.append({"name": f"{model.split('/')[1]} tp{tp}", "kind": "layer_operators",
                         "file": path, "model": dict(shape, tensor_parallel=tp),
                         "deployment": {"row_kernels": "scalar"},
                         "columns": ["tokens"] + list(OPERATORS.values()),
                         "units": "seconds", "points": points})
    return {"source": f"microsoft/vidur@{commit}",
            "citation": "A. Agrawal et al., Vidur: A Large-Scale Simulation Framework for LLM "
                        "Inference, MLSys 2024",
            "role": "calibration", "device": DEVICE[gpu], "form_factor": FORM[gpu],
            "protocol": PROTOCOL, "sets": sets}


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    for gpu in ("a100", "h100"):
        data = transcribe(gitdir, commit, gpu)
        header = (f"# Transcribed by tools/transcribe_vidur.py from microsoft/vidur@{commit}\n"
                  "# (data/profiling/compute/<gpu>/<model>/mlp.csv); do not edit by hand.\n")
        write_measured(f"vidur_{gpu}.yaml", header, data)


if __name__ == "__main__":
    main()

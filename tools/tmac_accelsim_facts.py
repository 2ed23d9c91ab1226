"""Read the facts of the LUT Tensor Core authors' Accel-Sim flow from a T-MAC snapshot and check
them against what ``experiments/reference/lut_tensor_core.yaml`` transcribes (run once; facts
only, no code is copied):

    python tools/tmac_accelsim_facts.py <T-MAC git dir or checkout> [commit]

The snapshot is public GitHub ``microsoft/T-MAC`` (tag ``LUTTensorCore_ISCA25``): the traced
CUTLASS kernel (lut-fig15 ``tile_shapes_int1_int8``) and the example simulator log (lut-fig16
``accel_sim_cost``). Prints every fact as ``repository@commit:path: fact`` and exits non-zero
if the reference file says otherwise.
"""

import pathlib
import re
import sys

from tmac_rtl_facts import COMMIT, read

from experiments import reference

KERNEL = "accel-sim/flow/cuda_source/cutlass_gemm_tcore.cu"
LOG = ("accel-sim/flow/log_example/a100_gemm_tensorcore_traces-sm80(2048x1,3456x8,2560)"
       "(64,64,32)(32,32,32)_2_hmma-CTA2-16-2.log")


def kernel_facts(cu: str) -> dict[str, object]:
    """The CUTLASS device GEMM the flow traces: its tile shapes, accumulator and stages."""
    code = re.sub(r"//[^\n]*", "", cu)
    gemm = re.search(r"using CutlassGemm = cutlass::gemm::device::Gemm<(.*?)>;", code, re.S)
    shapes = re.findall(r"GemmShape<([^>]*)>", gemm.group(1))
    return {
        "thread block tile": f"GemmShape<{shapes[0].strip()}>",
        "warp tile": f"GemmShape<{shapes[1].strip()}>",
        "instruction": f"GemmShape<{shapes[2].strip()}>",
        "ElementAccumulator": re.search(r"using ElementAccumulator = ([\w:]+);", code).group(1),
        "stages": int(re.search(r"ThreadblockSwizzle<>\s*,\s*(\d+)\s*$", gemm.group(1),
                                re.M).group(1)),
    }


def log_facts(log: str) -> dict[str, object]:
    """The simulator's rate and slowdown over the traced kernel."""
    return {
        "core clock (MHz)": float(re.search(r"^-gpgpu_clock_domains ([\d.]+):", log,
                                            re.M).group(1)),
        "gpu_sim_cycle": int(re.search(r"^gpu_sim_cycle = (\d+)", log, re.M).group(1)),
        "simulated cycles per second": int(
            re.search(r"gpgpu_simulation_rate = (\d+) \(cycle/sec\)", log).group(1)),
        "gpgpu_silicon_slowdown": int(re.search(r"gpgpu_silicon_slowdown = (\d+)x",
                                                log).group(1)),
    }


def main(repo: str, commit: str = COMMIT) -> int:
    root = pathlib.Path(repo)
    kernel, log = kernel_facts(read(root, commit, KERNEL)), log_facts(read(root, commit, LOG))
    for path, facts in ((KERNEL, kernel), (LOG, log)):
        for key, value in facts.items():
            print(f"microsoft/T-MAC@{commit}:{path}: {key} = {value}")
    wrong = []
    tile = reference("lut_tensor_core", "lut-fig15", "tile_shapes_int1_int8").source
    for fact in (kernel["thread block tile"], kernel["warp tile"], kernel["ElementAccumulator"],
                 f"{kernel['stages']} stages"):
        if fact not in tile:
            wrong.append(f"lut-fig15.tile_shapes_int1_int8 source lacks {fact!r}")
    cost = reference("lut_tensor_core", "lut-fig16", "accel_sim_cost")
    if cost.value["release_slowdown"] != log["gpgpu_silicon_slowdown"]:
        wrong.append(f"lut-fig16.accel_sim_cost release_slowdown "
                     f"{cost.value['release_slowdown']} != {log['gpgpu_silicon_slowdown']}")
    rate = log["core clock (MHz)"] * 1e6 / log["simulated cycles per second"]
    if abs(rate / log["gpgpu_silicon_slowdown"] - 1) > 1e-3:
        wrong.append(f"slowdown {log['gpgpu_silicon_slowdown']} is not clock / rate {rate:.0f}")
    for line in wrong:
        print(f"MISMATCH {line}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

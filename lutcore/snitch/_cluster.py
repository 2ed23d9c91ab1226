"""The Snitch cluster of the MiniFloat-NN paper: the parameters the cycle model uses.

Every constant carries its source. "paper" is Bertaccini et al., ARITH 2022 (MiniFloat-NN);
"snitch" is github.com/pulp-platform/snitch (read only), "Snitch paper" is Zaruba et al.,
"Snitch: A tiny pseudo dual-issue processor for area and energy efficient execution of
floating-point intensive workloads", IEEE TC 2021.
"""

from __future__ import annotations

import dataclasses

# Instruction classes: the four FPnew operation groups of the extended FPU (paper Sec. III-D),
# integer-core instructions, and explicit loads/stores.
FPU_CLASSES = ("addmul", "sdotp", "cast", "comp")
CLASSES = (*FPU_CLASSES, "int", "mem")


@dataclasses.dataclass(frozen=True)
class Cluster:
    """A Snitch cluster: cores, scratchpad and the FPU/core timing the kernels see.

    Latencies are pipeline-register counts per FPnew operation group; an instruction issued at
    cycle t writes back at t + regs, and a dependent instruction issues at t + regs + 1 (the
    FP subsystem's scoreboard clears on write-back, no bypass: snitch
    hw/ip/snitch_cluster/src/snitch_fp_ss.sv, ``sb_d``/``dst_ready``, which also stalls WAW).
    """

    cores: int = 8                   # paper Sec. IV, Fig. 6: eight compute PEs (+ 1 DMA core)
    tcdm_bytes: int = 128 * 1024     # paper Sec. IV: 128 kB shared scratchpad
    tcdm_banks: int = 32             # paper Sec. IV: 32 banks
    bank_bytes: int = 8              # snitch hw/system/snitch_cluster/cfg/cluster.hjson:
    #                                  data_width 64 (one 64-bit word per bank)
    regs_addmul: int = 3             # paper Sec. III-D/IV: 3 pipeline levels for ADDMUL
    regs_sdotp: int = 3              # paper Sec. III-D/IV: 3 for SDOTP (ExSdotp, ExVsum, Vsum)
    regs_cast: int = 2               # paper Sec. III-D/IV: 2 for CAST (conversions, vfcpk*)
    regs_comp: int = 1               # paper Sec. III-D/IV: 1 for COMP (sign injection, compare)
    regs_mem: int = 1                # FP store: one cycle through the FP LSU to the TCDM
    #                                  (Snitch paper Sec. 3: single-cycle TCDM access)
    sequencer_depth: int = 16        # cluster.hjson num_sequencer_instructions: 16 (FREP buffer,
    #                                  also holds the instructions queued behind a loop)
    offload_cycles: int = 1          # cluster.hjson register_offload_req: true (one register
    #                                  between the integer core and the FP subsystem)
    int_load_cycles: int = 2         # lw to use: 1-cycle TCDM + response register
    #                                  (cluster.hjson register_core_rsp: true)
    ssr_start_cycles: int = 2        # first streamed word: 1-cycle TCDM read + SSR data FIFO
    unroll: int = 8                  # snitch sw/applications/src/kernels/gemm.c: unroll = 8
    #                                  independent accumulators ("at least the FMA delay")

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int) or value < (0 if field.name.startswith("regs") else 1):
                raise ValueError(f"Cluster.{field.name} must be a positive integer "
                                 f"(pipeline registers >= 0); got {value!r}")

    def latency(self, cls: str) -> int:
        """Cycles from issue to the issue of a dependent instruction, for an FPU class."""
        return {"addmul": self.regs_addmul, "sdotp": self.regs_sdotp, "cast": self.regs_cast,
                "comp": self.regs_comp, "mem": self.regs_mem}[cls] + 1


SNITCH_CLUSTER = Cluster()

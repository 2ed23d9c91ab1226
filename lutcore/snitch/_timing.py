"""Cycle model of one Snitch core (integer core + FP subsystem) running a kernel program.

Two in-order pipelines, one instruction per cycle each (the Snitch paper's pseudo dual issue):

* the **integer core** issues every instruction of the program once: integer ones execute
  there, FP ones (and FP loads/stores) are offloaded to the FP sequencer, which holds at most
  ``sequencer_depth`` of them (a FREP body occupies its slots until its last repetition); the
  core stalls when the sequencer is full and on load-use.
* the **FPU** issues offloaded instructions in program order, FREP bodies ``count`` times, one
  per cycle, when its sources and destination are free (scoreboard: RAW and WAW, see
  ``Cluster``). SSR registers ft0/ft1 are readable from ``ssr_start_cycles`` after the SSRs are
  enabled; the streams then keep up (one 64-bit word per cycle per stream).

The model is a sequential scoreboard walk, so it is plain Python rather than JAX; one core is
simulated, since all cores run the same program on their own rows.

Assumption, not modelled: TCDM bank conflicts. Every core streams one B word per cycle and one
A word per 8 cycles into 32 banks (about 9 requests per cycle for 8 cores); conflicts would add
stall cycles that this model does not count.
"""

from __future__ import annotations

import collections
import functools
from typing import NamedTuple

from ._cluster import CLASSES, SNITCH_CLUSTER, Cluster
from ._kernels import (
    Frep,
    Instr,
    block_program,
    check_shape,
    fits_scratchpad,
    footprint_bytes,
    kernel_spec,
    row_program,
    setup_program,
)


class Profile(NamedTuple):
    """What a kernel costs on the cluster.

    cycles: cluster cycles from the kernel call to the last result stored (all cores run the
    same program in parallel, so this is one core's time), setup included. flop: the GEMM's
    2*M*N*K (an FMA counts 2 FLOP, an ExSdotp 4, paper Sec. IV). issued: instructions
    executed, summed over all cores, by class ("addmul", "sdotp", "cast", "comp": FPU
    operation groups; "int": integer core; "mem": explicit loads and stores); a FREP body
    counts once per repetition. ssr_words: 64-bit words the SSR streams read (all cores).
    compute_cycles: cycles one core issues body (FMA / ExSdotp) instructions; overhead_cycles =
    cycles - compute_cycles (setup, initialization, reduction tail, stalls).
    """

    kernel: str
    m: int
    n: int
    k: int
    cycles: int
    flop: int
    flop_per_cycle: float
    issued: dict
    ssr_words: int
    compute_cycles: int
    overhead_cycles: int
    fits: bool
    footprint_bytes: int


_HELD = 1 << 62   # release time of a FREP slot whose loop has not finished yet


class _Core:
    """The state of one core while it runs a program (see the module docstring)."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.core_t = 0                   # next cycle the integer core can issue
        self.fpu_t = 0                    # next cycle the FPU can issue
        self.ready: dict[str, int] = collections.defaultdict(int)
        self.slots: collections.deque[int] = collections.deque()   # sequencer release cycles
        self.issued = dict.fromkeys(CLASSES, 0)
        self.stream_reads = {"ft0": 0, "ft1": 0}
        self.end = 0

    def _core_issue(self, instr: Instr) -> int:
        t = max([self.core_t] + [self.ready[r] for r in instr.srcs])
        self.core_t = t + 1
        self.issued[instr.cls] += 1
        return t

    def integer(self, instr: Instr):
        t = self._core_issue(instr)
        if instr.dst:
            self.ready[instr.dst] = t + (self.cluster.int_load_cycles if instr.op == "lw" else 1)
        if instr.op == "csrsi":           # snrt_ssr_enable: the streams start fetching
            self.ready["ft0"] = self.ready["ft1"] = t + 1 + self.cluster.ssr_start_cycles

    def _push(self) -> int:
        """The cycle the core hands one FP instruction to the sequencer (waits for a slot)."""
        t = self.core_t
        if len(self.slots) == self.cluster.sequencer_depth:
            t = max(t, self.slots.popleft() + 1)
        self.core_t = t + 1
        return t + self.cluster.offload_cycles

    def _fpu_issue(self, instr: Instr, arrival: int) -> int:
        regs = instr.srcs + ((instr.dst,) if instr.dst else ())
        s = max([arrival, self.fpu_t] + [self.ready[r] for r in regs])
        self.fpu_t = s + 1
        latency = self.cluster.latency(instr.cls)
        if instr.dst:
            self.ready[instr.dst] = s + latency
        self.end = max(self.end, s + latency)
        self.issued[instr.cls] += 1
        for stream in ("ft0", "ft1"):
            self.stream_reads[stream] += stream in instr.srcs
        return s

    def fp(self, instr: Instr):
        self.slots.append(self._fpu_issue(instr, self._push()))

    def frep(self, loop: Frep):
        arrivals = []
        for _ in loop.body:   # each body instruction holds a slot until its last repetition
            arrivals.append(self._push())
            self.slots.append(_HELD)
        last = arrivals
        for rep in range(loop.count):
            last = [self._fpu_issue(instr, arrivals[i] if rep == 0 else 0)
                    for i, instr in enumerate(loop.body)]
        for _ in loop.body:
            self.slots.pop()
        self.slots.extend(last)

    def run(self, program):
        for item in program:
            if isinstance(item, Frep):
                self.frep(item)
            elif item.cls == "int" or item.op == "lw":
                self.integer(item)
            else:
                self.fp(item)

    @property
    def cycles(self) -> int:
        return max(self.core_t, self.fpu_t, self.end)


@functools.lru_cache(maxsize=1024)
def _profile(kernel: str, m: int, n: int, k: int, cluster: Cluster) -> Profile:
    spec = kernel_spec(kernel)
    check_shape(spec, m, n, k, cluster)
    if cluster.unroll >= cluster.sequencer_depth:
        raise ValueError(f"the FREP body of {cluster.unroll} instructions must leave room in the "
                         f"sequencer of depth {cluster.sequencer_depth}")
    core = _Core(cluster)
    core.run(setup_program(spec))
    block = block_program(spec, k, cluster.unroll)
    row = row_program(spec)
    for _ in range(m // cluster.cores):
        core.run(row)
        for _ in range(n // cluster.unroll):
            core.run(block)
    cores = cluster.cores
    blocks = (m // cores) * (n // cluster.unroll)
    body_per_core = blocks * cluster.unroll * (k // spec.values_per_word)
    flop = 2 * m * n * k
    cycles = core.cycles
    footprint = footprint_bytes(kernel, m, n, k)
    return Profile(
        kernel=kernel, m=m, n=n, k=k, cycles=cycles, flop=flop, flop_per_cycle=flop / cycles,
        issued={c: cores * v for c, v in core.issued.items()},
        ssr_words=cores * (core.stream_reads["ft1"] + core.stream_reads["ft0"] // cluster.unroll),
        compute_cycles=body_per_core, overhead_cycles=cycles - body_per_core,
        fits=fits_scratchpad(kernel, m, n, k, cluster), footprint_bytes=footprint)


def kernel_profile(kernel: str, m: int, n: int, k: int, *,
                   cluster: Cluster = SNITCH_CLUSTER) -> Profile:
    """Cycles, FLOP, instruction mix and scratchpad fit of ``kernel`` on C[m, n] = A[m, k] B[k, n].

    ``kernel``: one of ``KERNELS``. Shapes: m a multiple of the cores (8), n of the unroll (8),
    k of the values per 64-bit word. Raises ValueError otherwise, naming what is allowed. A
    GEMM that does not fit the scratchpad still gets its cycles, with ``fits=False``.
    """
    profile = _profile(kernel, m, n, k, cluster)
    return profile._replace(issued=dict(profile.issued))

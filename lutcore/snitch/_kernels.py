"""The GEMM kernels of the MiniFloat-NN paper (Sec. IV), as instruction programs per core.

Structure, as in snitch sw/applications/src/kernels/gemm.c (``gemm_fp64_opt``,
``gemm_fp32_opt``, ``gemm_fp16_opt``, ``gemm_fp16_ex_opt``, ``gemm_fp8_ex_opt``) and its driver
sw/applications/src/net_gemm.c (read only, not copied):

* C = A @ B with B stored transposed (N x K); core c computes the rows m = c, c + 8, ...
  (M / 8 rows each, ``ldA = compute_num * K``). A, B and C sit in the scratchpad, all three in
  the kernel's input format (``mat_C_size = M * N * dtype``).
* per row, N / 8 blocks of 8 outputs; each output has one accumulator register (unroll 8).
  SSR 0 streams A (each 64-bit word repeated 8 times), SSR 1 streams B^T; one FREP runs the 8
  accumulator instructions K / w times (w values per 64-bit word).
* the tail reduces the SIMD lanes of each accumulator (vfsum / vfsumex, after zeroing the
  destination with vfcpka), packs two results per vfcpk{a,b,c,d} (a conversion for FP16/FP8),
  and stores the packed words.

``fp8_simd_fma`` has no counterpart in that file: it is built the same way (vfmac.b, then
vfsumex.h.b, vfsumex.s.h, vfsum.s). ``fp8_fp16_exsdotp`` reduces with vfsumex.s.h and then
vfsum.s before packing (as snitch_cluster sw/kernels/blas/gemm/src/gemm_fp8.h
``gemm_fp8_baseline`` does); gemm.c's ``gemm_fp8_ex_opt`` packs right after vfsumex.s.h, which
keeps only lanes 0-1 of each accumulator.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from lutcore import _checks as check
from lutcore import numerics as nm

from ._cluster import SNITCH_CLUSTER, Cluster


class Instr(NamedTuple):
    """One instruction: mnemonic, class (see ``CLASSES``), destination and source registers.

    Registers: c0-c7 accumulators, r0-r7 reduction registers, ft0/ft1 the SSR streams (always
    readable once streaming), "zero" an FP register holding +0, "x*" integer registers.
    """

    op: str
    cls: str
    dst: str | None = None
    srcs: tuple[str, ...] = ()


class Frep(NamedTuple):
    """``frep.o``: the FP sequencer repeats ``body`` ``count`` times (issued once by the core)."""

    count: int
    body: tuple[Instr, ...]


# RISC-V FP instruction suffix per element width (D/F/Zfh, Xfvec's .b for 8 bits).
_SUFFIX = {64: "d", 32: "s", 16: "h", 8: "b"}
# Lane-reduction instructions and their FPU class (the paper's SDOTP unit runs Vsum and ExVsum).
_REDUCE = {
    "vfsumex.h.b": "sdotp",   # ExVsum FP8 -> FP16 (paper Eq. 5): 8 lanes -> 4
    "vfsumex.s.h": "sdotp",   # ExVsum FP16 -> FP32: 4 lanes -> 2
    "vfsum.s": "sdotp",       # Vsum FP32 (paper Eq. 6): 2 lanes -> 1
}


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    """One GEMM kernel. ``src``: format of A, B and C; ``acc``: accumulator lane format;
    ``lanes``: accumulator lanes per 64-bit register; ``body``: the FREP'd instruction;
    ``flop_per_body``: FLOP of one body instruction (FMA = 2, ExSdotp = 4 per lane, paper
    Sec. IV); ``reduce``: the lane-reduction chain of the tail."""

    name: str
    src: str
    acc: str
    body: str
    body_class: str
    lanes: int
    products_per_lane: int   # 1 for an FMA, 2 for an ExSdotp
    reduce: tuple[str, ...]
    first_step_mul: bool = False   # gemm_fp32_opt starts with vfmul.s outside the FREP

    @property
    def bytes(self) -> int:
        """Bytes per element of A, B and C."""
        return nm.FORMATS[self.src].nbytes

    @property
    def values_per_word(self) -> int:
        """Input values per 64-bit word: the K step of one body instruction."""
        return 8 // self.bytes

    @property
    def flop_per_body(self) -> int:
        return 2 * self.lanes * self.products_per_lane


KERNEL_SPECS: dict[str, KernelSpec] = {s.name: s for s in (
    KernelSpec("fp64_fma", "fp64", "fp64", "fmadd.d", "addmul", 1, 1, ()),
    KernelSpec("fp32_simd_fma", "fp32", "fp32", "vfmac.s", "addmul", 2, 1, ("vfsum.s",),
               first_step_mul=True),
    KernelSpec("fp16_simd_fma", "fp16", "fp16", "vfmac.h", "addmul", 4, 1,
               ("vfsumex.s.h", "vfsum.s")),
    KernelSpec("fp8_simd_fma", "fp8", "fp8", "vfmac.b", "addmul", 8, 1,
               ("vfsumex.h.b", "vfsumex.s.h", "vfsum.s")),
    KernelSpec("fp16_fp32_exsdotp", "fp16", "fp32", "vfdotpex.s.h", "sdotp", 2, 2,
               ("vfsum.s",)),
    KernelSpec("fp8_fp16_exsdotp", "fp8", "fp16", "vfdotpex.h.b", "sdotp", 4, 2,
               ("vfsumex.s.h", "vfsum.s")),
)}
KERNELS: tuple[str, ...] = tuple(KERNEL_SPECS)


def kernel_spec(kernel: str | KernelSpec) -> KernelSpec:
    """The spec of ``kernel`` (a ``KernelSpec`` as it is); a ValueError naming the allowed
    kernels otherwise."""
    return check.named(KERNEL_SPECS, kernel, what="kernel", record=KernelSpec)


def check_shape(spec: KernelSpec, m: int, n: int, k: int, cluster: Cluster) -> None:
    """The shapes the kernel handles: M rows split evenly over the cores, N in blocks of
    ``unroll`` outputs (the column clean-up of gemm.c is commented out), K in whole 64-bit
    words, and at least one FREP iteration (two K words for FP32, whose first is a vfmul)."""
    for name, value in (("m", m), ("n", n), ("k", k)):
        check.positive_int(name, value)
    words = 2 if spec.first_step_mul else 1
    problems = []
    if m % cluster.cores:
        problems.append(f"m={m} is not a multiple of the {cluster.cores} cores")
    if n % cluster.unroll:
        problems.append(f"n={n} is not a multiple of the unroll factor {cluster.unroll}")
    if k % spec.values_per_word or k < words * spec.values_per_word:
        problems.append(f"k={k} is not a multiple of {spec.values_per_word} values per 64-bit "
                        f"word (at least {words * spec.values_per_word})")
    if problems:
        raise ValueError(f"{spec.name}: " + "; ".join(problems))


def check_gemm(kernel: str, m: int, n: int, k: int, cluster: Cluster = SNITCH_CLUSTER) -> None:
    """ValueError unless ``kernel`` is known and runs an M x N x K GEMM (see ``check_shape``)."""
    check_shape(kernel_spec(kernel), m, n, k, cluster)


def footprint_bytes(kernel: str, m: int, n: int, k: int) -> int:
    """Scratchpad bytes of A (M x K), B (K x N) and C (M x N), all in the input format."""
    spec = kernel_spec(kernel)
    for name, value in (("m", m), ("n", n), ("k", k)):
        check.positive_int(name, value)
    return (m * k + k * n + m * n) * spec.bytes


def fits_scratchpad(kernel: str, m: int, n: int, k: int,
                    cluster: Cluster = SNITCH_CLUSTER) -> bool:
    """Whether A, B and C (``footprint_bytes``) fit the cluster's scratchpad (TCDM)."""
    return footprint_bytes(kernel, m, n, k) <= cluster.tcdm_bytes


# --------------------------------------------------------------------------------------------
# The per-core program. Integer-core instruction counts are read off the C sources above and
# the SSR runtime (snitch sw/snRuntime/src/ssr.h: one ``scfgwi`` per bound/stride/repeat/pointer
# write, bounds decremented, each stride after the first corrected by a mul and two adds).

def _ints(count: int, op: str = "alu") -> list[Instr]:
    return [Instr(op, "int")] * count


def _ssr_loop(dims: int) -> list[Instr]:
    """snrt_ssr_loop_{dims}d: dims bound decrements and writes, dims stride writes, and for
    every stride after the first a mul + add (the running offset) and a sub."""
    return (_ints(dims, "addi") + _ints(dims, "scfgwi") + _ints(dims, "scfgwi")
            + _ints(3 * (dims - 1), "alu"))


CALL_OVERHEAD_INSTRS = 8   # estimate: call, return, argument moves of the 11-argument kernel
SSR_PARAM_INSTRS = 6       # estimate: K / w, N / unroll, ldB * w, ldB * w * unroll, ldA * w
BLOCK_INT_INSTRS = 4       # C address, n += unroll, block counter, branch (gemm.c block loop)
ROW_INT_INSTRS = 3         # row counter, A row pointer, branch (gemm.c row loop)


def setup_program(spec: KernelSpec) -> list[Instr]:
    """Before the first block: call overhead, both SSR configurations (``setup_SSR``), the
    stream pointers, SSR enable, the FREP count and the FP zero register."""
    return (_ints(CALL_OVERHEAD_INSTRS, "call") + _ints(SSR_PARAM_INSTRS)
            + _ssr_loop(3) + _ints(2, "ssr_repeat")    # SSR 0: 3-D loop over A, repeat 8
            + _ssr_loop(4)                             # SSR 1: 4-D loop over B^T
            + _ints(2, "scfgwi") + _ints(1, "csrsi")   # snrt_ssr_read x2, snrt_ssr_enable
            + _ints(1, "addi")                         # n_frep
            + [Instr("fmv.w.x", "comp", "zero")])      # zero = 0.0, a move (FPnew NONCOMP)


def row_program(spec: KernelSpec) -> list[Instr]:
    """Per row: the loop bookkeeping; FP64/FP32 also disable and re-enable the SSRs around
    their (empty) column clean-up loop."""
    toggles = 2 if spec.src in ("fp64", "fp32") else 0
    return _ints(ROW_INT_INSTRS) + _ints(toggles, "csr")


def _regs(name: str, count: int) -> list[str]:
    return [f"{name}{i}" for i in range(count)]


def block_program(spec: KernelSpec, k: int, unroll: int) -> list[Instr | Frep]:
    """One block of ``unroll`` outputs: test ALPHA, zero the accumulators, FREP over K, the
    reduction and packing tail, the stores."""
    acc, red = _regs("c", unroll), _regs("r", unroll)
    prog: list[Instr | Frep] = [Instr("lw", "mem", "xalpha"), Instr("beqz", "int", None,
                                                                     ("xalpha",))]
    prog += _ints(BLOCK_INT_INSTRS)
    steps = k // spec.values_per_word
    body = tuple(Instr(spec.body, spec.body_class, c, (c, "ft0", "ft1")) for c in acc)
    if spec.src == "fp64":       # c[i] = 0.0: a register move from the zero register
        prog += [Instr("fmv.d", "comp", c, ("zero",)) for c in acc]
    elif spec.first_step_mul:    # vfmul.s c, ft1, ft0 for the first K word
        prog += [Instr("vfmul.s", "addmul", c, ("ft0", "ft1")) for c in acc]
        steps -= 1
    else:                        # vfcpka.s.s c, zero, zero
        prog += [Instr("vfcpka.s.s", "cast", c, ("zero",)) for c in acc]
    prog.append(Instr("frep.o", "int"))
    prog.append(Frep(steps, body))

    # Reduction: each stage zeroes its destinations, then sums the lanes into them.
    values, spare = acc, red
    for op in spec.reduce:
        prog += [Instr("vfcpka.s.s", "cast", r, ("zero",)) for r in spare]
        prog += [Instr(op, _REDUCE[op], r, (r, v)) for r, v in zip(spare, values)]
        values, spare = spare, values
    # Packing: two results per instruction; a, b, c, d fill the halves/quarters of a word.
    words = acc[:unroll * spec.bytes // 8]
    if spec.reduce:
        per_word = 8 // spec.bytes
        suffix = _SUFFIX[nm.FORMATS[spec.src].width]
        for i in range(0, unroll, 2):
            word, part = words[i // per_word], (i % per_word) // 2
            srcs = (values[i], values[i + 1]) + ((word,) if part else ())
            prog.append(Instr(f"vfcpk{'abcd'[part]}.{suffix}.s", "cast", word, srcs))
    prog += [Instr("fsd", "mem", None, (w,)) for w in words]
    return prog

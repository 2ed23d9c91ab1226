"""One instruction set for every job, so that no result depends on the CPU it ran on.

numpy dispatches its loops by the CPU's SIMD groups (its AVX-512 float64 log10 rounds some
values differently from the AVX2 one: a marker of lut-fig16's log-scale plot moved in the tenth
decimal), and XLA compiles for the host, contracting ``a * b + c`` into an FMA where the CPU has
one (some float64 model values then differ in the last bit from an FMA-less CPU's). Every job of
the pipeline therefore runs as on an AVX CPU without FMA, which every x86-64 CPU since 2011 is or
exceeds: the workflow sets the environment below before any job starts (``common.smk``), and
each script applies it again before numpy or JAX is imported, for runs outside Snakemake.

What a user set already is kept where it asks for less: the lower of two ``--xla_cpu_max_isa``
wins, and numpy's disabled groups are the union. Other architectures (aarch64) are not pinned.
"""

import os
import platform
import sys

# numpy 2.4's dispatched x86 groups above its X86_V2 baseline (numpy.show_runtime() lists them);
# a name a build does not dispatch is ignored with an ImportWarning, never an error.
NUMPY_DISABLED = ("X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR")
XLA_MAX_ISA = "AVX"  # 256-bit vectors, no FMA
# XLA's --xla_cpu_max_isa values from least to most (its CPU feature list, xla/backends/cpu)
XLA_ISAS = ("SSE4_2", "AVX", "AVX2", "AVX512", "AVX512_VNNI", "AVX512_BF16", "AMX", "AMX_INT8",
            "AMX_FP16")


def pinned(environ) -> dict[str, str]:
    """The variables to set over ``environ`` (a mapping) for a pinned job; {} off x86-64."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return {}
    disabled = environ.get("NPY_DISABLE_CPU_FEATURES", "").replace(",", " ").split()
    features = " ".join(disabled + [f for f in NUMPY_DISABLED if f not in disabled])
    flags = [f for f in environ.get("XLA_FLAGS", "").split()
             if not f.startswith("--xla_cpu_max_isa=") or _isa_rank(f) <= _isa_rank(XLA_MAX_ISA)]
    if not any(f.startswith("--xla_cpu_max_isa=") for f in flags):
        flags.append(f"--xla_cpu_max_isa={XLA_MAX_ISA}")
    return {"NPY_DISABLE_CPU_FEATURES": features, "XLA_FLAGS": " ".join(flags)}


def _isa_rank(flag: str) -> int:
    """Position of an ISA (or of a ``--xla_cpu_max_isa=`` flag's value) in XLA_ISAS; an unknown
    one ranks above all, so the pin replaces it."""
    name = flag.rpartition("=")[2].upper()
    return XLA_ISAS.index(name) if name in XLA_ISAS else len(XLA_ISAS)


def pin() -> None:
    """Pin this process; must run before numpy or JAX is imported (raises if either was)."""
    wanted = pinned(os.environ)
    if all(os.environ.get(k) == v for k, v in wanted.items()):
        return
    late = [m for m in ("numpy", "jax") if m in sys.modules]
    if late:
        raise RuntimeError(f"isa.pin() after {' and '.join(late)} was imported: the instruction "
                           "set can no longer be pinned; call it first")
    os.environ.update(wanted)


# A job whose compiled programs each run briefly (scalar models, small tables) spends more CPU
# compiling them than running them: config schedule.<preset>.light_compile names such jobs, which
# compile without LLVM's backend optimizations. IEEE arithmetic is the same at every level (XLA
# keeps each operation's rounding; the data of every such job were compared bit for bit).
LIGHT_COMPILE = "--xla_backend_optimization_level=0"


def light_compile() -> None:
    """Add LIGHT_COMPILE to XLA_FLAGS unless a level is set already (the user's is kept). XLA
    reads the flags when JAX's backend starts: call it before the process's first computation."""
    flags = os.environ.get("XLA_FLAGS", "").split()
    if not any(f.startswith("--xla_backend_optimization_level=") for f in flags):
        os.environ["XLA_FLAGS"] = " ".join(flags + [LIGHT_COMPILE])


def light_job(schedule: dict, job: str) -> bool:
    """Whether a preset's ``schedule`` compiles ``job`` (a batch's name or an experiment id) light:
    it, or the batch it is in, is listed under ``light_compile``."""
    batch = next((name for name, ids in schedule.get("batches", {}).items() if job in ids), job)
    return bool({job, batch} & set(schedule.get("light_compile", [])))


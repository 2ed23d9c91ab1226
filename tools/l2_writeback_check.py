"""Can a replacement policy of the L2 explain how many tensors LLMServingSim's eager SiLU x up
moves? An analysis: nothing here sets a constant.

Hugging Face's eager Llama MLP (LLMServingSim@9e3f0ec, llm_profile/models/llama.py) runs the
gate GEMM (writes G), the up GEMM (writes U), then, timed as ``activation``, SiLU (reads G,
writes S) and the multiply (reads S and U, writes A): five tensors of tokens x ffn FP16 each.
For every token count of the RTX 3090 set (calibration) and the H100 set (validation: where
to look, never a number to fit) it prints the tensors the two kernels moved at the streaming
DRAM rate (the measured time less twice the one-token row's per-kernel time, times
``GPUSpec.achievable_dram_bandwidth``, over one tensor's bytes) beside what a write-back L2 of
the spec's size moves in that window under two policies, each simulated line by line (chunks)
from the gate GEMM on (its weights streamed through, then G written; the same for U):
least-recently-used, and random replacement (a fluid model: each allocation evicts an equal
share of every line). A read miss and the write-back of an evicted dirty line cost DRAM bytes;
a write allocates without a read. Beside them, the model's own count the same way (its
modeled times less its one-token row's, ``_operators.EAGER_SWIGLU``: a read from the L2 when
its footprint fits there, every write to DRAM).

Usage: PYTHONPATH=. python tools/l2_writeback_check.py
"""

from __future__ import annotations

import collections

import numpy as np

from experiments.lut_tensor_core import _measured
from lutcore import gpu

SETS = ("llmservingsim_rtx3090.yaml", "llmservingsim_h100.yaml")
CHUNKS = 128  # lines of the simulation per tensor
FP16 = 2.0


class LRU:
    """A fully associative write-back LRU cache of ``size`` bytes over chunk keys."""

    def __init__(self, size):
        self.size, self.lines, self.used, self.dram = size, collections.OrderedDict(), 0.0, 0.0

    def _insert(self, key, nbytes, dirty):
        self.lines[key] = [nbytes, dirty]
        self.used += nbytes
        while self.used > self.size:
            _, (evicted, was_dirty) = self.lines.popitem(last=False)
            self.used -= evicted
            self.dram += evicted * was_dirty

    def read(self, key, nbytes):
        if key in self.lines:
            self.lines.move_to_end(key)
        else:
            self.dram += nbytes
            self._insert(key, nbytes, False)

    def write(self, key, nbytes):
        if key in self.lines:
            self.lines[key][1] = True
            self.lines.move_to_end(key)
        else:
            self._insert(key, nbytes, True)

    stream = read


class Random:
    """A write-back cache of ``size`` bytes with random replacement, as expected fractions:
    per chunk key, the probability it is resident and resident dirty."""

    def __init__(self, size):
        self.size, self.resident, self.dirty, self.nbytes, self.dram = size, {}, {}, {}, 0.0

    def _allocate(self, nbytes):
        share = min(nbytes / self.size, 1.0)
        self.dram += share * sum(self.dirty[k] * self.nbytes[k] for k in self.dirty)
        for key in self.resident:
            self.resident[key] *= 1.0 - share
            self.dirty[key] *= 1.0 - share

    def read(self, key, nbytes):
        miss = nbytes * (1.0 - self.resident.get(key, 0.0))
        self.dram += miss
        self._allocate(miss)
        self.resident[key], self.nbytes[key] = 1.0, nbytes
        self.dirty.setdefault(key, 0.0)

    def write(self, key, nbytes):
        self._allocate(nbytes * (1.0 - self.resident.get(key, 0.0)))
        self.resident[key], self.dirty[key], self.nbytes[key] = 1.0, 1.0, nbytes

    def stream(self, key, nbytes):
        """Clean data read once (a GEMM's weights): only what it evicts matters."""
        self.dram += nbytes
        self._allocate(nbytes)


def moved(cache, tokens: int, ffn: int, hidden: int) -> float:
    """Tensors of DRAM traffic in the SiLU and multiply kernels' window under ``cache``."""
    tensor = tokens * ffn * FP16
    chunk, weights = tensor / CHUNKS, ffn * hidden * FP16
    for gemm, out in (("w_gate", "G"), ("w_up", "U")):
        for i in range(4 * CHUNKS):  # the GEMM's weights stream through the L2
            cache.stream((gemm, i), weights / (4 * CHUNKS))
        for i in range(CHUNKS):
            cache.write((out, i), chunk)
    start = cache.dram
    for i in range(CHUNKS):  # SiLU
        cache.read(("G", i), chunk)
        cache.write(("S", i), chunk)
    for i in range(CHUNKS):  # x up
        cache.read(("S", i), chunk)
        cache.read(("U", i), chunk)
        cache.write(("A", i), chunk)
    return (cache.dram - start) / tensor


def main():
    for name in SETS:
        data = _measured.load(name)
        entry, = data["sets"]
        spec, model, columns = gpu.gpu_spec(data["device"]), entry["model"], entry["columns"]
        points = np.array(entry["points"], float)
        activation = points[:, columns.index("activation")]
        modeled = np.array([p.modeled for p in _measured.points(name)
                            if p.label.endswith(": activation")])
        print(f"{name} ({data['role']}; L2 {spec.l2 / 2 ** 20:.0f} MiB): tokens, tensor MiB, "
              f"tensors moved: measured, model, LRU, random replacement")
        for tokens, seconds, own in zip(points[:, 0].astype(int), activation, modeled):
            tensor = tokens * model["ffn"] * FP16
            # less the one-token row: two kernels with next to no data
            measured, ours = ((t - t0) * spec.achievable_dram_bandwidth / tensor
                              for t, t0 in ((seconds, activation[0]), (own, modeled[0])))
            lru, rnd = (moved(policy(spec.l2), tokens, model["ffn"], model["hidden"])
                        for policy in (LRU, Random))
            print(f"  T={tokens:5d} {tensor / 2 ** 20:6.1f}  {measured:5.2f}  {ours:5.2f}  "
                  f"{lru:5.2f}  {rnd:5.2f}")


if __name__ == "__main__":
    main()

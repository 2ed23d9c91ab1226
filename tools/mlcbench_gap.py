"""Where the BitBLAS authors' A100 kernel benchmarks (mlcbench_a100.yaml, validation) leave the
model, per set: an analysis, nothing here sets a constant.

Per set, the MAPE and bias on the card the rows ran on (the A100 80GB PCIe,
``tools/transcribe_mlcbench.py`` gives the evidence) beside what the same rows gave priced on the
400 W SXM4 module (the transcription's earlier rule), and, for the compute-bound rows (M = 8192),
the SM clock at which the set would be unbiased: the model's clock for the set's operand data
(``INPUT_RATE`` on the card's sustained clock) times the median modeled / measured time.
Sets whose rows share one card but imply different clocks point at what the clock depends on
beyond the operand kinds the model knows (accumulator width, data distribution, the kernel
picked): a place to look, never a number to fit (validation data).

Usage: PYTHONPATH=. python tools/mlcbench_gap.py
"""

from __future__ import annotations

import copy

import numpy as np

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured
from lutcore.gpu.blocks import INPUT_RATE

NAME = "mlcbench_a100.yaml"
COMPUTE_BOUND_M = 8192  # the sets' large-M rows (16384 for the one 16384^3 row)


def errors(data: dict) -> dict:
    """{set name: [(m, modeled / measured - 1), ...]} of the measured file ``data``."""
    out: dict = {}
    for point in _measured.points(NAME, data):
        m = int(point.label.rsplit(": ", 1)[1].split("x")[0])
        out.setdefault(point.set, []).append((m, point.modeled / point.measured - 1))
    return out


def main():
    data = _measured.load(NAME)
    module = copy.deepcopy(data)
    module["device"] = "a100"
    card = gpu.gpu_spec(data["device"])
    inputs = {entry["name"]: entry.get("inputs", "random") for entry in data["sets"]}
    on_module = errors(module)
    print(f"{NAME}: {data['device']} (sustained clock {card.sm_clock / 1e9:.4f} GHz) "
          "vs the a100 module; implied: the clock the M = 8192 rows would need")
    for name, rows in errors(data).items():
        error = np.array([e for _, e in rows])
        before = np.array([e for _, e in on_module[name]])
        line = (f"  {name:34s} {data['device']} MAPE {100 * np.abs(error).mean():5.1f} % bias "
                f"{100 * error.mean():+6.1f} %  | a100 {100 * np.abs(before).mean():5.1f} % "
                f"{100 * before.mean():+6.1f} %")
        large = [e for m, e in rows if m >= COMPUTE_BOUND_M]
        if large:
            clock = card.sm_clock * INPUT_RATE[inputs[name]] / 1e9
            line += (f"  | {inputs[name]:7s} model {clock:.3f} GHz, implied "
                     f"{clock * (1 + np.median(large)):.3f}")
        print(line)


if __name__ == "__main__":
    main()

"""Where LLMServingSim's eager Llama-3.1-8B operators leave the model, per operator kind: an
analysis, nothing here sets a constant.

For the H100 set (validation) and its RTX 3090 twin (calibration; the same profiler script),
the MAPE and bias of each operator column (norms, rotary, attention, activation, and the
projection GEMMs for reference), then, with ``--rows NAME``, every row of one column (tokens,
measured and modeled microseconds, error). The two GPUs side by side say whether a gap is the
H100's alone (validation only: a place to look, never a number to fit) or shows on the
calibration twin too (a structural miss the calibration set can inform).

Usage: PYTHONPATH=. python tools/operator_gap.py [--rows attention]
"""

from __future__ import annotations

import argparse

import numpy as np

from experiments.lut_tensor_core import _measured

SETS = ("llmservingsim_h100.yaml", "llmservingsim_rtx3090.yaml")


def by_operator(name: str) -> dict:
    """{operator column: [(tokens, measured s, modeled s), ...]} of the set ``name``."""
    out: dict = {}
    for point in _measured.points(name):
        title, operator = point.label.rsplit(": ", 1)
        tokens = int(title.rsplit("T=", 1)[1])
        out.setdefault(operator, []).append((tokens, point.measured, point.modeled))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", help="print every row of this operator column")
    args = parser.parse_args()
    for name in SETS:
        role = _measured.load(name)["role"]
        print(f"{name} ({role})")
        for operator, rows in by_operator(name).items():
            error = np.array([modeled / measured - 1 for _, measured, modeled in rows])
            print(f"  {operator:18s} rows {len(rows):3d}  MAPE {100 * np.abs(error).mean():5.1f} %"
                  f"  bias {100 * error.mean():+6.1f} %")
            if operator == args.rows:
                for tokens, measured, modeled in rows:
                    print(f"    T={tokens:5d}  {measured * 1e6:9.2f} us  {modeled * 1e6:9.2f} us"
                          f"  {100 * (modeled / measured - 1):+6.1f} %")


if __name__ == "__main__":
    main()

"""Snapshot of ``lutcore.ppa.tensor_core`` at today's ("full") accounting, for the regression
test that ``boundary="full"`` stays bit-identical to the accounting before the paper boundary.

Run at the commit whose numbers are the reference (first efc891f, before ``boundary`` existed;
rewritten when cell sums became explicitly ordered, ``_blocks.per_cell``, every value of the 228
designs within 5e-16 relative of efc891f's):

    PYTHONPATH=$PWD python3 tools/ppa_full_snapshot.py tests/data/ppa_full_snapshot.json

Per design (method, activation, weight, operand registers): the SHA-256 of the float64 bytes of
area, dynamic energy, leakage, delay and ops per cycle over every power-of-two M N K = 512 shape,
and the M2N64K4 values as hex floats (readable when the hash differs).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys

import numpy as np

import lutcore.ppa as ppa

FIELDS = ("area", "dynamic_energy", "leakage", "delay", "ops_per_cycle")
WEIGHTS = ("int1", "int2", "int4", "int8")


def designs():
    for method in ppa.METHODS:
        for act in ppa.ACTIVATIONS:
            weights = WEIGHTS + ((act,) if method == "mac" and act.startswith("fp") else ())
            for weight in weights:
                for registers in (True, False):
                    yield method, act, weight, registers


def snapshot(call) -> dict:
    """{key: {sha256, m2n64k4}} for every design; ``call(method, act, weight, m, n, k,
    registers)`` returns an ArrayPPA."""
    shapes = ppa.power_of_two_shapes(512)
    row = int(np.flatnonzero((shapes == (2, 64, 4)).all(axis=1))[0])
    out = {}
    for method, act, weight, registers in designs():
        cost = call(method, act, weight, *shapes.T, registers)
        values = np.stack([np.broadcast_to(np.asarray(getattr(cost, f), dtype=np.float64),
                                           (len(shapes),)) for f in FIELDS])
        out[f"{method}/{act}/{weight}/{int(registers)}"] = {
            "sha256": hashlib.sha256(values.tobytes()).hexdigest(),
            "m2n64k4": {f: float(v).hex() for f, v in zip(FIELDS, values[:, row])}}
    return out


if __name__ == "__main__":
    # the full accounting: the default before ``boundary`` existed, boundary="full" since
    full = ({"boundary": "full"} if "boundary" in inspect.signature(ppa.tensor_core).parameters
            else {})
    data = snapshot(lambda method, act, weight, m, n, k, registers: ppa.tensor_core(
        method, act, weight, m, n, k, operand_registers=registers, **full))
    with open(sys.argv[1], "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
        f.write("\n")
    print(len(data), "designs")

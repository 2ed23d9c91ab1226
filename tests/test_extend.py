"""Extending lutcore by records: a new design boundary, format, GPU and experiment, each added at
test time and run through the package's entry points."""

import dataclasses

import numpy as np

from lutcore import ppa


def test_a_boundary_is_a_record_and_a_new_one_is_priced_by_tensor_core():
    full = ppa.BOUNDARY["full"]
    by_name = ppa.tensor_core("unpu", "int8", "int2", 2, 8, 4, boundary="full")
    by_record = ppa.tensor_core("unpu", "int8", "int2", 2, 8, 4, boundary=full)
    np.testing.assert_array_equal(by_name.area, by_record.area)
    # a boundary whose units hold no operand registers: the full one with them left out
    bare = dataclasses.replace(full, name="bare", operand_registers=False)
    left_out = ppa.tensor_core("unpu", "int8", "int2", 2, 8, 4, boundary="full",
                               operand_registers=False)
    bare_cost = ppa.tensor_core("unpu", "int8", "int2", 2, 8, 4, boundary=bare)
    assert bare_cost.area < by_record.area
    # the bare record leaves the accumulators out too; the option keeps them
    acc_bits = 2 * 8 * 32
    np.testing.assert_allclose(
        left_out.parts["registers"].area() - bare_cost.parts["registers"].area(),
        acc_bits * ppa.library("nangate45").cell("DFF").area)

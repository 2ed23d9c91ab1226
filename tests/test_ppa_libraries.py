"""lutcore.ppa's cell libraries: the ASAP7 table against its liberty (an excerpt, through the
extraction script), the mapped cells, the 28nm yardstick, and pricing in either library."""

import importlib.util
import pathlib

import numpy as np
import pytest

import lutcore.ppa as ppa
from lutcore.ppa import _asap7, _cells

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXCERPT = ROOT / "tests" / "data" / "asap7_cells_excerpt.lib"


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("asap7_cells", ROOT / "tools" / "asap7_cells.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def excerpt():
    return EXCERPT.read_text()


@pytest.mark.parametrize("cell,raw", [("INVx1", _asap7.INVX1), ("NAND2x1", _asap7._RAW["NAND2"])])
def test_asap7_table_is_what_the_script_reads(tool, excerpt, cell, raw):
    block = tool.cell_block(excerpt, f"{cell}_ASAP7_75t_R")
    arcs = tool.arcs(block, tool.SLEW_PS, tool.LOAD_FF, 1.0)
    got = (float(tool.re.search(r"\barea\s*:\s*([\d.]+)", block).group(1)),
           tool.leakage_nw(block), max(arcs.values()),
           tool.energy(block, tool.SLEW_PS, tool.LOAD_FF, 1.0))
    # the table keeps the script's printed digits: area 5, leakage 4, delay 2, energy 4
    for value, table, digits in zip(got, raw, (5, 4, 2, 4)):
        assert abs(value - table) <= 0.5 * 10.0 ** -digits


def test_asap7_flip_flop_and_fo4(tool, excerpt):
    block = tool.cell_block(excerpt, "DFFHQNx1_ASAP7_75t_R")
    arcs = tool.arcs(block, tool.SLEW_PS, tool.LOAD_FF, 1.0)
    assert arcs["CLK->QN"] == pytest.approx(_asap7.DFF_CLK_TO_QN, abs=6e-3)
    assert arcs["setup:D"] == pytest.approx(_asap7.DFF_SETUP, abs=6e-3)
    assert tool.energy(block, tool.SLEW_PS, tool.LOAD_FF, 1.0) == pytest.approx(
        _asap7._RAW["DFF"][3], abs=6e-5)
    assert tool.fo4(EXCERPT, "INVx1_ASAP7_75t_R") == pytest.approx(_asap7.FO4, abs=6e-3)


def test_table_lookup_interpolates_bilinearly(tool):
    table = ('cell_rise (t) { index_1 ("10, 20"); index_2 ("1, 3"); '
             'values ("10, 30", "20, 60"); }')
    assert tool.lookup(table, 10, 1) == 10 and tool.lookup(table, 20, 3) == 60
    assert tool.lookup(table, 15, 2) == pytest.approx((10 + 30 + 20 + 60) / 4)


def test_asap7_cells_without_counterpart_are_mapped_as_stated():
    lib = ppa.library("asap7")
    inv = lib.cell("INV")
    ao22, fa, ha, dff = (_asap7._RAW[n] for n in ("AO22", "FA", "HA", "DFF"))
    mux = lib.cell("MUX2")  # AO22x1, select inverter shared by the word: its delay only
    assert (mux.area, mux.delay) == pytest.approx((ao22[0], ao22[2] + inv.delay))
    full = lib.cell("FA")  # FAx1 + two output inverters (ORFS's adder map)
    assert (full.area, full.leakage) == pytest.approx((fa[0] + 2 * inv.area,
                                                       fa[1] + 2 * inv.leakage))
    assert lib.fa_carry_delay == pytest.approx(_asap7.FA_CARRY + inv.delay)
    assert lib.cell("HA").area == pytest.approx(ha[0] + 2 * inv.area)
    assert lib.cell("DFF").area == pytest.approx(dff[0] + inv.area)
    assert lib.dff_clk_to_q == pytest.approx(_asap7.DFF_CLK_TO_QN + inv.delay)
    assert all(c.vdd == 0.7 and c.load_ff == 2.88 for c in lib.cells)


@pytest.mark.parametrize("name", ppa.LIBRARY_NAMES)
def test_library_table_is_consistent(name):
    lib = ppa.library(name)
    assert tuple(c.name for c in lib.cells) == _cells.NAMES
    for cell in lib.cells:
        assert cell.area > 0 and cell.leakage > 0 and cell.delay > 0
        assert cell.energy > cell.internal_energy
    assert lib.fa_carry_delay < lib.fa_sum_delay and lib.ha_carry_delay < lib.cell("HA").delay
    assert lib.source.count("@") == 1 and ":" in lib.source.split("@")[1]


def test_nangate45_is_the_default_and_unchanged():
    lib = ppa.library("nangate45")
    assert lib is _cells.NANGATE45 and ppa.LIBRARY_NAMES[0] == "nangate45"
    np.testing.assert_array_equal(lib.area, _cells.AREA)
    np.testing.assert_array_equal(lib.energy, _cells.ENERGY)
    assert tuple(lib.to_28nm) == (_cells.AREA_SCALE, _cells.DELAY_SCALE, _cells.ENERGY_SCALE,
                                  _cells.LEAKAGE_SCALE)
    cost = ppa.tensor_core("lut_tensor_core", "fp16", "int2", 2, 64, 4)
    same = ppa.tensor_core("lut_tensor_core", "fp16", "int2", 2, 64, 4, library="nangate45")
    for field in ("area", "dynamic_energy", "leakage", "delay"):
        assert float(getattr(cost, field)) == float(getattr(same, field))


def test_asap7_maps_onto_28nm_through_nanGate45s_yardstick():
    ng, a7 = ppa.library("nangate45"), ppa.library("asap7")
    # the GE, NAND2 energy and leakage and the FO4 land on NanGate45's 28nm values
    assert a7.ge_area * a7.to_28nm.area == pytest.approx(ng.ge_area * ng.to_28nm.area)
    assert a7.fo4 * a7.to_28nm.delay == pytest.approx(ng.fo4 * ng.to_28nm.delay)
    assert a7.cell("NAND2").energy * a7.to_28nm.energy == pytest.approx(
        ng.cell("NAND2").energy * ng.to_28nm.energy)
    # a unit's 28nm figures differ between the libraries only by their relative cell costs
    x = {name: ppa.metrics(ppa.tensor_core("mac", "int8", "int8", 1, 1, 4, library=name))
         for name in ppa.LIBRARY_NAMES}
    assert 0.5 < float(x["asap7"].area / x["nangate45"].area) < 2.0
    assert 0.5 < float(x["asap7"].delay / x["nangate45"].delay) < 2.0


@pytest.mark.parametrize("name", ppa.LIBRARY_NAMES)
def test_pricing_in_a_library_uses_its_cells(name):
    lib = ppa.library(name)
    cost = ppa.tensor_core("mac", "fp16", "fp16", 1, 1, 4, library=name)
    total = ppa.series(*cost.parts.values())
    assert float(cost.area) == pytest.approx(float(np.asarray(total.cells) @ lib.area))
    assert float(cost.leakage) == pytest.approx(float(np.asarray(total.cells) @ lib.leakage))
    assert float(ppa.kge(total, lib)) == pytest.approx(float(cost.area) / lib.ge_area / 1e3)
    native = f"{lib.node_nm:g}nm"
    at_native, at28 = ppa.metrics(cost, node=native), ppa.metrics(cost, node="28nm")
    assert float(at28.area / at_native.area) == pytest.approx(lib.to_28nm.area)
    with pytest.raises(ValueError, match=f"allowed values: '{native}', '28nm'"):
        ppa.metrics(cost, node="12nm")


def test_bad_library_name():
    with pytest.raises(ValueError, match="unknown library 'sky130'; allowed values: "
                                         "nangate45, asap7"):
        ppa.tensor_core("mac", "int8", "int8", 1, 1, 4, library="sky130")

"""The PPA experiments' shared mechanisms: one dataset per cell library, claims judged in
NanGate45 with ASAP7 beside (and a flip said), both power models, the closure report, and the
best shape among those that close. Small sweeps only (a few seconds)."""

import numpy as np
import pytest
import xarray as xr

import lutcore.ppa as ppa
from experiments import Claim
from experiments.lut_tensor_core import _ppa_sweep as sweeps
from experiments.lut_tensor_core._tc_area import closure_text

DESIGNS = [("mac", "int8", "int8"), ("lut_tensor_core", "int8", "int1")]
SHAPES = [(1, 1, 4), (2, 4, 4)]


def one_library(config, library):
    return sweeps.sweep(DESIGNS, SHAPES, library=library)


@pytest.fixture(scope="module")
def both():
    return sweeps.per_library(one_library, None)


def test_per_library_stacks_one_sweep_per_library(both):
    assert list(both.library.values) == list(sweeps.LIBRARIES) == ["nangate45", "asap7"]
    for library in sweeps.LIBRARIES:
        alone = sweeps.sweep(DESIGNS, SHAPES, library=library)
        one = both.sel(library=library)
        # the same coordinates in every library, the values of that library's own sweep
        assert list(one.design.values) == list(alone.design.values)
        assert list(one.boundary.values) == list(alone.boundary.values)
        np.testing.assert_array_equal(one.k.values, alone.k.values)
        np.testing.assert_array_equal(one.area.values, alone.area.values)
    # the libraries differ (ASAP7 is not NanGate45 relabelled)
    assert not np.allclose(both.area.sel(library="asap7"), both.area.sel(library="nangate45"))
    assert "NanGate45 1607 ps" in both.attrs["clock"] and "ASAP7" in both.attrs["clock"]


def test_sweep_prices_closed_designs_under_both_power_models():
    ds = sweeps.sweep(DESIGNS[1:], SHAPES[:1], boundaries=("paper",), library="asap7")
    cost = ppa.tensor_core("lut_tensor_core", "int8", "int1", 1, 1, 4, library="asap7",
                           clock_ghz=sweeps.CLOCK_GHZ)
    for field, activity in (("power", "dc_default"), ("power_random", "random")):
        want = ppa.metrics(cost, node=sweeps.NODE, freq_ghz=sweeps.FREQ_GHZ, activity=activity)
        assert float(ds[field].squeeze()) == pytest.approx(float(want.power), rel=1e-12)
    assert float(ds.grade.squeeze()) == int(cost.grade)
    assert float(ds.meets_timing.squeeze()) == float(cost.meets_timing)
    # the two models are different numbers: the table is not showing one twice
    assert float(ds.power.squeeze()) != pytest.approx(float(ds.power_random.squeeze()))


def claims_by_area(threshold):
    """Claims of a made-up statement: the MAC DP4's paper-boundary area (um^2 at 28nm) is
    under ``threshold``."""
    def claims_one(ds):
        area = float(ds.area.sel(boundary="paper", design="MAC W_INT8 A_INT8").isel(shape=0))
        area *= 1e6
        return [Claim(experiment="x", claim="small", paper="p", ours=f"{area:.0f} um^2",
                      holds=area < threshold)]
    return claims_one


def test_library_claims_name_both_libraries_and_a_flip(both):
    areas = [float(both.area.sel(library=x, boundary="paper", design="MAC W_INT8 A_INT8")
                   .isel(shape=0)) * 1e6 for x in ("nangate45", "asap7")]
    between = float(np.mean(areas))  # NanGate45 and ASAP7 fall on its two sides
    (claim,) = sweeps.library_claims(claims_by_area(between), both)
    assert claim.holds == (areas[0] < between)  # judged in NanGate45
    assert claim.ours.startswith(f"{areas[0]:.0f} um^2")
    other = "holds" if areas[1] < between else "deviates"
    assert (f"[ASAP7, beside (the verdict flips: {other} in ASAP7): {areas[1]:.0f} um^2]"
            in claim.ours)
    (claim,) = sweeps.library_claims(claims_by_area(10 * max(areas)), both)  # no flip
    assert claim.holds and "(holds there too)" in claim.ours and "flips" not in claim.ours


def test_library_tables_and_closure_note(both):
    text = sweeps.library_tables(lambda ds: f"<{float(ds.area.sum()):.6g}>", both)
    for library, label in sweeps.LIBRARY_LABELS.items():
        assert f"<{float(both.area.sel(library=library).sum()):.6g}>" in text
        for boundary in ("paper", "full"):
            assert f"{label}, {boundary} boundary:" in text
    assert text.index("**NanGate45** (judges the claims)") < text.index("**ASAP7** (beside)")
    # the grades the note names are the ones the sweep recorded
    one = both.sel(library="asap7", boundary="paper")
    for g in np.unique(one.grade.values[np.isfinite(one.grade.values)]).astype(int):
        grade = ppa.GRADES[g]
        assert f"{grade.adder}+{grade.multiplier}" in text


def test_closure_text_by_hand():
    ripple, brent = (ppa.GRADES.index(ppa.Grade(a, "array")) for a in ("ripple", "brent_kung"))
    found = {"MAC A_FP16": [{"grade": brent, "stages": 3, "meets_timing": 0}],
             "LUT A_INT8": [{"grade": ripple, "stages": 1, "meets_timing": 1}] * 2
             + [{"grade": brent, "stages": 1, "meets_timing": 1}]}
    g = {i: f"{ppa.GRADES[i].adder}+{ppa.GRADES[i].multiplier}" for i in (ripple, brent)}
    assert closure_text(found) == (
        f"cannot close (flagged), fastest {g[brent]}, 3 stages: MAC A_FP16 (1); "
        f"{g[ripple]}: LUT A_INT8 (2); {g[brent]}: LUT A_INT8 (1)")


def test_best_shapes_prefer_shapes_that_close():
    objective = np.array([[[1.0, 2.0, 3.0], [1.0, 2.0, np.nan]]])  # [boundary, design, shape]
    meets = np.array([[[0, 1, 1], [0, 0, 0]]])
    ds = xr.Dataset({"objective": (("boundary", "design", "shape"), objective),
                     "meets_timing": (("boundary", "design", "shape"), meets)},
                    coords={"boundary": ["paper"], "design": ["a", "b"]})
    # design a: the least objective among the shapes that close (not the cheaper flagged one);
    # design b: none closes, so the least objective of all (NaN: not buildable)
    assert sweeps.best_shapes(ds).values.tolist() == [[1, 0]]

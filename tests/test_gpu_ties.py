"""Near-ties of timed tactic choices (``_ties.timed_choice``, ``gemm_latency(tie_margin=...)``)
and how ``lut-fig16`` reports them (``tie_sensitive``, ``tie_errors``, ``summary``)."""

import hypothesis
import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
import xarray as xr

import lutcore.gpu as gpu
from experiments import ConfigError, get, make_config
from lutcore.gpu import _kernels
from lutcore.gpu._ties import timed_choice

FIG16 = get("lut-fig16")

# Three tactics timed at the choice's M (us): B is 0.5 % slower than A, C 20 % slower.
# Where the GEMM runs (another M) they take 20, 15 and 30 us.
AT, RUN = np.array([[10.0, 10.05, 12.0]]), np.array([[20.0, 15.0, 30.0]])


def test_hand_worked_tie_is_flagged_both_ways():
    """1 % margin: 10.05 < 10 x 1.01, so A and B tie; run at the other M, the tie's fastest is B
    (15 us) and its slowest A (20 us); C (12 > 10.1) is never taken."""
    assert int(timed_choice(AT, RUN)[0]) == 0  # the model's choice: the fastest where timed
    assert int(timed_choice(AT, RUN, (0.01, -1))[0]) == 1
    assert int(timed_choice(AT, RUN, (0.01, 1))[0]) == 0
    assert int(timed_choice(AT, RUN, (0.004, -1))[0]) == 0  # 0.5 % is outside a 0.4 % margin


def test_clear_non_tie_is_not_flagged():
    at = np.array([[10.0, 10.2, 12.0]])  # B 2 % slower: outside a 1 % margin
    for side in (1, -1):
        assert int(timed_choice(at, RUN, (0.01, side))[0]) == 0


def test_tie_never_takes_a_tactic_that_cannot_run():
    run = np.array([[20.0, np.inf, 30.0]])
    assert int(timed_choice(AT, run, (0.01, 1))[0]) == 0
    assert int(timed_choice(AT, run, (0.01, -1))[0]) == 0


@pytest.mark.parametrize("spec", [gpu.A100, gpu.H100], ids=["a100", "h100"])
def test_own_m_ties_move_a_gemm_by_less_than_the_margin(spec):
    """Chosen at the M it runs: the near-tied tactics are within the margin of the fastest, so
    the slowest of them moves the GEMM by less than it and the fastest is the model's choice."""
    m = np.array([1, 16, 128, 1000, 2048, 8192], float)
    n, k = 4096.0, 11008.0
    chosen = gpu.gemm_latency(spec, "cublas", m, n, k).seconds
    fast = gpu.gemm_latency(spec, "cublas", m, n, k, tie_margin=0.01, tie_side=-1).seconds
    slow = gpu.gemm_latency(spec, "cublas", m, n, k, tie_margin=0.01, tie_side=1).seconds
    np.testing.assert_array_equal(fast, chosen)
    assert np.all(slow >= chosen) and np.all(slow < chosen * 1.01)


def test_bad_tie_arguments_are_refused():
    with pytest.raises(ValueError, match="tie_margin"):
        gpu.gemm_latency(gpu.A100, "cublas", 128, 4096, 4096, tie_margin=-0.1)
    with pytest.raises(ValueError, match="tie_side"):
        gpu.gemm_latency(gpu.A100, "cublas", 128, 4096, 4096, tie_side=0)
    with pytest.raises(ValueError, match="tie_margin"):
        gpu.Deployment(tie_margin=float("nan"))


@pytest.mark.parametrize("margin", [0, 0.0, 1.0, -0.01, 2])
def test_fig16_refuses_a_bad_tie_margin(margin):
    with pytest.raises(ConfigError, match=r"tie_margin: .*allowed values: a fraction in \(0, 1\)"):
        make_config(FIG16, {"tie_margin": margin})


@pytest.mark.parametrize("margin", ["1 %", True, None, float("nan")])
def test_fig16_refuses_a_tie_margin_that_is_no_number(margin):
    with pytest.raises(ConfigError, match="tie_margin"):
        make_config(FIG16, {"tie_margin": margin})


def _ds(modeled, fast, slow, measured=100.0, margin=0.01):
    """A lut-fig16 dataset of validation e2e rows on one GPU."""
    rows = len(modeled)
    modeled, fast, slow = (np.array(x, float) for x in (modeled, fast, slow))
    measured = np.full(rows, measured)
    return xr.Dataset(
        {"measured": ("point", measured), "modeled": ("point", modeled),
         "modeled_tie_fast": ("point", fast), "modeled_tie_slow": ("point", slow),
         "error": ("point", (modeled - measured) / measured * 100),
         "tie_operators": ("point", ["ffn_down 11.5 -> 5.88 ms"] + [""] * (rows - 1))},
        coords={"point": [f"row {i}" for i in range(rows)],
                "role": ("point", ["validation"] * rows),
                "device": ("point", ["a100"] * rows), "category": ("point", ["e2e"] * rows),
                "source": ("point", ["s.yaml"] * rows), "set": ("point", ["s"] * rows)},
        attrs={"tie_margin": margin})


def test_fig16_hand_worked_tie_rows_and_mape_range():
    """Row 0: the engine's tie moves it from +40 % to +1 % (flagged); row 1: an own-M tie moves
    it by 0.5 % < 1 % (not flagged); row 2: no tie. MAPE 40, 0.5, 10 -> 16.83 %; with each row
    at its nearest value (1, 0.5, 10) 3.83 %, at its farthest (40, 1, 10) 17 %."""
    ds = _ds([140.0, 100.5, 90.0], [101.0, 100.5, 90.0], [140.0, 101.0, 90.0])
    np.testing.assert_array_equal(FIG16.module.tie_sensitive(ds), [True, False, False])
    (group,) = FIG16.module.summary(ds)
    assert group["tie_rows"] == 1
    assert group["mape"] == pytest.approx((40 + 0.5 + 10) / 3)
    assert group["tie_mape"] == pytest.approx(((1 + 0.5 + 10) / 3, (40 + 1 + 10) / 3))
    note = FIG16.module._tie_note(group)
    assert "1 tie-sensitive, 3.8-17.0 %" in note
    assert "inside its bound only on the other side" in note  # 16.8 % > 12 % >= 3.8 %
    table = FIG16.module.tie_table(ds)
    assert "row 0" in table and "row 1" not in table and "101.00 (+1.0 %)" in table
    assert "ffn_down 11.5 -> 5.88 ms" in table


def test_fig16_group_without_ties_gets_no_note():
    ds = _ds([105.0, 95.0], [105.0, 95.0], [105.0, 95.0])
    (group,) = FIG16.module.summary(ds)
    assert group["tie_rows"] == 0 and FIG16.module._tie_note(group) == ""


def test_tie_margin_zero_is_the_models_choice():
    hw = _kernels.hardware(gpu.A100, "cublas", "fp16", 16)
    work = _kernels.kernel_work("cublas", 16)._replace(selection="engine", tuned_at=2048.0)
    m = np.array([128.0, 2048.0])
    plain = gpu.blocks.tile_model(hw, m, 4096.0, 16384.0, work=work)
    zero = gpu.blocks.tile_model(hw, m, 4096.0, 16384.0, work=work, tie=(0.0, -1))
    for a, b in zip(plain, zero):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_tie_keeps_the_models_choice_where_it_cannot_run_and_none_is_tied():
    """The chosen tactic cannot run at the other M (infinite) and no other is within the
    margin: both sides keep it, as the model does."""
    at, run = np.array([[10.0, 12.0]]), np.array([[np.inf, 30.0]])
    for side in (1, -1):
        assert int(timed_choice(at, run, (0.01, side))[0]) == 0


@hypothesis.settings(max_examples=200, deadline=None)
@hypothesis.given(
    at=hnp.arrays(np.float64, 6, elements=st.floats(1.0, 2.0)),
    run=hnp.arrays(np.float64, 6, elements=st.floats(1.0, 100.0) | st.just(np.inf)),
    margin=st.floats(0.0, 0.5), side=st.sampled_from([1, -1]))
def test_tie_pick_is_a_tied_tactic_on_its_side(at, run, margin, side):
    """Against a plain-Python oracle: the pick is the fastest where timed or a tactic within the
    margin there that runs; it is no slower (side -1) / no faster (side 1) where it runs than
    the fastest's, and the best of the tie on its side; margin 0 is the fastest."""
    best = int(np.argmin(at))
    pick = int(timed_choice(at[None], run[None], (margin, side))[0])
    tied = [i for i in range(6) if i == best or (at[i] < at[best] * (1 + margin)
                                                 and np.isfinite(run[i]))]
    assert pick in tied
    assert side * run[pick] >= side * run[best]
    assert side * run[pick] == max(side * run[i] for i in tied)
    assert int(timed_choice(at[None], run[None], (0.0, side))[0]) == best

"""The LUT Tensor Core PPA experiments (Figs. 11-14, Tables 2-3) on small configs: data equal
independent lutcore.ppa calls, optima found by brute force, claims computed, config errors."""

import numpy as np
import pytest

import lutcore.ppa as ppa
from experiments import ConfigError, get, make_config

FIG11, FIG12, FIG13, FIG14, TABLE2, TABLE3 = (
    get(i) for i in ("lut-fig11", "lut-fig12", "lut-fig13", "lut-fig14", "lut-table2",
                     "lut-table3"))


def metric(method, act, weight, m, n, k, library="nangate45", **options):
    """The experiments' pricing: closed at 1 GHz, power under DC's default activity."""
    cost = ppa.tensor_core(method, act, weight, m, n, k, library=library, clock_ghz=1.0,
                           **options)
    return ppa.metrics(cost, activity="dc_default")


def test_fig11_density_and_peak():
    both = FIG11.run(make_config(FIG11, {"k_values": [2, 3, 4, 5], "activations": ["int8",
                                                                                    "fp16"]}))
    ds = both.sel(library="nangate45")
    for act in ("int8", "fp16"):
        design = ds.design.values[list(ds.activation.values).index(act)]
        for boundary in ppa.BOUNDARIES:
            want = [float(metric("lut_tensor_core", act, "int1", 1, 1, k,
                                 boundary=boundary).density) for k in (2, 3, 4, 5)]
            np.testing.assert_allclose(ds.density.sel(design=design, boundary=boundary), want)
        other = [float(metric("lut_tensor_core", act, "int1", 1, 1, k, accumulator="fp32"
                              if act == "fp16" else "int16").density) for k in (2, 3, 4, 5)]
        np.testing.assert_allclose(ds.density_other_acc.sel(design=design), other)
        kind = "fp" if act.startswith("fp") else "int"
        paper = ds.density.sel(boundary="paper")
        assert FIG11.module.peak_k(paper, ds, kind)[act] == (2, 3, 4, 5)[int(np.argmax(
            paper.sel(design=design).values))]
    claims = {c.claim: c for c in FIG11.claims(both)}
    assert set(claims) == {"int_peak_k", "fp_peak_k", "one_over_k_adders",
                           "fp_optimum_vs_released_accumulator"}
    # one accumulate per output and cycle serves K multiply-adds of 1-bit weights
    assert claims["one_over_k_adders"].holds
    assert "K=2 0.500, K=3 0.333, K=4 0.250, K=5 0.200" in claims["one_over_k_adders"].ours
    # the verdict follows the data: FP16 accumulation peaks off K = 5, FP32 at K = 5
    fp16 = ds.design.values[list(ds.activation.values).index("fp16")]
    narrow = int(ds.K[int(np.argmax(ds.density.sel(design=fp16, boundary="paper").values))])
    wide = int(ds.K[int(np.argmax(ds.density_other_acc.sel(design=fp16).values))])
    assert (claims["fp_optimum_vs_released_accumulator"].verdict == "paper-inconsistent") == \
        (narrow != 5 and wide == 5)


def test_fig12_units_and_claims():
    both = FIG12.run(make_config(FIG12, {"activations": ["fp16", "int8"], "array_size": 64}))
    ds = both.sel(library="nangate45")
    lut = ds.sel(design="LUT Tensor Core W_INT1 A_FP16")
    for boundary in ppa.BOUNDARIES:
        assert float(lut.density.sel(boundary=boundary)) == pytest.approx(float(metric(
            "lut_tensor_core", "fp16", "int1", 1, 1, 4, boundary=boundary).density))
    assert float(ds.throughput.sel(design="MAC W_FP16 A_FP16", boundary="paper")) == \
        pytest.approx(8e-3)
    best = ppa.best_arrays("mac", "fp16", "fp16", (64,), activity="dc_default",
                           clock_ghz=1.0)[0]
    assert float(ds.array_density.sel(boundary="paper", ratio_design="MAC W_FP16 A_FP16")) == \
        pytest.approx(best.metrics["density"], rel=1e-12)
    assert [c.claim for c in FIG12.claims(both)] == [
        "lut_fp16_density", "mac_fp16_density", "dp4_ratio_vs_array_ratio",
        "lut_most_power_efficient"]


def test_fig13_iso_throughput_area_and_crossovers():
    both = FIG13.run(make_config(FIG13, {"w_bits": [1, 2, 3, 4, 5]}))
    ds = both.sel(library="nangate45")
    for w in (1, 4):
        for boundary in ppa.BOUNDARIES:
            cost = metric("add", "fp16", f"int{w}", 1, 4, 4, boundary=boundary)
            assert float(ds.iso_area.sel(w_bits=w, unit="add", boundary=boundary)) == \
                pytest.approx(float(cost.area) * w * 1e6)
        own = metric("lut_conventional", "fp16", f"int{w}", 1, 4, 4, table_share=1)
        assert float(ds.conventional_own_table.sel(w_bits=w)) == pytest.approx(
            float(own.area) * w * 1e6)
    add = ds.iso_area.sel(unit="add", boundary="paper").values
    mac = ds.iso_area.sel(unit="mac", boundary="paper").values
    first_loss = next((w for w, a, m in zip(ds.w_bits.values, add, mac) if a >= m), None)
    assert FIG13.module.smaller_than_mac_up_to(ds, "add") == (first_loss or 6) - 1
    assert len(FIG13.claims(both)) == 3


def test_fig14_best_shapes_are_the_brute_force_optima():
    both = FIG14.run(make_config(FIG14, {"array_size": 64, "activations": ["int8"],
                                         "weights": ["int2"]}))
    ds = both.sel(library="nangate45")
    shapes = ppa.power_of_two_shapes(64)
    for boundary in ppa.BOUNDARIES:
        for method in FIG14.module.METHODS:
            values = []
            for m, n, k in shapes:
                if method == "lut_tensor_core" and k > 8:
                    values.append(np.inf)
                    continue
                x = metric(method, "int8", "int2", int(m), int(n), int(k), boundary=boundary)
                area, power = float(x.area), float(x.power)
                if boundary == "paper":  # the DSE sees the operand delivery
                    d = ppa.metrics(ppa.operand_delivery(method, "int8", "int2", int(m),
                                                         int(n), int(k)), activity="dc_default")
                    area, power = area + float(d.area), power + float(d.power)
                values.append(area * power)
            best = FIG14.module.panel_best(ds, boundary)[("int8", "int2")][method]
            assert (int(best.m), int(best.n), int(best.k)) == tuple(
                shapes[int(np.argmin(values))])
    claims = {c.claim: c for c in FIG14.claims(both)}
    assert list(claims) == ["lut_smallest", "exception_panel", "best_shape", "array_size_a100"]
    assert claims["exception_panel"].verdict == "paper-inconsistent"  # W_INT8 A_INT4 no panel
    assert "W_INT4 A_INT8 not in this run's panels" in claims["exception_panel"].ours


def test_table2_gains_are_ratios_of_the_best_points():
    both = TABLE2.run(make_config(TABLE2, {"array_size": 128}))
    ds = both.sel(library="nangate45")
    assert list(ds.method.values) == list(TABLE2.module.STEPS)
    for boundary in ppa.BOUNDARIES:
        one = ds.sel(boundary=boundary)
        assert float(one.density_gain[0]) == 1.0
        np.testing.assert_allclose(one.density_gain, one.density / one.density[0])
        # each step removes hardware, so at its best shape it is never worse than the step before
        assert np.all(np.diff(one.density_gain.values) >= 0)
    claims = {c.claim: c for c in TABLE2.claims(both)}
    assert claims["configuration_label"].verdict == "paper-inconsistent"
    assert claims["area_unit"].verdict == "paper-inconsistent"
    assert {"area_column", "power_column", "reinterpretation_gain"} <= set(claims)


def test_table3_row_is_computed_and_published_rows_are_listed():
    both = TABLE3.run(make_config(TABLE3, {"array_size": 64}))
    ds = both.sel(library="nangate45")
    text = TABLE3.table(both)
    assert "UNPU" in text and "FIGNA" in text and "28nm (model)" in text
    assert "NanGate45" in text and "ASAP7" in text and "Closure:" in text
    for boundary in ppa.BOUNDARIES:
        dp4 = float(ds.efficiency.sel(scope="DP4 unit", boundary=boundary))
        assert dp4 == pytest.approx(float(metric("lut_tensor_core", "int8", "int1", 1, 1, 4,
                                                 boundary=boundary).efficiency))
    assert ds.sizes["pair"] == 16  # FP/INT8, FP/INT16 x INT1-INT4
    assert [c.claim for c in TABLE3.claims(both)] == ["lut_tensor_core_pe_efficiency",
                                                    "lut_tensor_core_column"]


@pytest.mark.parametrize("module, params, key", [
    (FIG11, {"activations": ["fp12"]}, "activations"),
    (FIG11, {"k_values": [0, 4]}, "k_values"),
    (FIG12, {"weight": "int9"}, "weight"),
    (FIG13, {"activation": "bf16"}, "activation"),
    (FIG14, {"array_size": 500}, "array_size"),
    (TABLE2, {"weight": "fp16"}, "weight"),
    (TABLE3, {"activation": "int4"}, "activation"),
])
def test_config_errors_name_the_key(module, params, key):
    with pytest.raises(ConfigError, match=key):
        make_config(module, params)


SYNTH = get("lut-synth")


def test_synthesis_validation_reads_the_committed_cache():
    ds = SYNTH.run(make_config(SYNTH, {"designs": ["adder8", "mux8x16", "release_lut_dp4",
                                                   "release_lut_m2n8k4", "release_lut_m2n16k4"],
                                       "synthesize": False}))
    from lutcore.ppa import _cells
    # the synthesized area is the cells Yosys reported times their library areas, both flows
    np.testing.assert_allclose(ds.synth_area, ds.synth_cells.values @ _cells.AREA, rtol=1e-6)
    area, clock = (ds.model_area.sel(flow=f) for f in ("area", "clock"))
    assert float(area.sel(design="adder8")) == pytest.approx(8 * 4.256)
    # a mux tree is 7 x 16 MUX2 in the model; at the clock target the same (it fits)
    assert float(area.sel(design="mux8x16")) == pytest.approx(7 * 16 * 1.862)
    assert float(clock.sel(design="mux8x16")) == pytest.approx(7 * 16 * 1.862)
    np.testing.assert_allclose(ds.ratio, ds.model_area / ds.synth_area)
    assert list(ds.release_n.values) == [0, 0, 0, 8, 16]
    # the release's model is the paper boundary: unconstrained, and closed in one stage at 1 GHz
    for flow, options in (("area", {}), ("clock", {"clock_ghz": 1.0, "pipeline": False})):
        array = ppa.tensor_core("lut_tensor_core", "fp16", "int2", 2, 16, 4, boundary="paper",
                                **options)
        assert float(ds.model_area.sel(design="release_lut_m2n16k4", flow=flow)) == \
            pytest.approx(float(array.area))
        assert float(ds.model_path.sel(design="release_lut_m2n16k4", flow=flow)) == \
            pytest.approx(float(array.delay))
    claims = {c.claim: c for c in SYNTH.claims(ds)}
    sample = claims["model_within_15_percent_of_synthesis"]
    assert sample.holds == bool(np.all(np.abs(ds.ratio.sel(flow="area").values[:2] - 1)
                                       <= SYNTH.module.GOAL))
    release = claims["release_structure_within_15_percent"]
    assert release.holds == bool(np.all(np.abs(ds.ratio.sel(flow="area").values[2:] - 1)
                                        <= SYNTH.module.GOAL))
    assert "linear within" in release.ours
    closed = claims["closed_model_vs_clock_flow"]
    assert closed.verdict == "finding" and "both fit the target" in closed.ours
    clock = claims["closes_at_1ghz"]
    assert clock.holds == bool(np.all(ds.synth_path.sel(flow="clock").values[2:]
                                      <= ds.attrs["period_ps"]))
    assert "| release_lut_dp4 |" in SYNTH.table(ds)


def test_synthesis_validation_rejects_unknown_designs():
    with pytest.raises(ConfigError, match="designs"):
        make_config(SYNTH, {"designs": ["adder7"]})


def test_tensor_core_sizings():
    from experiments.lut_tensor_core._tc_area import SIZINGS, lut_sm_macs
    # 1x = 512 lookups (Fig. 15) or the A100 FP16 tensor core's 256 FMA (Table 1's footnote)
    assert SIZINGS == {"512-lookup": 512, "256-fma": 1024 // 4}
    assert lut_sm_macs(4) == 4 * 512 * 4 and lut_sm_macs(4, "256-fma") == 4 * 256 * 4
    with pytest.raises(ValueError, match="allowed values: 512-lookup, 256-fma"):
        lut_sm_macs(1, "1024")

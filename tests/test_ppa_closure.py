"""lutcore.ppa's timing closure (cheapest speed grade meeting a clock, pipelining only where none
does) and power under Design Compiler's default activity, by hand and by brute force."""

import itertools

import numpy as np
import pytest

import lutcore.ppa as ppa
from lutcore.ppa import _cells, _power, _timing

LIBS = ppa.LIBRARY_NAMES


def adder_unit(bits):
    return lambda blocks: blocks.adder(bits)


@pytest.mark.parametrize("library", LIBS)
def test_closure_picks_the_cheapest_grade_that_meets(library):
    lib = ppa.library(library)
    grades = [ppa.blocks.bind(lib, g.adder, g.multiplier) for g in ppa.GRADES]
    delays = sorted({float(b.adder(32).delay) for b in grades})
    for period in [*(d + 1e-6 for d in delays), delays[0] - 1.0]:
        closed = ppa.close(adder_unit(32), period, lib)
        # brute force: every grade, the least area among those that fit, ties to the first
        fits = [(float(b.adder(32).area(lib)), i) for i, b in enumerate(grades)
                if float(b.adder(32).delay) <= period]
        if fits:
            assert int(closed.grade) == min(fits)[1] and bool(closed.meets_timing)
        else:  # nothing fits: the fastest, flagged
            assert float(closed.value.delay) == delays[0] and not bool(closed.meets_timing)


def test_closure_by_hand_nangate45():
    # a 32-bit adder with carry-in (33 prefix columns), um^2 and ps:
    #   ripple: 32 FA = 136.2, 31 x 62.3 + 110.1 = 2041.4
    #   carry-select (blocks of 6): 58 FA + 31 MUX2 = 304.6, 685.3
    #   Brent-Kung: 58 nodes, 8 levels: 32 AND2 + 64 XOR2 + 58 AOI21 + 26 NAND2 = 218.7,
    #     52.3 + 8 x 28.1 + 52.3 = 329.4
    #   Kogge-Stone: 135 nodes, 6 levels: 362.0, 273.2
    lib = ppa.library("nangate45")
    brent_kung = ppa.prefix_adder(32, "brent_kung", lib)
    assert float(brent_kung.area(lib)) == pytest.approx(32 * 1.064 + 64 * 1.596 + 58 * 1.064
                                                        + 26 * 0.798)
    assert float(brent_kung.delay) == pytest.approx(52.3 + 8 * 28.1 + 52.3)

    def chosen(period):
        closed = ppa.close(adder_unit(32), period, lib)
        return ppa.GRADES[int(closed.grade)].adder, bool(closed.meets_timing)
    assert chosen(2100.0) == ("ripple", True)
    assert chosen(700.0) == ("brent_kung", True)  # carry-select fits too, but is larger
    assert chosen(300.0) == ("kogge_stone", True)
    assert chosen(200.0) == ("kogge_stone", False)


def test_choose_pipelined_by_hand():
    # three grades of one design: areas 10, 20, 30; paths 900, 600, 400; loops 300, 250, 200;
    # a cut costs 4; clock-to-Q + setup 100
    area, delay, loop = (np.array(x, float)[:, None] for x in ([10, 20, 30], [900, 600, 400],
                                                               [300, 250, 200]))
    grade, stages, meets = _timing.choose_pipelined(area, delay, loop, 4.0, 700.0, 100.0)
    assert (int(grade[0]), int(stages[0]), bool(meets[0])) == (1, 1, True)  # unpipelined fits
    # at 350 ps nothing fits unpipelined: grade 0 needs ceil(800 / 250) = 4 stages (10 + 3 * 4
    # = 22), grade 1 ceil(500 / 250) = 2 (20 + 4), grade 2 2 (30 + 4): grade 0
    grade, stages, meets = _timing.choose_pipelined(area, delay, loop, 4.0, 350.0, 100.0)
    assert (int(grade[0]), int(stages[0]), bool(meets[0])) == (0, 4, True)
    # at 280 ps grade 0's loop no longer fits: grade 1 at 3 stages (20 + 8) beats grade 2 at 2
    # stages (30 + 4)
    grade, stages, meets = _timing.choose_pipelined(area, delay, loop, 4.0, 280.0, 100.0)
    assert (int(grade[0]), int(stages[0]), bool(meets[0])) == (1, 3, True)
    # at 150 ps no loop fits: the fastest loop (grade 2), cut to its loop, flagged
    grade, stages, meets = _timing.choose_pipelined(area, delay, loop, 4.0, 150.0, 100.0)
    assert (int(grade[0]), int(stages[0]), bool(meets[0])) == (2, 3, False)


@pytest.mark.parametrize("library", LIBS)
def test_period_mapping(library):
    lib = ppa.library(library)
    period = ppa.period_ps(1.0, lib)
    assert period * lib.to_28nm.delay == pytest.approx(1000.0)
    assert float(ppa.node_delay_ps(period, lib)) == pytest.approx(1000.0)
    # 12nm worst case: by the paper's corner spread, then constant-field to 28nm
    worst = ppa.period_ps(1 / 3, lib, node_nm=12, worst_case=True)
    assert worst == pytest.approx(3000 / (1.26 / 0.95) * 28 / 12 / lib.to_28nm.delay)
    assert float(ppa.node_delay_ps(worst, lib, node_nm=12, worst_case=True)) == pytest.approx(
        3000.0)
    if library == "nangate45":
        assert period == pytest.approx(1000 * 45 / 28)
    with pytest.raises(ValueError, match="freq_ghz: 0.0 is not allowed; allowed values: finite "
                       "numbers > 0"):
        ppa.period_ps(0.0, lib)


@pytest.mark.parametrize("library", LIBS)
@pytest.mark.parametrize("boundary", ppa.BOUNDARIES)
@pytest.mark.parametrize("method,act,weight", [("mac", "int8", "int8"), ("mac", "fp16", "fp16"),
                                               ("add", "int8", "int2"),
                                               ("lut_tensor_core", "fp16", "int2"),
                                               ("unpu", "int8", "int4")])
def test_tensor_core_closure_per_design_point(library, method, act, weight, boundary):
    shapes = ppa.power_of_two_shapes(64, k_max=8)
    lib = ppa.library(library)
    loose = ppa.tensor_core(method, act, weight, *shapes.T, library=library, boundary=boundary)
    closed = ppa.tensor_core(method, act, weight, *shapes.T, library=library, clock_ghz=1.0,
                             boundary=boundary)
    x = ppa.metrics(closed)
    period = 1000.0
    meets = np.asarray(closed.meets_timing)
    assert np.array_equal(np.asarray(x.meets_timing), meets)
    assert np.all(np.asarray(x.delay)[meets] <= period + 1e-9)
    assert np.all(np.asarray(closed.area) >= np.asarray(loose.area) - 1e-9)
    # one point at a time: the same grades and stages (vectorization does not change choices)
    for i in (0, len(shapes) - 1):
        one = ppa.tensor_core(method, act, weight, *shapes[i], library=library, clock_ghz=1.0,
                              boundary=boundary)
        assert int(one.grade) == int(closed.grade[i])
        assert float(one.area) == pytest.approx(float(closed.area[i]))
    # pipelined only where no grade fits unpipelined, with the cut flip-flops in the registers:
    # one accumulator word per output (FP16 at the paper boundary for FP, else 32 bits)
    staged = np.asarray(closed.stages) > 1
    if staged.any():
        i = int(np.argmax(staged))
        every = [ppa.metrics(_grade_priced(method, act, weight, shapes[i], lib, g, boundary))
                 for g in ppa.GRADES]
        assert all(float(m.delay) > period for m in every)
        word = 16 if boundary == "paper" and act.startswith("fp") else 32
        cut = (int(closed.stages[i]) - 1) * shapes[i][0] * shapes[i][1] * word
        plain = _grade_priced(method, act, weight, shapes[i], lib, ppa.GRADES[int(
            closed.grade[i])], boundary)
        assert float(closed.area[i]) == pytest.approx(
            float(plain.area) + cut * lib.cell("DFF").area)


def test_the_accumulator_loop_is_the_boundary_accumulator():
    """The loop pipelining cannot cut: the adder in the boundary's accumulator format (the
    released FP16 adder behind its psum-or-result mux at the paper boundary; FP32 at full)."""
    from lutcore.ppa import _arrays
    lib = ppa.library("nangate45")
    overhead = lib.dff_clk_to_q + lib.dff_setup
    for boundary, adder in (("paper", ppa.fp_adder(5, 11)), ("full", ppa.fp_adder(8, 24))):
        spec = ppa.unit_spec("lut_tensor_core", "fp16", "int2", 2, 64, 4, boundary=boundary)
        built = _arrays.boundary_named(boundary).build("lut_tensor_core", spec)
        mux = lib.delay["MUX2"] if boundary == "paper" else 0.0
        priced = _arrays._priced(spec, built)
        assert float(priced.loop) == pytest.approx(float(adder.delay) + mux + overhead)


def _grade_priced(method, act, weight, shape, lib, grade, boundary):
    """The design under one grade, unconstrained (through the builders, not the closure)."""
    from lutcore.ppa import _arrays
    spec = ppa.unit_spec(method, act, weight, *shape, boundary=boundary, library=lib)
    spec = spec._replace(blocks=ppa.blocks.bind(lib, grade.adder, grade.multiplier))
    return _arrays.price(spec, _arrays.boundary_named(boundary).build(method, spec))


def test_a_slow_clock_keeps_the_textbook_design():
    for method, act, weight in [("mac", "fp16", "int4"), ("lut_tensor_core", "int8", "int2")]:
        loose = ppa.tensor_core(method, act, weight, 2, 16, 4)
        slow = ppa.tensor_core(method, act, weight, 2, 16, 4, clock_ghz=0.01)
        assert int(slow.grade) == 0 and int(slow.stages) == 1 and bool(slow.meets_timing)
        assert float(slow.area) == float(loose.area)
        assert float(slow.delay) == float(loose.delay)


def test_closed_fpu_units_meet_their_paper_clocks():
    for library in LIBS:
        lib = ppa.library(library)
        for unit in ppa.CLOSED_UNITS:
            closed = ppa.closed_unit(unit, "fp8", "fp16", library)
            clock = "exsdotp" if unit == "exsdotp" else "exfma"
            period = ppa.synthesis_period_ps(clock, lib) * (2 if unit == "exfma_cascade" else 1)
            assert float(closed.value.delay) <= period + 1e-9 and bool(closed.meets_timing)
            textbook = {"exsdotp": ppa.exsdotp_unit, "exfma": ppa.exfma_unit,
                        "exfma_cascade": ppa.exfma_cascade}[unit]("fp8", "fp16",
                                                                  blocks=ppa.blocks.bind(lib))
            assert float(closed.value.area(lib)) >= float(textbook.area(lib)) - 1e-9
    with pytest.raises(ValueError, match="allowed values: exsdotp, exfma, exfma_cascade"):
        ppa.closed_unit("fma", "fp8", "fp16")


# ---------------------------------------------------------------------------------------------
# Power under Design Compiler's default activity


def test_dc_default_toggles_by_hand():
    t = dict(zip(_cells.NAMES, ppa.DC_DEFAULT_TOGGLES))
    # inputs at 0.1 toggles/cycle, probability 1/2: a 2-input AND/NAND/OR/NOR output is
    # sensitive to each input half the time (0.1); XOR always (0.2); MUX2 to each data input
    # half the time and to its select when the data differ (0.15); AOI21 (A1 A2 + B)': A1 when
    # A2 and not B (1/4), A2 likewise, B when not A1 A2 (3/4): 0.125; AOI22: each input 3/8;
    # FA: sum 0.3, carry 0.15; HA: sum 0.2, carry 0.1; flip-flops are charged per clock
    expected = {"INV": 0.1, "BUF": 0.1, "NAND2": 0.1, "NOR2": 0.1, "AND2": 0.1, "OR2": 0.1,
                "XOR2": 0.2, "XNOR2": 0.2, "MUX2": 0.15, "AOI21": 0.125, "OAI21": 0.125,
                "AOI22": 0.15, "HA": 0.15, "FA": 0.225, "DFF": 0.0}
    assert t == pytest.approx(expected)


def test_transition_density_matches_enumeration():
    # brute force over two cycles of independent inputs that toggle with probability 0.1
    def xor3(a, b, c):
        return a ^ b ^ c
    p_toggle, total = 0.1, 0.0
    for before in itertools.product((0, 1), repeat=3):
        for flips in itertools.product((0, 1), repeat=3):
            after = tuple(x ^ f for x, f in zip(before, flips))
            weight = 0.5 ** 3 * np.prod([p_toggle if f else 1 - p_toggle for f in flips])
            total += weight * (xor3(*before) != xor3(*after))
    # Najm's density counts each input's toggles separately: for an XOR3 that is 0.3, the
    # exact two-cycle probability is 1 - (1 - P(odd flips)): both agree to first order
    assert _power.transition_density(xor3, 3, 0.1, 0.5) == pytest.approx(0.3)
    assert total == pytest.approx(0.3 - 3 * 2 * 0.1 ** 2 + 4 * 0.1 ** 3)


@pytest.mark.parametrize("library", LIBS)
def test_power_models_on_a_unit(library):
    lib = ppa.library(library)
    cost = ppa.tensor_core("lut_tensor_core", "fp16", "int2", 2, 64, 4, library=library)
    total = ppa.series(*cost.parts.values())
    cells = np.asarray(total.cells)
    dff = _cells.INDEX["DFF"]
    comb = cells.copy()
    comb[dff] = 0
    clocked = cells[dff] * lib.cell("DFF").energy
    assert float(cost.dynamic_energy) == pytest.approx(0.5 * comb @ lib.energy + clocked)
    assert float(cost.dc_default_energy) == pytest.approx(
        comb @ (ppa.DC_DEFAULT_TOGGLES * lib.energy) + clocked)
    random, dc = (ppa.metrics(cost, activity=a) for a in ppa.ACTIVITY_MODELS)
    assert float(dc.power) < float(random.power)
    assert float(dc.efficiency) > float(random.efficiency)
    assert float(dc.area) == float(random.area)
    with pytest.raises(ValueError, match="allowed values: random, dc_default"):
        ppa.metrics(cost, activity="saif")

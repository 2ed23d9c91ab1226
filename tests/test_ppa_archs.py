"""lutcore.ppa's faster architectures (_archs) against networks built node by node, bit-level
Booth/Dadda multiplication, and hand-worked counts; every architecture in both libraries."""

import itertools
import math
import random

import numpy as np
import pytest

import lutcore.ppa as ppa
from lutcore.ppa import _archs, _cells

LIBS = [ppa.library(name) for name in ppa.LIBRARY_NAMES]


def counts(cost):
    return {name: float(c) for name, c in zip(_cells.NAMES, np.asarray(cost.cells)) if c}


# ---------------------------------------------------------------------------------------------
# Prefix networks, built as graphs


def build_prefix(network: str, n: int):
    """(nodes, depth, drivers) of ``network`` over n columns, combining group spans node by
    node: each node joins [i : j] with [j - 1 : k]; depth is the longest path (as soon as both
    inputs are ready); drivers: {(level, column): nodes at that level it feeds}. Checks that
    every column ends with its full prefix [i : 0]."""
    span = {i: (i, i) for i in range(n)}
    ready = {i: 0 for i in range(n)}
    nodes, drivers = 0, {}

    def join(level, i, j):
        nonlocal nodes
        assert span[i][1] == span[j][0] + 1, (network, n, i, j)
        span[i] = (span[i][0], span[j][1])
        ready[i] = max(ready[i], ready[j]) + 1
        nodes += 1
        drivers[level, j] = drivers.get((level, j), 0) + 1

    levels = max(1, math.ceil(math.log2(n))) if n > 1 else 0
    if network == "kogge_stone":
        for level in range(1, levels + 1):
            d = 1 << (level - 1)
            before = dict(span), dict(ready)
            for i in range(n - 1, d - 1, -1):  # high to low: read the previous level's spans
                span_j, ready_j = before[0][i - d], before[1][i - d]
                assert span[i][1] == span_j[0] + 1
                span[i] = (span[i][0], span_j[1])
                ready[i] = max(ready[i], ready_j) + 1
                nodes += 1
    elif network == "sklansky":
        for level in range(1, levels + 1):
            half = 1 << (level - 1)
            for i in range(n):
                if i & half:
                    join(level, i, (i >> level << level) + half - 1)
    else:  # brent_kung
        for level in range(1, levels + 1):
            for i in range((1 << level) - 1, n, 1 << level):
                join(level, i, i - (1 << (level - 1)))
        for level in range(levels, 0, -1):
            for i in range((1 << level) + (1 << (level - 1)) - 1, n, 1 << level):
                join(-level, i, i - (1 << (level - 1)))
    assert all(span[i] == (i, 0) for i in range(n))
    return nodes, max(ready.values()), drivers


@pytest.mark.parametrize("network", list(_archs.PREFIX))
def test_prefix_networks_match_graphs_built_node_by_node(network):
    net = _archs.PREFIX[network]
    for n in range(1, 70):
        nodes, depth, _ = build_prefix(network, n)
        assert float(net.nodes(n)) == nodes, (network, n)
        assert float(net.depth(n)) == depth, (network, n)
    # vectorized over a design space
    widths = np.arange(1, 70)
    assert np.asarray(net.nodes(widths)).tolist() == [build_prefix(network, int(w))[0]
                                                       for w in widths]


def test_known_prefix_counts():
    # Harris' taxonomy, 16 columns: Kogge-Stone N log N - N + 1 = 49 nodes in 4 levels,
    # Sklansky N/2 log N = 32 in 4, Brent-Kung 2N - 2 - log N = 26 in 2 log N - 2 = 6 levels
    # (the rigid drawing's 7th level only delays column 11, which is ready after 4)
    assert [float(_archs.PREFIX[k].nodes(16)) for k in ("kogge_stone", "sklansky",
                                                         "brent_kung")] == [49, 32, 26]
    assert float(_archs.brent_kung_depth(16)) == 6


def buffers(fanout):
    """A net of fan-out f: a gate drives 2; beyond, ceil(f / 4) buffers, recursively."""
    total, levels = 0, 0
    while fanout > 2:
        fanout = math.ceil(fanout / 4)
        total, levels = total + fanout, levels + 1
    return total, levels


@pytest.mark.parametrize("nets", [1, 2])
def test_sklansky_buffers_follow_the_fanout_of_each_driver(nets):
    for n in range(2, 70):
        _, _, drivers = build_prefix("sklansky", n)
        # every driver feeds its block's upper half; a final driver (block 0) one net only
        total = sum((1 if (column + 1) == (1 << (level - 1)) else nets) * buffers(f)[0]
                    for (level, column), f in drivers.items())
        on_path = sum(max(buffers(f)[1] for (lv, _), f in drivers.items() if lv == level)
                      for level in {lv for lv, _ in drivers})
        model_total, model_path = _archs._sklansky_fanout(n, nets)
        assert (float(model_total), float(model_path)) == (total, on_path), n


# ---------------------------------------------------------------------------------------------
# Adders and incrementers


@pytest.mark.parametrize("lib", LIBS, ids=lambda lib: lib.name)
def test_prefix_adder_by_hand(lib):
    # 4-bit Kogge-Stone with carry-in: 5 columns, levels of 4, 3, 1 nodes = 8, of which the
    # 4 last of each column are gray (AOI21) and 4 black (AOI21 + NAND2); 4 AND2 + 4 XOR2 for
    # generate/propagate, 4 XOR2 for the sums; 3 levels deep
    cost = ppa.prefix_adder(4, "kogge_stone", lib)
    assert counts(cost) == {"AND2": 4, "XOR2": 8, "AOI21": 8, "NAND2": 4}
    d = lib.delay
    assert float(cost.delay) == pytest.approx(max(d["XOR2"], d["AND2"]) + 3 * max(
        d["AOI21"], d["OAI21"]) + d["XOR2"])


@pytest.mark.parametrize("lib", LIBS, ids=lambda lib: lib.name)
def test_carry_select_by_hand(lib):
    # 16 bits: blocks of 4; the first a 4-bit ripple, three blocks of two 4-bit ripples; 12 sum
    # muxes and 3 carry muxes; path: the first block's carry, 2 carry muxes, the sum mux
    cost = ppa.carry_select_adder(16, lib)
    assert counts(cost) == {"FA": 4 + 2 * 12, "MUX2": 12 + 3}
    t_c, t_s, t_m = lib.fa_carry_delay, lib.fa_sum_delay, lib.delay["MUX2"]
    assert float(cost.delay) == pytest.approx(max(4 * t_c + 2 * t_m, 3 * t_c + t_s) + t_m)
    # too narrow to split: a ripple adder
    assert counts(ppa.carry_select_adder(2, lib)) == {"FA": 2}
    inc = ppa.carry_select_incrementer(16, lib)
    assert counts(inc) == {"HA": 16, "MUX2": 12, "AND2": 3}


@pytest.mark.parametrize("network", list(_archs.PREFIX))
def test_prefix_incrementer_is_an_and_prefix(network):
    for bits in (1, 5, 8, 24):
        nodes, _, _ = build_prefix(network, bits)
        cost = ppa.prefix_incrementer(bits, network)
        assert counts(cost).get("NAND2", 0) == nodes
        assert counts(cost)["XOR2"] == bits


@pytest.mark.parametrize("lib", LIBS, ids=lambda lib: lib.name)
@pytest.mark.parametrize("adder", list(ppa.ADDERS))
def test_every_adder_is_at_least_as_large_and_no_slower_beyond_16_bits(lib, adder):
    blocks = ppa.blocks.bind(lib, adder)
    ripple = ppa.blocks.bind(lib)
    for bits in (16, 32, 64):
        fast, slow = blocks.adder(bits), ripple.adder(bits)
        assert float(fast.area(lib)) >= float(slow.area(lib))
        assert float(fast.delay) <= float(slow.delay)
        # an aligned addend's adder and the incrementer follow the architecture
        assert float(blocks.partial_adder(bits, bits // 2).delay) <= float(
            ripple.partial_adder(bits, bits // 2).delay)
        assert float(blocks.incrementer(bits).delay) <= float(ripple.incrementer(bits).delay)
    # vectorized: one call prices many widths
    widths = np.array([8, 17, 33])
    assert np.allclose(np.asarray(blocks.adder(widths).delay),
                       [float(blocks.adder(int(w)).delay) for w in widths])


# ---------------------------------------------------------------------------------------------
# Booth radix-4 with a Dadda tree, bit by bit


def booth_bits(x: int, y: int, n: int, m: int) -> list[tuple[int, int]]:
    """(column, bit) of the radix-4 Booth matrix of x (n bits) times y (m bits), product width
    n + m: selector bits (x_j one + x_(j-1) two) XOR neg, each negative-capable digit's neg at
    its weight and the complement of its sign above its row, the folded sign-extension
    constant's 1-bits (Weste & Harris §11.9.4)."""
    width, rows = n + m, m // 2 + 1
    yb = lambda i: (y >> i) & 1 if 0 <= i < m else 0
    xb = lambda j: (x >> j) & 1 if 0 <= j < n else 0
    bits, constant = [], 0
    for i in range(rows):
        hi, mid, lo = yb(2 * i + 1), yb(2 * i), yb(2 * i - 1)
        one, neg = mid ^ lo, hi
        two = (hi ^ mid) & (1 - one)
        bits += [(2 * i + j, ((xb(j) & one) | (xb(j - 1) & two)) ^ neg) for j in range(n + 1)]
        if i < rows - 1:
            bits += [(2 * i, neg), (2 * i + n + 1, 1 - neg)]
            constant -= 1 << (2 * i + n + 1)
        else:
            assert neg == 0  # an unsigned multiplier's top digit
    constant %= 1 << width
    bits += [(c, 1) for c in range(width) if constant >> c & 1]
    return [(c, b) for c, b in bits if c < width]


def dadda_bits(columns: list[list[int]]):
    """Reduce bit columns to two rows with Dadda's targets, evaluating every adder: (columns,
    full adders, half adders). Each stage's adders read only the column's bits present when it
    starts; the carries in from the column below pass to the next stage (Dadda 1965)."""
    full = half = 0
    targets = [2]
    while targets[-1] < max(map(len, columns)):
        targets.append(targets[-1] * 3 // 2)
    for target in reversed(targets[:-1]):
        if max(map(len, columns)) <= target:
            continue
        carries: list[int] = []
        out = []
        for column in columns:
            pool, kept, next_carries = list(column), list(carries), []  # carries pass
            while len(pool) + len(kept) > target:
                if len(pool) + len(kept) - target >= 2:
                    a, b, c = pool.pop(), pool.pop(), pool.pop()
                    kept.append(a ^ b ^ c)
                    next_carries.append((a & b) | (a & c) | (b & c))
                    full += 1
                else:
                    a, b = pool.pop(), pool.pop()
                    kept.append(a ^ b)
                    next_carries.append(a & b)
                    half += 1
            out.append(pool + kept)
            carries = next_carries
        columns = out
    return columns, full, half


@pytest.mark.parametrize("n,m", [(1, 1), (4, 4), (5, 3), (3, 6), (8, 8), (11, 11), (12, 7)])
def test_booth_dadda_multiplies_and_counts_its_adders(n, m):
    rng = random.Random(n * 100 + m)
    heights = ppa._archs.booth_heights(n, m)
    tree = ppa._archs.dadda(heights)
    pairs = set()
    for x, y in itertools.chain([(0, 0), (2 ** n - 1, 2 ** m - 1)],
                                ((rng.randrange(2 ** n), rng.randrange(2 ** m))
                                 for _ in range(60))):
        bits = booth_bits(x, y, n, m)
        assert sum(b << c for c, b in bits) % (1 << (n + m)) == x * y
        columns = [[b for c, b in bits if c == col] for col in range(n + m)]
        assert tuple(map(len, columns)) == heights
        reduced, full, half = dadda_bits(columns)
        assert (full, half) == (tree.full, tree.half)
        assert max(map(len, reduced)) <= 2
        assert sum(sum(col) << c for c, col in enumerate(reduced)) % (1 << (n + m)) == x * y
        pairs.add(next((c for c, col in enumerate(reduced) if len(col) == 2), n + m))
    assert pairs == {tree.first_pair}


@pytest.mark.parametrize("lib", LIBS, ids=lambda lib: lib.name)
def test_booth_dadda_cells_by_hand(lib):
    # 8 x 8: 5 digits, each 3 encoder gates and 9 selectors (AOI22 + XNOR2), 4 sign
    # complements; the encoder nets drive 9 selectors through 3 buffers each (9 -> 3 -> 1)
    adder = ppa.blocks.bind(lib, "brent_kung").adder
    tree = ppa._archs.dadda(ppa._archs.booth_heights(8, 8))
    cost = ppa.booth_dadda_multiplier(8, 8, adder, lib)
    final = adder(16 - tree.first_pair)
    expected = {"XOR2": 5, "XNOR2": 5 + 45, "NOR2": 5, "AOI22": 45, "INV": 4, "BUF": 5 * 3 * 4,
                "FA": tree.full, "HA": tree.half}
    for name, c in counts(final).items():
        expected[name] = expected.get(name, 0) + c
    assert counts(cost) == pytest.approx(expected)
    d = lib.delay
    assert float(cost.delay) == pytest.approx(
        d["XOR2"] + d["NOR2"] + 2 * d["BUF"] + d["AOI22"] + d["XNOR2"]
        + tree.stages * lib.fa_sum_delay + float(final.delay))
    # faster than the array from 8 bits on, in both libraries
    assert float(cost.delay) < float(ppa.array_multiplier(8, 8, lib).delay)


def test_blocks_reproduce_the_textbook_set():
    textbook, bound = ppa.TEXTBOOK, ppa.blocks.bind("nangate45", "ripple", "array")
    for make in (lambda b: b.adder(13), lambda b: b.multiplier(7, 5), lambda b: b.fp_adder(8, 24),
                 lambda b: b.int_to_fp(8, 5, 11), lambda b: b.incrementer(24),
                 lambda b: ppa.exsdotp_unit("fp16", "fp32", vsum=True, blocks=b)):
        a, b = make(textbook), make(bound)
        assert np.array_equal(np.asarray(a.cells), np.asarray(b.cells))
        assert float(a.delay) == float(b.delay)
    assert ppa.TEXTBOOK.architecture == "ripple+array"


def test_bad_architecture_names():
    with pytest.raises(ValueError, match="allowed values: ripple, carry_select, brent_kung"):
        ppa.blocks.bind("nangate45", "ripple_carry")
    with pytest.raises(ValueError, match="allowed values: array, booth_dadda"):
        ppa.blocks.bind("nangate45", "ripple", "wallace")
    with pytest.raises(ValueError, match="allowed values: nangate45, asap7"):
        ppa.blocks.bind("sky130")


def test_carry_select_blocks_by_hand_and_of_a_zero_bit_adder():
    with np.errstate(all="raise"):  # no 0/0 for the zero-bit adder
        k, blocks = _archs._blocks_of(np.array([0.0, 1.0, 16.0, 17.0]))
    np.testing.assert_array_equal(k, [0, 1, 4, 5])  # ceil(sqrt(bits))
    np.testing.assert_array_equal(blocks, [0, 1, 4, 4])  # ceil(bits / k): 17 / 5 -> 4
    assert not np.signbit(blocks).any()

"""Faster adders, incrementers and multipliers than the textbook ones of ``_blocks``, each with
its cell counts and path delay derived by hand (and checked in tests against networks built node
by node), so timing closure (``_timing``) can pick the cheapest that meets a clock.

Adders (n bits with carry-in and carry-out, like ``ripple_adder``):
- ``carry_select``: square-root blocks (Weste & Harris, CMOS VLSI Design 4th ed. §11.2.2.5):
  blocks of k = ceil(sqrt(n)) bits, B = ceil(n / k) blocks; the first a ripple adder, each other
  two ripple adders (carry-in 0 and 1) and a MUX2 per sum bit, one MUX2 per block carry.
  FA = 2n - k, MUX2 = (n - k) + (B - 1). Path: the first block's carry, B - 2 carry muxes (or a
  block's own sums, if later), the last sum mux: max(k t_c + (B-2) t_mux, (k-1) t_c + t_s)
  + t_mux.
- parallel-prefix (Weste & Harris §11.2.2.2-.8; Harris, "A taxonomy of parallel prefix
  networks", Asilomar 2003): bitwise generate g = a AND b and propagate p = a XOR b (n AND2, n
  XOR2); a prefix network over N = n + 1 columns (the carry-in is column -1); sums p XOR carry
  (n XOR2). Each column's last node only needs its group generate, a gray cell (AOI21); the
  others are black cells (AOI21 + NAND2). Levels alternate inverting polarity (AOI21/NAND2,
  then OAI21/NOR2: equal areas in both libraries), so a level costs the slower of AOI21, OAI21.
  Every prefix network has N - 1 gray cells. Networks over N columns, levels l = 1, 2, ...:
  * ``kogge_stone`` (Kogge & Stone, IEEE Trans. Computers 1973): level l combines every column
    i >= 2^(l-1) with column i - 2^(l-1): N - 2^(l-1) nodes, clog2(N) levels, fan-out 2.
  * ``sklansky`` (Sklansky, IRE Trans. EC 1960; divide and conquer): level l gives every column
    whose bit l-1 is set the group of the top column of the lower half of its 2^l block:
    floor(N / 2^l) 2^(l-1) + max(0, N mod 2^l - 2^(l-1)) nodes, clog2(N) levels, but that column
    drives up to 2^(l-1) nodes: its nets get buffer trees (``fanout_buffers``).
  * ``brent_kung`` (Brent & Kung, IEEE Trans. Computers 1982): an up-sweep (level l: columns
    k 2^l - 1, floor(N / 2^l) nodes) and a down-sweep (level l: columns k 2^l + 2^(l-1) - 1,
    k >= 1, floor((N - 2^(l-1)) / 2^l) nodes), about 2N nodes, fan-out 2. Column c's prefix
    is ready after floor(log2 m) + popcount(m) - 1 levels, m = c + 1 (each down-sweep step
    clears the lowest set bit of m), so the depth is the largest of these for m <= N (2 log2 N
    - 2 for N a power of two >= 4).
Incrementers (+1, rounding): ``carry_select`` (HA chains per block, a mux per bit of the later
blocks, an AND2 chain of block carries) and the prefix networks on AND alone (NAND2 nodes, no
gray cells), the sum bits XOR2.
Multiplier ``booth_dadda`` (unsigned n x m, m recoded; Weste & Harris §11.9.3-.4, Koren,
Computer Arithmetic Algorithms §6; MacSorley, Proc. IRE 1961; Dadda, Alta Frequenza 1965):
R = floor(m / 2) + 1 radix-4 digits, each encoded by XOR2, XNOR2, NOR2 (one, two; neg is a
weight bit); n + 1 selector bits per digit, AOI22 + XNOR2 each ((x_j one + x_(j-1) two) XOR
neg); the encoder's three nets drive n + 1 selectors through buffer trees; each digit but the
last (never negative) adds its neg bit at column 2i and the complement of its sign at column
2i + n + 1 (an INV), the sign extensions folded into one constant whose 1-bits join the matrix
(Weste & Harris §11.9.4); Dadda's reduction of the column heights to two rows with the fewest
adders (heights d_1 = 2, d_(j+1) = floor(1.5 d_j); per column, FAs while it exceeds the target
by 2 or more, a HA for 1), then a fast final adder over the columns that hold two bits. Path:
encoder, buffers, selector, one FA sum per Dadda stage, the final adder.

What DC does that these do not: gate sizing and buffering on the critical path only, mixing
architectures on one path (a fast adder where the path needs it, ripple elsewhere), sparse or
hybrid prefix trees, Booth with a carry-save final stage merged into the next adder.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .. import _checks as check
from ._blocks import Cost, clog2, gates, incrementer, ripple_adder, series, xp
from ._cells import NANGATE45, CellLibrary

LEVELS = 2.0 ** np.arange(1, 13)  # 2^l for prefix levels l = 1..12 (N <= 4096 columns)
MAX_COLUMNS = 4096
BUFFER_FANOUT = 4  # loads one buffer drives (as ``broadcast``); a gate drives 2 at its table point


def _columns(n):
    """(namespace, n as [..., 1] floats against the levels axis)."""
    ns = xp(n)
    return ns, ns.asarray(n, dtype=float)[..., None]


def kogge_stone_nodes(n):
    """Prefix nodes of a Kogge-Stone network over n columns."""
    ns, c = _columns(n)
    return ns.sum(ns.maximum(c - LEVELS / 2, 0.0), axis=-1)


def sklansky_nodes(n):
    """Prefix nodes of a Sklansky network over n columns."""
    ns, c = _columns(n)
    partial = ns.maximum(ns.mod(c, LEVELS) - LEVELS / 2, 0.0)
    return ns.sum(ns.floor(c / LEVELS) * LEVELS / 2 + partial, axis=-1)


def brent_kung_nodes(n):
    """Prefix nodes of a Brent-Kung network over n columns: up-sweep plus down-sweep."""
    ns, c = _columns(n)
    up = ns.floor(c / LEVELS)
    down = ns.maximum(ns.floor((c - LEVELS / 2) / LEVELS), 0.0)
    return ns.sum(up + down, axis=-1)


def _brent_kung_depth_table() -> np.ndarray:
    m = np.arange(1, MAX_COLUMNS + 1)
    popcount = np.array([bin(x).count("1") for x in m])
    ready = np.floor(np.log2(m)) + popcount - 1
    return np.concatenate([[0.0], np.maximum.accumulate(ready)])  # index: columns


BRENT_KUNG_DEPTH = _brent_kung_depth_table()


def brent_kung_depth(n):
    """Levels of a Brent-Kung network over n columns (``BRENT_KUNG_DEPTH[n]``)."""
    ns = xp(n)
    return ns.asarray(BRENT_KUNG_DEPTH)[ns.asarray(n).astype(int)]


def fanout_buffers(fanout):
    """(buffers, levels) for one net of ``fanout`` loads: a gate drives 2 at its table point;
    beyond, ceil(f / 4) buffers drive the loads and are themselves the net's loads, repeated."""
    ns = xp(fanout)
    f = ns.asarray(fanout, dtype=float)
    buffers, levels = ns.zeros_like(f), ns.zeros_like(f)
    for _ in range(6):  # fan-out up to 2 * 4^6
        more = f > 2
        f = ns.where(more, ns.ceil(f / BUFFER_FANOUT), f)
        buffers, levels = buffers + ns.where(more, f, 0.0), levels + more
    return buffers, levels


def _sklansky_fanout(n, nets):
    """(buffers over all driver nets, buffer levels on the critical path) of a Sklansky network
    over n columns: at level l each 2^l block's lower-half top column drives its upper half
    (2^(l-1) nodes; the last block fewer) with ``nets`` nets (an adder: generate and propagate;
    block 0's driver is final: generate only)."""
    ns, c = _columns(n)
    full = ns.floor(c / LEVELS)
    rest = ns.maximum(ns.mod(c, LEVELS) - LEVELS / 2, 0.0)
    per_full, _ = fanout_buffers(LEVELS / 2)
    per_rest, _ = fanout_buffers(rest)
    block0 = ns.where(full > 0, per_full, per_rest)  # one net fewer
    buffers = ns.sum(nets * (full * per_full + per_rest) - (nets - 1) * block0, axis=-1)
    _, path_levels = fanout_buffers(ns.minimum(LEVELS / 2, c - LEVELS / 2))
    on_path = ns.sum(ns.where(LEVELS / 2 < c, path_levels, 0.0), axis=-1)
    return buffers, on_path


class Prefix(NamedTuple):
    """A prefix network over n columns: nodes(n), depth(n) in levels, and fanout(n, nets) the
    buffers of its high-fan-out driver nets (``nets`` per driver) and the buffer levels on its
    critical path."""

    nodes: Callable
    depth: Callable
    fanout: Callable


def _no_fanout(n, nets):
    zero = xp(n).zeros(np.shape(n))
    return zero, zero


PREFIX = {
    "kogge_stone": Prefix(kogge_stone_nodes, clog2, _no_fanout),
    "sklansky": Prefix(sklansky_nodes, clog2, _sklansky_fanout),
    "brent_kung": Prefix(brent_kung_nodes, brent_kung_depth, _no_fanout),
}


@check.entry
def prefix_adder(bits, network: str, library: CellLibrary = NANGATE45) -> Cost:
    """bits-bit adder with carry-in on the ``network`` prefix tree (see the module docstring)."""
    check.integers("prefix_adder bits", bits, min=0)
    bits = xp(bits).asarray(bits, dtype=float)
    net = PREFIX[network]
    columns = bits + 1
    nodes = net.nodes(columns)
    buffers, buffer_levels = net.fanout(columns, 2)
    d = library.delay
    node_delay = max(d["AOI21"], d["OAI21"])
    delay = (max(d["XOR2"], d["AND2"]) + net.depth(columns) * node_delay
             + buffer_levels * d["BUF"] + d["XOR2"])
    return gates(AND2=bits, XOR2=2 * bits, AOI21=nodes, NAND2=nodes - (columns - 1),
                 BUF=buffers, delay=delay)


@check.entry
def prefix_incrementer(bits, network: str, library: CellLibrary = NANGATE45) -> Cost:
    """bits-bit +1: carries c_i = AND of the bits below i by a prefix network of NAND2/NOR2
    nodes over the bits columns, sums a_i XOR c_i."""
    check.integers("prefix_incrementer bits", bits, min=0)
    bits = xp(bits).asarray(bits, dtype=float)
    net = PREFIX[network]
    nodes = net.nodes(bits)
    buffers, buffer_levels = net.fanout(bits, 1)  # one net per driver (no generate)
    d = library.delay
    node_delay = max(d["NAND2"], d["NOR2"])
    delay = net.depth(bits) * node_delay + buffer_levels * d["BUF"] + d["XOR2"]
    return gates(NAND2=nodes, XOR2=bits, BUF=buffers, delay=delay)


def _blocks_of(bits):
    """(k, B): square-root block size and block count of a carry-select structure (0 and 0 for
    a zero-bit adder: no division by its zero block size)."""
    ns = xp(bits)
    k = ns.ceil(ns.sqrt(bits) - 1e-9)
    return k, ns.where(bits > 0, ns.ceil(bits / ns.maximum(k, 1) - 1e-9), 0.0)


@check.entry
def carry_select_adder(bits, library: CellLibrary = NANGATE45) -> Cost:
    """bits-bit carry-select adder with carry-in (module docstring)."""
    check.integers("carry_select_adder bits", bits, min=0)
    ns = xp(bits)
    bits = ns.asarray(bits, dtype=float)
    k, blocks = _blocks_of(bits)
    t_c, t_s, t_mux = library.fa_carry_delay, library.fa_sum_delay, library.delay["MUX2"]
    split = blocks > 1
    delay = ns.maximum(k * t_c + (blocks - 2) * t_mux, (k - 1) * t_c + t_s) + t_mux
    selected = gates(FA=2 * bits - k, MUX2=(bits - k) + (blocks - 1), delay=delay)
    return _where(split, selected, ripple_adder(bits, library))


@check.entry
def carry_select_incrementer(bits, library: CellLibrary = NANGATE45) -> Cost:
    """bits-bit +1 in carry-select blocks: an HA chain per block (its carry-out: the block is
    all ones), a MUX2 per bit of the later blocks choosing the block or the block + 1, an AND2
    chain of the block carries."""
    check.integers("carry_select_incrementer bits", bits, min=0)
    ns = xp(bits)
    bits = ns.asarray(bits, dtype=float)
    k, blocks = _blocks_of(bits)
    t_c, t_and, t_mux = library.ha_carry_delay, library.delay["AND2"], library.delay["MUX2"]
    delay = ns.maximum(k * t_c + (blocks - 2) * t_and,
                        (k - 1) * t_c + library.delay["HA"]) + t_mux
    selected = gates(HA=bits, MUX2=bits - k, AND2=blocks - 1, delay=delay)
    return _where(blocks > 1, selected, incrementer(bits, library))


def _where(condition, a: Cost, b: Cost) -> Cost:
    ns = xp(condition, a.cells, b.cells)
    condition = ns.asarray(condition)
    return Cost(ns.where(condition[..., None], a.cells, b.cells),
                ns.where(condition, a.delay, b.delay))


# ---------------------------------------------------------------------------------------------
# Booth radix-4 with a Dadda tree


def booth_rows(m_bits: int) -> int:
    """Radix-4 digits of an unsigned m-bit multiplier (a zero top bit keeps it positive)."""
    return m_bits // 2 + 1


@functools.cache
def booth_heights(n_bits: int, m_bits: int) -> tuple[int, ...]:
    """Column heights of the n x m radix-4 Booth partial-product matrix, product width n + m
    (module docstring): selector bits, neg bits, sign complements, the constant's 1-bits."""
    rows, width = booth_rows(m_bits), n_bits + m_bits
    heights = [0] * width
    constant = 0
    for i in range(rows):
        for column in range(2 * i, min(2 * i + n_bits + 1, width)):
            heights[column] += 1
        if i < rows - 1:  # the last digit is never negative
            heights[2 * i] += 1  # neg_i
            if 2 * i + n_bits + 1 < width:
                heights[2 * i + n_bits + 1] += 1  # complement of the sign
            constant -= 1 << (2 * i + n_bits + 1)
    constant %= 1 << width
    for column in range(width):
        heights[column] += constant >> column & 1
    return tuple(heights)


class Dadda(NamedTuple):
    """Full and half adders and stages of a Dadda reduction, and the first column that still
    holds two bits (the final adder spans it to the top)."""

    full: int
    half: int
    stages: int
    first_pair: int


@functools.cache
def dadda(heights: tuple[int, ...]) -> Dadda:
    """Dadda's reduction of a bit matrix with these column heights to two rows (module
    docstring); carries out of the top column are dropped (a product modulo 2^width)."""
    h = list(heights)
    targets = [2]
    while targets[-1] < max(h):
        targets.append(targets[-1] * 3 // 2)
    full = half = stages = 0
    for target in reversed(targets[:-1]):
        if max(h) <= target:
            continue
        stages += 1
        carries = 0
        for column in range(len(h)):
            total, out = h[column] + carries, 0
            while total > target:
                if total - target >= 2:
                    full, total = full + 1, total - 2
                else:
                    half, total = half + 1, total - 1
                out += 1
            h[column], carries = total, out
    pairs = [c for c, x in enumerate(h) if x == 2]
    return Dadda(full, half, stages, pairs[0] if pairs else len(h))


@check.entry
def booth_dadda_multiplier(n_bits, m_bits, adder, library: CellLibrary = NANGATE45) -> Cost:
    """n x m unsigned radix-4 Booth multiplier with a Dadda tree and ``adder(bits)`` as its
    final adder (module docstring). n_bits, m_bits: Python ints (the tree is counted)."""
    check.integers("booth_dadda_multiplier n_bits", n_bits, min=0)
    check.integers("booth_dadda_multiplier m_bits", m_bits, min=0)
    n, m = int(n_bits), int(m_bits)
    rows = booth_rows(m)
    tree = dadda(booth_heights(n, m))
    d = library.delay
    select_buffers, select_levels = fanout_buffers(n + 1)
    partial = gates(XOR2=rows, XNOR2=rows + rows * (n + 1), NOR2=rows,
                    AOI22=rows * (n + 1), INV=rows - 1, BUF=3 * rows * select_buffers,
                    delay=d["XOR2"] + d["NOR2"] + select_levels * d["BUF"] + d["AOI22"]
                    + d["XNOR2"])
    reduce = gates(FA=tree.full, HA=tree.half, delay=tree.stages * library.fa_sum_delay)
    final_bits = n + m - tree.first_pair
    return series(partial, reduce, adder(final_bits)) if final_bits > 0 else series(partial,
                                                                                    reduce)

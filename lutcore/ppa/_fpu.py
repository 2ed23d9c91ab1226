"""FPnew's floating-point units, structurally: the ExSdotp unit, the expanding FMA, the SIMD SDOTP
wrapper and the whole FPU that Snitch instantiates (MiniFloat-NN paper Sec. III, Fig. 7), priced
from the cells and blocks of the LUT Tensor Core models, plus energy per instruction class.

Widths follow the public RTL (pulp-platform/cvfpu ``feature/expanding_dotp``):
- ``fpnew_sdotp_multi``: with S = p_src (widest source mantissa + 1) and P = p_dst (the wider of
  the widest destination mantissa and a full product, + 1), two S x S multipliers, a first adder
  of 2P+3 bits, a second adder of 2P+S+4 bits, a leading-zero count and normalization shift over
  2P+S+5 bits, one rounding;
- ``fpnew_fma_multi``: with p the precision of the super format of every format the unit runs
  (an expanding FMA runs its source and destination formats on one datapath), a p x p
  multiplier, a 3p+5-bit adder, a 2p+3-bit leading-zero count, a 3p+5-bit normalization shift,
  one rounding.
A unit that runs several formats maps each onto the widest fields; it classifies each operand
per format and multiplexes the fields (``_unpack``), and multiplexes the packed result.

Everything is combinational unless a function says it adds pipeline registers. Areas in um^2 at
45nm (``Cost.area``); ``kge`` converts to gate equivalents, which are node-independent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax.numpy as jnp

from lutcore.numerics import FORMATS, Format, SdotpWidths, as_format, sdotp_widths

from . import _cells, _timing
from ._blocks import TEXTBOOK, Blocks, Cost, clog2, parallel, series, times, xp
from ._cells import NANGATE45, CellLibrary
from ._power import ACTIVITY

Formats = str | Format | Sequence[str | Format]

# The FPU of the Snitch core as the MiniFloat-NN cluster configures it (paper Sec. III-A/C):
# 64-bit datapath with SIMD vectors, all six formats; integer formats for conversions int8,
# int16, int32 (snitch_cluster's fpnew config: IntFmtMask without int64 on the RV32 core).
FPU_WIDTH = 64
FPU_FORMATS = ("fp32", "fp64", "fp16", "fp8", "fp16alt", "fp8alt")  # fpnew_pkg order
FPU_INT_BITS = (8, 16, 32)
# Pipeline register levels per operation group (paper Sec. III-C and IV); DIVSQRT is disabled
# in Snitch's FPU (paper Sec. III-C), so it has no entry.
PIPELINE_STAGES = {"addmul": 3, "sdotp": 3, "conv": 2, "noncomp": 1}
FPU_GROUPS = ("addmul", "noncomp", "conv", "sdotp", "top")
# fpnew_pkg: FP32 and FP64 provide the pack-into-vector cast (CPK) on two lanes at least
CPK_FORMATS = ("fp32", "fp64")


def kge(cost_or_area, library: CellLibrary = NANGATE45) -> jnp.ndarray:
    """Area in kGE (thousands of the library's NAND2 areas; NanGate45: ``GE_AREA``) of a
    ``Cost`` or an um^2 area."""
    area = cost_or_area.area(library) if isinstance(cost_or_area, Cost) else cost_or_area
    return jnp.asarray(area) / library.ge_area / 1e3


def _format_list(formats: Formats) -> tuple[Format, ...]:
    if isinstance(formats, (str, Format)):
        return (as_format(formats),)
    listed = tuple(as_format(f) for f in formats)
    if not listed:
        raise ValueError("need at least one format")
    return listed


def super_format(formats: Formats) -> tuple[int, int]:
    """(exponent bits, mantissa bits) of the datapath that runs all ``formats`` (fpnew_pkg
    ``super_format``: the widest of each field)."""
    fmts = _format_list(formats)
    return max(f.exp_bits for f in fmts), max(f.man_bits for f in fmts)


def _or_tree(bits, b: Blocks = TEXTBOOK) -> Cost:
    """OR of ``bits`` signals (a sticky bit, a nonzero test): bits - 1 OR2 in log2(bits) levels."""
    ns = xp(bits)
    bits = ns.asarray(bits, dtype=float)
    return b.gates(OR2=ns.maximum(bits - 1, 0), delay=clog2(bits) * b.cell_delay("OR2"))


def _and_tree(bits, b: Blocks = TEXTBOOK) -> Cost:
    ns = xp(bits)
    bits = ns.asarray(bits, dtype=float)
    return b.gates(AND2=ns.maximum(bits - 1, 0), delay=clog2(bits) * b.cell_delay("AND2"))


def _align_shifter(in_bits: int, window: int, b: Blocks = TEXTBOOK) -> Cost:
    """Right-shift an ``in_bits`` significand into a ``window``-bit field by 0..window: a
    logarithmic shifter whose level j (shift 2^j) muxes only the bits that can be nonzero after
    it, min(window, in_bits + 2^(j+1) - 1) (the rest are constant zeros)."""
    levels = (window).bit_length()
    muxes = sum(min(window, in_bits + 2 ** (j + 1) - 1) for j in range(levels))
    return b.gates(MUX2=muxes, delay=levels * b.cell_delay("MUX2"))


def _classifier(fmt: Format, b: Blocks = TEXTBOOK) -> Cost:
    """fpnew_classifier: exponent all ones / all zeros, mantissa zero, and the six class bits
    (normal, subnormal, zero, inf, NaN, signalling) from them."""
    return series(parallel(_and_tree(fmt.exp_bits, b), _or_tree(fmt.exp_bits, b),
                           _or_tree(fmt.man_bits, b)),
                  b.gates(AND2=4, NOR2=2, INV=2, delay=b.cell_delay("AND2")))


CLASS_BITS = 6  # fpnew_pkg fp_info_t: normal, subnormal, zero, inf, NaN, signalling


def _unpack(formats: Formats, b: Blocks = TEXTBOOK) -> Cost:
    """One operand entering a multi-format unit: a classifier per format, then a format mux of
    sign, exponent, mantissa and class bits onto the super format's fields."""
    fmts = _format_list(formats)
    e, m = super_format(fmts)
    return series(parallel(*(_classifier(f, b) for f in fmts)),
                  b.mux_tree(len(fmts), 1 + e + m + CLASS_BITS))


def _pack(formats: Formats, b: Blocks = TEXTBOOK) -> Cost:
    """The result leaving a multi-format unit: a format mux of the packed result."""
    fmts = _format_list(formats)
    return b.mux_tree(len(fmts), max(f.width for f in fmts))


def _add_signed(bits, overlap, b: Blocks = TEXTBOOK) -> Cost:
    """Add or subtract a bits-bit aligned addend to a value that occupies only ``overlap`` of
    those bit positions, and take the absolute value, as FPnew's adders do (``sum =
    (effective_subtraction && !carry) ? -sum_raw : sum_raw``): conditional inversion of the
    addend, full adders where both operands have bits and half adders (carry propagation)
    elsewhere, with a carry-out bit; conditional negation of the result."""
    bits = xp(bits).asarray(bits, dtype=float)
    adder = b.partial_adder(bits + 1, overlap)
    return series(b.conditional_negate(bits), adder, b.conditional_negate(bits),
                  b.incrementer(bits))


def _round_and_specials(exp_bits: int, man_bits: int, b: Blocks = TEXTBOOK) -> Cost:
    """fpnew_rounding on a format (e, m): round-bit/sticky decision per mode, a +1 over the
    exponent and mantissa; then the special-result selection (NaN, inf, overflow to inf or max
    finite) as a mux of the result word."""
    width = 1 + exp_bits + man_bits
    decide = b.gates(AND2=4, OR2=3, XOR2=1, MUX2=3, delay=b.cell_delay("MUX2") * 2)
    special = b.gates(AND2=6, OR2=6, INV=2, MUX2=2 * width, delay=2 * b.cell_delay("MUX2"))
    return series(decide, b.incrementer(exp_bits + man_bits), special)


class Precisions(NamedTuple):
    """Widths of a unit: source/destination (exponent bits, precision p = mantissa + 1) and the
    internal exponent width."""

    src_exp: int
    src_p: int
    dst_exp: int
    dst_p: int
    exp_width: int


def _sdotp_widths(src: Formats, dst: Formats) -> SdotpWidths:
    """fpnew_sdotp_multi's internal widths (``lutcore.numerics.sdotp_widths``) of the super
    formats of ``src`` and ``dst``."""
    (_, ms), (ed, md) = super_format(src), super_format(dst)
    return sdotp_widths(ms, md, ed)


def exsdotp_precisions(src: Formats, dst: Formats) -> Precisions:
    """fpnew_sdotp_multi's p_src, p_dst and exponent datapath width (``_sdotp_widths``)."""
    w = _sdotp_widths(src, dst)
    return Precisions(super_format(src)[0], w.p_src, super_format(dst)[0], w.p_dst, w.exponent)


def exsdotp_unit(src: Formats, dst: Formats, vsum: bool = False,
                 blocks: Blocks | None = None) -> Cost:
    """One combinational ExSdotp unit a*b + c*d + e: ``src`` formats for a..d, ``dst`` for e and
    the result (names, ``Format``s, or a sequence of them for a multi-format lane). With
    ``vsum``, also the non-expanding Vsum a + c + e (paper Sec. III-C): a and c widened to the
    destination format, unpacked as such, and muxed in place of the products.

    Mantissa path: 4 operands unpacked, two p_src x p_src multipliers, the sort of the three
    addends by exponent (3:1 muxes), the intermediate addend aligned in a 2P+3-bit window (with
    sticky), the first add, the minimum addend aligned in the 2P+S+4-bit window (in parallel with
    the first add), the bypass mux, the second add, LZC and normalization over 2P+S+5 bits, the
    1-bit fix-up shift with sticky, one rounding, specials. Exponent path (parallel to the
    multipliers): two product exponents (sum, rebias), three comparisons for the sort, the sorted
    exponents' muxes, two shift amounts; exponent normalization beside the shifter.
    ``blocks``: the adders, multipliers and library it is built from (``TEXTBOOK``)."""
    b = blocks or TEXTBOOK
    src_fmts, dst_fmts = _format_list(src), _format_list(dst)
    w = exsdotp_precisions(src_fmts, dst_fmts)
    ps, pd, ew = w.src_p, w.dst_p, w.exp_width
    widths = _sdotp_widths(src_fmts, dst_fmts)
    first, second = widths.first_adder, widths.second_adder
    unpack = parallel(times(_unpack(src_fmts, b), 4),
                      times(_unpack(dst_fmts, b), 3 if vsum else 1))
    products = times(b.multiplier(ps, ps), 2)
    if vsum:  # the Vsum operands bypass the multipliers: significand and exponent muxes
        products = series(products, b.gates(MUX2=2 * (pd + ew), delay=b.cell_delay("MUX2")))
    exponents = series(times(series(b.adder(ew), b.adder(ew)), 2),  # ea+eb, rebias
                       times(b.adder(ew), 3),                 # the three comparisons
                       times(b.mux_tree(3, ew), 3),                  # max, int, min exponents
                       times(b.adder(ew), 2))                 # the two shift amounts
    sort = times(b.mux_tree(3, pd + 1), 3)                            # sign + P-bit significands
    align_int = series(_align_shifter(pd, first, b), _or_tree(pd, b))
    align_min = series(_align_shifter(pd, second, b), _or_tree(pd, b))
    add_first = _add_signed(first, pd, b)                              # max: top P bits
    add_second = series(b.gates(MUX2=second, delay=b.cell_delay("MUX2")),  # bypass of min
                        _add_signed(second, first + 1, b))            # first sum << S
    normalize = series(b.leading_zero_count(second + 1), b.barrel_shifter(second + 1, second + 1),
                       parallel(b.mux_tree(3, pd + 1), _or_tree(pd + ps + 3, b)))
    exp_normalize = times(b.adder(ew), 2)                     # e - lzc + 1, fix-up +-1
    finish = series(_round_and_specials(w.dst_exp, pd - 1, b), _pack(dst_fmts, b))
    # the minimum addend is aligned while the first adder runs
    return series(unpack, parallel(products, exponents), sort,
                  parallel(series(align_int, add_first), align_min), add_second,
                  parallel(normalize, exp_normalize), finish)


def exfma_precisions(src: Formats, dst: Formats) -> Precisions:
    """fpnew_fma_multi's widths for an expanding FMA: one super format over source and
    destination formats (p = its mantissa + 1); exponent datapath max(e + 2, clog2(2p + 3))."""
    e, m = super_format((*_format_list(src), *_format_list(dst)))
    p = m + 1
    return Precisions(e, p, e, p, max(e + 2, (2 * p + 3 - 1).bit_length()))


def exfma_unit(src: Formats, dst: Formats, blocks: Blocks | None = None) -> Cost:
    """One combinational (expanding) FMA a*b + c as fpnew_fma_multi builds it: a, b in ``src``,
    c and the result in ``dst``; the datapath is that of the super format of both (so an 8->16
    unit multiplies 11 x 11 bits). ``exfma_unit(f, f)`` is a plain multi-format FMA.

    Mantissa path: 3 operands unpacked, p x p multiplier; in parallel the exponent path (product
    exponent, difference, shift amount) and the addend's alignment over 3p+4 bits with sticky;
    the 3p+5-bit signed add; LZC over the lower 2p+3 bits; normalization shift over 3p+5 bits;
    the 1-bit fix-up with sticky; one rounding; specials. ``blocks`` as for ``exsdotp_unit``."""
    b = blocks or TEXTBOOK
    src_fmts, dst_fmts = _format_list(src), _format_list(dst)
    w = exfma_precisions(src_fmts, dst_fmts)
    p, ew = w.dst_p, w.exp_width
    wide = 3 * p + 4
    unpack = times(_unpack((*src_fmts, *dst_fmts), b), 3)
    product = b.multiplier(p, p)
    addend = series(times(b.adder(ew), 4),  # product exponent (sum, rebias), difference,
                    _align_shifter(p, wide, b),     # shift amount; then the addend's alignment
                    _or_tree(p, b))
    normalize = series(b.leading_zero_count(2 * p + 3), b.barrel_shifter(wide + 1, wide + 1),
                       parallel(b.mux_tree(3, p + 1), _or_tree(2 * p + 3, b)))
    exp_normalize = times(b.adder(ew), 2)
    finish = series(_round_and_specials(w.dst_exp, p - 1, b), _pack(dst_fmts, b))
    return series(unpack, parallel(product, addend), _add_signed(wide, 2 * p, b),  # product<<2
                  parallel(normalize, exp_normalize), finish)


def exfma_cascade(src: Formats, dst: Formats, blocks: Blocks | None = None) -> Cost:
    """Two ExFMA units computing (a*b + e) then c*d + that: cells of two, delays in series
    (unpipelined, each must run at twice the clock of the ExSdotp unit, paper Sec. IV)."""
    unit = exfma_unit(src, dst, blocks)
    return series(unit, unit)


# MiniFloat-NN Sec. IV: the units synthesized standalone, unpipelined, in GF 12nm at the
# worst-case corner (0.72 V, 125 C): the ExSdotp unit at 333 MHz, each ExFMA at 667 MHz (so the
# cascade of two keeps the ExSdotp's rate).
SYNTHESIS_CLOCK_GHZ = {"exsdotp": 0.333, "exfma": 0.667}
SYNTHESIS_NODE_NM = 12.0
CLOSED_UNITS = ("exsdotp", "exfma", "exfma_cascade")


def synthesis_period_ps(unit: str, library: str | CellLibrary = "nangate45") -> float:
    """The period ``unit`` ("exsdotp", "exfma"; the cascade's ExFMAs: "exfma") was synthesized
    at, in ps of ``library`` (``_timing.period_ps``: worst case to typical, 12nm to 28nm, to
    the library)."""
    if unit not in SYNTHESIS_CLOCK_GHZ:
        raise ValueError(f"unknown unit {unit!r}; allowed values: "
                         f"{', '.join(SYNTHESIS_CLOCK_GHZ)}")
    return _timing.period_ps(SYNTHESIS_CLOCK_GHZ[unit], library, node_nm=SYNTHESIS_NODE_NM,
                             worst_case=True)


def closed_unit(unit: str, src: Formats, dst: Formats, library: str | CellLibrary = "nangate45",
                vsum: bool = False) -> _timing.Closure:
    """``unit`` ("exsdotp", "exfma", "exfma_cascade") closed at the paper's synthesis clock with
    the cheapest speed grade (``_timing.close``); the cascade is two ExFMAs each closed at 667
    MHz, in series. ``vsum``: the ExSdotp with its Vsum operand paths."""
    if unit not in CLOSED_UNITS:
        raise ValueError(f"unknown unit {unit!r}; allowed values: {', '.join(CLOSED_UNITS)}")
    if unit == "exfma_cascade":
        one = closed_unit("exfma", src, dst, library)
        return one._replace(value=series(one.value, one.value))
    build = {"exsdotp": lambda b: exsdotp_unit(src, dst, vsum=vsum, blocks=b),
             "exfma": lambda b: exfma_unit(src, dst, blocks=b)}[unit]
    return _timing.close(build, synthesis_period_ps(unit, library), library)


# ---------------------------------------------------------------------------------------------
# The FPU: operation groups, lanes, pipeline registers


def _lane_formats(lane: int, cpk: bool = False) -> tuple[str, ...]:
    """fpnew_pkg get_lane_formats / get_conv_lane_formats: the formats whose SIMD vector has
    more than ``lane`` elements in the FPU width (CONV: FP32/FP64 also on lanes 0 and 1)."""
    return tuple(f for f in FPU_FORMATS if FPU_WIDTH // FORMATS[f].width > lane
                 or (cpk and f in CPK_FORMATS and lane < 2))


def _lanes(cpk: bool = False) -> list[tuple[str, ...]]:
    return [fmts for lane in range(FPU_WIDTH // 8) if (fmts := _lane_formats(lane, cpk))]


def _lane_width(formats: Sequence[str]) -> int:
    return max(FORMATS[f].width for f in formats)


def noncomp_unit(fmt: Formats, blocks: Blocks | None = None) -> Cost:
    """fpnew_noncomp for one format: classifiers of both operands, a magnitude comparison (a
    subtractor), sign injection, min/max and compare-result muxes, the class mask."""
    b = blocks or TEXTBOOK
    fmts = _format_list(fmt)
    width = max(f.width for f in fmts)
    compare = series(parallel(*(series(_classifier(f, b), _classifier(f, b)) for f in fmts)),
                     b.adder(width))
    return series(compare, b.gates(MUX2=2 * width, XOR2=2, AND2=12, OR2=10,
                                 delay=2 * b.cell_delay("MUX2")))


def cast_unit(formats: Formats, int_bits: Sequence[int] = (),
              blocks: Blocks | None = None) -> Cost:
    """fpnew_cast_multi on a lane that runs ``formats`` and integers of ``int_bits``: input
    unpack (FP or integer, absolute value), LZC and normalization over max(p, int) bits,
    destination exponent (rebias, subtract the count), rounding into a format or an integer,
    the result's format mux."""
    b = blocks or TEXTBOOK
    fmts = _format_list(formats)
    e, m = super_format(fmts)
    width = max(m + 1, *int_bits) if int_bits else m + 1
    ew = max(e + 2, (width - 1).bit_length() + 1)
    value_in = series(parallel(_unpack(fmts, b), series(b.conditional_negate(width),
                                                     b.incrementer(width))),
                      b.gates(MUX2=width, delay=b.cell_delay("MUX2")))
    normalize = parallel(series(b.leading_zero_count(width), b.barrel_shifter(width, width)),
                         times(b.adder(ew), 3))
    # the integer result: shift back by the exponent, negate
    to_int = series(b.barrel_shifter(width, width), b.conditional_negate(width))
    finish = series(_round_and_specials(e, m, b), _pack((*fmts,), b))
    return series(value_in, normalize, parallel(finish, to_int),
                  b.gates(MUX2=width, delay=b.cell_delay("MUX2")))


def _lane_registers(group: str, operand_bits: int, operands: int,
                    b: Blocks = TEXTBOOK) -> Cost:
    """The group's pipeline registers for one lane (FPnew's default BEFORE placement: every
    level holds the lane's operands)."""
    return b.register(PIPELINE_STAGES[group] * operands * operand_bits)


class SdotpLaneSpec(NamedTuple):
    """One lane of the SIMD SDOTP wrapper: its source and destination formats."""

    src: tuple[str, ...]
    dst: tuple[str, ...]


def sdotp_lanes() -> list[SdotpLaneSpec]:
    """fpnew_pkg num_dotp_lanes / get_dotp_lane_formats and fpnew_sdotp_multi_wrapper's source
    and destination masks, for Snitch's 64-bit FPU: 64 / (2 * 8) = 4 lanes; FPU_WIDTH / 32 = 2
    of them 16->32 (sources fp16, fp16alt, fp8, fp8alt), the others 8->16 (sources fp8,
    fp8alt; destinations fp16, fp16alt, plus the 8-bit formats for Vsum)."""
    n_lanes = FPU_WIDTH // (2 * 8)
    wide = SdotpLaneSpec(("fp16", "fp8", "fp16alt", "fp8alt"),
                         ("fp32", "fp16", "fp8", "fp16alt", "fp8alt"))
    narrow = SdotpLaneSpec(("fp8", "fp8alt"), ("fp16", "fp8", "fp16alt", "fp8alt"))
    return [wide if lane < FPU_WIDTH // 32 else narrow for lane in range(n_lanes)]


def _sdotp_lane(lane: SdotpLaneSpec, registers: bool, b: Blocks = TEXTBOOK) -> Cost:
    """One wrapper lane: operand slicing by format (a mux per operand bit of its 2 x 2-wide
    inputs), the ExSdotp unit, its pipeline registers (three operands of 2 x src width)."""
    lane_bits = 2 * _lane_width(lane.src)
    unit = series(b.gates(MUX2=3 * lane_bits, delay=b.cell_delay("MUX2")),
                  exsdotp_unit(lane.src, lane.dst, vsum=True, blocks=b))
    return series(unit, _lane_registers("sdotp", lane_bits, 3, b)) if registers else unit


def exsdotp_simd(registers: bool = True, blocks: Blocks | None = None) -> Cost:
    """The SDOTP operation group of a 64-bit FPU (paper Fig. 5): ``sdotp_lanes`` side by side,
    the 64-bit result packing mux; with the group's pipeline registers unless
    ``registers=False``."""
    b = blocks or TEXTBOOK
    lanes = [_sdotp_lane(lane, registers, b) for lane in sdotp_lanes()]
    return series(parallel(*lanes), b.mux_tree(3, FPU_WIDTH))


def fpu_groups(blocks: Blocks | None = None) -> dict[str, Cost]:
    """Snitch's FPnew instance, per operation group (``FPU_GROUPS``), with pipeline registers:
    - addmul: MERGED, one fpnew_fma_multi per SIMD lane sized for that lane's formats (lane 0
      FP64, lane 1 FP32, lanes 2-3 FP16/FP16alt, lanes 4-7 FP8/FP8alt), 3 operands per level;
    - noncomp: PARALLEL, one fpnew_noncomp per format and lane, 2 operands per level;
    - conv: MERGED, one fpnew_cast_multi per lane (lanes 0-1 also FP64 for CPK), 1 operand;
    - sdotp: the SIMD ExSdotp wrapper (``exsdotp_simd``);
    - top: the operation-group arbitration and the 64-bit result/status mux.
    DIVSQRT is disabled in this FPU (paper Sec. III-C)."""
    b = blocks or TEXTBOOK
    addmul = [series(exfma_unit(fmts, fmts, b),
                     _lane_registers("addmul", _lane_width(fmts), 3, b)) for fmts in _lanes()]
    noncomp = [series(noncomp_unit(f, b), _lane_registers("noncomp", FORMATS[f].width, 2, b))
               for lane in range(FPU_WIDTH // 8) for f in _lane_formats(lane)]
    conv = []
    for fmts in _lanes(cpk=True):
        ints = tuple(b for b in FPU_INT_BITS if any(FORMATS[f].width == b for f in fmts))
        conv.append(series(cast_unit(fmts, ints, b),
                           _lane_registers("conv", _lane_width(fmts), 1, b)))
    top = b.mux_tree(len(PIPELINE_STAGES), FPU_WIDTH + 5)  # result + status flags
    return {"addmul": parallel(*addmul), "noncomp": parallel(*noncomp),
            "conv": parallel(*conv), "sdotp": exsdotp_simd(blocks=b), "top": top}


def fpu(blocks: Blocks | None = None) -> Cost:
    """The whole FPU: ``fpu_groups`` side by side."""
    return parallel(*fpu_groups(blocks).values())


# ---------------------------------------------------------------------------------------------
# Energy per instruction


def _switching_energy(cost: Cost) -> jnp.ndarray:
    """fJ per evaluation at 45nm: ACTIVITY of every combinational output toggles; flip-flops
    are charged separately (they are clocked once per operation they hold)."""
    comb = jnp.asarray(cost.cells).at[..., _cells.INDEX["DFF"]].set(0.0)
    return ACTIVITY * comb @ jnp.asarray(_cells.ENERGY)


DFF_ENERGY = _cells.CELLS[_cells.INDEX["DFF"]].energy  # fJ per clocked flip-flop


def op_energy(group: str, src: Formats, dst: Formats | None = None, lanes: int = 1) -> float:
    """fJ (45nm, 1.1 V) of one FPU instruction of ``group`` running ``lanes`` SIMD elements of
    ``src`` -> ``dst`` (dst defaults to src).

    Assumption (stated, not measured): FPnew maps a narrow format onto the top bits of a wider
    datapath and the bits it does not use stay constant, so an operation costs the switching
    energy of a unit sized for its own formats, whichever lane runs it. Pipeline registers are
    enable-gated: they clock only while they hold an operation (its operand bits, every level).
    groups: "addmul" (an FMA), "sdotp" (ExSdotp), "conv" (a cast src -> dst), "noncomp"."""
    dst = src if dst is None else dst
    src_fmt, dst_fmt = _format_list(src), _format_list(dst)
    src_bits = max(f.width for f in src_fmt)
    if group == "addmul":
        unit, operand_bits = exfma_unit(src_fmt, dst_fmt), 3 * src_bits
    elif group == "sdotp":
        unit, operand_bits = exsdotp_unit(src_fmt, dst_fmt), 4 * src_bits + 2 * src_bits
    elif group == "conv":
        ints = tuple(b for b in FPU_INT_BITS if b == src_bits)
        unit, operand_bits = cast_unit((*src_fmt, *dst_fmt), ints), src_bits
    elif group == "noncomp":
        unit, operand_bits = noncomp_unit(src_fmt), 2 * src_bits
    else:
        raise ValueError(f"unknown group {group!r}; allowed values: addmul, sdotp, conv, "
                         "noncomp")
    registers = PIPELINE_STAGES[group] * operand_bits * DFF_ENERGY
    return float(lanes * (_switching_energy(unit) + registers))


def leakage_nw(cost: Cost, library: CellLibrary = NANGATE45) -> jnp.ndarray:
    """nW in ``library`` (NanGate45: 45nm, 1.1 V): the cells' leakage."""
    return cost.cells @ jnp.asarray(library.leakage)


class NodeScale(NamedTuple):
    """Factors from the library's 45nm / 1.1 V to another node and voltage."""

    area: float
    delay: float
    energy: float
    leakage: float


def node_scale(node_nm: float, vdd: float) -> NodeScale:
    """Constant-field scaling (Dennard et al., IEEE JSSC 1974), as ``_cells`` scales to 28nm:
    area ~ L^2, delay ~ L, switching energy ~ C V^2 with C ~ L, leakage ~ L V. An idealized
    assumption below 28nm: FinFET nodes (12nm) do not scale their capacitance with the node
    name, so absolute energies there are estimates; ratios are unaffected."""
    length = node_nm / _cells.NODE_FROM_NM
    volt = vdd / _cells.VDD
    return NodeScale(area=length ** 2, delay=length, energy=length * volt ** 2,
                     leakage=length * volt)

"""The ExSdotp unit and its SIMD wrapper in numbers: register packing, lanes, register-file use,
peak FLOP per instruction and datapath widths (MiniFloat-NN Sec. II-III, Figs. 2, 4, 5).

Every number comes from lutcore's models of the authors' design: the FPU width and the SDOTP
wrapper's lanes from ``lutcore.ppa`` (``FPU_WIDTH``, ``sdotp_lanes``: fpnew_pkg's lane
formats), the format widths and precisions from ``lutcore.numerics.FORMATS``, the mantissa
datapath widths from the bit-level RTL model (``lutcore.numerics.lane_widths``), pipeline
levels and cluster parameters from ``lutcore.ppa.PIPELINE_STAGES`` and
``lutcore.snitch.SNITCH_CLUSTER``. A SIMD instruction writes one 64-bit register of
accumulators: an ExSdotp reads two 64-bit source registers whole (2 products per lane), a SIMD
ExFMA (one product per lane) half of each (paper Fig. 2).
"""

from __future__ import annotations

import dataclasses
import sys

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.numerics as nm
import lutcore.ppa as ppa
import lutcore.snitch as snitch
from experiments import markdown_table, paper_claim, reference

ID = "mfnn-unit"
TITLE = ("ExSdotp unit and SIMD wrapper: register packing, lanes, peak FLOP, datapath widths "
         "(MiniFloat-NN Sec. III, Figs. 2, 4, 5)")
PAPER = "minifloat_nn"
# the reference keys claims() states in the full run
CLAIMS = ("register_packing", "simd_wrapper", "fpu_interface", "exfma_half_registers",
          "peak_vs_exfma", "peak_vs_fpnew_expanding", "product_vs_accumulator_precision",
          "adder_widths", "pipeline_levels", "cluster_configuration")
# the paper's pairs: a w-bit source and a 2w-bit destination (Sec. III-B)
PAIRS = tuple(f"{s}->{d}" for s, d in nm.EXPANDING_PAIRS
              if nm.FORMATS[d].width == 2 * nm.FORMATS[s].width)
UNITS = ("exsdotp", "exfma")
PRODUCTS = {"exsdotp": 2, "exfma": 1}  # products per lane and instruction
GROUPS = {"sdotp": "regs_sdotp", "addmul": "regs_addmul", "conv": "regs_cast",
          "noncomp": "regs_comp"}  # lutcore.ppa group -> lutcore.snitch latency field


@dataclasses.dataclass(frozen=True)
class Config:
    """No parameters: the unit is the paper's (one configuration)."""


def _lane_runs(lane: ppa.SdotpLaneSpec, src: str, dst: str) -> bool:
    return src in lane.src and dst in lane.dst


WIDTHS = ("p_src", "p_dst", "first", "second")  # of nm.SdotpWidths: the mantissa datapath


def run(config: Config) -> xr.Dataset:
    width = ppa.FPU_WIDTH
    formats = list(nm.FORMATS)
    lanes = ppa.sdotp_lanes()
    lane_kind = ["16->32" if "fp32" in lane.dst else "8->16" for lane in lanes]
    pairs = [p.split("->") for p in PAIRS]
    acc_lanes = np.array([width // nm.FORMATS[d].width for _, d in pairs])
    src_bits = np.array([nm.FORMATS[s].width for s, _ in pairs])
    per_register = np.array([[acc_lanes[i] * PRODUCTS[u] * src_bits[i] for u in UNITS]
                             for i in range(len(pairs))])
    flop = np.array([[acc_lanes[i] * 2 * PRODUCTS[u] for u in UNITS] for i in range(len(pairs))])
    runs = np.array([sum(_lane_runs(lane, s, d) for lane in lanes) for s, d in pairs])
    lane_names = [lane.name for lane in nm.SDOTP_LANES]
    widths = np.array([[w.p_src, w.p_dst, w.first_adder, w.second_adder]
                       for w in map(nm.lane_widths, lane_names)])
    ds = xr.Dataset(
        {"register_elements": ("format", [width // nm.FORMATS[f].width for f in formats]),
         "accumulator_lanes": ("pair", acc_lanes),
         "source_bits_per_register": (("pair", "unit"), per_register),
         "flop_per_instruction": (("pair", "unit"), flop),
         "sdotp_lanes_running": ("pair", runs),
         "product_bits": ("pair", [2 * nm.FORMATS[s].precision for s, _ in pairs]),
         "accumulator_precision": ("pair", [nm.FORMATS[d].precision for _, d in pairs]),
         "lane_width": (("lane", "width"), widths),
         "wrapper_lane_kind": ("wrapper_lane", lane_kind),
         "pipeline_ppa": ("group", [ppa.PIPELINE_STAGES[g] for g in GROUPS]),
         "pipeline_snitch": ("group", [getattr(snitch.SNITCH_CLUSTER, f)
                                       for f in GROUPS.values()])},
        coords={"format": formats, "pair": list(PAIRS), "unit": list(UNITS),
                "lane": lane_names, "width": list(WIDTHS),
                "wrapper_lane": np.arange(len(lanes)), "group": list(GROUPS)})
    attrs = {
        "register_elements": "values of a format in one FP register (FPU_WIDTH bits)",
        "accumulator_lanes": "SIMD lanes of an expanding instruction: destination values per "
                             "register",
        "source_bits_per_register": "bits of each source register (rs1, rs2) the instruction "
                                    "reads",
        "flop_per_instruction": "FLOP of one SIMD instruction (ExSdotp 4, ExFMA 2 per lane)",
        "sdotp_lanes_running": "lanes of the SDOTP wrapper that run the pair (ops per cycle)",
        "product_bits": "2 p_src: the exact product of two source significands",
        "accumulator_precision": "p_dst of the destination format",
        "lane_width": "mantissa datapath widths of the lane (lutcore.numerics.lane_widths)",
        "pipeline_ppa": "pipeline levels per group in lutcore.ppa",
        "pipeline_snitch": "the same in lutcore.snitch's cycle model",
    }
    for name, text in attrs.items():
        ds[name].attrs = {"long_name": text, "units": "1"}
    ds.attrs.update(fpu_width=width, cores=snitch.SNITCH_CLUSTER.cores,
                    tcdm_banks=snitch.SNITCH_CLUSTER.tcdm_banks,
                    tcdm_bytes=snitch.SNITCH_CLUSTER.tcdm_bytes)
    return ds


def plot(ds: xr.Dataset):
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    x = np.arange(ds.sizes["pair"])
    for i, unit in enumerate(UNITS):
        flop = ", ".join(map(str, ds.flop_per_instruction.sel(unit=unit).values))
        left.bar(x + 0.4 * i, ds.source_bits_per_register.sel(unit=unit), 0.4,
                 label=f"{unit}: {flop} FLOP")
    left.axhline(ds.attrs["fpu_width"], color="k", ls="--", label="64-bit register")
    left.set_xticks(x + 0.2, ds.pair.values, fontsize=8, rotation=20)
    left.set_ylabel("bits read of each source register")
    left.set_title("Register-file use per SIMD instruction (Fig. 2)", fontsize=10)
    left.legend(fontsize=7)
    names = list(ds.width.values)
    y = np.arange(len(names))
    for i, lane in enumerate(ds.lane.values):
        right.barh(y + 0.4 * i, ds.lane_width.sel(lane=lane), 0.4, label=f"{lane} lane")
    right.set_yticks(y + 0.2, names)
    right.set_xlabel("bits")
    right.set_title("Mantissa datapath widths (Fig. 4; RTL model)", fontsize=10)
    right.legend(fontsize=8)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    pairs = markdown_table(
        ["pair", "lanes", "ExSdotp FLOP", "ExFMA FLOP", "bits read per source register "
         "(ExSdotp / ExFMA)", "wrapper lanes running it", "2 p_src", "p_dst"],
        [[str(p), int(ds.accumulator_lanes.sel(pair=p)),
          int(ds.flop_per_instruction.sel(pair=p, unit="exsdotp")),
          int(ds.flop_per_instruction.sel(pair=p, unit="exfma")),
          " / ".join(str(int(v)) for v in ds.source_bits_per_register.sel(pair=p).values),
          int(ds.sdotp_lanes_running.sel(pair=p)), int(ds.product_bits.sel(pair=p)),
          int(ds.accumulator_precision.sel(pair=p))] for p in ds.pair.values], right=7)
    widths = markdown_table(["lane", *ds.width.values],
                            [[str(lane), *map(int, ds.lane_width.sel(lane=lane).values)]
                             for lane in ds.lane.values], right=ds.sizes["width"])
    packing = ", ".join(f"{int(n)} {f}" for f, n in zip(ds.format.values,
                                                        ds.register_elements.values))
    return (f"A {ds.attrs['fpu_width']}-bit FP register holds: {packing}. SDOTP wrapper lanes: "
            f"{', '.join(ds.wrapper_lane_kind.values)}.\n\n" + pairs
            + "\nMantissa datapath of each lane (first: the first adder, 2 p_dst + 3; second: "
              "the second adder, the first sum's 2 p_dst + 4 bits padded by p_src).\n\n" + widths)


def _pairs_text(values) -> str:
    return ", ".join(f"{p}: {v}" for p, v in values)


def claims(ds: xr.Dataset):
    module = sys.modules[__name__]
    return [*_register_claims(ds, module), *_peak_claims(ds, module),
            *_datapath_claims(ds, module)]


def _ref(key):
    return reference(PAPER, ID, key).value


def _at(ds, var, **sel):
    return int(ds[var].sel(**sel))


def _register_claims(ds, module):
    """Register packing, the SIMD wrapper's lanes and the FPU's operand interface."""
    packing = {f: _at(ds, "register_elements", format=f) for f in _ref("register_packing")}
    kinds = list(ds.wrapper_lane_kind.values)
    wrapper = {"16->32": kinds.count("16->32"), "8->16": kinds.count("8->16")}
    per_cycle = {"16->32": _at(ds, "sdotp_lanes_running", pair="fp16->fp32"),
                 "8->16": _at(ds, "sdotp_lanes_running", pair="fp8->fp16")}
    want = _ref("simd_wrapper")
    width = ds.attrs["fpu_width"]
    reads = ds.source_bits_per_register
    return [
        paper_claim(module, "register_packing", ours=str(packing),
                    holds=packing == _ref("register_packing"),
                    tolerance="exact (FPU_WIDTH // format width)"),
        paper_claim(module, "simd_wrapper",
                    ours=f"lutcore.ppa.sdotp_lanes: {wrapper['16->32']} 16->32 and "
                         f"{wrapper['8->16']} 8->16 lanes; per cycle: {per_cycle['16->32']} "
                         f"FP16->FP32 or {per_cycle['8->16']} FP8->FP16 ExSdotp (the 16->32 "
                         "lanes run 8->16 pairs too)",
                    holds=wrapper == want["units"] and per_cycle == want["per_cycle"],
                    tolerance="exact"),
        paper_claim(module, "fpu_interface",
                    ours="ExSdotp on every pair reads "
                         + _pairs_text((p, f"2 x {int(reads.sel(pair=p, unit='exsdotp'))}")
                                       for p in ds.pair.values)
                         + f" source bits and {width} accumulator bits, writes {width}",
                    holds=bool((reads.sel(unit="exsdotp") == width).all()),
                    tolerance=f"three {width}-bit operands in, one out"),
        paper_claim(module, "exfma_half_registers",
                    ours="bits read of each 64-bit source register, ExFMA / ExSdotp: "
                         + _pairs_text((p, f"{int(reads.sel(pair=p, unit='exfma'))} / "
                                           f"{int(reads.sel(pair=p, unit='exsdotp'))}")
                                       for p in ds.pair.values),
                    holds=bool((reads.sel(unit="exfma") == width // 2).all()
                               and (reads.sel(unit="exsdotp") == width).all()),
                    tolerance="ExFMA half of each source register, ExSdotp all of it"),
    ]


def _peak_claims(ds, module):
    """FLOP per SIMD instruction against the ExFMA and FPnew's FMAs."""
    flop = ds.flop_per_instruction
    ratio = flop.sel(unit="exsdotp") / flop.sel(unit="exfma")
    return [
        paper_claim(module, "peak_vs_exfma",
                    ours="FLOP per SIMD instruction, ExSdotp / ExFMA: "
                         + _pairs_text((p, f"{int(flop.sel(pair=p, unit='exsdotp'))} / "
                                           f"{int(flop.sel(pair=p, unit='exfma'))}")
                                       for p in ds.pair.values),
                    holds=bool((ratio == 2).all()), tolerance="exactly 2x on every pair"),
        paper_claim(module, "peak_vs_fpnew_expanding",
                    ours=f"FP8->FP16: ExSdotp {int(flop.sel(pair='fp8->fp16', unit='exsdotp'))} "
                         f"FLOP per instruction vs FPnew's expanding FMA "
                         f"{int(flop.sel(pair='fp8->fp16', unit='exfma'))} (2x); vs FPnew's "
                         f"non-expanding FP8 FMA {2 * _at(ds, 'register_elements', format='fp8')}"
                         " (1x)",
                    holds=float(ratio.sel(pair="fp8->fp16")) == 2,
                    ours_value=float(ratio.sel(pair="fp8->fp16")),
                    tolerance="2x against FPnew's expanding operations"),
    ]


def _datapath_claims(ds, module):
    """Precisions, adder widths, pipeline levels and the cluster the models take as inputs."""
    precision = {p: [_at(ds, "product_bits", pair=p), _at(ds, "accumulator_precision", pair=p)]
                 for p in _ref("product_vs_accumulator_precision")}
    lanes = {str(lane): dict(zip(ds.width.values, map(int, ds.lane_width.sel(lane=lane).values)))
             for lane in ds.lane.values}
    adders = all(w["first"] == 2 * w["p_dst"] + 3 and w["second"] == (w["first"] + 1) + w["p_src"]
                 for w in lanes.values())
    pipeline = {str(g): [int(ds.pipeline_ppa.sel(group=g)), int(ds.pipeline_snitch.sel(group=g))]
                for g in ds.group.values}
    cluster = {"cores": ds.attrs["cores"], "banks": ds.attrs["tcdm_banks"],
               "kib": ds.attrs["tcdm_bytes"] // 1024}
    return [
        paper_claim(module, "product_vs_accumulator_precision",
                    ours=f"[2 p_src, p_dst]: {precision}",
                    holds=precision == _ref("product_vs_accumulator_precision"),
                    tolerance="exact"),
        paper_claim(module, "adder_widths",
                    ours="; ".join(f"{lane} lane: p_src {w['p_src']}, p_dst {w['p_dst']}, first "
                                   f"adder {w['first']}, first sum {w['first'] + 1}, second "
                                   f"adder {w['second']}" for lane, w in lanes.items()),
                    holds=adders,
                    tolerance="first adder 2 p_dst + 3, its sum 2 p_dst + 4, padded by p_src"),
        paper_claim(module, "pipeline_levels",
                    ours="model inputs, lutcore.ppa / lutcore.snitch: "
                         + ", ".join(f"{g} {a} / {b}" for g, (a, b) in pipeline.items()),
                    holds=all([a, b] == [_ref("pipeline_levels")[g]] * 2
                              for g, (a, b) in pipeline.items()),
                    tolerance="both models use the paper's levels"),
        paper_claim(module, "cluster_configuration",
                    ours=f"model inputs, lutcore.snitch.SNITCH_CLUSTER: {cluster}",
                    holds=cluster == _ref("cluster_configuration"), tolerance="exact"),
    ]

"""Energy efficiency of the MiniFloat-NN cluster and FPU (MiniFloat-NN Table III and Sec. IV).

The paper measured 224 mW (post-layout, PrimePower, GF 12nm typical corner 0.8 V) for the
128x256 FP8->FP16 ExSdotp GEMM at 1.26 GHz: 575 GFLOPS/W. lutcore prices each kernel as
  energy = sum over instruction classes (issued count x FPU energy per instruction)
           + cycles x (the rest of the cluster's energy per cycle) + FPU leakage x time,
with the counts and cycles from the Snitch cycle model (``lutcore.snitch.kernel_profile``), the
FPU energies from the structural model (``lutcore.ppa.op_energy``: NanGate 45nm cells, activity
``ACTIVITY``, scaled to 12nm / 0.8 V by constant-field scaling, ``lutcore.ppa.node_scale``), and
ONE calibrated constant: the energy per cycle of everything the model does not build from cells
(integer cores, instruction fetch, SSR streams and scratchpad banks, interconnect, clock tree,
leakage outside the FPUs), solved so that the calibration kernel draws the paper's 224 mW at
1.26 GHz. The calibration kernel's efficiency therefore follows from the cycle model alone; the
other kernels and the FP64 comparison with the native Snitch (22nm) are the validation.

FPU-level efficiency (Table III's comparison with FPnew, Mao et al., Zhang et al.): FLOP per
instruction over its FPU energy (no cluster overhead), for the SDOTP group and for FPnew's
FMA on the same formats in the same FPU model.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import lutcore.numerics as nm
import lutcore.ppa as ppa
import lutcore.snitch as snitch
from experiments import ConfigError, Experiment, markdown_table, paper_claim, reference

ID = "mfnn-table3"
TITLE = "Cluster and FPU energy efficiency (MiniFloat-NN Table III)"
PAPER = "minifloat_nn"
# the reference keys claims() states in the full run
CLAIMS = ("cluster_efficiency", "efficiency_arithmetic", "vs_snitch_fp64", "vs_fpnew_fp8",
          "vs_zhang", "vs_mao")
NODE_NM, VDD = 12.0, 0.8          # paper Sec. IV: GF 12nm FinFET, typical corner 0.8 V, 25 C
SNITCH_NODE_NM, SNITCH_FREQ_GHZ = 22.0, 1.0  # paper Sec. IV: native Snitch [12], 22nm, 1 GHz
CALIBRATION_KERNEL = "fp8_fp16_exsdotp"  # the paper's measured kernel (Sec. IV)
FPU_WIDTH = ppa.FPU_WIDTH
# (body group, source formats, destination formats) per kernel: the FPU op its FREP loop runs
KERNEL_OPS = {
    "fp64_fma": ("addmul", "fp64", "fp64"),
    "fp32_simd_fma": ("addmul", "fp32", "fp32"),
    "fp16_simd_fma": ("addmul", "fp16", "fp16"),
    "fp8_simd_fma": ("addmul", "fp8", "fp8"),
    "fp16_fp32_exsdotp": ("sdotp", "fp16", "fp32"),
    "fp8_fp16_exsdotp": ("sdotp", "fp8", "fp16"),
}
# The reduction tail of an FMA kernel: ExVsum to the next wider format, Vsum on FP32 (which
# runs on a 16->32 lane); FP64 kernels have no tail.
TAIL = {"fp8": ("fp8", "fp16"), "fp16": ("fp16", "fp32"), "fp32": ("fp16", "fp32")}
CALIBRATION_TOLERANCE = 0.10   # the calibration kernel: GFLOPS from the cycle model only
VALIDATION_TOLERANCE = 0.25    # kernels and nodes not used for calibration
RUN_PATTERN = re.compile(r"^(\w+):(\d+)x(\d+)x(\d+)$")


def _parse(run: str) -> tuple[str, int, int, int]:
    match = RUN_PATTERN.match(run)
    if not match or match.group(1) not in KERNEL_OPS:
        raise ConfigError(f"runs: {run!r} is not 'kernel:MxNxK' with kernel one of "
                          f"{', '.join(KERNEL_OPS)}")
    kernel, m, n, k = match.groups()
    return kernel, int(m), int(n), int(k)


def _check_run(key: str, run: str) -> None:
    """A run the cycle model accepts and whose operands fit the scratchpad (checked without
    simulating it: the config is checked before any job starts)."""
    kernel, m, n, k = _parse(run)
    try:
        snitch.check_gemm(kernel, m, n, k)
    except ValueError as error:
        raise ConfigError(f"{key}: {run!r}: {error}") from None
    if not snitch.fits_scratchpad(kernel, m, n, k):
        raise ConfigError(f"{key}: {run!r} needs {snitch.footprint_bytes(kernel, m, n, k)} "
                          f"bytes, more than the {snitch.SNITCH_CLUSTER.tcdm_bytes}-byte "
                          "scratchpad")


@dataclasses.dataclass(frozen=True)
class Config:
    """runs: 'kernel:MxNxK' GEMMs (``lutcore.snitch`` kernels, operands in the scratchpad) to
    price; calibration: the FP8->FP16 ExSdotp run that stands for the paper's measured
    "128x256" GEMM (read as mfnn-table2 does: A and B^T 128 x 256, so M = N = 128, K = 256),
    always priced as well."""

    runs: tuple[str, ...] = ("fp64_fma:64x64x64", "fp32_simd_fma:64x64x64",
                             "fp16_simd_fma:128x128x128", "fp8_simd_fma:128x128x256",
                             "fp16_fp32_exsdotp:128x128x128")
    calibration: str = "fp8_fp16_exsdotp:128x128x256"

    def __post_init__(self):
        for run in self.runs:
            _check_run("runs", run)
        _check_run("calibration", self.calibration)
        if _parse(self.calibration)[0] != CALIBRATION_KERNEL:
            raise ConfigError(f"calibration: {self.calibration!r} must run "
                              f"{CALIBRATION_KERNEL} (the kernel the paper measured)")


@functools.cache
def class_energies(kernel: str) -> dict[str, float]:
    """fJ at 45nm per issued instruction of each FPU class in ``kernel`` (see module doc):
    the body op on all its SIMD lanes; sdotp in an FMA kernel is its reduction (ExVsum to the
    next wider format); cast = a conversion/pack of two results; comp = a move/sign injection
    on the accumulator's lanes. Integer and memory instructions are in the calibrated rest."""
    group, src, dst = KERNEL_OPS[kernel]
    acc_bits = nm.FORMATS[dst].width
    lanes = FPU_WIDTH // acc_bits
    if group == "sdotp":
        sdotp = ppa.op_energy("sdotp", src, dst, lanes)
        addmul = ppa.op_energy("addmul", dst, dst, lanes)
    else:
        addmul = ppa.op_energy("addmul", src, dst, lanes)
        tail_src, tail_dst = TAIL.get(dst, (None, None))
        sdotp = 0.0 if tail_dst is None else ppa.op_energy(
            "sdotp", tail_src, tail_dst, FPU_WIDTH // nm.FORMATS[tail_dst].width)
    cast_src = "fp64" if dst == "fp64" else "fp32"
    return {"addmul": addmul, "sdotp": sdotp,
            "cast": ppa.op_energy("conv", cast_src, src, 64 // nm.FORMATS[cast_src].width),
            "comp": ppa.op_energy("noncomp", dst, dst, lanes)}


def run(config: Config) -> xr.Dataset:
    runs = list(dict.fromkeys((*config.runs, config.calibration)))
    scale = ppa.node_scale(NODE_NM, VDD)
    cal = reference(PAPER, ID, "cluster_efficiency").value
    freq_ghz, cal_power_mw = float(cal["freq_ghz"]), float(cal["power_mw"])
    fpu = ppa.fpu()
    cores = snitch.SNITCH_CLUSTER.cores
    fpu_leakage_mw = float(ppa.leakage_nw(fpu)) * cores * scale.leakage * 1e-6
    classes = list(snitch.FPU_CLASSES)
    issued = np.zeros((len(runs), len(snitch.CLASSES)))
    fpu_pj = np.zeros(len(runs))
    cycles, flop = np.zeros(len(runs)), np.zeros(len(runs))
    for i, name in enumerate(runs):
        kernel, m, n, k = _parse(name)
        profile = snitch.kernel_profile(kernel, m, n, k)
        energies = class_energies(kernel)
        cycles[i], flop[i] = profile.cycles, profile.flop
        issued[i] = [profile.issued.get(c, 0) for c in snitch.CLASSES]
        fpu_pj[i] = sum(profile.issued.get(c, 0) * energies[c] for c in classes) \
            * scale.energy * 1e-3
    seconds = cycles / (freq_ghz * 1e9)
    # Calibration: the rest of the cluster, in pJ per cycle, from the measured power.
    c = runs.index(config.calibration)
    rest_pj_per_cycle = ((cal_power_mw - fpu_leakage_mw) * 1e-3 * seconds[c] * 1e12
                         - fpu_pj[c]) / cycles[c]
    energy_pj = fpu_pj + cycles * rest_pj_per_cycle + fpu_leakage_mw * 1e-3 * seconds * 1e12
    power_mw = energy_pj * 1e-12 / seconds * 1e3
    gflops = flop / seconds * 1e-9
    ds = xr.Dataset(
        {"cycles": ("run", cycles), "flop": ("run", flop),
         "issued": (("run", "cls"), issued),
         "fpu_energy": ("run", fpu_pj, {"units": "pJ", "long_name": "FPU dynamic energy"}),
         "energy": ("run", energy_pj, {"units": "pJ"}),
         "power": ("run", power_mw, {"units": "mW"}),
         "gflops": ("run", gflops, {"units": "GFLOPS"}),
         "efficiency": ("run", gflops / (power_mw * 1e-3), {"units": "GFLOPS/W"})},
        coords={"run": runs, "cls": list(snitch.CLASSES)})
    # FPU-level efficiency: the body instruction's FLOP over its energy, per kernel format.
    kernels = list(KERNEL_OPS)
    fpu_eff = []
    for kernel in kernels:
        group, src, dst = KERNEL_OPS[kernel]
        lanes = FPU_WIDTH // nm.FORMATS[dst].width
        flop_per_op = lanes * (4 if group == "sdotp" else 2)
        fj = class_energies(kernel)[group] * scale.energy
        fpu_eff.append(flop_per_op / (fj * 1e-15) * 1e-9)
    ds["fpu_efficiency"] = ("kernel", fpu_eff, {"units": "GFLOPS/W",
                                                "long_name": "FPU energy efficiency"})
    ds["class_energy"] = (("kernel", "fpu_cls"),
                          [[class_energies(k)[c] * scale.energy for c in classes]
                           for k in kernels],
                          {"units": "fJ", "long_name": "FPU energy per issued instruction"})
    ds = ds.assign_coords(kernel=kernels, fpu_cls=classes)
    # The FP64 kernel at the native Snitch's node and clock (22nm, 1 GHz, 0.8 V): every
    # energy, the calibrated rest included, scaled by the same constant-field rule.
    snitch_scale = ppa.node_scale(SNITCH_NODE_NM, VDD)
    ratio = snitch_scale.energy / scale.energy
    fp64 = [i for i, r in enumerate(runs) if r.startswith("fp64_fma")]
    if fp64:
        i = fp64[0]
        seconds22 = cycles[i] / (SNITCH_FREQ_GHZ * 1e9)
        leak22 = fpu_leakage_mw * snitch_scale.leakage / scale.leakage
        energy22 = (fpu_pj[i] + cycles[i] * rest_pj_per_cycle) * ratio \
            + leak22 * 1e-3 * seconds22 * 1e12
        ds.attrs["fp64_22nm_efficiency"] = float(flop[i] / (energy22 * 1e-12) * 1e-9)
        ds.attrs["fp64_22nm_run"] = runs[i]
    ds.attrs.update(calibration=config.calibration, calibration_power_mw=cal_power_mw,
                    freq_ghz=freq_ghz, rest_pj_per_cycle=float(rest_pj_per_cycle),
                    fpu_leakage_mw=fpu_leakage_mw, node=f"{NODE_NM:g}nm, {VDD} V",
                    energy_scale=scale.energy)
    return ds


def _eff(ds, kernel: str) -> float:
    runs = [r for r in ds.run.values if str(r).startswith(kernel + ":")]
    return float(ds.efficiency.sel(run=runs[-1]))


def plot(ds: xr.Dataset):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    y = np.arange(ds.sizes["run"])
    colors = ["#c44e52" if r == ds.attrs["calibration"] else "#4c72b0" for r in ds.run.values]
    axes[0].barh(y, ds.efficiency, color=colors)
    axes[0].set_yticks(y, ds.run.values, fontsize=8)
    axes[0].set_xlabel("cluster GFLOPS/W (12nm model; red: calibration kernel)")
    paper = reference(PAPER, ID, "cluster_efficiency").value["gflops_per_w"]
    axes[0].axvline(paper, color="k", ls="--", label=f"paper FP8->FP16: {paper}")
    snitch_ref = reference(PAPER, ID, "vs_snitch_fp64").value["snitch_fp64_gflops_per_w"]
    axes[0].axvline(snitch_ref, color="0.5", ls=":", label=f"native Snitch FP64 (22nm): "
                                                          f"{snitch_ref}")
    axes[0].legend(fontsize=8)
    axes[0].invert_yaxis()
    x = np.arange(ds.sizes["kernel"])
    axes[1].barh(x, ds.fpu_efficiency / 1e3, color="#55a868")
    axes[1].set_yticks(x, ds.kernel.values, fontsize=8)
    axes[1].set_xlabel("FPU TFLOPS/W (body instruction, 12nm model)")
    axes[1].invert_yaxis()
    fig.suptitle("MiniFloat-NN energy efficiency: cluster (left), FPU (right)", fontsize=10)
    fig.tight_layout()
    return fig


def table(ds: xr.Dataset) -> str:
    rows = [[str(r) + (" (calibration)" if r == ds.attrs["calibration"] else ""),
             f"{int(ds.cycles.sel(run=r))}", f"{float(ds.gflops.sel(run=r)):.1f}",
             f"{float(ds.power.sel(run=r)):.0f}",
             f"{float(ds.fpu_energy.sel(run=r) / ds.energy.sel(run=r)):.0%}",
             f"{float(ds.efficiency.sel(run=r)):.0f}"] for r in ds.run.values]
    text = (f"Cluster at {ds.attrs['freq_ghz']} GHz, {ds.attrs['node']} (NanGate 45nm cells "
            f"scaled by constant-field rules, energy x{ds.attrs['energy_scale']:.3f}). "
            f"CALIBRATED: the rest of the cluster costs {ds.attrs['rest_pj_per_cycle']:.1f} pJ "
            f"per cycle, solved so that {ds.attrs['calibration']} draws the paper's "
            f"{ds.attrs['calibration_power_mw']:g} mW; every other row is a prediction. FPU "
            f"leakage (8 FPUs): {ds.attrs['fpu_leakage_mw']:.2f} mW.\n\n"
            + markdown_table(["run", "cycles", "GFLOPS", "mW", "FPU share", "GFLOPS/W"], rows,
                             right=5))
    classes = list(ds.fpu_cls.values)
    fpu_rows = [[str(k), *[f"{float(ds.class_energy.sel(kernel=k, fpu_cls=c)):.0f}"
                           for c in classes],
                 f"{float(ds.fpu_efficiency.sel(kernel=k)):.0f}"] for k in ds.kernel.values]
    text += ("\nFPU energy per issued instruction (fJ at 12nm, all its SIMD lanes: switching "
             "+ pipeline registers), and FPU-level efficiency: FLOP of one body instruction "
             "over its energy (no leakage, no cluster).\n\n"
             + markdown_table(["kernel", *[f"{c} fJ" for c in classes], "FPU GFLOPS/W"],
                              fpu_rows, right=len(classes) + 1))
    if "fp64_22nm_efficiency" in ds.attrs:
        text += (f"\n{ds.attrs['fp64_22nm_run']} rescaled to 22nm, 1 GHz (the native Snitch's "
                 f"node): {ds.attrs['fp64_22nm_efficiency']:.0f} GFLOPS/W.\n")
    return text


def _arithmetic_claim(module, model_gflops: float):
    """128 GFLOPS / 224 mW against the printed 575 GFLOPS/W: as printed, within the rounding of
    the printed inputs, through the paper's 7.2x, and with the cycle model's GFLOPS."""
    v = reference(PAPER, ID, "efficiency_arithmetic").value
    gflops, mw, printed = (Fraction(v[k]) for k in ("gflops", "power_mw", "gflops_per_w"))
    half = Fraction(1, 2)
    as_printed = gflops / mw * 1000
    low, high = (gflops - half) / (mw + half) * 1000, (gflops + half) / (mw - half) * 1000
    need_gflops = (printed - half) * (mw - half) / 1000  # both inputs at their interval ends
    need_mw = (gflops + half) / (printed - half) * 1000
    # a contradiction only if no inputs within their printed rounding give the printed 575
    inconsistent = not round(low) <= printed <= round(high)
    return paper_claim(
        module, "efficiency_arithmetic",
        ours=f"as printed: {float(as_printed):.1f} GFLOPS/W, and {float(as_printed):.1f} / "
             f"{v['snitch_gflops_per_w']} = {float(as_printed) / v['snitch_gflops_per_w']:.2f}x; "
             f"the paper's 575 / {v['snitch_gflops_per_w']} = "
             f"{float(printed) / v['snitch_gflops_per_w']:.2f}x; inputs anywhere in their rounding "
             f"intervals: {float(low):.1f}-{float(high):.1f} GFLOPS/W, which rounds to "
             f"{round(low)}-{round(high)}: 575 needs at least {float(need_gflops):.2f} GFLOPS "
             f"with at most {float(need_mw):.1f} mW; our cycle model's {model_gflops:.1f} GFLOPS "
             f"at the paper's {v['power_mw']} mW: {model_gflops / float(mw) * 1000:.0f} GFLOPS/W",
        holds=not inconsistent,
        tolerance="575 reachable from 128 GFLOPS and 224 mW within their printed rounding "
                  "(+-0.5), rounded to an integer",
        verdict="paper-inconsistent" if inconsistent else "",
        reason=(f"no 128 +- 0.5 GFLOPS over 224 +- 0.5 mW gives 575 GFLOPS/W (they give "
                f"{float(low):.1f}-{float(high):.1f})") if inconsistent else "",
        deviation="" if inconsistent else
        f"575 lies at the top of the printed inputs' rounding ({float(as_printed):.1f} as "
        "printed): consistent, not a contradiction")


def claims(ds: xr.Dataset):
    module = EXPERIMENT
    cal = reference(PAPER, ID, "cluster_efficiency").value
    ours = float(ds.efficiency.sel(run=ds.attrs["calibration"]))
    ours_gflops = float(ds.gflops.sel(run=ds.attrs["calibration"]))
    power = ds.attrs["calibration_power_mw"]
    # the power is the paper's (calibration): the GFLOPS is what this claim tests
    cal_ok = abs(ours_gflops / cal["gflops"] - 1) <= CALIBRATION_TOLERANCE
    result = [paper_claim(
        module, "cluster_efficiency",
        ours=f"{ours_gflops:.1f} GFLOPS (cycle model), hence {ours:.0f} GFLOPS/W at the paper's "
             f"{power:g} mW (CALIBRATED: the power is set to the paper's for this kernel, not "
             "computed)",
        ours_value=ours_gflops, paper_value=cal["gflops"], band=CALIBRATION_TOLERANCE,
        holds=cal_ok, tolerance=f"GFLOPS within {CALIBRATION_TOLERANCE:.0%} of the paper's "
        f"{cal['gflops']} (tests the GFLOPS only: the power is the paper's {power:g} mW)",
        deviation=f"{ours_gflops / cal['gflops'] - 1:+.1%} in GFLOPS" + (
            "" if cal_ok else ": the cycle model's GFLOPS differ from the measured 128"))]

    result.append(_arithmetic_claim(module, ours_gflops))
    snitch_ref = reference(PAPER, ID, "vs_snitch_fp64").value
    if "fp64_22nm_efficiency" in ds.attrs:
        fp64_22 = ds.attrs["fp64_22nm_efficiency"]
        cited = snitch_ref["snitch_fp64_gflops_per_w"]
        ratio = ours / cited
        # the 80 GFLOPS/W is a cited silicon measurement (ref. [12]): the 7.2x is judged against
        # it; our node-scaled FP64 estimate is context
        ok = abs(ratio / snitch_ref["ratio"] - 1) <= VALIDATION_TOLERANCE
        result.append(paper_claim(
            module, "vs_snitch_fp64",
            ours=f"FP8->FP16 {ours:.0f} GFLOPS/W (cycle-model GFLOPS at the paper's calibrated "
                 f"power) / the cited {cited} GFLOPS/W = {ratio:.2f}x. Context: our FP64 GEMM "
                 f"{ds.attrs['fp64_22nm_run']} predicted at 22nm, 1 GHz is {fp64_22:.0f} GFLOPS/W "
                 f"({ours / fp64_22:.1f}x; at the same 12nm node "
                 f"{ours / _eff(ds, 'fp64_fma'):.1f}x), which crosses nodes by constant-field "
                 "scaling of every energy",
            ours_value=ratio, paper_value=snitch_ref["ratio"], band=VALIDATION_TOLERANCE,
            holds=ok, tolerance=f"the ratio to the cited {cited} GFLOPS/W within "
            f"{VALIDATION_TOLERANCE:.0%}",
            deviation=f"{ratio / snitch_ref['ratio'] - 1:+.0%}"))

    fpnew = reference(PAPER, ID, "vs_fpnew_fp8").value
    sdotp_fpu = float(ds.fpu_efficiency.sel(kernel="fp8_fp16_exsdotp"))
    fma_fpu = float(ds.fpu_efficiency.sel(kernel="fp8_simd_fma"))
    ratio = sdotp_fpu / fma_fpu
    ok = abs(ratio / fpnew - 1) <= VALIDATION_TOLERANCE
    cluster_ratio = ""
    if any(str(r).startswith("fp8_simd_fma:") for r in ds.run.values):
        cluster_ratio = (f"; cluster level {ours / _eff(ds, 'fp8_simd_fma'):.2f}x "
                         "(FP8->FP16 ExSdotp vs FP8 SIMD FMA kernel)")
    result.append(paper_claim(
        module, "vs_fpnew_fp8",
        ours=f"FPU level, same FPU model: FP8->FP16 ExSdotp {sdotp_fpu:.0f} GFLOPS/W vs FP8 "
             f"FMA (FPnew's ADDMUL) {fma_fpu:.0f} GFLOPS/W = {ratio:.2f}x{cluster_ratio}",
        holds=ok, tolerance=f"within {VALIDATION_TOLERANCE:.0%}", ours_value=ratio,
        band=VALIDATION_TOLERANCE,
        deviation="" if ok else
        "in one technology the ExSdotp costs more per FLOP than a non-expanding FP8 FMA: it "
        "adds in the 16-bit destination format (an 11-bit significand datapath and two wide "
        "adders) where the FP8 FMA works on 3-4 bits; the paper compares with FPnew's "
        "published FP8 figure from another chip (22nm FDX)"))
    result.append(paper_claim(  # not-testable-here (the reference entry says why)
        module, "vs_zhang",
        ours=f"ratio not formed; our FPU-level FP8->FP16 ExSdotp: {sdotp_fpu:.0f} GFLOPS/W",
        holds=False))
    mao = reference(PAPER, ID, "vs_mao").value
    ratio = sdotp_fpu / mao["mao_gflops_per_w"]
    ok = abs(ratio / mao["ratio"] - 1) <= VALIDATION_TOLERANCE
    result.append(paper_claim(
        module, "vs_mao",
        ours=f"FPU-level FP8->FP16 ExSdotp {sdotp_fpu:.0f} GFLOPS/W / Mao et al.'s published "
             f"{mao['mao_gflops_per_w']:g} GFLOPS/W = {ratio:.1f}x",
        holds=ok, tolerance=f"within {VALIDATION_TOLERANCE:.0%}", ours_value=ratio,
        paper_value=mao["ratio"], band=VALIDATION_TOLERANCE,
        deviation="" if ok else
        "our FPU-level energy counts the datapath cells only (no clock tree, wiring, operand "
        "buffers or pipeline-register clocking beyond the cells), which the paper's post-layout "
        "power includes; the nodes differ (our 12nm by ideal scaling vs Mao's 28nm)"))
    return result


EXPERIMENT = Experiment(id=ID, title=TITLE, paper=PAPER, claim_keys=CLAIMS, config=Config, run=run,
                        plot=plot, table=table, claims=claims)

"""Read the facts of the LUT Tensor Core's released array from a T-MAC snapshot and check them
against ``lutcore.ppa._release`` (run once; facts only, no code is copied):

    python tools/tmac_rtl_facts.py <T-MAC git dir or checkout> [commit]

The snapshot is public GitHub ``microsoft/T-MAC`` (tag ``LUTTensorCore_ISCA25``, default commit
below). Prints every fact as ``repository@commit:path: fact`` and exits non-zero if one differs
from what lutcore models.
"""

import pathlib
import re
import subprocess
import sys

from lutcore.ppa import _release

COMMIT = "c3319dbb598a46713c52bd5a00b8682973c431f7"  # tag LUTTensorCore_ISCA25
FOLDER = "sv_lut_array"
TOP = f"{FOLDER}/rtl/fp_lut_array_b_cycle_stage1.sv"
DC = f"{FOLDER}/scripts/dc.tcl"
CONSTRAINTS = f"{FOLDER}/scripts/constraint.tcl"


def read(repo: pathlib.Path, commit: str, path: str) -> str:
    """A file of the snapshot: from git when ``repo`` is a git dir, else from the checkout."""
    if (repo / path).exists():
        return (repo / path).read_text()
    return subprocess.run(["git", f"--git-dir={repo}", "show", f"{commit}:{path}"],
                          capture_output=True, text=True, check=True).stdout


def _code(text: str) -> str:
    """The text without // comments (the release keeps alternatives commented out)."""
    return re.sub(r"//[^\n]*", "", text)


def rtl_facts(sv: str) -> dict[str, object]:
    code = _code(sv)
    parameters = dict(re.findall(r"parameter\s+(\w+)\s*=\s*([^,\n)]+)", code))
    value = {name: int(v) for name, v in parameters.items() if v.strip().isdigit()}
    return {
        "SIG_WIDTH": value["SIG_WIDTH"], "EXP_WIDTH": value["EXP_WIDTH"],
        "IEEE_COMPLIANCE": value["IEEE_COMPLIANCE"], "B_BIT": value["B_BIT"],
        "M_DIM": value["M_DIM"], "N_DIM": value["N_DIM"], "K_DIM": value["K_DIM"],
        "A_LUT_BIT": parameters["A_LUT_BIT"].strip(), "C_BIT": parameters["C_BIT"].strip(),
        "ports a_lut/b_tile/c_tile_psum are inputs": all(
            re.search(rf"input\s+logic[^;\n]*\b{port}\b", code)
            for port in ("a_lut", "b_tile", "c_tile_psum")),
        "index = b_tile[k][j][b_index]": bool(
            re.search(r"temp_lut_index\[j\]\[k\]\s*=\s*b_tile\[k\]\[j\]\[b_index\]", code)),
        "entry select = index[K-1:1]": bool(
            re.search(r"temp_lut_index_transformed\[j\]\s*=\s*temp_lut_index\[j\]\[K_DIM-1:1\]",
                      code)),
        "sign flipped by index[0]": bool(re.search(r"\(temp_lut_index\[j\]\[0\]\)\s*\?\s*~",
                                                   code)),
        "b_index added to the exponent field": bool(
            re.search(r"\[SIG_WIDTH\+EXP_WIDTH-1:SIG_WIDTH\]\s*\+\s*b_index", code)),
        "psum mux on b_index == 0": bool(
            re.search(r"\(b_index==0\)\?c_tile_psum\[i\]\[j\]:result\[i\]\[j\]", code)),
        "adder": re.search(r"(DW_fp_\w+)\s*#\(SIG_WIDTH, EXP_WIDTH, IEEE_COMPLIANCE\)",
                           code).group(1),
        "rnd": re.search(r"\.rnd\(([^)]*)\)", code).group(1),
        "storage registers": sorted(set(re.findall(r"^\s*(\w+)(?:\[[^\]]*\])*\s*<=", code,
                                                   re.M))),
        "asynchronous reset": "negedge rst_n" in code,
    }


def flow_facts(dc: str, constraints: str) -> dict[str, object]:
    dc, constraints = _code(re.sub(r"#[^\n]*", "", dc)), re.sub(r"#[^\n]*", "", constraints)
    return {
        "target_library": re.search(r'set target_library\s+"([^"]+)"', dc).group(1),
        "compile command": re.search(r"^\s*(compile\w*)\b", dc, re.M).group(1),
        "activity file read": bool(re.search(r"read_saif|read_vcd|set_switching_activity", dc)),
        "report_power": "report_power" in dc,
        "clock period (ns)": float(re.search(r"set clk_period\s+([\d.]+)", constraints).group(1)),
        "set_max_area": re.search(r"set_max_area\s+(\S+)", constraints).group(1),
        "input delay (x period)": float(re.search(r"set_input_delay -max \[expr ([\d.]+)\*",
                                                  constraints).group(1)),
        "output delay (x period)": float(re.search(r"set_output_delay -max \[expr ([\d.]+)\*",
                                                   constraints).group(1)),
        "driving cell": re.search(r"set_driving_cell -lib_cell (\S+)", constraints).group(1),
    }


def main(repo: str, commit: str = COMMIT) -> int:
    root = pathlib.Path(repo)
    rtl = rtl_facts(read(root, commit, TOP))
    flow = flow_facts(read(root, commit, DC), read(root, commit, CONSTRAINTS))
    for path, facts in ((TOP, rtl), (f"{DC} + {CONSTRAINTS}", flow)):
        for key, value in facts.items():
            print(f"microsoft/T-MAC@{commit}:{path}: {key} = {value}")
    release = _release.RELEASE
    expected = {
        "SIG_WIDTH": release.man_bits, "EXP_WIDTH": release.exp_bits,
        "IEEE_COMPLIANCE": release.ieee_compliance, "B_BIT": release.b_bits,
        "M_DIM": release.m, "N_DIM": release.n, "K_DIM": release.k,
        "A_LUT_BIT": "SIG_WIDTH+EXP_WIDTH+1", "C_BIT": "A_LUT_BIT",
        "adder": "DW_fp_add", "rnd": "3'b000",
        "storage registers": ["b_index", "result", "valid"],
    }
    wrong = {k: (rtl.get(k), v) for k, v in expected.items() if rtl.get(k) != v}
    wrong.update({k: (rtl[k], True) for k, v in rtl.items() if v is False})
    if flow["clock period (ns)"] * 1000 != _release.CLOCK_PERIOD_PS:
        wrong["clock period"] = (flow["clock period (ns)"], _release.CLOCK_PERIOD_PS / 1000)
    if flow["activity file read"]:
        wrong["activity file"] = (True, False)
    for key, (found, modelled) in wrong.items():
        print(f"MISMATCH {key}: release has {found!r}, lutcore models {modelled!r}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

"""Print the ASAP7 cell table of lutcore.ppa (``lutcore/ppa/_asap7.py``) from the ASAP7 liberty
files, and the FO4 inverter delay of any liberty file (the delay yardstick that maps a library
onto "28nm"; NanGate45's too).

The files (not shipped; ASAP7 predictive 7nm PDK standard cells, asap7sc7p5t, RVT, TT corner,
0.7 V, 25 C) come from
The-OpenROAD-Project/OpenROAD-flow-scripts@8c009b0b663703fc3fe2f474eab918b12fffbaf6,
folder ``flow/platforms/asap7/lib/NLDM/`` (gunzip the .gz files first):
``asap7sc7p5t_SIMPLE_RVT_TT_nldm_211120.lib``, ``asap7sc7p5t_INVBUF_RVT_TT_nldm_220122.lib``,
``asap7sc7p5t_AO_RVT_TT_nldm_211120.lib``, ``asap7sc7p5t_OA_RVT_TT_nldm_211120.lib``,
``asap7sc7p5t_SEQ_RVT_TT_nldm_220123.lib``.

    python tools/asap7_cells.py DIR                       # the table, from the five files in DIR
    python tools/asap7_cells.py --fo4 FILE.lib INV_X1     # FO4 delay of one inverter (ps)

Per cell, at input slew 20 ps and load 2.88 fF (a point of every table below; about two x1
gate inputs of 0.5-1.0 fF plus local wire, as NanGate45's 3.71 fF is two X1 inputs plus wire):
area (um^2); leakage (nW, the state-independent ``leakage_power`` of VDD); delay = the slowest
arc's mean of cell_rise and cell_fall; energy = the mean over the VDD internal_power groups of
the mean of rise_power and fall_power (fJ per transition; 1-D tables at the slew, scalars as
they are). FA/HA give their carry arc (CI -> CON, B -> CON), DFFHQNx1 its CLK -> QN and setup
(worst of rise/fall constraint at 20 ps data and clock slew).

Drive strengths: the smallest cell of each function that ORFS's ASAP7 platform lets its tools
use (``DONT_USE_CELLS = *x1p*_ASAP7* *xp*_ASAP7*`` in ``flow/platforms/asap7/config.mk``), except
the half adder, whose only cell HAxp5 ORFS's own Yosys adder map instantiates
(``flow/platforms/asap7/yoSys/cells_adders_R.v``).
"""

import argparse
import pathlib
import re

SLEW_PS, LOAD_FF = 20.0, 2.88
FILES = {"SIMPLE": "asap7sc7p5t_SIMPLE_RVT_TT_nldm_211120.lib",
         "INVBUF": "asap7sc7p5t_INVBUF_RVT_TT_nldm_220122.lib",
         "AO": "asap7sc7p5t_AO_RVT_TT_nldm_211120.lib",
         "OA": "asap7sc7p5t_OA_RVT_TT_nldm_211120.lib",
         "SEQ": "asap7sc7p5t_SEQ_RVT_TT_nldm_220123.lib"}
# lutcore's logical cell -> (file, ASAP7 cell); suffix _ASAP7_75t_R
CELLS = {"INV": ("INVBUF", "INVx1"), "BUF": ("INVBUF", "BUFx2"), "NAND2": ("SIMPLE", "NAND2x1"),
         "NOR2": ("SIMPLE", "NOR2x1"), "AND2": ("SIMPLE", "AND2x2"), "OR2": ("SIMPLE", "OR2x2"),
         "XOR2": ("SIMPLE", "XOR2x1"), "XNOR2": ("SIMPLE", "XNOR2x1"), "AO22": ("AO", "AO22x1"),
         "AOI21": ("AO", "AOI21x1"), "OAI21": ("OA", "OAI21x1"), "AOI22": ("AO", "AOI22x1"),
         "HA": ("SIMPLE", "HAxp5"), "FA": ("SIMPLE", "FAx1"), "DFF": ("SEQ", "DFFHQNx1")}


def groups(text: str, keyword: str):
    """(argument, body) of every ``keyword (argument) { body }`` group at any depth, braces
    matched."""
    for match in re.finditer(rf"\b{keyword}\s*\(([^)]*)\)\s*\{{", text):
        depth, i = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        yield match.group(1).strip().strip('"'), text[match.end():i - 1]


def cell_block(text: str, name: str) -> str:
    start = re.search(rf"\bcell\s*\(\s*\"?{name}\"?\s*\)", text).start()
    return next(groups(text[start:start + text[start:].find("\n  cell") % len(text)], "cell"))[1]


def numbers(s: str) -> list[float]:
    return [float(x) for x in re.findall(r"[-+\d.eE]+", s)]


def lookup(table: str, slew: float, load: float) -> float:
    """Bilinear interpolation of an NLDM table (index_1 = input slew, index_2 = load); 1-D
    tables on index_1, scalars as they are."""
    values = [numbers(row) for row in re.findall(r'"([^"]+)"', table.split("values", 1)[1])]
    idx = [numbers(m) for m in re.findall(r'index_\d\s*\("([^"]+)"\)', table)]
    if not idx:
        return values[0][0]

    def axis(points, x):
        j = max(0, min(len(points) - 2, sum(p <= x for p in points) - 1))
        return j, (x - points[j]) / (points[j + 1] - points[j])

    i, fi = axis(idx[0], slew)
    if len(idx) == 1:
        row = values[0] if len(values) == 1 else [r[0] for r in values]
        return row[i] + fi * (row[i + 1] - row[i])
    j, fj = axis(idx[1], load)
    v = values
    top = v[i][j] + fj * (v[i][j + 1] - v[i][j])
    bottom = v[i + 1][j] + fj * (v[i + 1][j + 1] - v[i + 1][j])
    return top + fi * (bottom - top)


def arcs(block: str, slew: float, load: float, scale: float):
    """{'A->Y': mean(cell_rise, cell_fall)} per arc and {'setup:D': worst constraint} (ps)."""
    found = {}
    pins = list(groups(block, "pin"))
    outputs = {p for p, body in pins if re.search(r"direction\s*:\s*output", body)}
    for pin, body in pins:
        for _, timing in groups(body, "timing"):
            related = re.search(r'related_pin\s*:\s*"?(\w+)', timing).group(1)
            if related in outputs:  # HAxp5's SN is also timed from its own CON output
                continue
            tables = {k: t for k in ("cell_rise", "cell_fall", "rise_constraint",
                                     "fall_constraint") for _, t in groups(timing, k)}
            if "cell_rise" in tables:
                value = (lookup(tables["cell_rise"], slew, load)
                         + lookup(tables["cell_fall"], slew, load)) / 2
                key = f"{related}->{pin}"
            elif re.search(r"timing_type\s*:\s*setup_rising", timing):
                # constraint tables: index_1 = data slew, index_2 = clock slew
                value = max(lookup(tables[k], slew, slew) for k in ("rise_constraint",
                                                                    "fall_constraint"))
                key = f"setup:{pin}"
            else:
                continue
            found[key] = max(found.get(key, -1e9), value * scale)
    return found


def energy(block: str, slew: float, load: float, scale: float) -> float:
    """Mean over VDD internal_power groups of mean(rise_power, fall_power), fJ."""
    values = []
    for _, power in groups(block, "internal_power"):
        if re.search(r"related_pg_pin\s*:\s*VSS", power):
            continue
        tables = [t for k in ("rise_power", "fall_power") for _, t in groups(power, k)]
        values.append(sum(lookup(t, slew, load) for t in tables) / len(tables))
    return sum(values) / len(values) * scale


def leakage_nw(block: str) -> float:
    for _, body in groups(block, "leakage_power"):
        if "when" not in body and re.search(r"related_pg_pin\s*:\s*VDD", body):
            return float(re.search(r"value\s*:\s*([\d.eE+-]+)", body).group(1)) * 1e-3  # pW
    return float(re.search(r"cell_leakage_power\s*:\s*([\d.]+)", block).group(1))


def time_scale(text: str) -> float:
    """ps per library time unit."""
    unit = re.search(r'time_unit\s*:\s*"1(\w+)"', text).group(1)
    return {"ps": 1.0, "ns": 1e3}[unit]


def fo4(path: str, inverter: str) -> float:
    """FO4 delay (ps): the inverter driving four copies of its input pin, its input slew the
    output transition it produces itself (iterated to the fixed point of an inverter chain)."""
    text = pathlib.Path(path).read_text()
    block, scale = cell_block(text, inverter), time_scale(text)
    cap = max(numbers(c)[0] for c in re.findall(r"\bcapacitance\s*:\s*([\d.]+)", block))
    (body,) = [b for _, b in groups(block, "pin") if re.search(r"direction\s*:\s*output", b)]
    (_, timing), = list(groups(body, "timing"))
    tab = {k: t for k in ("cell_rise", "cell_fall", "rise_transition", "fall_transition")
           for _, t in groups(timing, k)}
    slew = 1.0 / scale * 20.0  # library units
    for _ in range(50):
        slew = (lookup(tab["rise_transition"], slew, 4 * cap)
                + lookup(tab["fall_transition"], slew, 4 * cap)) / 2
    delay = (lookup(tab["cell_rise"], slew, 4 * cap) + lookup(tab["cell_fall"], slew, 4 * cap)) / 2
    return delay * scale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="folder of the five ASAP7 files, or a liberty with --fo4")
    parser.add_argument("--fo4", metavar="INVERTER", help="print the FO4 delay of INVERTER")
    args = parser.parse_args()
    if args.fo4:
        print(f"FO4 {args.fo4}: {fo4(args.path, args.fo4):.2f} ps")
        return
    folder = pathlib.Path(args.path)
    texts = {k: (folder / f).read_text() for k, f in FILES.items()}
    for name, (lib, cell) in CELLS.items():
        block = cell_block(texts[lib], f"{cell}_ASAP7_75t_R")
        area = float(re.search(r"\barea\s*:\s*([\d.]+)", block).group(1))
        found = arcs(block, SLEW_PS, LOAD_FF, 1.0)
        delays = {k: v for k, v in found.items() if not k.startswith("setup")}
        print(f"{name:6s} {cell:9s} area={area:.5f} leak_nW={leakage_nw(block):.4f} "
              f"delay_ps={max(delays.values()):.2f} "
              f"energy_fJ={energy(block, SLEW_PS, LOAD_FF, 1.0):.4f}")
        print("    arcs (ps):", {k: round(v, 2) for k, v in found.items()})
    inv = "INVx1_ASAP7_75t_R"
    print(f"FO4 {inv}: {fo4(folder / FILES['INVBUF'], inv):.2f} ps")


if __name__ == "__main__":
    main()

"""Print the cell table of lutcore.ppa from a NanGate 45nm Open Cell Library liberty file.

How the numbers in ``lutcore/ppa/_cells.py`` were taken (run once; the liberty file is not
shipped: OpenSTA's ``examples/nangate45_typ.lib.gz``, NanGate PDKv1_3_v2010_12, typical corner,
1.10 V, 25 C):

    python tools/nangate_cells.py nangate45_typ.lib

Per cell: area (um^2); cell_leakage_power (nW, state average); delay = the slowest arc's mean of
cell_rise and cell_fall, and energy = the mean over arcs of the mean of rise_power and
fall_power (fJ per output transition), both at the table point (input slew 17.2 ps, load
3.71 fF ~ two gate inputs plus wire); for DFF_X1 the arcs are CK -> Q and the clock pin's energy.
"""

import re
import sys

CELLS = ("INV_X1", "BUF_X1", "NAND2_X1", "NOR2_X1", "AND2_X1", "OR2_X1", "XOR2_X1", "XNOR2_X1",
         "MUX2_X1", "AOI21_X1", "OAI21_X1", "AOI22_X1", "HA_X1", "FA_X1", "DFF_X1")
SLEW, LOAD = 2, 2  # index_1 / index_2 positions of the reference point


def cell_block(text: str, name: str) -> str:
    start = re.search(rf"^\s*cell \({name}\)\s*{{", text, re.M).start()
    end = re.compile(r"^\s*cell \(", re.M).search(text, start + 10).start()
    return text[start:end]


def table_value(block: str, kind: str) -> list[float]:
    """The value at (SLEW, LOAD) of every ``kind(...) { ... values(...) }`` table in block."""
    found = []
    for match in re.finditer(kind + r"\([^)]*\)\s*\{(.*?)\}", block, re.S):
        rows = re.findall(r'"([^"]+)"', match.group(1).split("values", 1)[1])
        table = [[float(x) for x in row.split(",")] for row in rows]
        row = table[min(SLEW, len(table) - 1)]
        found.append(row[min(LOAD, len(row) - 1)])  # 1-D and scalar tables too
    return found


def arc_delays(block: str) -> dict[str, float]:
    """Worst mean(cell_rise, cell_fall) per ``input->output`` arc (ps); setup per ``setup:pin``."""
    arcs: dict[str, float] = {}
    pins = list(re.finditer(r"\n\s*pin \((\w+)\)", block))
    for i, pin in enumerate(pins):
        body = block[pin.start():pins[i + 1].start() if i + 1 < len(pins) else len(block)]
        for timing in re.finditer(r"timing \(\)\s*\{(.*?)\n\t\t\}", body, re.S):
            related = re.search(r'related_pin\s*:\s*"(\w+)"', timing.group(1)).group(1)
            rise, fall = (table_value(timing.group(1), k) for k in ("cell_rise", "cell_fall"))
            setup = table_value(timing.group(1), "rise_constraint")
            if rise and fall:
                key, value = f"{related}->{pin.group(1)}", (rise[0] + fall[0]) / 2
            elif setup and "setup" in timing.group(1):
                fall_setup = table_value(timing.group(1), "fall_constraint")
                key, value = f"setup:{pin.group(1)}", max(setup[0], fall_setup[0])
            else:
                continue
            arcs[key] = max(arcs.get(key, 0.0), value * 1e3)
    return arcs


def main(path: str) -> None:
    text = open(path).read()
    for name in CELLS:
        block = cell_block(text, name)
        area = float(re.search(r"\barea\s*:\s*([\d.]+)", block).group(1))
        leak = float(re.search(r"cell_leakage_power\s*:\s*([\d.]+)", block).group(1))
        rise, fall = table_value(block, "cell_rise"), table_value(block, "cell_fall")
        delay = max((r + f) / 2 for r, f in zip(rise, fall)) * 1e3
        rp, fp = table_value(block, "rise_power"), table_value(block, "fall_power")
        energy = sum((r + f) / 2 for r, f in zip(rp, fp)) / max(len(rp), 1)
        print(f"{name:10s} area={area:.3f} leak_nW={leak:.2f} delay_ps={delay:.1f} "
              f"energy_fJ={energy:.3f}")
        print("    arcs (ps):", {k: round(v, 1) for k, v in arc_delays(block).items()})


if __name__ == "__main__":
    main(sys.argv[1])

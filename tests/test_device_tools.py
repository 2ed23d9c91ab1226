"""tools/device: the device check for issue 30 (built here, run where a GPU is lent). What runs
without a GPU: the shapes it times, the generated wgmma asm's operand numbering, and the report
read back from hand-made output files."""

import json
import pathlib
import re
import sys

import pytest
import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools" / "device"))
import gen_wgmma_chain as gen  # noqa: E402
import report  # noqa: E402
import shapes  # noqa: E402


def test_shapes_are_the_h200_rows_and_the_k_sweep():
    """8 (N, K) pairs x 21 M values = 168 rows a width, and the K sweep at N = 4096 adds the
    K = 2048 and 8192 columns (4 M each; K 1024, 4096, 16384 are rows already): 176."""
    rows = shapes.weight_only_rows()
    assert len(rows) == 2 * 168 and {bits for bits, *_ in rows} == {4, 8}
    found = shapes.shapes()
    assert len(found) == 176 and len(set(found)) == 176
    assert found[0] == (1, 1024, 4096) and found[-1] == (8192, 16384, 4096)
    assert {(16, 4096, 2048), (128, 4096, 8192)} <= set(found)


@pytest.mark.parametrize("n", gen.N_VALUES)
@pytest.mark.parametrize("rs", [True, False])
def test_wgmma_asm_numbers_every_operand_once(n, rs):
    """The asm string uses %0 .. %(operands - 1) each once (n / 2 accumulators, 4 A registers or
    an A descriptor, the B descriptor, the scale flag), the constraint list has as many."""
    text = gen.mma_function(n, rs)
    asm = text[text.index("asm volatile"):text.index(": ")]
    used = [int(x) for x in re.findall(r"%(\d+)", asm)]
    operands = n // 2 + (4 if rs else 1) + 2
    assert sorted(used) == list(range(operands))
    constraints = re.findall(r'"[+]?[rlf]"\(', text)
    assert len(constraints) == operands
    assert f"m64n{n}k16" in asm


def test_variants_name_distinct_kernels():
    names = [gen.kernel_name(v) for v in gen.variants()]
    assert len(names) == len(set(names))
    assert all(0 <= v["wait"] <= 3 for v in gen.variants())


def _write(folder, name, lines):
    (folder / name).write_text("\n".join(json.dumps(x) for x in lines) + "\n")


def test_report_reads_slopes_clocks_and_the_plugins_pick(tmp_path, capsys):
    """Hand-made output: a 64 x 16 INT8 tactic whose device time is 5 us + 0.2 us a k-tile at
    N = 4096, M = 16 (0.1 us with the weights in the L2); the clock samples 1980 MHz under load
    (an idle 345 MHz sample is left out): 0.2 us x 1.98 GHz = 396 clocks a k-tile, 198 from
    the L2. At the H200 row INT8 M 16 N 4096 K 1024 the faster of two tactics is picked and its
    profiler time stands over the row."""
    _write(tmp_path, "wgmma_chain.jsonl", [
        {"device": "H100", "sms": 132},
        {"kernel": "k", "n": 16, "mode": "rs", "wait": 3, "chains": 1, "convert": "int8",
         "warpgroups": 1, "ctas": 1, "clocks_per_wgmma": 80.0},
        {"kernel": "k", "n": 16, "mode": "rs", "wait": 3, "chains": 1, "convert": "int8",
         "warpgroups": 1, "ctas": 132, "clocks_per_wgmma": 85.0}])
    _write(tmp_path, "tma_pipeline.jsonl", [
        {"device": "H100", "sms": 132},
        *({"box_row_bytes": 64, "box_rows": 64, "source": "dram", "stages": stages,
           "ctas": ctas, "loads": 969, "clocks_per_load": 800.0 / stages + ctas / 132}
          for stages in (1, 2) for ctas in (1, 132))])
    head = {"device": "H100", "sms": 132}
    rows = []
    for k in (1024, 2048, 4096, 8192):
        device = 5 + 0.2 * k / 64
        rows.append({"tactic": "i8_64x16_c1x1", "bits": 8, "cta_m": 64, "cta_n": 16, "m": 16,
                     "n": 4096, "k": k, "profiler_us": device + 8, "stream_us": device + 1,
                     "graph_us": device, "hot_us": 5 + 0.1 * k / 64})
    rows.append({"tactic": "i8_128x16_c2x1", "bits": 8, "cta_m": 128, "cta_n": 16, "m": 16,
                 "n": 4096, "k": 1024, "profiler_us": 99.0, "stream_us": 50.0, "graph_us": 40.0,
                 "hot_us": 30.0})
    _write(tmp_path, "rs_gemm.jsonl", [head] + rows)
    with open(tmp_path / "rs_gemm.jsonl", "a") as f:  # the launcher's message, a cut-off line
        f.write("fpA_intB cutlass kernel will fail for params. Error: Misaligned Operand\n")
        f.write('{"tactic": "i4_64x16_c1x1", "bits": 4, "cta_')  # cut off by the time limit
    (tmp_path / "clocks.csv").write_text(
        "2026/12/05 10:00:00.000, 345 MHz, 70.1 W\n"
        + "".join(f"2026/12/05 10:00:0{i}.000, 1980 MHz, 500.0 W\n" for i in range(3)))
    report.main([str(tmp_path)])
    out = capsys.readouterr().out
    assert "rs_gemm.jsonl: 2 lines that are not JSON left out" in out
    assert " 64 B x 64  rows from dram: 1: 800 / 801, 2: 400 / 401" in out
    assert "k-tile 320 clk (int8 loop, wait 3)" in out  # 4 x the one-CTA 80
    assert re.search(r"i8_64x16_c1x1\s+M 16\s*:\s+200 ns \(\s*396 clk\) \+\s+5.0 us / "
                     r"\s*100 ns \(\s*198 clk\) \+\s+5.0 us a k-tile", out)
    h200 = yaml.safe_load(shapes.REFERENCE.read_text())  # the row, read independently
    entry = next(s for s in h200["sets"] if s["name"] == "int8_wo N4096 K1024")
    row_ms = next(p[3] for p in entry["points"] if p[0] == 16)
    expected = (5 + 0.2 * 16 + 8) / (row_ms * 1e3)
    line = next(x for x in out.splitlines() if "INT8 M 16 " in x and "K 1024" in x)
    assert "i8_64x16_c1x1" in line and line.endswith(f"= {expected:.2f}")

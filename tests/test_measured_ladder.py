"""tools/transcribe_ladder.py (the Ladder OSDI'24 artifact's fpA_intB log) and the validation
file it writes: the log's ``M_N_K: ms`` lines, the A100 PCIe card, priced by the kernel that
ran."""

import pathlib
import sys

import pytest

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _cross_source, _measured

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import transcribe_ladder as tool  # noqa: E402

# the log's layout: per-shape "cost:" lines, then the summary lines the tool reads
LOG = "cost:  0.5\ncost:  31.5\n1_14336_57344: 0.5\n4096_8192_28672: 12.934350967407227\n"


def test_the_log_summary_lines_are_read_in_order():
    assert tool.log_times(LOG) == [[1, 14336, 57344, 0.5], [4096, 8192, 28672, 12.934350967407227]]
    with pytest.raises(ValueError, match="no 'M_N_K: ms' lines"):
        tool.log_times("cost:  0.5\n")


def test_the_file_is_a_validation_set_on_the_pcie_card():
    data = _measured.load("ladder_a100.yaml")
    assert (data["role"], data["device"]) == ("validation", "a100-pcie")
    (entry,) = data["sets"]
    assert entry["kernel"] == "fpa_intb" and entry["group_size"] == 0
    assert {p[0] for p in entry["points"]} == {1, 32, 4096}


def test_a_row_is_priced_by_fpa_intb_on_the_pcie_card():
    """4096 x 8192 x 28672 (12.934 ms): the loader's prediction is the A100 PCIe's fpA_intB
    with one scale per output channel, not the SXM4 module's."""
    data = _measured.load("ladder_a100.yaml")
    labels, categories, measured, modeled = _measured.gemm_points(data, data["sets"][0])
    row = labels.index("FasterTransformer W4A16: 4096x8192x28672")
    assert categories[row] == "mpgemm" and measured[row] == pytest.approx(12.934350967407227e-3)
    pcie, module = (gpu.gemm_latency(spec, "fpa_intb", 4096, 8192, 28672, act="fp16",
                                     weight_bits=4, group_size=0, zero_points=False).seconds
                    for spec in (gpu.A100_PCIE, gpu.A100))
    assert modeled[row] == pytest.approx(float(pcie)) and float(pcie) > float(module)


def test_the_gemvs_pair_with_mlc_benchmarks_rows():
    """1 x 14336 x 57344 and 1 x 8192 x 28672: the same program on the same card in both files,
    0.5168 vs 0.5162 ms and 0.1625 vs 0.1595 ms."""
    pairs = _cross_source.pairs(["ladder_a100.yaml", "mlcbench_a100.yaml"])
    apart = {p.a.key[1:4]: p.apart for p in pairs  # mlc-benchmark's Marlin and GEMV pair too
             if {p.a.set, p.b.set} == {"FasterTransformer W4A16", "FasterTransformer W4A16, M = 1"}}
    assert set(apart) == {(1, 14336, 57344), (1, 8192, 28672)}
    assert apart[(1, 14336, 57344)] == pytest.approx(0.5168437957763672 / 0.516152382 - 1)
    assert apart[(1, 8192, 28672)] == pytest.approx(0.162506103515625 / 0.159454346 - 1)

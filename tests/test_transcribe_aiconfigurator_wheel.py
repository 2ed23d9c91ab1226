"""tools/transcribe_aiconfigurator_wheel.py: a table is read from a wheel only when its bytes are
the Git LFS object the commit points to, and its rows become the measured sets."""

import hashlib
import pathlib
import subprocess
import sys
import zipfile

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import transcribe_aiconfigurator_wheel as tool  # noqa: E402

TABLE = ("framework,version,device,op_name,kernel_source,gemm_dtype,m,n,k,latency\n"
         "TRTLLM,1.0.0rc3,NVIDIA H100 80GB HBM3,gemm,trt_flow_x,int8_wo,16,4096,4096,0.0213\n"
         "TRTLLM,1.0.0rc3,NVIDIA H100 80GB HBM3,gemm,trt_flow_x,int8_wo,17,4096,4096,0.0301\n"
         "TRTLLM,1.0.0rc3,NVIDIA H100 80GB HBM3,gemm,trt_flow_x,sq,16,4096,4096,0.0199\n"
         "TRTLLM,1.0.0rc3,NVIDIA H100 80GB HBM3,gemm,trt_flow_x,int4_wo,16,4096,333,0.01\n")


def _snapshot(tmp_path, committed: bytes, shipped: bytes):
    """A git repository whose commit holds an LFS pointer to ``committed`` and a wheel that
    ships ``shipped`` at the same table."""
    work = tmp_path / "repo"
    path = f"{tool.GIT_DATA}/h100_sxm/{tool.VERSION}/gemm_perf.txt"
    (work / path).parent.mkdir(parents=True)
    (work / path).write_text("version https://git-lfs.github.com/spec/v1\n"
                             f"oid sha256:{hashlib.sha256(committed).hexdigest()}\n"
                             f"size {len(committed)}\n")
    for args in (["init", "-q"], ["add", "."],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "pointer"]):
        subprocess.run(["git", "-C", str(work), *args], check=True)
    wheel = tmp_path / "aiconfigurator.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"{tool.WHEEL_DATA}/h100_sxm/{tool.VERSION}/gemm_perf.txt", shipped)
    return str(work / ".git"), str(wheel)


def test_rows_come_from_the_committed_object(tmp_path):
    gitdir, wheel = _snapshot(tmp_path, TABLE.encode(), TABLE.encode())
    path, oid, rows = tool.wheel_table(wheel, gitdir, "HEAD", "h100_sxm")
    assert oid == hashlib.sha256(TABLE.encode()).hexdigest()
    assert path.endswith("h100_sxm/trtllm/1.0.0rc3/gemm_perf.txt")
    assert rows[0] == ("int8_wo", 16, 4096, 4096, 0.0213) and len(rows) == 4
    sets = tool.sets_of(rows, path, tool.PLUGIN_KINDS, ((4096, 4096),))
    # M = 17 is off the grid (MS) and K = 333 off the shapes: two sets of one row each
    assert [(s["name"], s["points"]) for s in sets] == [
        ("int8_wo N4096 K4096", [[16, 4096, 4096, 0.0213]]),
        ("sq N4096 K4096", [[16, 4096, 4096, 0.0199]])]
    assert sets[0]["kernel"] == "trtllm_weight_only" and sets[0]["weight_bits"] == 8


def test_other_bytes_are_refused(tmp_path):
    gitdir, wheel = _snapshot(tmp_path, TABLE.encode(), TABLE.replace("0.0213", "0.0214").encode())
    with pytest.raises(ValueError, match="is not the LFS object"):
        tool.wheel_table(wheel, gitdir, "HEAD", "h100_sxm")

"""The instruction-set pin of every pipeline job (workflow/scripts/isa.py)."""

import os
import pathlib
import platform
import subprocess
import sys

import numpy  # noqa: F401  imported before isa.pin(), as test_pin_refuses... needs
import pytest

SCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "workflow" / "scripts"
sys.path.insert(0, str(SCRIPTS))
import isa  # noqa: E402

x86 = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                         reason="the pin applies to x86-64 only")


@x86
def test_pinned_adds_numpy_groups_and_xla_isa_to_an_empty_environment():
    env = isa.pinned({})
    assert env["NPY_DISABLE_CPU_FEATURES"].split() == list(isa.NUMPY_DISABLED)
    assert env["XLA_FLAGS"] == f"--xla_cpu_max_isa={isa.XLA_MAX_ISA}"


@x86
def test_pinned_keeps_what_the_user_asked_for():
    user_flags = "--xla_cpu_max_isa=SSE4_2 --xla_force_host_platform_device_count=2"
    env = isa.pinned({"NPY_DISABLE_CPU_FEATURES": "AVX512_SPR,FOO", "XLA_FLAGS": user_flags})
    assert env["NPY_DISABLE_CPU_FEATURES"].split() == ["AVX512_SPR", "FOO", "X86_V3", "X86_V4",
                                                       "AVX512_ICL"]
    assert env["XLA_FLAGS"] == user_flags
    assert isa.pinned(env) == env  # idempotent: a job pinned by the workflow stays as it is


@x86
@pytest.mark.parametrize("asked", ["AVX2", "AVX512", "avx512_bf16", "NEWER_ISA"])
def test_pinned_lowers_a_larger_xla_isa(asked):
    env = isa.pinned({"XLA_FLAGS": f"--xla_cpu_max_isa={asked} --xla_cpu_fast_min_max=false"})
    assert env["XLA_FLAGS"] == f"--xla_cpu_fast_min_max=false --xla_cpu_max_isa={isa.XLA_MAX_ISA}"


def test_pinned_leaves_other_architectures_alone(monkeypatch):
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert isa.pinned({}) == {}


def test_pin_refuses_after_numpy_was_imported(monkeypatch):
    monkeypatch.delenv("NPY_DISABLE_CPU_FEATURES", raising=False)
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    if not isa.pinned({}):
        pytest.skip("nothing to pin on this architecture")
    with pytest.raises(RuntimeError, match="after numpy"):
        isa.pin()  # numpy is imported in this test process


@x86
def test_a_pinned_process_runs_numpy_without_its_avx2_and_avx512_loops():
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPY_DISABLE_CPU_FEATURES", "XLA_FLAGS")}
    code = ("import isa; isa.pin(); import os\n"
            "from numpy._core._multiarray_umath import __cpu_features__ as f\n"
            "print(f['X86_V3'], f['X86_V4'], os.environ['XLA_FLAGS'])")
    out = subprocess.run([sys.executable, "-c", code], cwd=SCRIPTS, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out == ["False", "False", f"--xla_cpu_max_isa={isa.XLA_MAX_ISA}"]


@pytest.mark.parametrize("before, after", [
    ("", isa.LIGHT_COMPILE),
    ("--xla_cpu_max_isa=AVX", f"--xla_cpu_max_isa=AVX {isa.LIGHT_COMPILE}"),
    ("--xla_backend_optimization_level=2", "--xla_backend_optimization_level=2"),  # the user's
])
def test_light_compile_adds_level_0_once(monkeypatch, before, after):
    monkeypatch.setenv("XLA_FLAGS", before)
    isa.light_compile()
    isa.light_compile()
    assert os.environ["XLA_FLAGS"] == after


def test_light_job_is_a_listed_job_or_a_member_of_a_listed_batch():
    schedule = {"batches": {"gpu": ["lut-fig16", "lut-fig17"], "small": ["lut-fig3"]},
                "light_compile": ["gpu", "mfnn-table2"]}
    assert isa.light_job(schedule, "gpu") and isa.light_job(schedule, "lut-fig16")
    assert isa.light_job(schedule, "mfnn-table2")
    assert not isa.light_job(schedule, "small") and not isa.light_job(schedule, "lut-fig3")
    assert not isa.light_job(schedule, "lut-table5") and not isa.light_job({}, "gpu")


def test_the_full_preset_compiles_its_long_jobs_with_the_optimizations():
    """The long jobs run their programs for seconds: light_compile would make them slower."""
    import yaml

    schedule = yaml.safe_load((SCRIPTS.parents[0] / "config.yaml").read_text())["schedule"]
    assert not any(isa.light_job(schedule["full"], i) for i in schedule["full"]["start_first"])
    assert isa.light_job(schedule["full"], "lut-fig16")

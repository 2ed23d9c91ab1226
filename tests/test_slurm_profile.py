"""The SLURM profile and its README section, without a cluster: CI's tools/slurm_check.sh runs
them on one (a single-node SLURM it starts)."""

import importlib.util
import os
import re
import subprocess
import sys

import yaml

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
CHECK = (ROOT / "tools" / "slurm_check.sh").read_text(encoding="utf-8")
PROFILE = (ROOT / "workflow" / "profiles" / "slurm" / "config.yaml").read_text(encoding="utf-8")


def readme_commands():
    """The command lines of the README's SLURM section (its first sh block), comments dropped."""
    section = README.split("## Running on a SLURM cluster", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].rstrip() for line in block.splitlines()
            if line.strip() and not line.startswith("#")]


def test_ci_runs_the_readme_slurm_steps_as_they_stand():
    commands = readme_commands()
    # the folders are the user's own (assigned in the README, in a temporary folder by CI), and
    # the full preset is the user's run, not CI's
    assert commands[1].startswith("profile=") and commands[-1] == 'snakemake --profile "$profile"'
    for command in commands[:1] + commands[2:-1]:
        assert any(command in line for line in CHECK.splitlines()), command
    assert re.search(r"snakemake-executor-plugin-slurm==\S+ snakemake-executor-plugin-slurm-jobstep"
                     r"==\S+", commands[0]), "the plugins are pinned"


def workflow_rules():
    """Every rule name the workflow can have: the named rules and a batch rule per preset batch."""
    named = {m for path in [ROOT / "Snakefile", *(ROOT / "workflow" / "rules").glob("*.smk")]
             for m in re.findall(r"^\s*rule (\w+):", path.read_text(), re.MULTILINE)}
    config = yaml.safe_load((ROOT / "workflow" / "config.yaml").read_text())
    batches = {f"batch_{name.replace('-', '_')}" for schedule in config["schedule"].values()
               for name in schedule.get("batches", {})}
    return named | batches


def test_the_profiles_override_example_names_rules_of_the_workflow_with_gres():
    example = PROFILE.split("# set-resources:", 1)[1]
    overrides = yaml.safe_load("set-resources:\n" + re.sub(r"^# ", "", example, flags=re.M))
    rules = workflow_rules()
    for rule, resources in overrides["set-resources"].items():
        assert rule in rules, rule
        assert "slurm_extra" not in resources and re.fullmatch(r"gpu:\d+", resources["gres"])
    # the rule names the profile's comments give, batch rules above all
    named = set(re.findall(r"\b(batch_\w+|lut_tensor_core|minifloat_nn|synthesis)\b", PROFILE))
    assert named <= rules
    assert {r for r in rules if r.startswith("batch_")} <= named


def run_experiment_module(monkeypatch):
    scripts = ROOT / "workflow" / "scripts"
    sys.path.insert(0, str(scripts))
    try:
        import isa  # the script pins the instruction set at import: numpy is loaded here already,
        for name, value in isa.pinned(os.environ).items():  # so pin as the workflow would first
            monkeypatch.setenv(name, value)
        path = scripts / "run_experiment.py"
        spec = importlib.util.spec_from_file_location("run_experiment", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(scripts))
    return module


def test_git_commit_is_dirty_for_code_not_for_an_edited_profile(tmp_path, monkeypatch):
    run_experiment = run_experiment_module(monkeypatch)
    files = {"lutcore/__init__.py": "", "workflow/config.yaml": "preset: full\n",
             "workflow/profiles/slurm/config.yaml": "executor: slurm\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "x"]):
        subprocess.run(git + args, check=True)
    head = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    monkeypatch.setattr(run_experiment.lutcore, "__file__", str(tmp_path / "lutcore/__init__.py"))

    assert run_experiment.git_commit() == head
    (tmp_path / "workflow/profiles/slurm/config.yaml").write_text("slurm_partition: x\n")
    assert run_experiment.git_commit() == head
    (tmp_path / "workflow/config.yaml").write_text("preset: quick\n")
    assert run_experiment.git_commit() == head + "-dirty"

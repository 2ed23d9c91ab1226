"""The experiment contract: config checking, the registry and reference values."""

import dataclasses
import inspect
import types
from typing import Literal

import pytest

import experiments
from experiments import Claim, ConfigError, get, make_config, paper_claim, reference, registry
from experiments import _framework


@dataclasses.dataclass(frozen=True)
class Config:
    lengths: tuple[int, ...] = (1, 4)
    trials: int = 10
    scale: float = 1.0
    exact: bool = False
    name: str = "fp8"
    mode: Literal["rne", "rtz"] = "rne"

    def __post_init__(self):
        if self.trials < 1:
            raise ConfigError(f"trials must be >= 1, got {self.trials}")


FAKE = types.SimpleNamespace(ID="fake-fig0", PAPER="fake", Config=Config)


def error(params) -> str:
    with pytest.raises(ConfigError) as info:
        make_config(FAKE, params)
    return str(info.value)


def test_defaults_and_conversion():
    assert make_config(FAKE) == Config()
    config = make_config(FAKE, {"lengths": [2, 8], "scale": 3, "mode": "rtz"})
    assert config.lengths == (2, 8) and config.scale == 3.0 and isinstance(config.scale, float)
    assert config.mode == "rtz"


def test_unknown_key_names_it_and_the_allowed_keys():
    message = error({"trails": 3, "trials": 3})
    assert message == ("fake-fig0: unknown key(s) trails; allowed keys: "
                       "exact, lengths, mode, name, scale, trials")


def test_literal_names_the_allowed_values():
    message = error({"mode": "rnd"})
    assert "fake-fig0.mode" in message and "'rnd'" in message
    assert "allowed values: 'rne', 'rtz'" in message


@pytest.mark.parametrize("value, expected", [
    (3, "expected a non-empty list"),
    ([], "expected a non-empty list"),
    ([1, "x"], "fake-fig0.lengths[1]: expected an integer"),
    ([1, True], "fake-fig0.lengths[1]: expected an integer"),
])
def test_tuple_fields(value, expected):
    assert expected in error({"lengths": value})


@pytest.mark.parametrize("key, value, expected", [
    ("trials", 2.5, "expected an integer"),
    ("trials", True, "expected an integer"),
    ("scale", "1", "expected a number"),
    ("scale", False, "expected a number"),
    ("exact", 1, "expected true/false"),
    ("name", 8, "expected a string"),
])
def test_scalar_types(key, value, expected):
    message = error({key: value})
    assert f"fake-fig0.{key}: {expected}" in message and repr(value) in message


def test_post_init_errors_name_the_experiment():
    assert error({"trials": 0}) == "fake-fig0: trials must be >= 1, got 0"


def test_unknown_experiment_lists_the_known_ones():
    with pytest.raises(ConfigError, match=r"unknown experiment 'mfnn-fig99'; known: \[") as info:
        get("mfnn-fig99")
    assert all(repr(i) in str(info.value) for i in registry())


def test_package_reexports_the_framework():
    for name in experiments.__all__:
        assert getattr(experiments, name) is getattr(_framework, name)


@pytest.mark.parametrize("experiment_id", sorted(registry()))
def test_registered_modules_follow_the_contract(experiment_id):
    module = get(experiment_id)
    assert module.ID == experiment_id and module.TITLE and module.PAPER
    assert dataclasses.is_dataclass(module.Config)
    assert module.Config.__dataclass_params__.frozen
    assert make_config(module) == module.Config()  # the defaults are valid (the full run)
    for name in ("run", "plot", "table", "claims"):
        assert len(inspect.signature(getattr(module, name)).parameters) == 1, name
    assert (_framework.REFERENCE_DIR / f"{module.PAPER}.yaml").exists()


def test_registry_covers_the_papers():
    papers = {module.PAPER for module in registry().values()}
    assert "minifloat_nn" in papers


@pytest.fixture
def reference_dir(tmp_path, monkeypatch):
    (tmp_path / "fake.yaml").write_text(
        "experiments:\n"
        "  fake-fig0:\n"
        "    speedup: {statement: 'ExSdotp is faster', source: 'Sec. V', value: 1.5}\n"
        "    exact: {statement: 'one rounding', source: 'Sec. III'}\n")
    monkeypatch.setattr(_framework, "REFERENCE_DIR", tmp_path)
    _framework._reference_file.cache_clear()
    yield tmp_path
    _framework._reference_file.cache_clear()


def test_reference_and_paper_claim(reference_dir):
    assert reference("fake", "fake-fig0", "speedup").value == 1.5
    with pytest.raises(KeyError, match=r"fake-fig0.nope; it has: \['exact', 'speedup'\]"):
        reference("fake", "fake-fig0", "nope")
    claim = paper_claim(FAKE, "speedup", ours="1.4", holds=True, tolerance="10 %")
    assert claim == Claim(experiment="fake-fig0", claim="speedup",
                          paper="ExSdotp is faster [1.5] (Sec. V)", ours="1.4", holds=True,
                          tolerance="10 %")
    assert paper_claim(FAKE, "exact", ours="yes", holds=1).paper == "one rounding (Sec. III)"
    assert set(claim.as_dict()) == {"experiment", "claim", "paper", "ours", "holds", "tolerance",
                                    "deviation", "verdict"}
    # the verdict follows holds unless a claim names its kind
    assert claim.verdict == "holds"
    assert paper_claim(FAKE, "speedup", ours="1.1", holds=False).verdict == "deviates"
    odd = paper_claim(FAKE, "speedup", ours="1.1", holds=False, verdict="paper-inconsistent")
    assert odd.verdict == "paper-inconsistent"
    with pytest.raises(ValueError, match="allowed values: holds, deviates"):
        paper_claim(FAKE, "speedup", ours="1.1", holds=False, verdict="maybe")


def test_markdown_table_aligns_number_columns():
    from experiments import markdown_table

    text = markdown_table(["name", "x", "y"], [["a", 1, 2.5], ["b", 10, "-"]], right=2)
    assert text.splitlines() == ["| name | x | y |", "| --- | ---: | ---: |",
                                 "| a | 1 | 2.5 |", "| b | 10 | - |"]

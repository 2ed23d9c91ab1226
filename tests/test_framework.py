"""The experiment contract: config checking, the registry and reference values."""

import dataclasses
import inspect
import json
import typing
from typing import Literal

import pytest

import experiments
from experiments import (
    Claim,
    ConfigError,
    Experiment,
    _framework,
    _spec,
    collect_claims,
    get,
    make_config,
    paper_claim,
    reference,
    registry,
)


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


FAKE = Experiment(id="fake-fig0", title="A fake experiment", paper="fake", claim_keys=(),
                  config=Config, run=lambda config: None, plot=lambda ds: None,
                  table=lambda ds: "", claims=lambda ds: [])


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
    ("scale", "1", "expected a finite number"),
    ("scale", False, "expected a finite number"),
    ("scale", float("nan"), "expected a finite number"),
    ("scale", float("inf"), "expected a finite number"),
    ("trials", -3, "expected an integer >= 0"),
    ("exact", 1, "expected true/false"),
    ("name", 8, "expected a string"),
])
def test_scalar_types(key, value, expected):
    message = error({key: value})
    assert f"fake-fig0.{key}: {expected}" in message and repr(value) in message


@dataclasses.dataclass(frozen=True)
class SizedConfig:
    steps: tuple[int, ...] = (1, 4)
    trials: int = 10
    gain: float = _framework.bounded(1.0, above=0.0, max=100.0)
    width: int = _framework.bounded(8, min=1, max=64)

    FOOTPRINT = _framework.Footprint(((1e9, ()), (1000.0, ("trials", "steps"))), "1 kB each")


SIZED = dataclasses.replace(FAKE, id="fake-fig1", config=SizedConfig)


@pytest.mark.parametrize("params, expected", [
    ({"gain": 0}, "fake-fig1.gain: 0.0 is out of range; allowed values: > 0.0 and <= 100.0"),
    ({"gain": 101}, "fake-fig1.gain: 101.0 is out of range; allowed values: > 0.0 and <= 100.0"),
    ({"width": 0}, "fake-fig1.width: 0 is out of range; allowed values: >= 1 and <= 64"),
    # 1 GB + 1 kB x trials x max(steps) <= 8 GB: at most 7e6 / trials steps
    ({"steps": [1, 700_001]}, "fake-fig1: steps: 700001 exceeds 700000 at trials 10 (memory "
                              "bound: ~8 GB; this needs ~8 GB: 1 kB each)"),
    ({"trials": 10**9}, "fake-fig1: trials: 1000000000 exceeds 1750000 at steps 4 (memory "
                        "bound: ~8 GB; this needs ~4e+03 GB: 1 kB each)"),
])
def test_bounds_and_footprint_name_the_key_and_the_bound(params, expected):
    assert _framework.MEMORY_BOUND_GB == 8.0
    with pytest.raises(ConfigError) as info:
        make_config(SIZED, params)
    assert str(info.value) == expected
    assert make_config(SIZED, {"steps": [1, 700_000], "gain": 100, "width": 64}).steps[-1] == (
        700_000)


def test_every_experiment_refuses_non_finite_floats_and_negative_integers():
    """The generic rules reach every experiment's every numeric field, tuples included."""
    checked = 0
    for experiment_id, record in sorted(registry().items()):
        hints = typing.get_type_hints(record.config)
        for field in dataclasses.fields(record.config):
            hint = hints[field.name]
            item = typing.get_args(hint)[0] if typing.get_origin(hint) is tuple else hint
            bad = {float: [float("nan"), float("inf")], int: [-1]}.get(item, [])
            for value in bad:
                value = [value] if item is not hint else value
                with pytest.raises(ConfigError, match=f"{experiment_id}.{field.name}"):
                    make_config(record, {field.name: value})
                checked += 1
    assert checked > 60


def _outcome(check, params):
    try:
        check(params)
    except ConfigError as err:
        return str(err)
    except Exception as err:  # a Config's own check that fails otherwise (lut-table4 cases)
        return type(err).__name__
    return None


@pytest.mark.parametrize("record", [FAKE, SIZED, *(r for _, r in sorted(registry().items()))],
                         ids=lambda record: record.id)
def test_a_config_spec_refuses_what_make_config_refuses(record):
    """The workflow checks a changed config against the specs it kept (JSON) before importing
    any experiment: the same message for every refusal, no refusal make_config would not make
    (it leaves __post_init__'s checks to the import)."""
    spec = json.loads(json.dumps(_spec.config_spec(record.config)))
    assert _spec.check_params(record.id, spec, {}) is None
    values = (-1, 0, 1, True, 2.5, float("nan"), "x", "rtz", [], [1, 2], [2, 1], ["fp8->fp16"],
              10**12, [10**9])
    refused = 0
    for params in [{"nosuch": 1}, *({f.name: v} for f in dataclasses.fields(record.config)
                                    for v in values)]:
        real = _outcome(lambda p: make_config(record, p), params)
        early = _outcome(lambda p: _spec.check_params(record.id, spec, p), params)
        assert early is None or early == real, params
        refused += early is not None
    assert refused >= 1 + len(dataclasses.fields(record.config))
    if record is FAKE:
        assert _spec.check_params("fake-fig0", spec, {"trials": 0}) is None  # __post_init__'s


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
    record = get(experiment_id)
    assert isinstance(record, Experiment) and record.id == experiment_id
    assert make_config(record) == record.config()  # the defaults are valid (the full run)
    for name in ("run", "plot", "table", "claims"):
        assert len(inspect.signature(getattr(record, name)).parameters) == 1, name
    assert (_framework.REFERENCE_DIR / f"{record.paper}.yaml").exists()


@pytest.mark.parametrize("fields, match", [
    ({"id": ""}, "id, title and paper must be non-empty strings"),
    ({"claim_keys": ["a"]}, "claim_keys must be a tuple of distinct reference keys"),
    ({"claim_keys": ("a", "a")}, "claim_keys must be a tuple of distinct reference keys"),
    ({"config": dict}, "config must be a frozen dataclass"),
    ({"plot": None}, "plot must be callable"),
])
def test_an_experiment_record_checks_itself(fields, match):
    with pytest.raises((TypeError, ValueError), match=match):
        dataclasses.replace(FAKE, **fields)


def test_every_experiment_module_is_found_without_importing_it():
    modules = [p for p in (_framework.REFERENCE_DIR.parent).glob("*/[!_]*.py")]
    literals = [_framework.record_literals(p) for p in modules]
    assert modules and all(set(found) == {"id", "paper", "title"} for found in literals)
    assert experiments.ids() == sorted(registry()) == sorted(found["id"] for found in literals)
    for experiment_id, record in registry().items():
        described = experiments.describe(experiment_id)
        assert (described.id, described.paper, described.title) == (
            record.id, record.paper, record.title)
    with pytest.raises(experiments.ConfigError, match="unknown experiment 'mfnn-fig99'; known"):
        experiments.describe("mfnn-fig99")


def test_registry_covers_the_papers():
    papers = {record.paper for record in registry().values()}
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
                                    "deviation", "verdict", "reason"}


def test_verdict_follows_holds_unless_stated():
    def claim(**kw):
        return Claim(experiment="fake-fig0", claim="x", paper="p", ours="o", **kw)

    assert claim(holds=True).verdict == "holds" and claim(holds=False).verdict == "deviates"
    assert claim(holds=True, verdict="finding").holds  # a confirmed hypothesis of our own
    assert not claim(holds=False, verdict="finding").holds
    inconsistent = claim(holds=False, verdict="paper-inconsistent", reason="3 != 4")
    assert inconsistent.as_dict()["verdict"] == "paper-inconsistent"
    for kw, match in [({"holds": False, "verdict": "wrong"}, "verdict 'wrong' unknown; allowed "
                       "values: holds, deviates, paper-inconsistent, not-testable-here, finding"),
                      ({"holds": False, "verdict": "not-testable-here"}, "must give its reason"),
                      ({"holds": False, "verdict": "paper-inconsistent"}, "must give its reason"),
                      ({"holds": True, "verdict": "deviates"}, "holds=True contradicts"),
                      ({"holds": False, "verdict": "holds"}, "holds=False contradicts"),
                      ({"holds": True, "verdict": "not-testable-here", "reason": "r"},
                       "contradicts the verdict 'not-testable-here'")]:
        with pytest.raises(ValueError, match=match):
            claim(**kw)


FIXED = ("experiments:\n"
         "  fake-fig0:\n"
         "    speedup: {statement: 'faster', source: 'Sec. V', value: 1.5}\n"
         "    table: {statement: 'Table IX body', source: 'Table IX', verdict: not-testable-here,\n"
         "            reason: 'the table body is not in the paper text'}\n"
         "    ours: {statement: 'our hypothesis', source: 'issue 8', verdict: finding}\n"
         "    later: {statement: 'checked later', source: 'Sec. VI', pending: 'issue 14 — PPA'}\n")


def test_reference_entry_can_fix_the_verdict(reference_dir):
    (reference_dir / "fake.yaml").write_text(FIXED)
    table = paper_claim(FAKE, "table", ours="our numbers", holds=False)
    assert (table.verdict, table.reason) == ("not-testable-here",
                                             "the table body is not in the paper text")
    assert paper_claim(FAKE, "ours", ours="x", holds=False).verdict == "finding"
    stated = paper_claim(FAKE, "speedup", ours="1.5", holds=False, verdict="paper-inconsistent",
                         reason="Sec. V says 1.5, Table IX 1.6")
    assert stated.verdict == "paper-inconsistent" and "Table IX" in stated.reason
    with pytest.raises(ValueError, match="verdict 'deviates' differs from the one its reference "
                                         "entry fixes, 'not-testable-here'"):
        paper_claim(FAKE, "table", ours="x", holds=False, verdict="deviates")
    with pytest.raises(ValueError, match=r"fake-fig0.later is marked pending \(issue 14 — PPA\)"):
        paper_claim(FAKE, "later", ours="x", holds=True)


@pytest.mark.parametrize("entry, match", [
    ("{statement: s, source: t, verdict: holds}", "verdict 'holds' cannot be fixed"),
    ("{statement: s, source: t, pending: 'later'}", "pending must name the issue"),
    ("{statement: s, source: t, claim: x}", "unexpected keyword argument 'claim'; allowed fields"),
])
def test_bad_reference_entries_are_named(reference_dir, entry, match):
    (reference_dir / "fake.yaml").write_text(f"experiments:\n  fake-fig0:\n    bad: {entry}\n")
    with pytest.raises(ValueError, match=match):
        reference("fake", "fake-fig0", "bad")


def test_collect_claims_adds_the_untestable_entries(reference_dir):
    (reference_dir / "fake.yaml").write_text(FIXED)
    speedup = paper_claim(FAKE, "speedup", ours="1.4", holds=True)
    module = dataclasses.replace(FAKE, claim_keys=("speedup", "table"),
                                 claims=lambda ds: [speedup])
    claims = collect_claims(module, None)
    assert [c.claim for c in claims] == ["speedup", "table"]  # not the finding, not pending
    assert claims[1].verdict == "not-testable-here" and not claims[1].holds
    stated = paper_claim(FAKE, "table", ours="RTN INT2 instead", holds=False)
    module = dataclasses.replace(module, claims=lambda ds: [stated])
    assert collect_claims(module, None) == [stated]  # stated by the experiment: not twice
    module = dataclasses.replace(module, claims=lambda ds: [speedup, speedup])
    with pytest.raises(ValueError, match="states speedup more than once"):
        collect_claims(module, None)
    module = dataclasses.replace(module, claims=lambda ds: ["speedup"])
    with pytest.raises(TypeError, match="must return Claim objects"):
        collect_claims(module, None)


def test_collect_claims_holds_the_module_to_its_declaration(reference_dir):
    (reference_dir / "fake.yaml").write_text(FIXED)
    speedup = paper_claim(FAKE, "speedup", ours="1.4", holds=True)
    finding = paper_claim(FAKE, "ours", ours="confirmed", holds=True)
    module = dataclasses.replace(FAKE, claim_keys=("speedup", "ours"),
                                 claims=lambda ds: [speedup])
    assert [c.claim for c in collect_claims(module, None)] == ["speedup", "table"]  # a subset
    with pytest.raises(ValueError, match="declares ours in claim_keys but its full run states"):
        collect_claims(module, None, full=True)
    module = dataclasses.replace(module, claims=lambda ds: [speedup, finding])
    assert len(collect_claims(module, None, full=True)) == 3
    module = dataclasses.replace(module, claim_keys=("speedup",))
    with pytest.raises(ValueError, match="states ours, not in its claim_keys; declare them"):
        collect_claims(module, None)


def test_markdown_table_aligns_number_columns():
    from experiments import markdown_table

    text = markdown_table(["name", "x", "y"], [["a", 1, 2.5], ["b", 10, "-"]], right=2)
    assert text.splitlines() == ["| name | x | y |", "| --- | ---: | ---: |",
                                 "| a | 1 | 2.5 |", "| b | 10 | - |"]


def test_a_repeated_key_in_a_reference_file_is_refused(tmp_path, monkeypatch):
    (tmp_path / "dup.yaml").write_text("paper: x\nexperiments:\n  e1:\n    a: {statement: s, "
                                       "source: t}\n  e1:\n    b: {statement: s, source: t}\n")
    monkeypatch.setattr(_framework, "REFERENCE_DIR", tmp_path)
    _framework._reference_file.cache_clear()
    try:
        with pytest.raises(ValueError, match="line 5: key 'e1' repeated"):
            _framework._reference_file("dup")
    finally:
        _framework._reference_file.cache_clear()


def test_check_choice_names_the_key_what_is_not_allowed_and_the_allowed_values():
    experiments.check_choice("gpus", ("a100", "a100"), ("a100", "h100"))  # all allowed
    with pytest.raises(ConfigError, match=r"^gpus: \['a200'\] not allowed; allowed values: "
                                          r"a100, h100$"):
        experiments.check_choice("gpus", ("a100", "a200"), ("a100", "h100"))
    with pytest.raises(ConfigError, match=r"^scale: 3 not allowed; allowed values: 1, 2$"):
        experiments.check_choice("scale", 3, (1, 2))  # one value is shown as it is


def test_rests_on_names_validation_groups():
    def claim(**kw):
        return Claim(experiment="fake-fig0", claim="x", paper="p", ours="o", holds=False, **kw)

    assert "rests_on" not in claim().as_dict()  # only where set: other claims keep their keys
    assert claim(rests_on="a100 e2e").rests_on == ("a100 e2e",)
    assert claim(rests_on=["a100 e2e", "a100 gemm"]).as_dict()["rests_on"] == ["a100 e2e",
                                                                               "a100 gemm"]
    for bad in (["a100"], ["a100 e2e extra"], [3]):
        with pytest.raises(ValueError, match=r"fake-fig0.x: rests_on .* invalid; allowed values: "
                                             "validation groups '<gpu> <category>'"):
            claim(rests_on=bad)

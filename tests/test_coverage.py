"""Every transcribed paper statement is checked or says why not: each reference entry is a key
an experiment declares in ``CLAIMS`` (``collect_claims`` holds every run to that declaration),
or fixed as not-testable-here with its reason (a claim is added for it), or pending in a named
issue. Reads the modules and the reference files only: no experiment runs."""

import types

import pytest

from experiments import registry
from experiments._framework import PENDING, REFERENCE_DIR, reference_entries

PAPERS = sorted(p.stem for p in REFERENCE_DIR.glob("*.yaml"))


def offenders(paper: str) -> list[str]:
    """One line per reference entry without a claim or a stated reason, and per declared key
    without its entry."""
    modules = registry()
    entries = reference_entries(paper)
    found = []
    for experiment, key, ref in entries:
        where = f"{paper}.yaml {experiment}.{key}"
        module = modules.get(experiment)
        declared = module is not None and key in module.claim_keys
        if ref.pending:
            if declared:
                found.append(f"{where}: pending ({ref.pending}) yet declared in CLAIMS; drop "
                             "the marker")
        elif module is None:
            found.append(f"{where}: no experiment {experiment!r}; add it or mark the entry "
                         "pending: 'issue N — ...'")
        elif ref.verdict == "not-testable-here":
            pass  # collect_claims adds its claim; the reference checks it has a reason
        elif not declared:
            found.append(f"{where}: no claim ({experiment} does not declare it in CLAIMS) and no "
                         "stated reason (verdict: not-testable-here with its reason, or "
                         "pending: 'issue N — ...')")
    keys = {(e, k) for e, k, _ in entries}
    for experiment, module in modules.items():
        if module.paper == paper:
            found += [f"{paper}.yaml: {experiment} declares {key} in CLAIMS, but the reference "
                      "has no such entry" for key in module.claim_keys
                      if (experiment, key) not in keys]
    return found


@pytest.mark.parametrize("paper", PAPERS)
def test_every_reference_entry_has_a_claim_or_a_stated_reason(paper):
    bad = offenders(paper)
    assert not bad, f"{len(bad)} reference entries without a claim or a reason:\n" + "\n".join(bad)


def test_pending_names_its_issue():
    """Any entry still pending names its issue (issues 14 and 15 resolved all of theirs; the
    marker's form is checked on a fake file in test_offenders_are_named as well)."""
    pending = [r.pending for p in PAPERS for _, _, r in reference_entries(p) if r.pending]
    assert all(PENDING.match(p) for p in pending)
    assert PENDING.match("issue 14 — PPA") and not PENDING.match("later")


def test_offenders_are_named(monkeypatch, tmp_path):
    """The check itself: a bare entry, a declared key without an entry, a pending one claimed."""
    from experiments import _framework

    (tmp_path / "fake.yaml").write_text(
        "paper: Fake\nexperiments:\n"
        "  fake-fig0:\n"
        "    claimed: {statement: s, source: t}\n"
        "    bare: {statement: s, source: t}\n"
        "    untestable: {statement: s, source: t, verdict: not-testable-here, reason: r}\n"
        "    later: {statement: s, source: t, pending: 'issue 14 — PPA'}\n"
        "    both: {statement: s, source: t, pending: 'issue 15 — GPU'}\n"
        "  fake-fig9:\n"
        "    orphan: {statement: s, source: t}\n")
    monkeypatch.setattr(_framework, "REFERENCE_DIR", tmp_path)
    _framework._reference_file.cache_clear()
    fake = types.SimpleNamespace(id="fake-fig0", paper="fake",
                                 claim_keys=("claimed", "both", "ghost"))
    monkeypatch.setattr("test_coverage.registry", lambda: {"fake-fig0": fake})
    try:
        found = offenders("fake")
    finally:
        _framework._reference_file.cache_clear()
    assert len(found) == 4
    assert found[0].startswith("fake.yaml fake-fig0.bare: no claim")
    assert found[1].startswith("fake.yaml fake-fig0.both: pending (issue 15 — GPU) yet declared")
    assert found[2].startswith("fake.yaml fake-fig9.orphan: no experiment 'fake-fig9'")
    assert found[3] == ("fake.yaml: fake-fig0 declares ghost in CLAIMS, but the reference has "
                        "no such entry")

"""EvalAttempt records: identity for resume, and the JSONL ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from webharness.reporting.records import EvalAttempt, append_attempt, read_attempts


def make(**fields: object) -> EvalAttempt:
    base = {
        "scenario_id": "WebEval/form-v0",
        "category": "form",
        "runner": "oracle",
        "seed": 3,
        "passed": True,
    }
    return EvalAttempt.model_validate({**base, **fields})


def test_key_identifies_runner_scenario_seed_trial_and_perturbations() -> None:
    a = make(trial=2, perturbations="popup", steps=7)
    assert a.key() == ("oracle", "WebEval/form-v0", 3, 2, "popup")
    assert a.key() == make(trial=2, perturbations="popup", passed=False).key()
    assert a.key() != make(trial=2).key()


def test_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValidationError, match="sucess"):
        make(sucess=True)


def test_ledger_round_trips_attempts(tmp_path: Path) -> None:
    ledger = tmp_path / "run" / "attempts.jsonl"
    written = [make(seed=s, failure_code="stale_index" if s else None) for s in range(3)]
    for a in written:
        append_attempt(ledger, a)
    assert read_attempts(ledger) == written


def test_ledger_skips_a_torn_last_line(tmp_path: Path) -> None:
    ledger = tmp_path / "attempts.jsonl"
    append_attempt(ledger, make())
    with ledger.open("a") as f:
        f.write('{"scenario_id": "WebEval/fo')  # killed mid-write
    assert [a.seed for a in read_attempts(ledger)] == [3]


def test_ledger_refuses_corruption_before_the_last_line(tmp_path: Path) -> None:
    ledger = tmp_path / "attempts.jsonl"
    ledger.write_text("not json\n" + make().model_dump_json() + "\n")
    with pytest.raises(ValidationError):
        read_attempts(ledger)


def test_missing_ledger_reads_as_empty(tmp_path: Path) -> None:
    assert read_attempts(tmp_path / "absent.jsonl") == []

"""Splits: a named set of seeds or of tasks, and which episodes belong to it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from webharness.reporting.records import EvalAttempt
from webharness.reporting.splits import Split, seed_ranges


def episode(seed: int, task: str = "WebEval/form-v0") -> EvalAttempt:
    return EvalAttempt(scenario_id=task, category="form", runner="a", seed=seed, passed=True)


def test_a_seed_split_holds_the_episodes_of_its_seeds():
    unseen = Split(name="unseen", seeds=[1000, 1001])
    assert unseen.kind == "seeds" and unseen.description == "seeds 1000-1001"
    assert [unseen.holds(episode(s)) for s in (0, 1000, 1001, 1002)] == [False, True, True, False]


def test_a_task_split_holds_the_episodes_of_its_tasks_whatever_the_seed():
    forms = Split(name="forms", tasks=["WebEval/form-v0", "WebEval/login-v0"])
    assert forms.kind == "tasks" and forms.description == "tasks form, login"
    assert forms.holds(episode(7)) and forms.holds(episode(3, "WebEval/login-v0"))
    assert not forms.holds(episode(7, "WebEval/search-v0"))


@pytest.mark.parametrize(
    "fields, says",
    [
        ({"name": "both", "seeds": [1], "tasks": ["WebEval/form-v0"]}, "either seeds or tasks"),
        ({"name": "none"}, "either seeds or tasks"),
        ({"name": "a b", "seeds": [1]}, "split name 'a b'"),
        ({"name": "", "seeds": [1]}, "split name ''"),
    ],
)
def test_a_split_is_one_named_kind(fields, says):
    with pytest.raises(ValidationError, match=says):
        Split(**fields)


def test_a_split_survives_the_manifest_round_trip():
    split = Split(name="seen", seeds=[0, 1, 2])
    assert Split.model_validate_json(split.model_dump_json()) == split


def test_seeds_are_written_back_as_ranges():
    assert seed_ranges([9, 0, 1, 2, 5, 10]) == "0-2, 5, 9-10"
    assert seed_ranges([4]) == "4"

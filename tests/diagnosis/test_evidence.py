"""The typed evidence of failure notes, and the ``EndedBy`` it carries from the trace."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

import webharness.diagnosis.failures as failures
from webharness.diagnosis.failures import (
    STAGE_REFINEMENTS,
    ElementRef,
    Evidence,
    FailureCode,
    Stage,
    root_cause_stage,
)
from webharness.trace.models import EndedBy, EpisodeEnd


def evidence() -> Evidence:
    return Evidence(
        action='click("e3")',
        kind="click",
        element=ElementRef(ref="e3", role="button", name="Submit"),
        target_disabled=False,
        ended_by=EndedBy.MAX_STEPS,
    )


def test_the_dump_has_the_keys_a_rule_wrote_and_no_others() -> None:
    dumped = json.loads(evidence().model_dump_json())
    assert dumped == {
        "action": 'click("e3")',
        "kind": "click",
        "element": {"ref": "e3", "role": "button", "name": "Submit"},
        "target_disabled": False,
        "ended_by": "max_steps",
    }
    assert Evidence.model_validate(dumped) == evidence()


def test_evidence_reads_like_the_dict_it_replaced() -> None:
    found = evidence()
    assert found["element"] == {"ref": "e3", "role": "button", "name": "Submit"}
    assert found["ended_by"] == "max_steps" and found["busy"] is None
    assert "target_disabled" in found and "busy" not in found
    assert {**found} == json.loads(found.model_dump_json())
    with pytest.raises(KeyError):
        found["surprise"]


def test_evidence_forbids_fields_no_rule_writes() -> None:
    with pytest.raises(ValidationError):
        Evidence(surprise=1)  # type: ignore[call-arg]


def test_every_stage_refinement_reads_an_evidence_field() -> None:
    assert {rule.key for rule in STAGE_REFINEMENTS} <= set(Evidence.model_fields)
    assert (
        root_cause_stage(FailureCode.ACTION_NO_EFFECT, Evidence(target_interactive=False))
        is Stage.PERCEPTION
    )


def test_the_package_exports_every_name_in_its_all() -> None:
    assert all(hasattr(failures, name) for name in failures.__all__)


@pytest.mark.parametrize("ended_by", list(EndedBy))
def test_ended_by_is_saved_as_its_string_and_loads_from_it(ended_by: EndedBy) -> None:
    end = EpisodeEnd(ended_by=ended_by)
    assert json.loads(end.model_dump_json())["ended_by"] == ended_by.value
    assert EpisodeEnd.model_validate_json(f'{{"ended_by": "{ended_by.value}"}}') == end
    assert end.ended_by == ended_by.value  # compares equal to the string older code used

"""The failure-code annotator on synthetic traces: one small factory, no browser."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from webharness.action_result import ActionErrorKind, ActionResult
from webharness.diagnosis.failures import (
    DEFINITIONS,
    ERROR_CODES,
    STAGE_RULES,
    FailureCode,
    FailureReport,
    Stage,
    StepFailure,
    annotate,
    root_cause_stage,
)
from webharness.semantic import Element, SemanticState
from webharness.trace.models import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

DOCS = Path(__file__).resolve().parents[2] / "docs" / "failure-codes.md"


# --- factory ---------------------------------------------------------------------------


def el(ref: str, role: str, name: str, **fields: Any) -> Element:
    return Element(ref=ref, role=role, name=name, in_viewport=True, **fields)


def form(
    *,
    email: str = "",
    email_invalid: bool = False,
    submit_disabled: bool = False,
    alerts: tuple[str, ...] = (),
    text: str = "",
    refs: tuple[str, str, str] = ("e1", "e2", "e3"),
    extra: tuple[Element, ...] = (),
) -> SemanticState:
    """A sign-up form: Name, Email, Submit (refs overridable to model a re-render)."""
    message = "Enter a valid email" if email_invalid else ""
    return SemanticState(
        url="http://webeval.test/form",
        elements=[
            el(refs[0], "textbox", "Name"),
            el(
                refs[1],
                "textbox",
                "Email",
                value=email,
                invalid=email_invalid,
                validation_message=message,
            ),
            el(refs[2], "button", "Submit", disabled=submit_disabled),
            *extra,
        ],
        alerts=list(alerts),
        text=text,
    )


def step(
    index: int,
    action: str | None,
    state: SemanticState,
    *,
    changed: bool = True,
    error: ActionErrorKind | None = None,
    success: bool = False,
) -> StepRecord:
    if error is not None:
        result = ActionResult.failed(error, f"synthetic {error.value}")
    else:
        result = ActionResult(ok=True, state_changed=changed)
    return StepRecord(
        index=index,
        action=action,
        action_result=result if action else None,
        state=state,
        success=success,
    )


def run(
    *steps: tuple[str, SemanticState, dict[str, Any]] | tuple[str, SemanticState],
    start: SemanticState | None = None,
    success: bool = False,
    ended_by: str | None = "done",
    params: dict[str, Any] | None = None,
    final_answer: str | None = None,
    **end: Any,
) -> EpisodeTrace:
    """A trace from (action, state[, step kwargs]) tuples after the reset state."""
    records = [StepRecord(index=0, state=start or form())]
    for i, item in enumerate(steps, start=1):
        action, state, *kwargs = item
        records.append(step(i, action, state, **(kwargs[0] if kwargs else {})))
    task = TaskInstance(
        task_id="form",
        env_id="WebEval/form-v0",
        category="forms",
        seed=0,
        instruction="Sign up",
        params=params or {},
    )
    return EpisodeTrace(
        task=task,
        steps=records,
        end=EpisodeEnd(
            terminated=ended_by != "max_steps",
            truncated=ended_by == "max_steps",
            success=success,
            ended_by=ended_by,
            final_answer=final_answer,
            **end,
        ),
    )


@dataclass
class FakeAlignment:
    first_divergence_step: int | None
    golden_path: Any = "main"
    matched: list[Any] = field(default_factory=list)
    extra_steps: list[int] = field(default_factory=list)
    skipped_golden_steps: list[int] = field(default_factory=list)
    wrong_actions: list[int] = field(default_factory=list)
    progress_rate: float = 0.5
    fidelity: float = 0.5


NO_CHANGE = {"changed": False}


def codes(annotation: FailureReport) -> list[tuple[int, FailureCode]]:
    return [(n.step, n.code) for n in annotation.step_notes]


# --- tables and models -----------------------------------------------------------------


def test_every_action_error_kind_maps_to_a_code() -> None:
    assert set(ERROR_CODES) == set(ActionErrorKind)


def test_every_code_has_a_definition_and_a_stage() -> None:
    assert set(DEFINITIONS) == set(FailureCode) == set(STAGE_RULES)
    assert FailureCode.STALE_INDEX.definition == DEFINITIONS[FailureCode.STALE_INDEX]


def test_docs_carry_every_definition_word_for_word() -> None:
    docs = DOCS.read_text()
    for code in FailureCode:
        assert f"`{code.value}`" in docs
        assert code.definition in docs, code
    assert "## Confusion matrix" in docs


def test_codes_and_stages_are_str_enums() -> None:
    assert FailureCode.RUNTIME_ERROR == "runtime_error"
    assert Stage.ENVIRONMENT == "environment"


def test_models_forbid_extra_fields() -> None:
    with pytest.raises(ValidationError):
        StepFailure(step=1, code=FailureCode.STALE_INDEX, message="", surprise=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        FailureReport(passed=True, surprise=1)  # type: ignore[call-arg]


def test_annotation_round_trips_through_json() -> None:
    trace = run(
        ('click("e99")', form(), {"error": ActionErrorKind.UNKNOWN_REF}),
        ("done()", form(), NO_CHANGE),
    )
    annotation = annotate(trace, FakeAlignment(first_divergence_step=1))
    assert FailureReport.model_validate_json(annotation.model_dump_json()) == annotation


def test_stage_refinement_applies_only_with_matching_evidence() -> None:
    assert root_cause_stage(FailureCode.ACTION_NO_EFFECT) is Stage.EXECUTION
    assert (
        root_cause_stage(FailureCode.ACTION_NO_EFFECT, {"target_disabled": True})
        is Stage.PERCEPTION
    )
    assert (
        root_cause_stage(FailureCode.ACTION_NO_EFFECT, {"error": "navigation_blocked"})
        is Stage.DECISION
    )


# --- passing runs and flags ------------------------------------------------------------


def test_passing_run_has_no_code() -> None:
    trace = run(
        ('fill("e1", "Ada")', form()), ('click("e3")', form(), {"success": True}), success=True
    )
    annotation = annotate(trace)
    assert annotation.passed and annotation.code is None and annotation.stage is None
    assert annotation.step_notes == []
    assert not (annotation.false_success or annotation.false_give_up or annotation.not_executable)


def test_blocked_requests_are_in_the_failure_evidence() -> None:
    blocked = form()
    blocked.blocked_requests = ["http://evil.example/steal?x=1", "file:///etc/passwd"]
    trace = run(
        ('goto("file:///etc/passwd")', blocked, {"error": ActionErrorKind.NAVIGATION_BLOCKED}),
        ("done()", blocked, NO_CHANGE),
        ended_by="done",
    )
    annotation = annotate(trace)
    assert not annotation.passed
    assert annotation.evidence["blocked_requests"] == blocked.blocked_requests
    clean = run(('fill("e1", "Ada")', form()), ("done()", form(), NO_CHANGE), ended_by="done")
    assert "blocked_requests" not in annotate(clean).evidence


def test_false_success_when_agent_claims_done_but_criteria_fail() -> None:
    trace = run(('fill("e1", "Ada")', form()), ("done()", form(), NO_CHANGE), ended_by="done")
    assert annotate(trace).false_success


def test_false_success_when_final_answer_is_wrong() -> None:
    page = form(text="Total: 42")
    trace = run(
        ('click("e3")', page),
        ('send_msg_to_user("42")', page, NO_CHANGE),
        ended_by="send_msg_to_user",
        final_answer="42",
    )
    assert annotate(trace).false_success


def test_no_false_success_when_run_is_truncated() -> None:
    trace = run(('fill("e1", "Ada")', form()), ended_by="max_steps")
    assert not annotate(trace).false_success


def test_false_give_up_only_on_feasible_task() -> None:
    trace = run(('report_infeasible("no form")', form(), NO_CHANGE), ended_by="report_infeasible")
    assert annotate(trace, feasible=True).false_give_up
    assert not annotate(trace, feasible=False).false_give_up


# --- one primary code per failure kind -------------------------------------------------


def test_model_protocol_for_unparseable_output() -> None:
    trace = run(
        ("I will click the submit button", form(), {"error": ActionErrorKind.UNPARSEABLE}),
        ("done()", form(), NO_CHANGE),
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.MODEL_PROTOCOL,
        1,
        Stage.EXECUTION,
    )


def test_observation_miss_for_unknown_ref() -> None:
    trace = run(
        ('click("e99")', form(), {"error": ActionErrorKind.UNKNOWN_REF}),
        ("done()", form(), NO_CHANGE),
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.OBSERVATION_MISS,
        1,
        Stage.PERCEPTION,
    )
    assert annotation.evidence["error"] == "unknown_ref" and annotation.evidence["element"] is None


def test_observation_miss_for_element_not_visible() -> None:
    trace = run(
        ('click("e3")', form(), {"error": ActionErrorKind.NOT_VISIBLE}), ended_by="max_steps"
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step) == (FailureCode.OBSERVATION_MISS, 1)
    assert annotation.evidence["element"] == {"ref": "e3", "role": "button", "name": "Submit"}


def test_stale_index_names_the_element_from_the_earlier_observation() -> None:
    rerendered = form(refs=("e7", "e8", "e9"))
    trace = run(
        ('fill("e1", "Ada")', rerendered),
        ('click("e3")', rerendered, {"error": ActionErrorKind.STALE_REF}),
        ("done()", rerendered, NO_CHANGE),
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.STALE_INDEX,
        2,
        Stage.PERCEPTION,
    )
    assert annotation.evidence["element"] == {"ref": "e3", "role": "button", "name": "Submit"}


def test_action_no_effect_on_disabled_button_is_a_perception_failure() -> None:
    page = form(submit_disabled=True)
    trace = run(('click("e3")', page, NO_CHANGE), ("done()", page, NO_CHANGE), start=page)
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.ACTION_NO_EFFECT,
        1,
        Stage.PERCEPTION,
    )
    assert annotation.evidence["target_disabled"] is True


def test_action_no_effect_when_refused_as_not_interactable() -> None:
    trace = run(
        ('click("e3")', form(), {"error": ActionErrorKind.NOT_INTERACTABLE}), ended_by="max_steps"
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.stage) == (
        FailureCode.ACTION_NO_EFFECT,
        Stage.EXECUTION,
    )


def test_action_no_effect_on_enabled_control_is_an_execution_failure() -> None:
    start = form(extra=(el("e4", "link", "Help"),))
    trace = run(('click("e4")', start, NO_CHANGE), ("done()", start, NO_CHANGE), start=start)
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.ACTION_NO_EFFECT,
        1,
        Stage.EXECUTION,
    )


@pytest.mark.parametrize(
    "action", ["drag_and_drop('e4', 'e1')", "drag([[10, 10], [200, 10]])", "hold_key('a', 100)"]
)
def test_a_drag_or_a_held_key_that_changes_nothing_is_action_no_effect(action: str) -> None:
    start = form(extra=(el("e4", "link", "Help"),))
    trace = run((action, start, NO_CHANGE), ("done()", start, NO_CHANGE), start=start)
    assert (1, FailureCode.ACTION_NO_EFFECT) in codes(annotate(trace))


@pytest.mark.parametrize(
    "action", ["mouse_move(10, 10)", "mouse_down()", "mouse_up()", "key_down('Shift')"]
)
def test_a_part_of_a_gesture_that_changes_nothing_is_not_action_no_effect(action: str) -> None:
    trace = run((action, form(), NO_CHANGE), ("done()", form(), NO_CHANGE))
    assert (1, FailureCode.ACTION_NO_EFFECT) not in codes(annotate(trace))


def test_click_on_a_heading_is_a_perception_failure() -> None:
    # The page found e8 (no ref error) but the agent saw no control with that ref: a heading.
    trace = run(('click("e8")', form(), NO_CHANGE), ("done()", form(), NO_CHANGE))
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.ACTION_NO_EFFECT,
        1,
        Stage.PERCEPTION,
    )
    assert (
        annotation.evidence["target_interactive"] is False
        and annotation.evidence["element"] is None
    )


def test_an_unknown_ref_is_not_called_a_non_interactive_target() -> None:
    trace = run(
        ('click("e99")', form(), {"error": ActionErrorKind.UNKNOWN_REF}),
        ("done()", form(), NO_CHANGE),
    )
    assert "target_interactive" not in annotate(trace).evidence


def test_clicks_that_only_focus_a_field_or_reselect_a_tab_are_not_action_no_effect() -> None:
    page = form(extra=(el("e4", "tab", "Public reply", selected=True),))
    trace = run(
        ('click("e4")', page, NO_CHANGE),
        ('click("e2")', page, NO_CHANGE),
        (
            'keyboard_type("ada@example.org")',
            form(email="ada@example.org", extra=page.elements[3:]),
        ),
        start=page,
        ended_by="max_steps",
    )
    assert codes(annotate(trace)) == []


def test_fill_with_the_value_already_there_is_not_action_no_effect() -> None:
    page = form(email="ada@example.org")
    trace = run(
        ('fill("e2", "ada@example.org")', page, NO_CHANGE), start=page, ended_by="max_steps"
    )
    assert FailureCode.ACTION_NO_EFFECT not in [code for _, code in codes(annotate(trace))]


def test_unsupported_control_for_fill_on_custom_dropdown() -> None:
    start = form(extra=(el("e5", "combobox", "Country"),))
    trace = run(
        ('fill("e5", "France")', start, {"error": ActionErrorKind.UNSUPPORTED_CONTROL}),
        ("done()", start, NO_CHANGE),
        start=start,
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.UNSUPPORTED_CONTROL,
        1,
        Stage.EXECUTION,
    )
    assert annotation.evidence["element"]["role"] == "combobox"


def test_unrecovered_validation_error_is_primary_with_alert_and_field_evidence() -> None:
    rejected = form(email="ada", email_invalid=True, alerts=("Please fix the errors below",))
    trace = run(
        ('fill("e2", "ada")', form(email="ada")),
        ('click("e3")', rejected),
        ("done()", rejected, NO_CHANGE),
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.VALIDATION_ERROR,
        2,
        Stage.UNDERSTANDING,
    )
    assert annotation.evidence["alerts"] == ["Please fix the errors below"]
    assert annotation.evidence["invalid_fields"] == [
        {
            "role": "textbox",
            "name": "Email",
            "message": "Enter a valid email",
            "rejected_by": "app",
        }
    ]
    assert annotation.evidence["element"]["name"] == "Submit"


def test_recovered_validation_error_passes_with_a_step_note() -> None:
    rejected = form(email="ada", email_invalid=True, alerts=("Please fix the errors below",))
    fixed = form(email="ada@example.org")
    trace = run(
        ('fill("e2", "ada")', form(email="ada")),
        ('click("e3")', rejected),
        ('fill("e2", "ada@example.org")', fixed),
        ('click("e3")', fixed, {"success": True}),
        success=True,
    )
    annotation = annotate(trace)
    assert annotation.passed and annotation.code is None
    assert codes(annotation) == [(2, FailureCode.VALIDATION_ERROR)]


def test_recovered_validation_error_is_not_primary_in_a_later_failure() -> None:
    rejected = form(email="ada", email_invalid=True)
    fixed = form(email="ada@example.org")
    trace = run(
        ('click("e3")', rejected),
        ('fill("e2", "ada@example.org")', fixed),
        ('click("e42")', fixed, {"error": ActionErrorKind.UNKNOWN_REF}),
        ended_by="max_steps",
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step) == (FailureCode.OBSERVATION_MISS, 3)
    assert (1, FailureCode.VALIDATION_ERROR) in codes(annotation)


def test_new_status_with_new_content_is_not_a_validation_error() -> None:
    results = form(alerts=("3 results found",), extra=(el("e6", "link", "Result 1"),))
    trace = run(('click("e3")', results), ended_by="max_steps")
    assert FailureCode.VALIDATION_ERROR not in [code for _, code in codes(annotate(trace))]


def test_waiting_timeout_when_answering_while_the_page_shows_loading() -> None:
    loading = form(alerts=("Loading results…",), extra=(el("e6", "progressbar", "Loading"),))
    trace = run(
        ('click("e3")', loading),
        ('send_msg_to_user("0 results")', loading, NO_CHANGE),
        ended_by="send_msg_to_user",
        final_answer="0 results",
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.WAITING_TIMEOUT,
        2,
        Stage.PERCEPTION,
    )
    assert annotation.evidence["busy"] and annotation.false_success


@pytest.mark.parametrize("answer", ["17 orders", "done"])
def test_an_answer_missing_from_a_settled_page_is_task_incomplete_not_waiting(answer: str) -> None:
    # Nothing was loading: a made-up answer (or "done" as a message) is a decision failure.
    empty = form(text="Orders")
    trace = run(
        ('click("e3")', empty),
        (f'send_msg_to_user("{answer}")', empty, NO_CHANGE),
        ended_by="send_msg_to_user",
        final_answer=answer,
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.TASK_INCOMPLETE,
        2,
        Stage.DECISION,
    )
    assert annotation.false_success


def test_waiting_timeout_when_answering_while_a_report_is_generating() -> None:
    running = form(
        alerts=("Generating report… Collecting transactions",),
        extra=(el("e6", "button", "Running…", disabled=True),),
        text="Gross sales $1,200",
    )
    trace = run(
        ('click("e3")', running),
        ('send_msg_to_user("$1,200")', running, NO_CHANGE),
        ended_by="send_msg_to_user",
        final_answer="$1,200",
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step) == (FailureCode.WAITING_TIMEOUT, 2)
    assert annotation.evidence["busy"] == [
        "button 'Running…'",
        "Generating report… Collecting transactions",
    ]


def test_a_disabled_button_without_an_ellipsis_is_not_a_loading_sign() -> None:
    page = form(submit_disabled=True, text="Total $5")
    trace = run(
        ('send_msg_to_user("$5")', page, NO_CHANGE),
        start=page,
        ended_by="send_msg_to_user",
        final_answer="$5",
    )
    assert annotate(trace).code is FailureCode.TASK_INCOMPLETE


def test_waiting_timeout_for_an_action_timeout() -> None:
    trace = run(('click("e3")', form(), {"error": ActionErrorKind.TIMEOUT}), ended_by="max_steps")
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.WAITING_TIMEOUT,
        1,
        Stage.PERCEPTION,
    )


PHONE_FORM = form(extra=(el("e4", "textbox", "Phone number"),))
PHONE_PARAMS = {"name": "Ada", "phone_number": "555-0100", "_withheld": "phone_number"}


def test_user_input_required_when_a_withheld_detail_is_invented() -> None:
    trace = run(
        ('fill("e1", "Ada")', PHONE_FORM),
        ('fill("e4", "555-1234")', PHONE_FORM),
        ('click("e3")', PHONE_FORM),
        ("done()", PHONE_FORM, NO_CHANGE),
        start=PHONE_FORM,
        params=PHONE_PARAMS,
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.USER_INPUT_REQUIRED,
        2,
        Stage.DECISION,
    )
    assert annotation.evidence["withheld"] == ["phone_number"]
    assert annotation.evidence["written"] == "555-1234"


def test_no_user_input_required_when_the_agent_asked() -> None:
    trace = run(
        ('ask_user("What is your phone number?")', PHONE_FORM, NO_CHANGE),
        ('fill("e4", "555-1234")', PHONE_FORM),
        ("done()", PHONE_FORM, NO_CHANGE),
        start=PHONE_FORM,
        params=PHONE_PARAMS,
    )
    assert annotate(trace).code is FailureCode.TASK_INCOMPLETE


def test_a_value_spelled_out_in_the_instruction_is_not_invented() -> None:
    # The street is two params joined ("93 Elm Row"): the instruction gives it, no invention.
    params = {**PHONE_PARAMS, "house": 93, "street": "Elm Row"}
    trace = run(
        ('fill("e1", "93 Elm Row")', PHONE_FORM),
        ("done()", PHONE_FORM, NO_CHANGE),
        start=PHONE_FORM,
        params=params,
    )
    trace.task.instruction = "Deliver to Ada, 93 Elm Row."
    annotation = annotate(trace)
    assert annotation.code is FailureCode.TASK_INCOMPLETE
    assert FailureCode.USER_INPUT_REQUIRED not in [code for _, code in codes(annotation)]


@pytest.mark.parametrize("repeats", [2, 3, 4])
def test_repeated_action_needs_three_consecutive_identical_ineffective_actions(
    repeats: int,
) -> None:
    page = form(submit_disabled=True)
    clicks = [('click("e3")', page, NO_CHANGE)] * repeats
    annotation = annotate(run(*clicks, start=page, ended_by="max_steps"))
    if repeats >= 3:
        assert (annotation.code, annotation.step, annotation.stage) == (
            FailureCode.REPEATED_ACTION,
            1,
            Stage.DECISION,
        )
        assert annotation.evidence["count"] == repeats
    else:
        assert annotation.code is FailureCode.ACTION_NO_EFFECT
        assert FailureCode.REPEATED_ACTION not in [code for _, code in codes(annotation)]


@pytest.mark.parametrize("action", ["wait(1000)", "noop()", "scroll(0, 200)", 'hover("e3")'])
def test_actions_that_need_not_change_anything_never_form_a_repeated_run(action: str) -> None:
    waits = [(action, form(), NO_CHANGE)] * 4
    annotation = annotate(run(*waits, ended_by="max_steps"))
    assert (annotation.code, annotation.step) == (FailureCode.TASK_INCOMPLETE, 4)
    assert codes(annotation) == []


def test_a_repeated_run_that_reaches_the_divergence_is_primary() -> None:
    page = form(submit_disabled=True)
    clicks = [('click("e3")', page, NO_CHANGE)] * 3
    annotation = annotate(
        run(*clicks, ("done()", page, NO_CHANGE), start=page),
        FakeAlignment(first_divergence_step=3),
    )
    assert (annotation.code, annotation.step) == (FailureCode.REPEATED_ACTION, 1)


def test_repeated_action_run_broken_by_another_action_does_not_count() -> None:
    page = form(submit_disabled=True)
    click, scroll = ('click("e3")', page, NO_CHANGE), ("scroll(0, 200)", page)
    annotation = annotate(run(click, click, scroll, click, start=page, ended_by="max_steps"))
    assert FailureCode.REPEATED_ACTION not in [code for _, code in codes(annotation)]


def test_task_incomplete_when_nothing_more_specific_explains() -> None:
    trace = run(
        ('fill("e1", "Ada")', form()),
        ('fill("e2", "ada@example.org")', form(email="ada@example.org")),
        ended_by="max_steps",
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.TASK_INCOMPLETE,
        2,
        Stage.DECISION,
    )
    assert annotation.step_notes == []


def test_task_incomplete_is_placed_at_the_alignment_divergence() -> None:
    trace = run(
        ('fill("e1", "Ada")', form()),
        ('fill("e2", "x@y.z")', form(email="x@y.z")),
        ("done()", form(email="x@y.z"), NO_CHANGE),
    )
    annotation = annotate(trace, FakeAlignment(first_divergence_step=2, wrong_actions=[2]))
    assert (annotation.code, annotation.step) == (FailureCode.TASK_INCOMPLETE, 2)
    assert annotation.evidence["wrong_actions"] == [2]
    assert annotation.evidence["first_divergence_step"] == 2


def test_a_divergence_at_step_zero_does_not_place_the_failure_before_any_action() -> None:
    trace = run(('fill("e1", "Ada")', form()), ("done()", form(), NO_CHANGE))
    annotation = annotate(trace, FakeAlignment(first_divergence_step=0))
    assert (annotation.code, annotation.step) == (FailureCode.TASK_INCOMPLETE, 2)
    assert annotation.evidence["first_divergence_step"] == 0


def test_task_incomplete_is_placed_after_waits_the_page_needed() -> None:
    # The page took longer than in the golden run: the extra waits are where the alignment
    # diverges, the agent's choice to stop comes after them.
    trace = run(
        ('click("e3")', form()),
        ("wait(1000)", form(), NO_CHANGE),
        ("wait(1000)", form(), NO_CHANGE),
        ("done()", form(), NO_CHANGE),
    )
    annotation = annotate(trace, FakeAlignment(first_divergence_step=2, extra_steps=[2, 3]))
    assert (annotation.code, annotation.step) == (FailureCode.TASK_INCOMPLETE, 4)


def test_task_incomplete_stays_on_the_first_wait_when_the_run_only_waited_after() -> None:
    waits = [("wait(1000)", form(), NO_CHANGE)] * 3
    annotation = annotate(
        run(('click("e3")', form()), *waits, ended_by="max_steps"),
        FakeAlignment(first_divergence_step=2),
    )
    assert (annotation.code, annotation.step) == (FailureCode.TASK_INCOMPLETE, 2)


# --- runtime errors --------------------------------------------------------------------


def test_runtime_error_from_browser_error_is_not_executable() -> None:
    trace = run(
        ('click("e99")', form(), {"error": ActionErrorKind.UNKNOWN_REF}),
        ('click("e3")', form(), {"error": ActionErrorKind.BROWSER_ERROR}),
        ended_by="runtime_error",
        not_executable=True,
        error="page crashed",
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step, annotation.stage) == (
        FailureCode.RUNTIME_ERROR,
        2,
        Stage.ENVIRONMENT,
    )
    assert annotation.not_executable and not annotation.passed


def test_runtime_error_from_episode_end_marked_not_executable() -> None:
    trace = run(
        ('fill("e1", "Ada")', form()),
        success=True,
        ended_by="runtime_error",
        not_executable=True,
        error="context closed",
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.not_executable, annotation.passed) == (
        FailureCode.RUNTIME_ERROR,
        True,
        False,
    )
    assert annotation.evidence["error"] == "context closed"


def test_trace_without_an_end_record_is_not_executable() -> None:
    trace = run(('fill("e1", "Ada")', form())).model_copy(update={"end": None})
    annotation = annotate(trace)
    assert annotation.code is FailureCode.RUNTIME_ERROR and annotation.not_executable


# --- choosing the primary code ---------------------------------------------------------


def test_primary_is_the_first_explaining_divergence_not_the_last_error() -> None:
    rerendered = form(refs=("e7", "e8", "e9"))
    trace = run(
        ('fill("e1", "Ada")', rerendered),
        ('click("e3")', rerendered, {"error": ActionErrorKind.STALE_REF}),
        ('hover("e42")', rerendered, {"error": ActionErrorKind.UNKNOWN_REF}),
        ("done()", rerendered, NO_CHANGE),
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step) == (FailureCode.STALE_INDEX, 2)
    assert codes(annotation) == [(2, FailureCode.STALE_INDEX), (3, FailureCode.OBSERVATION_MISS)]


def test_recovered_step_error_does_not_explain_the_failure() -> None:
    start = form(extra=(el("e4", "link", "Help"),))
    trace = run(
        ('click("e3")', start, {"error": ActionErrorKind.NOT_VISIBLE}),
        ('click("e3")', start),  # the retry worked: same kind, same button
        ('click("e4")', start, NO_CHANGE),
        start=start,
        ended_by="max_steps",
    )
    annotation = annotate(trace)
    assert (annotation.code, annotation.step) == (FailureCode.ACTION_NO_EFFECT, 3)


def test_alignment_prefers_the_failure_at_or_after_the_first_divergence() -> None:
    rerendered = form(refs=("e7", "e8", "e9"))
    trace = run(
        ('hover("e42")', form(), {"error": ActionErrorKind.UNKNOWN_REF}),
        ('fill("e1", "Ada")', rerendered),
        ('click("e3")', rerendered, {"error": ActionErrorKind.STALE_REF}),
        ("done()", rerendered, NO_CHANGE),
    )
    assert annotate(trace).code is FailureCode.OBSERVATION_MISS
    annotation = annotate(trace, FakeAlignment(first_divergence_step=3))
    assert (annotation.code, annotation.step) == (FailureCode.STALE_INDEX, 3)
    assert annotation.evidence["progress_rate"] == 0.5


def test_browser_error_the_agent_got_past_does_not_make_the_run_not_executable() -> None:
    trace = run(
        ('click("e3")', form(), {"error": ActionErrorKind.BROWSER_ERROR}),
        ('click("e3")', form()),
        ended_by="max_steps",
    )
    annotation = annotate(trace)
    assert annotation.code is FailureCode.TASK_INCOMPLETE and not annotation.not_executable
    assert codes(annotation) == [(1, FailureCode.RUNTIME_ERROR)]

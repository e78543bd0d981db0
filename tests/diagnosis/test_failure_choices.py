"""Issue 18's annotation rules on synthetic traces, each situation built on two pages: a
success status is no rejection, the same rejection twice is the value's fault, a rejection
the run got past as the golden path does explains no later stop, the browser's own
constraint validation is named as such, and an ambiguous choice shows its runner-up."""

from __future__ import annotations

from typing import Any

import pytest

from tests.diagnosis.test_failures import NO_CHANGE, FakeAlignment, el, form, run
from webharness.diagnosis.alignment import align
from webharness.diagnosis.failures import Decision, FailureCode, Stage, annotate
from webharness.semantic import SemanticState
from webharness.trace.models import EpisodeTrace

C = FailureCode
BROWSER_EMAIL = "Please include an '@' in the email address. 'ada' is missing an '@'."


def ticket(
    *, assignee: str = "", alerts: tuple[str, ...] = (), phone: str = "", invalid: bool = False
) -> SemanticState:
    """A ticket form: Assignee, Phone, Save changes; the app holds the ticket row."""
    return SemanticState(
        url="http://webeval.test/ticket",
        elements=[
            el("e1", "combobox", "Assignee", value=assignee),
            el(
                "e2",
                "textbox",
                "Phone",
                value=phone,
                invalid=invalid,
                validation_message="Enter a UK mobile number" if invalid else "",
            ),
            el("e3", "button", "Save changes"),
        ],
        alerts=list(alerts),
        app={"tickets": [{"number": 12, "assignee": assignee}]},
    )


PAGES: dict[str, dict[str, Any]] = {
    # submit button ref, the state maker, and its rejected / accepted variants
    "form": {
        "submit": 'click("e3")',
        "start": form(),
        "bad": form(email="ada"),
        "rejected": form(email="ada", email_invalid=True, alerts=("Please fix the errors below",)),
        "fixed": form(
            email="ada@example.org", email_invalid=True, alerts=("Please fix the errors below",)
        ),
        "fill_bad": 'fill("e2", "ada")',
        "fill_good": 'fill("e2", "ada@example.org")',
        "saved": ("Contact saved",),
        "refused": ("Could not save the contact: Email is invalid",),
    },
    "ticket": {
        "submit": 'click("e3")',
        "start": ticket(),
        "bad": ticket(phone="123"),
        "rejected": ticket(phone="123", invalid=True, alerts=("Could not save the ticket",)),
        "fixed": ticket(phone="07700900123", invalid=True, alerts=("Could not save the ticket",)),
        "fill_bad": 'fill("e2", "123")',
        "fill_good": 'fill("e2", "07700900123")',
        "saved": ("Ticket #12 updated",),
        "refused": ("Could not save the ticket: the assignee is required",),
    },
}


def codes(trace: EpisodeTrace) -> list[tuple[int, FailureCode]]:
    return [(n.step, n.code) for n in annotate(trace).step_notes]


# --- a success status is not a rejection ----------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_a_success_status_after_saving_unchanged_data_is_no_rejection(page: str) -> None:
    p = PAGES[page]
    start: SemanticState = p["start"]
    toasted = start.model_copy(update={"alerts": list(p["saved"])})
    trace = run((p["submit"], toasted), ("done()", toasted, NO_CHANGE), start=start)
    failure = annotate(trace)
    assert C.VALIDATION_ERROR not in {n.code for n in failure.step_notes}
    assert failure.code is C.TASK_INCOMPLETE


@pytest.mark.parametrize("page", PAGES)
def test_an_error_status_after_the_same_save_is_still_a_rejection(page: str) -> None:
    p = PAGES[page]
    start: SemanticState = p["start"]
    refused = start.model_copy(update={"alerts": list(p["refused"])})
    trace = run((p["submit"], refused), ("done()", refused, NO_CHANGE), start=start)
    assert (annotate(trace).code, annotate(trace).step) == (C.VALIDATION_ERROR, 1)


# --- the same rejection twice ------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_the_same_rejection_twice_is_the_value_s_fault_not_no_effect(page: str) -> None:
    p = PAGES[page]
    trace = run(
        (p["fill_bad"], p["bad"]),
        (p["submit"], p["rejected"]),
        (p["submit"], p["rejected"], NO_CHANGE),  # resubmitted as it stood: rejected again
        ("done()", p["rejected"], NO_CHANGE),
        start=p["start"],
    )
    failure = annotate(trace, FakeAlignment(first_divergence_step=3))
    assert (failure.code, failure.step, failure.stage) == (
        C.VALIDATION_ERROR,
        3,
        Stage.UNDERSTANDING,
    )
    assert failure.evidence.rejected_again is True
    assert failure.runner_up is C.ACTION_NO_EFFECT
    assert "rejected the input again" in failure.message


@pytest.mark.parametrize("page", PAGES)
def test_clicking_a_disabled_submit_under_a_rejection_stays_no_effect(page: str) -> None:
    p = PAGES[page]
    rejected: SemanticState = p["rejected"]
    disabled = rejected.model_copy(
        update={
            "elements": [
                e.model_copy(update={"disabled": True}) if e.role == "button" else e
                for e in rejected.elements
            ]
        }
    )
    trace = run(
        (p["fill_bad"], p["bad"]),
        (p["submit"], disabled),
        (p["submit"], disabled, NO_CHANGE),
        start=p["start"],
    )
    assert (3, C.ACTION_NO_EFFECT) in codes(trace)


# --- a rejection the run got past as the golden path does -----------------------------


def _golden_with_a_rejection(p: dict[str, Any], done: SemanticState) -> EpisodeTrace:
    trace = run(
        (p["fill_bad"], p["bad"]),
        (p["submit"], p["rejected"]),
        (p["fill_good"], p["fixed"]),
        (p["submit"], done),
        ("done()", done, NO_CHANGE),
        start=p["start"],
        success=True,
    )
    return trace.model_copy(update={"golden_path": "with-rejection"})


@pytest.mark.parametrize("page", PAGES)
def test_a_stop_after_getting_past_a_golden_rejection_is_blamed_on_the_stop(page: str) -> None:
    p = PAGES[page]
    start: SemanticState = p["start"]
    done = start.model_copy(update={"url": start.url + "/done", "alerts": list(p["saved"])})
    golden = _golden_with_a_rejection(p, done)
    trace = run(
        (p["fill_bad"], p["bad"]),
        (p["submit"], p["rejected"]),
        (p["fill_good"], p["fixed"]),
        ("done()", p["fixed"], NO_CHANGE),
        start=start,
    )
    failure = annotate(trace, align(trace, golden))
    assert (failure.code, failure.step) == (C.TASK_INCOMPLETE, 4), failure.step_notes
    # never fixed: the rejection is what the run did not get past
    never_fixed = run(
        (p["fill_bad"], p["bad"]),
        (p["submit"], p["rejected"]),
        ("done()", p["rejected"], NO_CHANGE),
        start=start,
    )
    failure = annotate(never_fixed, align(never_fixed, golden))
    assert (failure.code, failure.step) == (C.VALIDATION_ERROR, 2)


# --- who rejected the input ----------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [BROWSER_EMAIL, "Please fill out this field.", "Please match the requested format."],
)
def test_the_browser_s_constraint_validation_is_named_as_the_browser_s(message: str) -> None:
    flagged = form(email="ada", email_invalid=True)
    flagged.elements[1].validation_message = message
    trace = run(('fill("e2", "ada")', flagged), ("done()", flagged, NO_CHANGE))
    failure = annotate(trace)
    assert failure.code is C.VALIDATION_ERROR
    assert failure.evidence.invalid_fields[0].rejected_by == "browser"
    assert "the browser's constraint validation rejected the input" in failure.message


@pytest.mark.parametrize("page", PAGES)
def test_the_app_s_own_message_is_named_as_the_app_s(page: str) -> None:
    p = PAGES[page]
    trace = run((p["fill_bad"], p["bad"]), (p["submit"], p["rejected"]), start=p["start"])
    failure = annotate(trace)
    assert failure.evidence.invalid_fields[0].rejected_by == "app"
    assert "the app rejected the input" in failure.message


# --- ambiguity made visible ----------------------------------------------------------------

WITHHELD = {"phone": "+44 7123 456789", "_withheld": "phone"}
DELIVERY = SemanticState(
    url="http://webeval.test/order",
    elements=[el("e1", "textbox", "Delivery phone"), el("e2", "button", "Place order")],
)


def _typed(phone: str) -> SemanticState:
    return DELIVERY.model_copy(
        update={
            "elements": [
                el("e1", "textbox", "Delivery phone", value=phone),
                el("e2", "button", "Place order"),
            ]
        }
    )


def _asked(reply: str) -> EpisodeTrace:
    trace = run(
        ('ask_user("Anything else I should know?")', DELIVERY, NO_CHANGE),
        ('fill("e1", "+44 7700 900123")', _typed("+44 7700 900123")),
        ("done()", _typed("+44 7700 900123"), NO_CHANGE),
        start=DELIVERY,
        params=WITHHELD,
    )
    steps = [s.model_copy(update={"user_messages": [reply]}) if s.index else s for s in trace.steps]
    return trace.model_copy(update={"steps": steps})


def test_a_vague_question_then_an_invented_detail_shows_the_runner_up() -> None:
    failure = annotate(_asked("Everything else is in my message."))
    assert (failure.code, failure.step) == (C.USER_INPUT_REQUIRED, 2)
    assert failure.runner_up is C.TASK_INCOMPLETE
    assert failure.decided_by is Decision.FIRST_UNRECOVERED
    assert failure.evidence.asked_user is True


def test_a_question_that_brought_the_detail_is_asking() -> None:
    failure = annotate(_asked("The phone is +44 7123 456789."))
    assert failure.code is C.TASK_INCOMPLETE
    assert failure.decided_by is Decision.NO_STEP_FAULT
    assert failure.runner_up is None


def test_an_unambiguous_failure_has_no_runner_up() -> None:
    p = PAGES["form"]
    trace = run((p["fill_bad"], p["bad"]), (p["submit"], p["rejected"]), start=p["start"])
    failure = annotate(trace, FakeAlignment(first_divergence_step=1))
    assert failure.runner_up is None
    assert failure.decided_by is Decision.AT_DIVERGENCE


@pytest.mark.parametrize("page", PAGES)
def test_a_rejection_the_golden_path_never_met_is_not_passed_by_going_on(page: str) -> None:
    """A wrong value flagged as typed, then the golden path's next steps: the golden run
    typed a valid value, so going on along it does not get past this rejection."""
    p = PAGES[page]
    start: SemanticState = p["start"]
    flagged = p["bad"].model_copy(
        update={"elements": [_invalid(e) if e.ref == "e2" else e for e in p["bad"].elements]}
    )
    good = p["fixed"].model_copy(
        update={"alerts": [], "elements": [_valid(e) for e in p["fixed"].elements]}
    )
    named = _named(good)
    golden = run(
        (p["fill_good"], good),
        ('fill("e1", "Ada")', named),
        ("done()", named, NO_CHANGE),
        start=start,
        success=True,
    )
    trace = run(
        (p["fill_bad"], flagged),
        ('fill("e1", "Ada")', _named(flagged)),
        ("done()", _named(flagged), NO_CHANGE),
        start=start,
    )
    failure = annotate(trace, align(trace, golden))
    assert (failure.code, failure.step) == (C.VALIDATION_ERROR, 1)


def _invalid(e: Any) -> Any:
    return e.model_copy(update={"invalid": True, "validation_message": "Not valid"})


def _valid(e: Any) -> Any:
    return e.model_copy(update={"invalid": False, "validation_message": ""})


def _named(state: SemanticState) -> SemanticState:
    elements = [
        e.model_copy(update={"value": "Ada"}) if e.ref == "e1" else e for e in state.elements
    ]
    return state.model_copy(update={"elements": elements})

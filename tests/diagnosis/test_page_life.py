"""Only what the agent caused is a rejection of its input (``failures.page_life``): a page's
state on arrival (an untouched ``required`` field, a banner) is the app's, on synthetic
traces of a library app's edit form and change list."""

from __future__ import annotations

from tests.diagnosis.test_failures import FakeAlignment, codes, el, run
from webharness.diagnosis.failures import FailureCode, Stage, annotate
from webharness.diagnosis.failures.page_life import acted_on, new_document, page_start
from webharness.semantic import SemanticState

ORIGIN = "http://library.test"
REQUIRED = "Please select an item in the list."


def edit_form(genre: str = "Fiction", *, base: int = 10, isbn_error: str = "") -> SemanticState:
    """The edit form; the server sends it back (new refs, same URL) when it rejects it."""
    isbn = el(f"e{base + 1}", "textbox", "ISBN", value="978 1 2345 67890")
    if isbn_error:
        isbn = isbn.model_copy(update={"invalid": True, "validation_message": isbn_error})
    return SemanticState(
        url=ORIGIN + "/books/7/edit",
        title="Edit",
        elements=[
            el(f"e{base}", "textbox", "Title", value="Lanterns"),
            isbn,
            el(f"e{base + 2}", "combobox", "Genre", value=genre),
            el(f"e{base + 3}", "button", "Save"),
        ],
        alerts=["Please correct the errors below."] if isbn_error else [],
    )


def change_list(*, base: int = 50, chosen: str = "", alerts: tuple[str, ...] = ()) -> SemanticState:
    """The change list: its bulk action's select is ``required``, so the browser holds its
    message from load (not ``invalid``: nobody flagged it)."""
    action = el(f"e{base}", "combobox", "Action", value=chosen, required=True)
    if not chosen:
        action = action.model_copy(update={"validation_message": REQUIRED})
    return SemanticState(
        url=ORIGIN + "/books?saved=7",
        title="Books",
        elements=[
            action,
            el(f"e{base + 1}", "button", "Go"),
            el(f"e{base + 2}", "link", "Lanterns"),
        ],
        alerts=list(alerts),
    )


def test_a_required_field_on_the_page_a_save_brought_is_no_rejection():
    trace = run(
        ('select_option("e12", "Poetry")', edit_form("Poetry")),
        ('click("e13")', change_list(alerts=("Saved “Lanterns”.",))),
        start=edit_form(),
    )
    report = annotate(trace, FakeAlignment(first_divergence_step=1))
    assert codes(report) == []
    assert (report.code, report.step, report.stage) == (
        FailureCode.TASK_INCOMPLETE,
        1,
        Stage.DECISION,
    )


def _emptied(field: str) -> SemanticState:
    """The edit form with ``field``'s value gone and the browser's required message on it."""
    state = edit_form()
    elements = [
        e.model_copy(update={"value": "", "validation_message": "Please fill out this field."})
        if e.name == field
        else e
        for e in state.elements
    ]
    return state.model_copy(update={"elements": elements})


def test_a_browser_message_is_the_agent_s_doing_on_the_field_it_acted_on_only():
    emptied = run(('fill("e11", "")', _emptied("ISBN")), start=edit_form())
    assert acted_on(emptied, 1) == {("textbox", "ISBN"): ""}
    report = annotate(emptied)
    assert (report.code, report.step) == (FailureCode.VALIDATION_ERROR, 1)
    assert "the browser's constraint validation rejected the input" in report.message
    # the page's script emptied another field: not what the agent typed
    other = run(('fill("e10", "Lanterns")', _emptied("ISBN")), start=edit_form())
    assert codes(annotate(other)) == []


def test_the_server_sending_the_form_back_with_an_error_is_a_rejection():
    message = "Enter an ISBN-13: 13 digits starting with 978 or 979, no spaces."
    trace = run(('click("e13")', edit_form(base=30, isbn_error=message)), start=edit_form())
    assert new_document(trace.steps[0].state, trace.steps[1].state)  # same URL, new refs
    report = annotate(trace)
    assert (report.code, report.step, report.stage) == (
        FailureCode.VALIDATION_ERROR,
        1,
        Stage.UNDERSTANDING,
    )
    assert f"ISBN: {message}" in report.message and "the app rejected" in report.message


def test_a_flag_on_a_page_a_link_brought_is_the_page_s_own():
    flagged = edit_form(base=30, isbn_error="Enter an ISBN-13.")
    trace = run(('goto("http://library.test/books/7/edit")', flagged), start=change_list())
    assert page_start(trace, 1) == 1 and codes(annotate(trace)) == []


def test_a_banner_there_on_arrival_does_not_make_a_dead_button_a_rejection():
    banner = change_list(
        chosen="available", alerts=("Maintenance tonight: saving is not possible",)
    )
    trace = run(('click("e51")', banner, {"changed": False}), start=banner)
    assert codes(annotate(trace)) == [(1, FailureCode.ACTION_NO_EFFECT)]


def test_a_field_the_app_emptied_after_taking_its_value_is_no_rejection():
    typed = edit_form()
    typed.elements[0] = typed.elements[0].model_copy(update={"value": "Lanterns II"})
    cleared = _emptied("Title")  # the app saved it and emptied the field: required again
    trace = run(('fill("e10", "Lanterns II")', typed), ('click("e13")', cleared), start=edit_form())
    assert acted_on(trace, 2)[("textbox", "Title")] == "Lanterns II"
    assert codes(annotate(trace)) == []

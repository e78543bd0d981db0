"""Ids the app generates: two runs of one path whose records got other ids align as one;
a run that opens another record does not (``diagnosis.generated_ids``, ``same_url``)."""

from __future__ import annotations

import pytest

from tests.diagnosis.test_alignment import Spec, el, materialise, page
from webharness.diagnosis.alignment import align, element_diff
from webharness.diagnosis.generated_ids import generated_ids
from webharness.diagnosis.progress import progress_curve
from webharness.diagnosis.similarity import (
    similarity_matrix,
    state_features,
    state_similarity,
)
from webharness.semantic import Heading, SemanticState

BOOKS = {"Harbour Lights": "Tomas Reyes", "Salt and Iron": "Wen Li"}


def _list(saved: str | None = None, saved_id: int | None = None) -> SemanticState:
    links = [el("link", title) for title in BOOKS]
    query = f"?saved={saved_id}" if saved_id is not None else ""
    alerts = [f"Saved “{saved}”."] if saved else []
    return page("/books" + query, "Books", links, alerts=alerts)


def _edit(book_id: int, title: str, year: str = "1998") -> SemanticState:
    fields = [el("textbox", "Title", title), el("textbox", "Author", BOOKS[title])]
    fields += [el("spinbutton", "Year", year), el("button", "Save")]
    return page(f"/books/{book_id}/edit", f"Edit “{title}”", fields)


def _run(book_id: int, title: str = "Harbour Lights") -> list[Spec]:
    return [
        Spec(_list()),
        Spec(_edit(book_id, title), ("click", "link", title)),
        Spec(_edit(book_id, title, "1923"), ("fill", "spinbutton", "Year", "1923")),
        Spec(_list(title, book_id), ("click", "button", "Save")),
    ]


def test_the_built_in_ids_are_numbers_uuids_and_long_hex_in_url_segments_and_values():
    ids = generated_ids()
    assert ids.url("http://x/admin/book/776/change/") == "http://x/admin/book/{id}/change/"
    assert ids.url("http://x/o/3f2504e0-4f89-11d3-9a0c-0305e82c3301?s=9f86d081884c7d65") == (
        "http://x/o/{id}?s={id}"
    )
    # words, mixed tokens and the port stay: only whole segments and values are ids
    assert ids.url("http://x:8123/books/v2/page-3?q=salt&year=") == (
        "http://x:8123/books/v2/page-3?q=salt&year="
    )
    assert not ids.in_texts and ids.text("Order #1043") == "Order #1043"


def test_a_task_s_patterns_reach_texts_and_a_bad_one_is_named():
    ids = generated_ids([r"NL-\d+"])
    assert ids.text("Order NL-123456 placed") == "Order {id} placed"
    assert ids.url("http://x/confirmation.html?order=NL-123456") == (
        "http://x/confirmation.html?order={id}"
    )
    with pytest.raises(ValueError, match=r"'\(unclosed' is not a regular expression"):
        generated_ids(["(unclosed"])


def test_the_same_path_on_other_ids_aligns_one_to_one():
    golden, agent = materialise(_run(776), "edit"), materialise(_run(841))
    report = align(agent, [golden])
    assert report.progress_rate == 1.0 and report.first_divergence_step is None
    assert report.fidelity == pytest.approx(1.0) and not report.wrong_actions
    assert progress_curve([s.state for s in agent.steps], golden) == 1.0


def test_another_record_under_another_id_still_diverges_where_it_was_opened():
    golden = materialise(_run(776), "edit")
    agent = materialise(_run(902, "Salt and Iron"))
    report = align(agent, [golden])
    assert report.first_divergence_step == 1 and report.progress_rate < 1.0
    # the URLs match once the ids are replaced, but the pages name another book
    sim = state_similarity(agent.steps[1].state, golden.steps[1].state)
    assert sim < 0.8


def test_a_page_naming_nothing_but_the_record_is_another_page_under_another_id():
    """A confirmation page whose controls are alike for every record: the URL counts as
    the same only while the pages say the same thing, so another book stays below the cut."""

    def confirm(book_id: int, title: str) -> SemanticState:
        controls = [el("button", "Yes, delete it"), el("link", "No, keep it")]
        return page(f"/books/{book_id}/delete", f"Delete “{title}”?", controls)

    same = state_similarity(confirm(841, "Harbour Lights"), confirm(776, "Harbour Lights"))
    other = state_similarity(confirm(902, "Salt and Iron"), confirm(776, "Harbour Lights"))
    assert same == 1.0 and other < 0.85


def test_the_matrix_gives_state_similarity_s_numbers_with_ids():
    a = [state_features(s.state) for s in materialise(_run(776)).steps]
    b = [state_features(s.state) for s in materialise(_run(902, "Salt and Iron")).steps]
    b += [state_features(s.state) for s in materialise(_run(841)).steps]
    matrix = similarity_matrix(a, b)
    for i, fa in enumerate(a):
        for j, fb in enumerate(b):
            assert matrix[i, j] == pytest.approx(state_similarity(fa, fb))


def test_a_task_s_patterns_match_names_headings_and_values_across_runs():
    def order(number: int) -> SemanticState:
        state = page(f"/orders/{number}", "Order", [el("link", f"Invoice #{number}")])
        return state.model_copy(update={"headings": [Heading(level=1, text=f"Order #{number}")]})

    assert state_similarity(order(12), order(34)) < 0.8  # names and headings differ
    assert state_similarity(order(12), order(34), id_patterns=[r"#\d+"]) == 1.0
    diff = element_diff(order(12), order(34), id_patterns=[r"#\d+"])
    assert not diff

"""``generated_ids:`` in a task spec: the task's own patterns of the ids its app generates,
checked at load (a bad one names the file, the field and the pattern) and used wherever a
run is aligned with its golden traces (``score_trace`` reads them from the spec)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.diagnosis.test_alignment import Spec, el, materialise, page
from webharness.diagnosis.progress import progress_curve
from webharness.diagnosis.scoring import score_trace
from webharness.errors import TaskSpecError
from webharness.semantic import SemanticState
from webharness.spec.task_spec import TaskSpec, load_task

SLUG = r"bk-[0-9a-f]{4}"
TASK = """\
id: slugs
category: forms
instruction: Change the year of "Harbour Lights" to 1923.
start_url: http://127.0.0.1:8000/books
success: {kind: text, text: Saved}
"""


def _spec(tmp_path: Path, extra: str = "") -> TaskSpec:
    file = tmp_path / "task.yaml"
    file.write_text(TASK + extra)
    return load_task(file)


def _edit(slug: str, year: str = "1998") -> SemanticState:
    fields = [el("textbox", "Title", "Harbour Lights"), el("spinbutton", "Year", year)]
    return page(f"/books/{slug}/edit", "Edit book", [*fields, el("button", "Save")])


def _run(slug: str) -> list[Spec]:
    """A list, a book's edit page under its slug, the year typed, saved back to the list."""
    books = page("/books", "Books", [el("link", "Harbour Lights"), el("link", "Salt and Iron")])
    saved = page(f"/books?saved={slug}", "Books", [el("link", "Harbour Lights")])
    return [
        Spec(books),
        Spec(_edit(slug), ("click", "link", "Harbour Lights")),
        Spec(_edit(slug, "1923"), ("fill", "spinbutton", "Year", "1923")),
        Spec(saved, ("click", "button", "Save")),
    ]


def test_the_field_is_a_list_of_regexes_checked_at_load(tmp_path):
    assert _spec(tmp_path).generated_ids == []
    assert _spec(tmp_path, f"generated_ids: ['{SLUG}']\n").generated_ids == [SLUG]
    with pytest.raises(TaskSpecError) as raised:
        _spec(tmp_path, "generated_ids: ['bk-(unclosed']\n")
    message = str(raised.value)
    assert str(tmp_path / "task.yaml") in message and "generated_ids" in message
    assert "bk-(unclosed" in message and "not a regular expression" in message


def test_slug_ids_the_defaults_miss_align_one_to_one_only_with_the_field(tmp_path):
    golden = materialise(_run("bk-3f9a"), "edit")
    agent = materialise(_run("bk-91c2"))
    plain, declared = _spec(tmp_path), _spec(tmp_path, f"generated_ids: ['{SLUG}']\n")

    without = score_trace(agent, [golden], spec=plain).alignment
    assert without is not None and without.first_divergence_step is not None

    aligned = score_trace(agent, [golden], spec=declared).alignment
    assert aligned is not None
    assert (aligned.progress_rate, aligned.first_divergence_step) == (1.0, None)
    assert len(aligned.matched) == len(golden.steps)
    states = [s.state for s in agent.steps]
    assert progress_curve(states, golden, id_patterns=declared.generated_ids) == 1.0
    # another book under another slug still diverges where it was opened
    other = materialise([_run("bk-77aa")[0], *_other_book("bk-77aa")])
    wrong = score_trace(other, [golden], spec=declared).alignment
    assert wrong is not None and wrong.first_divergence_step == 1


def _other_book(slug: str) -> list[Spec]:
    fields = [el("textbox", "Title", "Salt and Iron"), el("spinbutton", "Year", "2001")]
    edit = page(f"/books/{slug}/edit", "Edit book", [*fields, el("button", "Save")])
    return [Spec(edit, ("click", "link", "Salt and Iron"))]

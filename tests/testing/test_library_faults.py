"""The faulty-agent suite on the team's own stateful app (Shelfwise, ``examples/library_app``):
``Case``s naming a registered env id, played and scored by ``Bench`` as the built-in
failure matrix is, each expected to get the code, step and stage ``expected_verdict`` says
(issue 41: at least ten faults written from docs/failure-codes.md).

Each env starts its own instance of the app from ``examples/library_tasks/app.yaml``; the
golden traces are recorded on it first, so the faulty runs meet other generated ids.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.library import TASKS
from tests.support.registry import registrations_undone
from webharness import register_tasks
from webharness.diagnosis.failures import FailureCode
from webharness.testing import FAULTS, Bench, Case, CaseResult
from webharness.testing.faults import bad_value_fault, invent_withheld_fault, wrong_option_fault

pytestmark = pytest.mark.slow

F = FAULTS
GENRES = ("Fiction", "History", "Poetry", "Science", "Travel")


def _env(task: str) -> str:
    return f"Library/{task}-v0"


CASES = [
    # a wrong genre chosen and saved: the app accepts it and lands on the change list, whose
    # bulk-action select is required and flagged by the browser from load (untouched)
    Case(_env("add_book"), wrong_option_fault(GENRES), 8),
    Case(_env("add_book"), F["quit_done"], 9),  # false success: done() before saving
    Case(_env("add_book"), bad_value_fault("bad_isbn", "not-an-isbn", 3), 6),
    Case(_env("ask_isbn"), invent_withheld_fault("978-0-0000-00000"), 3),  # never asks
    Case(_env("delete_book"), F["wrong_record"], 1),  # deletes another book
    Case(_env("delete_book"), F["unknown_ref"], 2),
    Case(_env("delete_book"), F["repeat_heading"], 1),
    Case(_env("edit_filtered"), F["stale_ref"], 5),  # a result link from before the filter
    Case(_env("edit_filtered"), F["stop_halfway"], 5),  # gives up on the results page
    Case(_env("edit_filtered"), F["save_unchanged"], 6),  # saves before editing: no rejection
    Case(_env("fix_isbn"), F["never_fix"], 7),
    Case(_env("report_count"), F["click_heading"], 1),
    Case(_env("report_count"), F["fill_control"], 1),
    Case(_env("report_count"), F["garbage_text"], 2),
]

# the cases whose save lands on the change list with its untouched required select
UNTOUCHED = {"wrong_option", "save_unchanged"}
# the cases the app rejects, with the words it says beside the ISBN field
APP_WORDS = {"bad_isbn", "never_fix"}


@pytest.fixture(scope="module")
def bench(browser: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bench]:
    with registrations_undone():
        register_tasks(TASKS, "Library")
        played = Bench(golden_cache=tmp_path_factory.mktemp("golden"))
        try:
            yield played
        finally:
            played.close()


def _untouched_select_shown(result: CaseResult) -> bool:
    """The page after the save shows the change list's ``required`` bulk-action select with
    the browser's message on it, the app not flagging it."""
    states = [s.state for s in result.trace.steps[(result.fault_step or 0) :]]
    selects = [e for s in states for e in s.find("combobox", "Action")]
    return any(e.required and e.validation_message and not e.invalid for e in selects)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id.removeprefix("Library/"))
def test_a_faulty_agent_on_the_library_app_gets_the_expected_verdict(bench, case):
    result = bench.run(case)
    got, expected = result.annotated, result.expected
    assert expected.code is not None and expected.step is not None
    assert (got.code, got.step, got.stage) == (expected.code, expected.step, expected.stage), (
        result.failure.message
    )
    assert result.ok, (got, expected, result.alignment)
    if case.fault.name in UNTOUCHED:
        assert _untouched_select_shown(result)
        codes = {n.code for n in result.failure.step_notes}
        assert FailureCode.VALIDATION_ERROR not in codes
    if case.fault.name in APP_WORDS:
        assert "the app rejected the input (ISBN: Enter an ISBN-13" in result.failure.message


def test_the_cases_cover_ten_codes_and_stages_of_the_failure_list():
    assert len(CASES) >= 10
    codes = {c.fault.code for c in CASES}
    assert len(codes) >= 9 and FailureCode.TASK_INCOMPLETE in codes

"""Deliberately faulty scripted agents: is each annotated with the right code, step and stage?

The faulty agent and its fault library live in ``webharness.testing`` (users check the
annotator on their own tasks with them). Every case plays a golden path with one fault
injected, is scored as the runner scores it (golden traces of the same seed,
``score_trace``), and is compared with what the fault must produce: primary code, step,
root-cause stage, false-success and not-executable flags, and for the faults that must
diverge where injected, the alignment's first divergence and golden path.

``docs/make_failure_matrix.py`` runs every case and writes the confusion matrix into
docs/failure-codes.md. The full matrix is ``slow``; a few cases run in the fast suite.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import webharness  # noqa: F401  (registers the WebEval/* ids)
from webharness.diagnosis.failures import FailureCode
from webharness.diagnosis.scoring import score_trace
from webharness.spec.catalogue import task_names
from webharness.testing import (
    SEED,
    Bench,
    CaseResult,
    Verdict,
    all_cases,
    expected_verdict,
)
from webharness.testing.live import LiveStack
from webharness.trace.io import load_trace

C = FailureCode

FAST_CASES = [
    "form-garbage_text@5",
    "form-click_heading@1",
    "form-stop_halfway@5",
    "form-quit_message@1",
    "form-popup_refused@2-save-button",
]

CASES = {c.id: c for c in all_cases()}
QUITS = ("quit_done", "quit_message")


def _one_per_fault() -> set[str]:
    """The first case of every fault (so every code) and every scenario's first case: what
    the test suite runs. The whole matrix (every case, minutes) is run and recorded by
    docs/make_failure_matrix.py, which keeps the suite inside its time budget."""
    chosen: dict[str, str] = {}
    for case_id, case in CASES.items():
        chosen.setdefault(case.fault.name, case_id)
        chosen.setdefault("scenario:" + case_id.split("-")[0], case_id)
    return set(chosen.values())


IN_SUITE = _one_per_fault() | set(FAST_CASES)


@pytest.fixture(scope="module")
def bench(browser: None) -> Iterator[Bench]:
    b = Bench()
    yield b
    b.close()


def _check(result: CaseResult) -> None:
    assert result.annotated == result.expected, (result.failure.message, result.failure.step_notes)
    assert result.notes_ok, result.failure.step_notes
    assert result.divergence_ok is not False, result.alignment


def _slow_unless(fast: bool) -> list[pytest.MarkDecorator]:
    return [] if fast else [pytest.mark.slow]


@pytest.mark.parametrize(
    "case_id",
    [
        pytest.param(i, marks=_slow_unless(i in FAST_CASES))
        for i in sorted(IN_SUITE)
        if CASES[i].fault.name not in QUITS
    ],
)
def test_a_faulty_agent_gets_the_right_code_step_and_stage(bench: Bench, case_id: str) -> None:
    _check(bench.run(CASES[case_id]))


@pytest.mark.parametrize(
    "case_id",
    [
        pytest.param(i, marks=_slow_unless(i in FAST_CASES))
        for i in CASES
        if CASES[i].fault.name in QUITS
    ],
)
def test_ending_at_once_claiming_success_is_flagged_false_success(
    bench: Bench, case_id: str
) -> None:
    result = bench.run(CASES[case_id])
    assert result.failure.false_success and not result.failure.passed
    _check(result)


ORACLE_SEEDS = (SEED,)  # the scenario tests play seeds 0-19 for success; here, the diagnosis


@pytest.mark.parametrize(
    "scenario,seed",
    [
        pytest.param(
            name, seed, marks=_slow_unless((name, seed) in {("form", SEED), ("validation", SEED)})
        )
        for name in task_names()
        for seed in ORACLE_SEEDS
    ],
)
def test_the_oracle_runs_get_no_failure_code(bench: Bench, scenario: str, seed: int) -> None:
    goldens = bench.goldens(scenario, seed)  # one oracle run per golden path
    for run in goldens:
        failure = score_trace(run, goldens).failure
        assert failure.passed and failure.code is None and failure.stage is None, (
            run.golden_path,
            failure.message,
        )
        assert not (failure.false_success or failure.false_give_up or failure.not_executable)
        # the only notes an oracle run may carry are the rejections it recovers from
        notes = [(n.step, n.code) for n in failure.step_notes]
        assert all(code is C.VALIDATION_ERROR for _, code in notes), (run.golden_path, notes)
        if scenario == "validation":
            rejected = next(s.index for s in run.steps if any(e.invalid for e in s.state.elements))
            assert notes == [(rejected, C.VALIDATION_ERROR)], run.golden_path


# --- live wrappers and offline re-scoring agree -------------------------------------------


LIVE_CASES = ["form-garbage_text@5", "form-bad_email@3-save-button", "form-kill_browser@5"]
LIVE_SLOW = [
    "form-click_heading@1",
    "validation-never_fix@8-fix-and-resubmit",
    "async-early_answer@2",
    "clarify-invent_phone@6-ask-then-fill",
    "dynamic-stale_ref@2",
    "richtext-repeat_heading@1",
    "login-hidden_ref@2-phone-code",
    "shop-unknown_ref_then_recover@1",
    "form-popup_refused@2-save-button",
    "validation-resubmit_same@8-fix-and-resubmit",
    "validation-stop_after_fix@9-fix-and-resubmit",
    "combobox-save_unchanged@1-click-option",
    "clarify-vague_then_invent@6-ask-then-fill",
    "navigate-detour@2-links",
    "dynamic-wrong_choice@2-row-button",
]


@pytest.fixture(scope="module")
def live_stack(browser: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    """The diagnosis stack users put on an env, one per scenario (each records its own goldens)."""
    stack = LiveStack(tmp_path_factory.mktemp("live"), SEED)
    yield stack
    stack.close()


@pytest.mark.parametrize(
    "case_id",
    # by scenario (ids start with it): the stack holds one scenario's env and goldens at a time
    [pytest.param(i, marks=_slow_unless(i in LIVE_CASES)) for i in sorted(LIVE_CASES + LIVE_SLOW)],
)
def test_rescoring_a_saved_trace_offline_gives_the_live_diagnosis(
    bench: Bench, live_stack: LiveStack, case_id: str
) -> None:
    case = CASES[case_id]
    info, agent = live_stack.play(case)
    offline = score_trace(load_trace(info["trace_dir"]), bench.goldens(case.scenario))
    assert offline.failure == info["failure"]
    assert offline.alignment == info["alignment"]
    assert Verdict.of(info["failure"]) == expected_verdict(case, agent)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case_id",
    [
        "form-click_heading@1",
        "validation-never_fix@8-fix-and-resubmit",
        "validation-resubmit_same@8-fix-and-resubmit",
    ],
)
def test_webharness_score_gives_the_runner_s_diagnosis(
    browser: None, tmp_path: Path, case_id: str
) -> None:
    from webharness.cli import main
    from webharness.reporting.records import read_attempts
    from webharness.runner import RunConfig, RunFolder, prepare_run, run_jobs

    case = CASES[case_id]
    config = RunConfig(
        agents=["webharness.testing:CaseAgent"],
        tasks=[case.scenario],
        seeds=[SEED],
        obs_mode="text",
        screenshots=False,
        agent_options={"case": case_id},
    )
    run_jobs(prepare_run(config, tmp_path, resume=False), config, tmp_path)
    assert main(["score", str(tmp_path)]) == 0
    fields = (
        "passed",
        "false_success",
        "not_executable",
        "failure_code",
        "root_cause",
        "failure_step",
        "failure_runner_up",
        "failure_decided_by",
        "first_divergence_step",
        "decisive_step",
        "progress_rate",
    )
    (live,) = read_attempts(RunFolder(tmp_path).results)
    (again,) = read_attempts(RunFolder(tmp_path).rescored)
    assert {f: getattr(again, f) for f in fields} == {f: getattr(live, f) for f in fields}
    assert (live.failure_code, live.root_cause) == (case.fault.code.value, case.fault.stage.value)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case_id,who",
    [
        ("form-bad_email@3-save-button", "browser"),  # Chromium's own email check
        ("validation-never_fix@8-fix-and-resubmit", "app"),
        ("clarify-never_fix@7-submit-then-ask", "app"),
    ],
)
def test_the_failure_record_says_who_rejected_the_input(
    bench: Bench, case_id: str, who: str
) -> None:
    result = bench.run(CASES[case_id])
    fields = result.failure.evidence.invalid_fields or []
    assert fields and {f.rejected_by for f in fields} == {who}, fields
    wording = "the browser's constraint validation" if who == "browser" else "the app"
    assert f"{wording} rejected the input" in result.failure.message

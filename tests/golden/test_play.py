"""What makes a golden recording unfit to keep: a failed step, an episode that did not end,
was cut short by the harness, or ended without success."""

from __future__ import annotations

import logging

import pytest

from webharness.action_result import ActionErrorKind, ActionResult
from webharness.golden.play import (
    SpoiledRecording,
    recording_fault,
    require_sound,
    warn_if_spoiled,
)
from webharness.semantic import SemanticState
from webharness.trace.models import EndedBy, EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

TASK = TaskInstance(
    task_id="form", env_id="WebEval/form-v0", category="forms", seed=3, instruction="Sign up"
)
WHOLE_END = EpisodeEnd(terminated=True, success=True, ended_by=EndedBy.CRITERIA)


def recording(
    *results: ActionResult, end: EpisodeEnd | None = WHOLE_END, path: str = "save-button"
) -> EpisodeTrace:
    steps = [StepRecord(index=0, state=SemanticState())] + [
        StepRecord(index=i, action='click("e3")', action_result=r, state=SemanticState())
        for i, r in enumerate(results, start=1)
    ]
    return EpisodeTrace(task=TASK, steps=steps, end=end, golden_path=path)


CRASHED = ActionResult.failed(
    ActionErrorKind.BROWSER_ERROR, 'click("e3") failed in the browser: Target crashed'
)
TIMED_OUT = ActionResult.failed(
    ActionErrorKind.TIMEOUT, 'click("e3") did not finish within 5000 ms'
)


def test_a_recording_played_whole_to_success_is_sound():
    whole = [recording(ActionResult(), ActionResult()), recording(ActionResult(), path="enter")]
    assert recording_fault(whole[0]) is None
    assert require_sound(whole) == whole
    assert require_sound([]) == []  # a task without golden paths


@pytest.mark.parametrize(
    ("spoiled", "named"),
    [
        (
            recording(ActionResult(), CRASHED),
            'step 2 click("e3"): click("e3") failed in the browser',
        ),
        (recording(TIMED_OUT, ActionResult()), 'step 1 click("e3"): click("e3") did not finish'),
        (recording(ActionResult(), end=None), "the episode never ended"),
        (
            recording(end=EpisodeEnd(not_executable=True, error="the page hung")),
            "the harness or browser failed: the page hung",
        ),
        (
            recording(end=EpisodeEnd(truncated=True, ended_by=EndedBy.MAX_STEPS)),
            "the episode ended (max_steps) without success",
        ),
    ],
    ids=["browser-error", "timeout", "no-end", "not-executable", "no-success"],
)
def test_a_failed_step_or_an_unsuccessful_end_spoils_the_recording_and_is_named(spoiled, named):
    assert named in (recording_fault(spoiled) or "")
    with pytest.raises(SpoiledRecording) as raised:
        require_sound([recording(ActionResult()), spoiled])
    assert str(raised.value).startswith("the golden recording of WebEval/form-v0 seed 3 failed")
    assert f"save-button: {named}" in str(raised.value)


def test_a_recording_used_as_it_is_is_named_in_a_warning_only_when_spoiled(caplog):
    log = logging.getLogger("webharness.test")
    whole, spoiled = [recording(ActionResult())], [recording(CRASHED)]
    with caplog.at_level(logging.WARNING, logger="webharness.test"):
        assert warn_if_spoiled(whole, log) is whole
        assert caplog.text == ""
        assert warn_if_spoiled(spoiled, log) is spoiled
    assert "WebEval/form-v0 seed 3 failed (save-button: step 1 " in caplog.text
    assert caplog.text.rstrip().endswith("the episodes are scored against it as it is")

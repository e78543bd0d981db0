"""RecordTrace, GoldenTraceAlignment and FailureAnnotation on a real scenario."""

from __future__ import annotations

import gymnasium as gym
import pytest

from tests.support.episodes import oracle_policy, play
from webharness.diagnosis.failures import FailureCode
from webharness.trace.io import load_trace
from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment, RecordTrace


@pytest.fixture
def diagnosed(browser, tmp_path):
    env = FailureAnnotation(
        GoldenTraceAlignment(
            RecordTrace(
                gym.make("WebEval/form-v0", obs_mode="text", render_mode="rgb_array"),
                tmp_path / "traces",
            )
        )
    )
    yield env
    env.close()


def test_the_oracle_run_is_aligned_perfectly_and_has_no_failure(diagnosed):
    run = play(diagnosed, oracle_policy(diagnosed), seed=4)
    alignment, failure = run.last["alignment"], run.last["failure"]
    assert alignment.fidelity == pytest.approx(1.0) and alignment.progress_rate == pytest.approx(
        1.0
    )
    assert alignment.first_divergence_step is None
    assert failure.passed and failure.code is None


def test_quitting_early_is_flagged_false_success_at_the_first_step(diagnosed):
    run = play(diagnosed, lambda obs, info: "done()", seed=4)
    failure = run.last["failure"]
    assert failure.false_success and failure.code is FailureCode.TASK_INCOMPLETE
    assert run.last["alignment"].first_divergence_step == 1


def test_progress_is_reported_every_step_and_grows_along_the_golden_path(diagnosed):
    run = play(diagnosed, oracle_policy(diagnosed), seed=5)
    progress = [info["progress"] for info in run.infos]
    assert progress == sorted(progress) and progress[-1] == pytest.approx(1.0)


def test_progress_reward_is_off_by_default_and_shapes_the_reward_when_on(browser, tmp_path):
    env = GoldenTraceAlignment(gym.make("WebEval/form-v0", obs_mode="text"), progress_reward=True)
    try:
        run = play(env, oracle_policy(env), seed=6)
    finally:
        env.close()
    assert run.reward > 0 and len(run.infos) > 2


def test_record_trace_writes_a_loadable_trace_with_screenshots(diagnosed, tmp_path):
    run = play(diagnosed, oracle_policy(diagnosed), seed=2)
    trace = load_trace(run.last["trace_dir"])
    assert len(trace.steps) == len(run.actions) + 1
    assert trace.actions == [info["action"] for info in run.infos[1:]]
    assert trace.end is not None and trace.end.success
    assert all(step.screenshot for step in trace.steps)
    assert [s.state.fingerprint() for s in trace.steps] == [
        i["semantic_state"].fingerprint() for i in run.infos
    ]

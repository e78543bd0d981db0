"""RecordTrace, GoldenTraceAlignment and FailureAnnotation on a real scenario."""

from __future__ import annotations

import logging
from contextlib import closing

import gymnasium as gym
import pytest

import webharness.golden.cached as cached_module
from tests.support.calls import counted_calls
from tests.support.crashes import first_recordings_crash
from tests.support.episodes import oracle_policy, play
from tests.support.mounts import mounted
from webharness.diagnosis.failures import FailureCode
from webharness.golden.cache import CACHE_DIR_ENV, GoldenCache
from webharness.testing import Bench
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


@pytest.fixture
def recordings(monkeypatch) -> list[int]:
    """How many times golden traces were recorded (one count per task and seed)."""
    return counted_calls(monkeypatch, cached_module, "golden_traces")


def _aligned(seed: int, env_id: str = "WebEval/form-v0", **options) -> dict:
    env = GoldenTraceAlignment(gym.make(env_id, obs_mode="text"), **options)
    try:
        return play(env, oracle_policy(env), seed=seed).last["alignment"]
    finally:
        env.close()


def test_golden_traces_are_recorded_once_into_the_cache_and_shared(browser, tmp_path, recordings):
    cache = tmp_path / "cache"
    first, second = _aligned(7, golden_cache=cache), _aligned(7, golden_cache=cache)
    assert len(recordings) == 1 and len(GoldenCache(cache).entries()) == 1
    assert first == second and first.fidelity == pytest.approx(1.0)
    with closing(Bench(7, golden_cache=cache)) as bench:  # the test bench reads them too
        assert [g.golden_path for g in bench.goldens("form")] == ["enter-key", "save-button"]
    assert len(recordings) == 1
    with closing(Bench(7, golden_cache=None)) as bench:  # in memory: in the same order
        assert [g.golden_path for g in bench.goldens("form")] == ["enter-key", "save-button"]
    assert len(recordings) == 2
    assert _aligned(8, golden_cache=cache).fidelity == pytest.approx(1.0)  # another seed
    assert len(recordings) == 3 and len(GoldenCache(cache).entries()) == 2


def test_the_default_cache_is_the_runner_s_and_none_records_in_memory(
    browser, tmp_path, monkeypatch, recordings
):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "default"))
    _aligned(7)
    assert len(GoldenCache(tmp_path / "default").entries()) == 1
    assert _aligned(7, golden_cache=None).fidelity == pytest.approx(1.0)
    assert len(recordings) == 2 and len(GoldenCache(tmp_path / "default").entries()) == 1


def test_a_cache_that_cannot_be_written_is_named_and_the_traces_are_recorded_anyway(
    browser, tmp_path, caplog, recordings
):
    with mounted(tmp_path / "cache", "ro") as cache:
        with caplog.at_level(logging.WARNING, logger="webharness.golden.cached"):
            alignment = _aligned(7, golden_cache=cache)
    assert f"golden-trace cache {cache} cannot be used" in caplog.text
    assert alignment.fidelity == pytest.approx(1.0) and len(recordings) == 1


@pytest.mark.parametrize("crashed", [1, 2])
def test_a_recording_that_failed_in_the_browser_is_not_cached_and_is_recorded_again(
    browser, tmp_path, monkeypatch, caplog, recordings, crashed
):
    """Recorded again, it is used; failed again too, a second warning says it is used as
    it is."""
    first_recordings_crash(monkeypatch, cached_module, crashed)
    cache = tmp_path / "cache"
    with caplog.at_level(logging.WARNING, logger="webharness.golden.cached"):
        alignment = _aligned(2, "WebEval/login-v0", golden_cache=cache)
    failed = "the golden recording of WebEval/login-v0 seed 2 failed (email-password: step 1 "
    assert caplog.text.count(failed) == crashed
    assert "failed in the browser: Target crashed); it is not cached" in caplog.text
    assert ("the episodes are scored against it as it is" in caplog.text) == (crashed == 2)
    if crashed == 1:
        assert alignment.fidelity == pytest.approx(1.0)  # aligned to the whole recording
    assert len(recordings) == 2 and GoldenCache(cache).entries() == []
    assert _aligned(2, "WebEval/login-v0", golden_cache=cache).fidelity == pytest.approx(1.0)
    assert len(recordings) == 3 and len(GoldenCache(cache).entries()) == 1

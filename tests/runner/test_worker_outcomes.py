"""What ``Worker.run`` gives for each way an episode can end: a scored attempt with its
phases, a not-executable attempt for the harness's own errors, a RunError naming what
could not be written, and a trace pruned to the telling frames."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from tests.support.registry import registrations_undone
from webharness import register_tasks
from webharness.errors import BrowserError, BrowserNotFoundError, RunError
from webharness.runner import EpisodeJob, RunFolder, Worker
from webharness.runner import worker as worker_module
from webharness.spec.catalogue import task_folder
from webharness.trace.io import TraceError, load_trace


def _job(run_dir: Path, **fields: Any) -> EpisodeJob:
    values: dict[str, Any] = dict(
        agent="oracle",
        env_id="WebEval/form-v0",
        seed=0,
        obs_mode="text",
        screenshots=False,
        run_dir=str(run_dir),
    )
    return EpisodeJob(**{**values, **fields})


def test_a_played_episode_is_scored_with_the_time_of_each_phase(browser, tmp_path):
    with Worker() as worker:
        attempt = worker.run(_job(tmp_path))
    assert attempt.passed and not attempt.not_executable
    assert attempt.phases_ms is not None
    assert list(attempt.phases_ms) == ["episode", "trace_writing", "golden", "scoring"]
    assert all(ms >= 0 for ms in attempt.phases_ms.values())
    assert attempt.duration_ms == pytest.approx(attempt.phases_ms["episode"], abs=0.05)


@pytest.mark.parametrize(
    "error",
    [BrowserError("the page crashed"), BrowserNotFoundError("no chromium here")],
    ids=["browser-error", "browser-not-found-is-an-oserror-too"],
)
def test_an_error_of_the_harness_is_a_not_executable_attempt(browser, tmp_path, monkeypatch, error):
    def fails(*args: Any, **kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(worker_module, "play_episode", fails)
    with Worker() as worker:
        attempt = worker.run(_job(tmp_path))
    assert attempt.not_executable and not attempt.passed
    assert attempt.failure_code == "runtime_error" and attempt.root_cause == "environment"
    assert attempt.error == f"{type(error).__name__}: {error}"


@pytest.mark.parametrize(
    ("place", "error", "keep_frames", "says"),
    [
        ("play_episode", OSError(errno.ENOSPC, "No space"), "all", "stopped: writing the trace of"),
        ("play_episode", TraceError("short write"), "all", "stopped: writing the trace of"),
        (
            "_save_transcript",
            OSError(errno.EROFS, "Read-only"),
            "all",
            "golden traces or transcript",
        ),
        (
            "keep_frames_of",
            OSError(errno.ENOSPC, "No space"),
            "around_failure",
            "stopped: dropping frames",
        ),
    ],
    ids=["trace-oserror", "trace-short-write", "transcript", "pruning-frames"],
)
def test_a_write_that_fails_stops_the_run_saying_what_failed(
    browser, tmp_path, monkeypatch, place, error, keep_frames, says
):
    def fails(*args: Any, **kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(worker_module, place, fails)
    with Worker() as worker, pytest.raises(RunError, match=says) as caught:
        worker.run(_job(tmp_path, keep_frames=keep_frames))
    assert caught.value.__cause__ is error
    assert "form-v0" in str(caught.value) and "--resume" in str(caught.value)


def test_keeping_frames_around_failure_keeps_only_the_telling_steps(browser, tmp_path):
    folder = RunFolder(tmp_path)
    jobs = [
        _job(tmp_path, screenshots=True, trial=0, keep_frames="all"),
        _job(tmp_path, screenshots=True, trial=1, keep_frames="around_failure"),
    ]
    with Worker() as worker:
        every, pruned = [worker.run(job) for job in jobs]
    episode = folder.episode_dir(pruned.trace_dir)
    steps = load_trace(episode).steps
    with_frames = {s.index for s in steps if s.screenshot is not None}
    marks = [pruned.failure_step, pruned.first_divergence_step, pruned.decisive_step]
    telling = {0, pruned.steps} | {m + d for m in marks if m is not None for d in (-1, 0, 1)}
    assert pruned.passed and with_frames == telling & {s.index for s in steps}
    assert {p.name for p in episode.glob("step_*.*")} == {
        s.screenshot for s in steps if s.screenshot is not None
    }
    every_steps = load_trace(folder.episode_dir(every.trace_dir)).steps
    assert all(s.screenshot is not None for s in every_steps)  # "all" keeps every frame


def test_an_app_that_cannot_start_is_a_not_executable_attempt_naming_it(tmp_path):
    task = tmp_path / "tasks" / "broken"
    task.mkdir(parents=True)
    noise = "[print(f'starting part {i} of the app') for i in range(40)]"  # 40 lines out
    (task / "task.yaml").write_text(
        "id: broken\ncategory: forms\ninstruction: Nothing.\nstart_url: ${APP_URL}/\n"
        f"app:\n  command: ['${{PYTHON}}', '-c', \"{noise}; print('no database here'); "
        "raise SystemExit(3)\"]\nsuccess: {kind: js, expression: 'true'}\n",
        encoding="utf-8",
    )
    with registrations_undone():
        (env_id,) = register_tasks(task, "Broken")
        job = EpisodeJob(
            agent="oracle", env_id=env_id, task_folder=task_folder(env_id), seed=0,
            run_dir=str(tmp_path / "run"),
        )  # fmt: skip
        with Worker() as worker:
            attempt = worker.run(job)
    assert attempt.not_executable and attempt.failure_code == "runtime_error"
    error = attempt.error or ""
    assert error.startswith("AppError: app ") and "exited with status 3" in error
    assert error.endswith("| no database here") and len(error) <= 1000

"""A worker: the envs and golden traces it keeps between jobs, and its process's one Worker."""

from __future__ import annotations

import pytest

from webharness.errors import RunError
from webharness.runner import (
    EpisodeJob,
    RunFolder,
    Worker,
    current_worker,
    run_job,
    start_worker,
    stop_worker,
)


def test_a_worker_moving_to_another_task_closes_its_envs_and_lets_its_goldens_go(browser):
    with Worker() as worker:
        form = worker.env("WebEval/form-v0", "text", "")
        form.reset(seed=0)  # holds a page and a ready next one
        worker.goldens = {("WebEval/form-v0", 0): [], ("WebEval/form-v0", 1): []}
        assert worker.env("WebEval/form-v0", "text", "") is form  # same task: kept
        worker.env("WebEval/form-v0", "both", "")
        assert len(worker.envs) == 2 and len(worker.goldens) == 2
        worker.env("WebEval/stats-v0", "text", "")
        assert list(worker.envs) == [("WebEval/stats-v0", "text", "", False)]  # no CDP
        assert worker.goldens == {}
        assert form.unwrapped.runtime is None  # closed: no page held any more


def test_a_worker_records_a_tasks_golden_traces_once_into_the_run_folder(browser, tmp_path):
    jobs = [
        EpisodeJob(
            agent="oracle",
            env_id="WebEval/form-v0",
            seed=0,
            trial=trial,
            obs_mode="text",
            screenshots=False,
            run_dir=str(tmp_path),
        )
        for trial in (0, 1)
    ]
    folder = RunFolder(tmp_path)
    with Worker() as worker:
        first = worker.run(jobs[0])
        goldens = worker.goldens[("WebEval/form-v0", 0)]
        second = worker.run(jobs[1])
        assert worker.goldens[("WebEval/form-v0", 0)] is goldens  # kept, not read again
    assert first.passed and second.passed
    assert [g.golden_path for g in folder.load_goldens("WebEval/form-v0", 0)] == [
        g.golden_path for g in goldens
    ]
    assert second.trace_dir == "episodes/oracle/form-v0/clean/seed-0-t1"


def test_a_process_has_one_worker_started_explicitly():
    assert current_worker() is None
    job = EpisodeJob(agent="oracle", env_id="WebEval/form-v0", seed=0, run_dir="unused")
    with pytest.raises(RunError, match="start_worker"):
        run_job(job)
    worker = start_worker()
    try:
        assert current_worker() is worker
        with pytest.raises(RunError, match="has a Worker already"):
            start_worker()
    finally:
        stop_worker()
    assert current_worker() is None

"""A small run shared by the runner's tests: two agents × two tasks × two seeds."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from webharness.reporting.records import EvalAttempt
from webharness.runner import RunConfig, prepare_run, run_jobs

SMALL: dict[str, Any] = dict(
    agents=["oracle", "heuristic"], tasks=["form", "stats"], seeds=[0, 1], obs_mode="text"
)


def run(
    run_dir: Path, resume: bool = False, **overrides: Any
) -> tuple[RunConfig, list[EvalAttempt]]:
    """Prepare and run ``SMALL`` (with ``overrides``) into ``run_dir``."""
    config = RunConfig(**{**SMALL, **overrides})
    jobs = prepare_run(config, run_dir, resume=resume)
    return config, run_jobs(jobs, config, run_dir)


@pytest.fixture(scope="session")
def finished_run(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The folder of ``SMALL`` run to its end (read-only for the tests).

    Made once for the whole session: under xdist the first worker to ask plays it into the
    session's common temp folder while the others wait on its lock. It plays episodes: the
    tests using it ask for ``browser`` too (which marks them).
    """
    if worker_id == "master":  # no xdist: this process is the session
        run_dir = tmp_path_factory.mktemp("run")
        run(run_dir)
        return run_dir
    common = tmp_path_factory.getbasetemp().parent  # this session's, shared by its workers
    run_dir, made = common / "finished_run", common / "finished_run.made"
    with FileLock(common / "finished_run.lock"):
        if not made.exists():
            shutil.rmtree(run_dir, ignore_errors=True)  # a worker that failed midway
            run(run_dir)
            made.touch()
    return run_dir

"""A small run shared by the runner's tests: two agents × two tasks × two seeds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of ``SMALL`` run to its end, in this process (read-only for the tests).

    It plays episodes: the tests using it ask for ``browser`` too (which marks them).
    """
    run_dir = tmp_path_factory.mktemp("run")
    run(run_dir)
    return run_dir

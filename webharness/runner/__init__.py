"""The evaluation runner: jobs over agents x tasks x seeds, played in local worker processes
or as Ray tasks, written to a run folder, re-scored and reported."""

from webharness.runner.pool import (
    EpisodeJob,
    RunConfig,
    RunError,
    expand_jobs,
    match_tasks,
    prepare_run,
    run_job,
    run_jobs,
)

__all__ = [
    "EpisodeJob",
    "RunConfig",
    "RunError",
    "expand_jobs",
    "match_tasks",
    "prepare_run",
    "run_job",
    "run_jobs",
]

"""The evaluation runner: jobs over agents x tasks x seeds.

The jobs are played in local worker processes or as Ray tasks, written to a run folder,
re-scored and reported.

Example:
    >>> from pathlib import Path
    >>> from webharness.runner import RunConfig, prepare_run, run_jobs
    >>> config = RunConfig(agents=["oracle"], tasks=["form"], seeds=[0, 1])
    >>> jobs = prepare_run(config, Path("runs/demo"), resume=False)  # doctest: +SKIP
    >>> attempts = run_jobs(jobs, config, Path("runs/demo"))  # doctest: +SKIP

Modules: ``config`` (what to run), ``jobs`` (the episodes it expands into),
``agent_specs`` (checking the agents and their options, prices, what each agent is),
``run_folder`` (where it goes), ``worker`` (playing a job), ``pool`` (running the jobs),
``ray_backend``, ``rescore`` (re-scoring and the report), ``progress_bar``.
"""

from webharness.runner.agent_specs import check_agent
from webharness.runner.config import RunConfig, check_stack
from webharness.runner.jobs import EpisodeJob, expand_jobs
from webharness.runner.pool import job_chunks, prepare_run, run_jobs
from webharness.runner.rescore import episode_view, report_run, rescore, score_run
from webharness.runner.run_folder import RunFolder
from webharness.runner.seeds import parse_seeds
from webharness.runner.task_selection import match_tasks
from webharness.runner.worker import (
    Worker,
    apply_perturbations,
    current_worker,
    run_job,
    start_worker,
    stop_worker,
)

__all__ = [
    "EpisodeJob",
    "RunConfig",
    "RunFolder",
    "Worker",
    "apply_perturbations",
    "check_agent",
    "check_stack",
    "current_worker",
    "episode_view",
    "expand_jobs",
    "job_chunks",
    "match_tasks",
    "parse_seeds",
    "prepare_run",
    "report_run",
    "rescore",
    "run_job",
    "run_jobs",
    "score_run",
    "start_worker",
    "stop_worker",
]

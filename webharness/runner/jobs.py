"""A run's episode jobs: one per agent, task, perturbation stack, seed and trial."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webharness.errors import RunError
from webharness.reporting.records import AttemptKey
from webharness.runner.config import MAX_EPISODES, RunConfig, check_stack
from webharness.runner.task_selection import match_tasks
from webharness.spec.task_folders import TaskFolder
from webharness.trace.frames import DEFAULT_FRAMES


class EpisodeJob(BaseModel):
    """One episode to run, self-contained so it can cross a process or a cluster."""

    model_config = ConfigDict(extra="forbid")

    agent: str  # the agent's label: its spec without prices, e.g. llm[model=gpt-x]
    env_id: str
    task_folder: TaskFolder | None = None  # where a registered task is (None: built-in)
    seed: int
    trial: int = 0
    perturbations: str = ""
    # Modules registering the stack's perturbations from outside webharness: a worker
    # process imports them before it makes the env.
    perturbation_modules: list[str] = Field(default_factory=list)
    obs_mode: str = "both"
    screenshots: bool = True
    frames: str = DEFAULT_FRAMES
    keep_frames: Literal["all", "around_failure"] = "all"
    golden_cache: str | None = None
    playwright_trace: bool = False
    agent_options: dict[str, Any] = Field(default_factory=dict)
    run_dir: str

    def key(self) -> AttemptKey:
        """The key of the attempt this job records (``EvalAttempt.key()``)."""
        return (self.agent, self.env_id, self.seed, self.trial, self.perturbations)


def expand_jobs(config: RunConfig, run_dir: Path) -> list[EpisodeJob]:
    """Every episode of the run, grouped so a worker keeps reusing the same env.

    Args:
        config: what the run evaluates.
        run_dir: the run folder the jobs write into.

    Returns:
        One job per agent, task, perturbation stack, seed and trial, in that nesting order.
    """
    env_ids = match_tasks(config.tasks)
    count = len(config.agents) * len(env_ids) * len(config.perturbations)
    count *= len(config.seeds) * config.trials
    if count > MAX_EPISODES:
        raise RunError(
            f"the run would have {count:,} episodes (agents x tasks x perturbation stacks x "
            f"seeds x trials), more than {MAX_EPISODES:,}; split it into smaller runs"
        )
    from webharness.agents.specs import PRICE_OPTIONS, parse_agent_spec
    from webharness.perturbations import outside_modules
    from webharness.spec.catalogue import task_folder

    options = {k: v for k, v in config.agent_options.items() if k not in PRICE_OPTIONS}
    options.update({"log_prompts": True} if config.log_prompts else {})
    modules = {s: outside_modules(n for n, _ in check_stack(s)[0]) for s in config.perturbations}
    return [
        EpisodeJob(
            agent=parse_agent_spec(agent).label,
            env_id=env_id,
            task_folder=task_folder(env_id),
            seed=seed,
            trial=trial,
            perturbations=stack,
            perturbation_modules=modules[stack],
            obs_mode=config.obs_mode,
            screenshots=config.screenshots,
            frames=config.frames,
            keep_frames=config.keep_frames,
            golden_cache=config.golden_cache,
            playwright_trace=config.playwright_trace,
            agent_options=options,
            run_dir=str(run_dir),
        )
        for agent in config.agents
        for env_id in env_ids
        for stack in config.perturbations
        for seed in config.seeds
        for trial in range(config.trials)
    ]

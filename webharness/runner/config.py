"""What a run evaluates: its configuration, and the episode jobs it expands into."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webharness.errors import WebHarnessError, did_you_mean
from webharness.reporting.records import AttemptKey


class RunError(WebHarnessError, RuntimeError):
    """A run that cannot start or go on (bad patterns, a run folder in use, a full disk...)."""


class RunConfig(BaseModel):
    """What to evaluate: agents × tasks × seeds × perturbation stacks × trials.

    Saved in the run's manifest.

    Example:
        >>> config = RunConfig(agents=["oracle"], tasks=["form"], seeds=[0, 1])
        >>> config.workers, config.backend
        (1, 'local')
    """

    model_config = ConfigDict(extra="forbid")

    agents: list[str] = Field(min_length=1)  # built-in names or module:Class
    tasks: list[str] = Field(default_factory=lambda: ["WebEval/*"])  # env ids or glob patterns
    seeds: list[int] = Field(default_factory=lambda: [0])
    perturbations: list[str] = Field(
        default_factory=lambda: [""]
    )  # "" = clean; "popup,latency@0.5"
    trials: int = Field(default=1, ge=1)
    workers: int = Field(default=1, ge=1)
    backend: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    obs_mode: str = "both"
    screenshots: bool = True  # PNGs in the traces (for the HTML timelines)
    agent_options: dict[str, Any] = Field(default_factory=dict)
    log_prompts: bool = False
    playwright_trace: bool = False  # Playwright's trace.zip in each agent episode's folder


class EpisodeJob(BaseModel):
    """One episode to run, self-contained so it can cross a process or a cluster."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    env_id: str
    seed: int
    trial: int = 0
    perturbations: str = ""
    obs_mode: str = "both"
    screenshots: bool = True
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
    options = {**config.agent_options, **({"log_prompts": True} if config.log_prompts else {})}
    return [
        EpisodeJob(
            agent=agent,
            env_id=env_id,
            seed=seed,
            trial=trial,
            perturbations=stack,
            obs_mode=config.obs_mode,
            screenshots=config.screenshots,
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


def match_tasks(patterns: list[str]) -> list[str]:
    """Registered env ids matching the patterns (``WebEval/*``, ``form``, ``WebEval/form-v0``).

    Raises:
        RunError: a pattern matches no registered id (the message suggests the closest).

    Example:
        >>> match_tasks(["WebEval/form*"])
        ['WebEval/form-v0']
    """
    import webharness  # noqa: F401  (registers the built-in ids)
    from webharness.envs import registered_ids

    known = registered_ids()
    matched: list[str] = []
    for pattern in patterns:
        full = pattern if "/" in pattern else f"WebEval/{pattern}"
        hits = [i for i in known if fnmatch.fnmatch(i, full) or fnmatch.fnmatch(i, f"{full}-v0")]
        if not hits:
            raise RunError(
                f"no task matches {pattern!r}.{did_you_mean(full, known)} Known: {', '.join(known)}"
            )
        matched.extend(h for h in hits if h not in matched)
    return matched

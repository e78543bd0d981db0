"""What a run evaluates: its configuration, and the episode jobs it expands into."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from typing_extensions import Self

from webharness.agents.specs import parse_agent_spec
from webharness.errors import ConfigError
from webharness.golden.cache import default_cache_dir
from webharness.reporting.costs import Price, PriceTable
from webharness.reporting.splits import Split
from webharness.runner.agent_specs import AGENT_HELP, check_agent, check_run_options, price_table
from webharness.runner.seeds import MAX_SEEDS, TOO_MANY_SEEDS, no_repeats
from webharness.runner.splits import check_splits, parse_split
from webharness.runner.task_selection import NO_TASKS, resolve_tasks
from webharness.spec.task_folders import TaskFolder
from webharness.trace.frames import DEFAULT_FRAMES, FrameCodec

MAX_TRIALS = 1_000
MAX_EPISODES = 1_000_000
DEFAULT_STRENGTH = 0.5  # of a perturbation stack written without "@strength"


class RunConfig(BaseModel):
    """What to evaluate: agents × tasks × seeds × perturbation stacks × trials.

    Saved in the run's manifest.

    Example:
        >>> config = RunConfig(agents=["oracle"], tasks=["form"], seeds=[0, 1])
        >>> config.workers, config.backend
        (1, 'local')
    """

    model_config = ConfigDict(extra="forbid")

    agents: list[str]  # built-in names or module:Class
    tasks: list[str] = Field(default_factory=lambda: ["WebEval/*"])  # env ids or glob patterns
    # folders of tasks, registered before the tasks are matched (and in each worker); a
    # folder written among the tasks ("./myapp", "MyApp=./myapp") moves here, its ids there
    task_folders: list[TaskFolder] = Field(default_factory=list)
    seeds: list[int] = Field(default_factory=lambda: [0])
    # named parts of the run for the report ("seen=0-99", "forms=tasks:form*"; --split)
    splits: list[Split] = Field(default_factory=list)
    perturbations: list[str] = Field(
        default_factory=lambda: [""]
    )  # "" = clean; "popup,latency@0.5"
    trials: int = 1
    workers: int = 1
    backend: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    obs_mode: str = "both"
    screenshots: bool = True  # frames in the traces (for the HTML timelines)
    frames: str = DEFAULT_FRAMES  # how an agent episode's frames are kept (trace.frames.FrameCodec)
    keep_frames: Literal["all", "around_failure"] = "all"  # around_failure: only those steps'
    # the golden-trace cache's folder (golden.cache), shared by runs; None: no cache
    golden_cache: str | None = Field(default_factory=lambda: str(default_cache_dir()))
    agent_options: dict[str, Any] = Field(default_factory=dict)  # for each agent that takes it
    prices: dict[str, Price] = Field(default_factory=dict)  # by model, USD per million tokens
    log_prompts: bool = False
    playwright_trace: bool = False  # Playwright's trace.zip in each agent episode's folder

    @classmethod
    def checked(cls, **fields: Any) -> Self:
        """``RunConfig(**fields)``, with any problem raised as a ``ConfigError`` (which
        names the field) instead of pydantic's ``ValidationError``."""
        try:
            return cls(**fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            cause = (first.get("ctx") or {}).get("error")
            if isinstance(cause, ConfigError):
                raise cause from None
            field = str(first["loc"][0]) if first["loc"] else "config"
            raise ConfigError(field, first.get("input"), first["msg"]) from None

    @field_validator("agents")
    @classmethod
    def _agents(cls, agents: list[str]) -> list[str]:
        if not agents:
            raise ConfigError("agents", agents, f"name at least one agent: {AGENT_HELP}")
        specs = [check_agent(agent) for agent in agents]  # as read back: llm[model=a]
        no_repeats("agents", [parse_agent_spec(spec).label for spec in specs])
        return specs

    @model_validator(mode="after")
    def _agent_options(self) -> Self:
        check_run_options(self.agents, self.agent_options)
        return self

    def price_table(self) -> PriceTable:
        """The prices the run's costs are computed with: ``prices`` by model, and each
        agent's own (``price_prompt``/``price_completion`` in its spec or ``agent_options``)."""
        return price_table(self.agents, self.agent_options, self.prices)

    @field_validator("tasks")
    @classmethod
    def _tasks(cls, tasks: list[str]) -> list[str]:
        if not tasks or not all(t.strip() for t in tasks):
            raise ConfigError("tasks", tasks, NO_TASKS)
        return tasks

    @model_validator(mode="after")
    def _task_folders(self) -> Self:
        self.tasks, self.task_folders = resolve_tasks(self.tasks, self.task_folders)
        return self

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, seeds: list[int]) -> list[int]:
        if len(seeds) > MAX_SEEDS:
            raise ConfigError("seeds", f"{len(seeds):,} seeds", TOO_MANY_SEEDS)
        return _listed("seeds", seeds, "name at least one seed, e.g. 0-4 or 0,3,7", _check_seed)

    @field_validator("perturbations")
    @classmethod
    def _perturbations(cls, stacks: list[str]) -> list[str]:
        empty = "name at least one stack ('' is the clean one)"
        return _listed("perturbations", stacks, empty, check_stack)

    @field_validator("trials")
    @classmethod
    def _trials(cls, trials: int) -> int:
        return _count("trials", trials, MAX_TRIALS)

    @field_validator("workers")
    @classmethod
    def _workers(cls, workers: int) -> int:
        return _count("workers", workers)

    @field_validator("frames")
    @classmethod
    def _frames(cls, frames: str) -> str:
        FrameCodec.parse(frames)  # a ValueError names the value and what is allowed
        return frames

    @field_validator("splits", mode="before")
    @classmethod
    def _parse_splits(cls, splits: Any) -> Any:
        if isinstance(splits, list):  # anything else: pydantic says what is wrong
            splits = [parse_split(s) if isinstance(s, str) else s for s in splits]
        return splits

    @model_validator(mode="after")
    def _splits(self) -> Self:
        self.splits = check_splits(self.splits, self.seeds, self.tasks)
        return self


_T = TypeVar("_T")


def _count(field: str, value: int, most: int | None = None) -> int:
    if value < 1 or (most is not None and value > most):
        allowed = f"from 1 to {most:,}" if most is not None else "of 1 or more"
        raise ConfigError(field, value, f"use a whole number {allowed}")
    return value


def _listed(field: str, values: list[_T], empty: str, check: Callable[[_T], object]) -> list[_T]:
    """``values`` if there is at least one, none twice, and ``check`` passes each."""
    if not values:
        raise ConfigError(field, values, empty)
    no_repeats(field, values)
    for value in values:
        check(value)
    return values


def _check_seed(seed: int) -> int:
    if seed < 0:
        raise ConfigError("seeds", seed, f"{seed} is not a seed: use whole numbers of 0 or more")
    return seed


def check_stack(stack: str) -> tuple[list[tuple[str, float]], float]:
    """A perturbation stack as the runner reads it: ``"popup,latency@0.5"`` (names, each
    with an optional ``:strength``, then the stack's strength after ``@``); ``""`` is clean.

    Returns:
        The stack's (name, strength) pairs and its strength.

    Raises:
        ConfigError: an unknown name, a name listed twice, a strength that is not a
            number in [0, 1].
    """
    from webharness.perturbations import parse_stack

    names, at, written = stack.partition("@")
    if not names.strip():
        if at:
            problem = f"{stack!r} gives a strength but no perturbations before '@'"
            raise ConfigError("perturbations", stack, problem)
        return [], DEFAULT_STRENGTH
    try:
        parse_stack(names)  # the names first: an unknown one is the likelier mistake
        strength = _stack_strength(stack, written) if at else DEFAULT_STRENGTH
        return parse_stack(names, strength), strength
    except ConfigError:
        raise
    except ValueError as exc:  # UnknownPerturbationError is one, with a suggestion
        raise ConfigError("perturbations", stack, str(exc)) from None


def _stack_strength(stack: str, written: str) -> float:
    try:
        strength = float(written)
    except ValueError:
        strength = math.nan
    if not 0 <= strength <= 1:  # nan fails too
        raise ConfigError(
            "perturbations",
            stack,
            f"the strength after '@' in {stack!r} must be a number from 0 to 1, not {written!r}",
        )
    return strength

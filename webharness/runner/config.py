"""What a run evaluates: its configuration, and the episode jobs it expands into."""

from __future__ import annotations

import fnmatch
import math
import re
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

from webharness.errors import WebHarnessError, did_you_mean
from webharness.golden.cache import default_cache_dir
from webharness.reporting.costs import Price, PriceTable
from webharness.reporting.splits import Split
from webharness.spec.task_folders import TaskFolder
from webharness.trace.frames import DEFAULT_FRAMES, FrameCodec

# A run of more seeds than this is a typo (0-99999999), not an evaluation; its job list
# alone would not fit in memory.
MAX_SEEDS = 100_000
MAX_TRIALS = 1_000
MAX_EPISODES = 1_000_000
DEFAULT_STRENGTH = 0.5  # of a perturbation stack written without "@strength"
NO_TASKS = (
    "name at least one task: an env id, a name or a pattern (WebEval/form-v0, form, "
    "WebEval/*), or a task folder (./myapp)"
)


class RunError(WebHarnessError, RuntimeError):
    """A run that cannot start or go on (bad patterns, a run folder in use, a full disk...)."""


class ConfigError(RunError, ValueError):
    """A value of a run's configuration that cannot work: names the field, the value and
    what is allowed (``field``, ``value`` and ``problem`` are kept for the CLI's message)."""

    def __init__(self, field: str, value: object, problem: str) -> None:
        self.field, self.value, self.problem = field, value, problem
        super().__init__(f"{field}={value!r}: {problem}")


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
        from webharness.agents.specs import parse_agent_spec
        from webharness.runner.agent_specs import AGENT_HELP, check_agent

        if not agents:
            raise ConfigError("agents", agents, f"name at least one agent: {AGENT_HELP}")
        specs = [check_agent(agent) for agent in agents]  # as read back: llm[model=a]
        _no_repeats("agents", [parse_agent_spec(spec).label for spec in specs])
        return specs

    @model_validator(mode="after")
    def _agent_options(self) -> Self:
        from webharness.runner.agent_specs import check_run_options

        check_run_options(self.agents, self.agent_options)
        return self

    def price_table(self) -> PriceTable:
        """The prices the run's costs are computed with: ``prices`` by model, and each
        agent's own (``price_prompt``/``price_completion`` in its spec or ``agent_options``)."""
        from webharness.runner.agent_specs import price_table

        return price_table(self.agents, self.agent_options, self.prices)

    @field_validator("tasks")
    @classmethod
    def _tasks(cls, tasks: list[str]) -> list[str]:
        if not tasks or not all(t.strip() for t in tasks):
            raise ConfigError("tasks", tasks, NO_TASKS)
        return tasks

    @model_validator(mode="after")
    def _task_folders(self) -> Self:
        from webharness.runner.task_selection import resolve_tasks

        self.tasks, self.task_folders = resolve_tasks(self.tasks, self.task_folders)
        return self

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, seeds: list[int]) -> list[int]:
        if len(seeds) > MAX_SEEDS:
            raise ConfigError("seeds", f"{len(seeds):,} seeds", _TOO_MANY_SEEDS)
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
        from webharness.runner.splits import parse_split

        if isinstance(splits, list):  # anything else: pydantic says what is wrong
            splits = [parse_split(s) if isinstance(s, str) else s for s in splits]
        return splits

    @model_validator(mode="after")
    def _splits(self) -> Self:
        from webharness.runner.splits import check_splits

        self.splits = check_splits(self.splits, self.seeds, self.tasks)
        return self


_T = TypeVar("_T")
_TOO_MANY_SEEDS = f"at most {MAX_SEEDS:,} seeds per run; split a larger sweep into runs"
_SEEDS_SYNTAX = "write a range 0-4, a list 0,3,7 or both 0-4,9 (whole numbers of 0 or more)"


def _count(field: str, value: int, most: int | None = None) -> int:
    if value < 1 or (most is not None and value > most):
        allowed = f"from 1 to {most:,}" if most is not None else "of 1 or more"
        raise ConfigError(field, value, f"use a whole number {allowed}")
    return value


def _listed(field: str, values: list[_T], empty: str, check: Callable[[_T], object]) -> list[_T]:
    """``values`` if there is at least one, none twice, and ``check`` passes each."""
    if not values:
        raise ConfigError(field, values, empty)
    _no_repeats(field, values)
    for value in values:
        check(value)
    return values


def _check_seed(seed: int) -> int:
    if seed < 0:
        raise ConfigError("seeds", seed, f"{seed} is not a seed: use whole numbers of 0 or more")
    return seed


def _no_repeats(field: str, values: list[Any]) -> None:
    seen: set[Any] = set()
    for value in values:
        if value in seen:
            raise ConfigError(field, value, f"{value!r} is listed twice; each may appear once")
        seen.add(value)


def parse_seeds(text: str) -> list[int]:
    """Seeds written as a range, a list, or both: ``"0-4"``, ``"0,3,7"``, ``"0-4,9"``.

    Raises:
        ConfigError: naming the text: no seeds, a part that is not a seed or a range, an
            empty range (``5-1``), a seed listed twice, or more than ``MAX_SEEDS``.

    Example:
        >>> parse_seeds("0-2,7")
        [0, 1, 2, 7]
    """
    if not text.strip():
        raise ConfigError("seeds", text, f"no seeds given: {_SEEDS_SYNTAX}")
    ranges: list[tuple[int, int]] = []
    for part in (p.strip() for p in text.split(",")):
        match = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if match is None:
            raise ConfigError("seeds", text, f"{part!r} is not a seed or a range: {_SEEDS_SYNTAX}")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) is not None else low
        if high < low:
            raise ConfigError(
                "seeds", text, f"the range {part!r} is empty: write low-high with low <= high"
            )
        ranges.append((low, high))
    if sum(high - low + 1 for low, high in ranges) > MAX_SEEDS:
        raise ConfigError("seeds", text, _TOO_MANY_SEEDS)
    seeds = [seed for low, high in ranges for seed in range(low, high + 1)]
    _no_repeats("seeds", seeds)
    return seeds


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


def _matches(env_id: str, pattern: str) -> bool:
    """``pattern`` names ``env_id``. A pack's task (a dot in its name, ``miniwob.x``) is
    matched only by a pattern with a dot, as a shell's ``*`` skips dotfiles: ``WebEval/*``
    stays the built-in scenarios, ``WebEval/miniwob.*`` is the MiniWoB++ pack."""
    if "." in env_id.partition("/")[2] and "." not in pattern.partition("/")[2]:
        return False
    return fnmatch.fnmatch(env_id, pattern) or fnmatch.fnmatch(env_id, f"{pattern}-v0")


def match_tasks(patterns: list[str]) -> list[str]:
    """Registered env ids matching the patterns (``WebEval/*``, ``form``, ``WebEval/form-v0``,
    ``MyApp/*`` for a folder registered under ``MyApp``).

    Raises:
        ConfigError: a pattern matches no registered id (the message suggests the closest).

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
        hits = [i for i in known if _matches(i, full)]
        if not hits:
            raise ConfigError(
                "tasks",
                pattern,
                f"no task matches {pattern!r}.{did_you_mean(full, known)} "
                f"Known: {', '.join(known)}",
            )
        matched.extend(h for h in hits if h not in matched)
    return matched

"""Splits: named parts of a run (some of its seeds, or some of its tasks), for the report's
generalisation view, e.g. success on seeds 0-99 ("seen") against seeds 1000-1099 ("unseen").

A split is either a seed split or a task split. The report gives each split's success
rate, and the gap between the first split of a kind (the reference) and each later one of
the same kind (``webharness.reporting.summary``). The runner parses them from
``--split NAME=SPEC`` (``webharness.runner.splits``).

Example:
    >>> from webharness.reporting.records import EvalAttempt
    >>> seen = Split(name="seen", seeds=[0, 1, 2, 3, 7])
    >>> seen.kind, seen.description
    ('seeds', 'seeds 0-3, 7')
    >>> seen.holds(EvalAttempt(scenario_id="WebEval/form-v0", category="form",
    ...                        runner="oracle", seed=2, passed=True))
    True
"""

from __future__ import annotations

import functools
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator
from typing_extensions import Self

from webharness.reporting.records import EvalAttempt

SplitKind = Literal["seeds", "tasks"]
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.-]*"  # what a split's name may be: it heads a column


class Split(BaseModel):
    """A named set of seeds or of tasks (env ids): exactly one of the two is given."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    seeds: tuple[int, ...] = ()
    tasks: tuple[str, ...] = ()  # env ids, e.g. "WebEval/form-v0"

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not re.fullmatch(NAME_PATTERN, name):
            raise ValueError(
                f"split name {name!r}: use letters, digits, '_', '.' or '-', starting with a "
                f"letter or digit"
            )
        return name

    @model_validator(mode="after")
    def _one_kind(self) -> Self:
        if bool(self.seeds) == bool(self.tasks):
            raise ValueError(f"split {self.name!r}: give either seeds or tasks, not both or none")
        return self

    @property
    def kind(self) -> SplitKind:
        return "seeds" if self.seeds else "tasks"

    @property
    def description(self) -> str:
        """What the split holds, for the report: ``seeds 0-99``, ``tasks form, login``."""
        if self.seeds:
            return f"seeds {seed_ranges(self.seeds)}"
        return "tasks " + ", ".join(
            t.removeprefix("WebEval/").removesuffix("-v0") for t in self.tasks
        )

    def holds(self, attempt: EvalAttempt) -> bool:
        """Whether the episode belongs to this split."""
        if self.seeds:
            return attempt.seed in self._members
        return attempt.scenario_id in self._members

    @functools.cached_property
    def _members(self) -> frozenset[int | str]:
        return frozenset(self.seeds or self.tasks)


def seed_ranges(seeds: tuple[int, ...] | list[int]) -> str:
    """Seeds written back as ranges, the way ``--seeds`` reads them.

    >>> seed_ranges([0, 1, 2, 3, 7, 9, 10])
    '0-3, 7, 9-10'
    """
    ordered = sorted(set(seeds))
    runs: list[list[int]] = []
    for seed in ordered:
        if runs and seed == runs[-1][-1] + 1:
            runs[-1].append(seed)
        else:
            runs.append([seed])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)

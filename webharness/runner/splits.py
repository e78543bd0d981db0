"""A run's splits as the command line writes them, ``--split NAME=SPEC``, and their checks.

SPEC is seeds in the syntax of ``--seeds`` (``0-99``, ``0,3,7``, ``0-4,9``; ``seeds:0-99``
alike) or ``tasks:`` and env ids or patterns as ``--tasks`` takes them
(``tasks:form,login``, ``tasks:WebEval/s*``). The report shows success in each split and
the gap between the first split of a kind and each later one (``reporting.splits``).

The seeds of the splits must be among the run's seeds and their tasks among its tasks:
a split is a part of the run, it adds no episodes. ``webharness run`` without ``--seeds``
runs the seeds its splits name.

Example:
    >>> parse_split("unseen=1000-1002")
    Split(name='unseen', seeds=(1000, 1001, 1002), tasks=())
    >>> parse_split("forms=tasks:form, login").tasks  # patterns until the run matches them
    ('form', 'login')
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import ValidationError

from webharness.errors import ConfigError, did_you_mean
from webharness.reporting.splits import NAME_PATTERN, Split, seed_ranges
from webharness.runner.seeds import parse_seeds
from webharness.runner.task_selection import match_tasks

SPLIT_HELP = (
    "a named part of the run for the report's generalisation view (repeatable): NAME=SEEDS "
    "in --seeds syntax (seen=0-99) or NAME=tasks:IDS (forms=tasks:form,login); the report "
    "gives success per split and the gap from the first split of each kind"
)
_SYNTAX = "write NAME=SEEDS (seen=0-99) or NAME=tasks:IDS_OR_PATTERNS (forms=tasks:form*)"
_KINDS = ("seeds", "tasks")


def parse_split(text: str) -> Split:
    """One ``--split NAME=SPEC``: its seeds, or its task patterns (matched by ``check_splits``).

    Raises:
        ConfigError: (field ``splits``, naming ``text``) no ``=``, a bad name, an unknown
            kind before ``:``, nothing after it, or seeds that ``parse_seeds`` refuses.
    """
    name, equals, spec = (part.strip() for part in text.partition("="))
    if not equals or not name:
        raise ConfigError("splits", text, f"{text!r} is not NAME=SPEC: {_SYNTAX}")
    if not re.fullmatch(NAME_PATTERN, name):
        problem = f"{name!r} is not a split name: use letters, digits, '_', '.' or '-'"
        raise ConfigError("splits", text, problem)
    kind, colon, members = (part.strip() for part in spec.partition(":"))
    if not colon:
        kind, members = "seeds", spec
    elif kind not in _KINDS:
        problem = f"a split holds seeds or tasks, not {kind!r}.{did_you_mean(kind, _KINDS)}"
        raise ConfigError("splits", text, problem)
    try:
        if kind == "seeds":
            return Split(name=name, seeds=parse_seeds(members))
        patterns = [p.strip() for p in members.split(",") if p.strip()]
        if not patterns:
            raise ConfigError("splits", text, f"split {name!r} names no task: {_SYNTAX}")
        return Split(name=name, tasks=patterns)
    except ConfigError as exc:
        raise ConfigError("splits", text, exc.problem) from None
    except ValidationError as exc:
        raise ConfigError("splits", text, exc.errors()[0]["msg"]) from None


def split_seeds(splits: Iterable[Split]) -> list[int]:
    """Every seed the splits name, in the order they name them (each once)."""
    return list(dict.fromkeys(seed for split in splits for seed in split.seeds))


def check_splits(splits: list[Split], seeds: list[int], tasks: list[str]) -> list[Split]:
    """The run's splits with their task patterns matched to env ids, once checked.

    Raises:
        ConfigError: (field ``splits``) two splits with one name, two splits of a kind
            that share seeds or tasks, a task pattern that matches nothing, or a split
            with seeds or tasks the run leaves out.
    """
    matched = [_matched(split) for split in splits]
    run_tasks = match_tasks(tasks) if any(split.tasks for split in matched) else []
    for position, (written, split) in enumerate(zip(splits, matched)):
        problems = [_clash(earlier, split) for earlier in matched[:position]]
        problem = next(filter(None, problems), None) or _outside(split, seeds, run_tasks)
        if problem:
            raise ConfigError("splits", describe(written), problem)
    return matched


def describe(split: Split) -> str:
    """The split as ``--split`` writes it: ``seen=0-99``, ``forms=tasks:form,login``."""
    members = seed_ranges(split.seeds).replace(" ", "") if split.seeds else ""
    return f"{split.name}={members or 'tasks:' + ','.join(split.tasks)}"


def _matched(split: Split) -> Split:
    if not split.tasks:
        return split
    try:
        return Split(name=split.name, tasks=match_tasks(list(split.tasks)))
    except ConfigError as exc:
        raise ConfigError("splits", describe(split), exc.problem) from None


def _clash(earlier: Split, split: Split) -> str | None:
    """What is wrong with ``split`` beside an earlier split, if anything."""
    if split.name == earlier.name:
        return f"two splits are named {split.name!r}; give each its own name"
    seeds = set(earlier.seeds) & set(split.seeds)
    tasks = set(earlier.tasks) & set(split.tasks)
    if not seeds and not tasks:
        return None
    both = seed_ranges(sorted(seeds)) if seeds else ", ".join(sorted(tasks))
    return (
        f"splits {earlier.name!r} and {split.name!r} share {split.kind} {both}; "
        f"an episode belongs to one split of a kind"
    )


def _outside(split: Split, seeds: list[int], env_ids: list[str]) -> str | None:
    """What ``split`` names that the run leaves out, if anything."""
    missing = sorted(set(split.seeds) - set(seeds))
    if missing:
        return (
            f"split {split.name!r} names seeds the run leaves out ({seed_ranges(missing)}): "
            f"add them to --seeds, or leave --seeds out to run the splits' seeds"
        )
    outside = [t for t in split.tasks if t not in env_ids]
    if outside:
        return (
            f"split {split.name!r} names tasks the run leaves out ({', '.join(outside)}): "
            f"add them to --tasks"
        )
    return None

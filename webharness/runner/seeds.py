"""Seeds as a run takes them: written as ranges and lists, at most ``MAX_SEEDS``, none twice."""

from __future__ import annotations

import re
from typing import Any

from webharness.errors import ConfigError

# A run of more seeds than this is a typo (0-99999999), not an evaluation; its job list
# alone would not fit in memory.
MAX_SEEDS = 100_000
TOO_MANY_SEEDS = f"at most {MAX_SEEDS:,} seeds per run; split a larger sweep into runs"
_SEEDS_SYNTAX = "write a range 0-4, a list 0,3,7 or both 0-4,9 (whole numbers of 0 or more)"


def no_repeats(field: str, values: list[Any]) -> None:
    """ConfigError naming ``field`` and the first value of ``values`` listed twice."""
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
        raise ConfigError("seeds", text, TOO_MANY_SEEDS)
    seeds = [seed for low, high in ranges for seed in range(low, high + 1)]
    no_repeats("seeds", seeds)
    return seeds

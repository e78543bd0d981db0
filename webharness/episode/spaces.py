"""The observation's own spaces: texts over the printable characters, frames, message lists.

Each is a Gymnasium space that samples, flattens and pickles like the one it stands in for
(``Text``, ``Box``, ``Sequence``), without the large tables and arrays those keep.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import numpy as np
from gymnasium import spaces


# The text spaces' characters: newline and the printable characters of the Basic
# Multilingual Plane, as code point ranges (first, last).
@functools.lru_cache(maxsize=1)
def _printable_ranges() -> tuple[tuple[int, int], ...]:
    ranges: list[tuple[int, int]] = [(0x0A, 0x0A)]
    start = None
    for i in range(0x20, 0x10001):
        printable = i < 0x10000 and chr(i).isprintable()
        if printable and start is None:
            start = i
        elif not printable and start is not None:
            ranges.append((start, i - 1))
            start = None
    return tuple(ranges)


@functools.lru_cache(maxsize=1)
def _outside_charset() -> re.Pattern[str]:
    return re.compile(
        "[^"
        + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _printable_ranges())
        + "]"
    )


@functools.lru_cache(maxsize=1)
def _charset_tables() -> spaces.Text:
    """Gymnasium's own Text over the charset, for the per-character tables that sampling
    and flattening use: built on first use, once per process."""
    charset = "".join(chr(c) for a, b in _printable_ranges() for c in range(a, b + 1))
    return spaces.Text(max_length=1, min_length=0, charset=charset)


class PrintableText(spaces.Text):
    """A text space over newline and the printable characters of the Basic Multilingual Plane.

    Gymnasium's ``Text`` builds a frozenset, a tuple, a string and an index of its charset
    when it is made: for these ~55,000 characters ~10 MB kept and ~25 MB at the peak, most
    of a runner worker's own memory. Here membership is one regex search, and the tables
    are built only when sampling or flattening first asks for them.
    """

    def __init__(self, max_length: int, seed: int | None = None) -> None:
        spaces.Space.__init__(self, dtype=str, seed=seed)  # not Text.__init__: no tables
        self.min_length, self.max_length = 0, int(max_length)

    def contains(self, x: Any) -> bool:
        return (
            isinstance(x, str)
            and len(x) <= self.max_length
            and _outside_charset().search(x) is None
        )

    @property
    def character_set(self) -> frozenset[str]:
        return _charset_tables().character_set

    @property
    def character_list(self) -> tuple[str, ...]:
        return _charset_tables().character_list

    def character_index(self, char: str) -> np.int32:
        return _charset_tables().character_index(char)

    @property
    def characters(self) -> str:
        return _charset_tables().characters

    def __eq__(self, other: object, /) -> bool:
        if isinstance(other, PrintableText):
            return self.max_length == other.max_length
        return super().__eq__(other)

    def __repr__(self) -> str:
        return f"PrintableText(max_length={self.max_length})"


class FrameSpace(spaces.Box):
    """The viewport's RGB pixels: ``uint8`` of shape (height, width, 3).

    Gymnasium's ``Box`` keeps four arrays of the full shape (bounds and boundedness),
    11 MB at 1280×720 in every env, and pickles them, which ``make_vec`` does for each
    worker. Here they are read-only broadcasts of one pixel's bounds, and a frame is
    unpickled from its size. A ``uint8`` array is within [0, 255] by its type, so
    membership checks type and shape only.
    """

    def __init__(self, height: int, width: int, seed: int | None = None) -> None:
        super().__init__(0, 255, (1, 1, 3), np.uint8, seed)
        shape = (int(height), int(width), 3)
        self._shape = shape  # Box keeps its shape here; its property reads it
        self.low = np.broadcast_to(self.low, shape)
        self.high = np.broadcast_to(self.high, shape)
        self.bounded_below = np.broadcast_to(self.bounded_below, shape)
        self.bounded_above = np.broadcast_to(self.bounded_above, shape)

    def contains(self, x: Any) -> bool:
        if isinstance(x, np.ndarray) and np.can_cast(x.dtype, np.uint8):
            return x.shape == self.shape  # uint8 or bool: every value is in bounds
        return super().contains(x)

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), self.shape[:2], {"_np_random": self._np_random}


class MessageList(spaces.Sequence):
    """The simulated user's replies: up to ``max_items`` texts, oldest first.

    A ``Sequence`` has no fixed shape, which Gymnasium's shared memory for
    ``make_vec(..., vectorization_mode="async")`` needs; the bound on its length gives it
    one (see ``webharness.episode.shared_memory``), so the defaults work.
    """

    def __init__(self, feature_space: PrintableText, max_items: int, seed: int | None = None):
        super().__init__(feature_space, seed=seed, stack=False)
        self.feature_space: PrintableText = feature_space
        self.max_items = int(max_items)

    def contains(self, x: Any) -> bool:
        return isinstance(x, tuple) and len(x) <= self.max_items and super().contains(x)

    def sample(self, mask: Any = None, probability: Any = None) -> tuple[Any, ...]:
        return super().sample(mask, probability)[: self.max_items]

    def __repr__(self) -> str:
        return f"MessageList({self.feature_space}, max_items={self.max_items})"


def text_space(max_length: int) -> PrintableText:
    return PrintableText(max_length)


def clean_text(text: str, max_length: int) -> str:
    """Fit a string to a text space: unprintable characters replaced, length capped."""
    return _outside_charset().sub("\ufffd", text)[:max_length]

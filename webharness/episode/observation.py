"""The observation space, declared in one place, and the observation built from a pass."""

from __future__ import annotations

import collections.abc
import functools
import multiprocessing
import re
from enum import Enum
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import shared_memory

MAX_AXTREE_CHARS = 200_000
MAX_SHORT_TEXT = 4_096
MAX_USER_MESSAGES = 32


class ObsMode(str, Enum):
    BOTH = "both"  # screenshot + accessibility tree (default)
    TEXT = "text"  # accessibility tree only: no screenshot is taken, fastest
    PIXELS = "pixels"  # screenshot only, no accessibility tree


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
    one (see the shared-memory functions below), so the defaults work.
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


def _whole_lines(tree: str, max_length: int) -> str:
    """The tree cut at a line's end to fit the text space, saying so in its last line."""
    if len(tree) <= max_length:
        return tree
    kept = tree[: max_length - 200].rsplit("\n", 1)[0]
    left = tree.count("\n", len(kept))
    return (
        kept
        + f"\n- note: the tree is longer than {max_length:,} characters: {left} lines are left"
        + " out; scroll to bring them in"
    )


def observation_space(mode: ObsMode, viewport: tuple[int, int]) -> spaces.Dict:
    """Every field of an observation, bounded and sampleable."""
    width, height = viewport
    fields: dict[str, spaces.Space[Any]] = {}
    if mode in (ObsMode.BOTH, ObsMode.PIXELS):
        # The viewport as RGB pixels.
        fields["screenshot"] = FrameSpace(height, width)
    if mode in (ObsMode.BOTH, ObsMode.TEXT):
        # Accessibility tree, one node a line: `- button "Save" [ref=e12]`.
        fields["axtree"] = text_space(MAX_AXTREE_CHARS)
    fields["url"] = text_space(MAX_SHORT_TEXT)  # the page's current URL
    fields["goal"] = text_space(MAX_SHORT_TEXT)  # the task instruction for this instance
    fields["last_action_error"] = text_space(MAX_SHORT_TEXT)  # "" when the last action was fine
    # Replies of the simulated user to ask_user(), oldest first.
    fields["user_messages"] = MessageList(text_space(MAX_SHORT_TEXT), MAX_USER_MESSAGES)
    return spaces.Dict(fields)


def build_observation(
    mode: ObsMode,
    *,
    axtree: str,
    screenshot: np.ndarray | None,
    url: str,
    goal: str,
    last_action_error: str,
    user_messages: list[str],
) -> dict[str, Any]:
    obs: dict[str, Any] = {}
    if mode in (ObsMode.BOTH, ObsMode.PIXELS):
        obs["screenshot"] = screenshot
    if mode in (ObsMode.BOTH, ObsMode.TEXT):
        obs["axtree"] = _whole_lines(clean_text(axtree, len(axtree)), MAX_AXTREE_CHARS)
    obs["url"] = clean_text(url, MAX_SHORT_TEXT)
    obs["goal"] = clean_text(goal, MAX_SHORT_TEXT)
    obs["last_action_error"] = clean_text(last_action_error, MAX_SHORT_TEXT)
    obs["user_messages"] = tuple(
        clean_text(m, MAX_SHORT_TEXT) for m in user_messages[-MAX_USER_MESSAGES:]
    )
    return obs


# --- shared memory for make_vec's async mode -------------------------------------------
# A text is kept as its code points (int32, the text space's max_length of them, ended by a
# 0, which is not in the charset). Gymnasium reads an async vector env's buffer once and
# hands out what it read after every step, so reading gives live views that decode on
# access; the copy Gymnasium makes of them (deepcopy, its default) is plain tuples.
class _LiveView(collections.abc.Sequence[Any]):
    """Values read from shared memory when accessed; compared, copied and shown as a tuple."""

    def __eq__(self, other: object) -> bool:
        return tuple(self) == other

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[Any, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return repr(tuple(self))


class _SharedTexts(_LiveView):
    """The texts of ``n`` envs in shared memory, decoded when read."""

    def __init__(self, rows: np.ndarray) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(_decode(row) for row in self._rows[index])
        return _decode(self._rows[index])


class _SharedMessages(_LiveView):
    """Each env's message list in shared memory: a count and ``max_items`` text slots."""

    def __init__(self, counts: np.ndarray, texts: _SharedTexts, max_items: int) -> None:
        self._counts, self._texts, self._max_items = counts, texts, max_items

    def __len__(self) -> int:
        return len(self._counts)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(len(self))[index])
        start = index * self._max_items
        return self._texts[start : start + int(self._counts[index])]


def _rows(space: PrintableText, memory: Any) -> np.ndarray:
    return np.frombuffer(memory.get_obj(), dtype=np.int32).reshape(-1, space.max_length)


def _decode(row: np.ndarray) -> str:
    ends = np.flatnonzero(row == 0)
    return row[: ends[0] if ends.size else len(row)].astype("<i4").tobytes().decode("utf-32-le")


@shared_memory.create_shared_memory.register(PrintableText)
def _create_text_memory(space: PrintableText, n: int = 1, ctx: ModuleType = multiprocessing) -> Any:
    return ctx.Array(np.dtype(np.int32).char, n * space.max_length)


@shared_memory.read_from_shared_memory.register(PrintableText)
def _read_texts(space: PrintableText, memory: Any, n: int = 1) -> _SharedTexts:
    return _SharedTexts(_rows(space, memory)[:n])


@shared_memory.write_to_shared_memory.register(PrintableText)
def _write_text(space: PrintableText, index: int, value: str, memory: Any) -> None:
    row = _rows(space, memory)[index]
    codes = np.frombuffer(value.encode("utf-32-le"), dtype="<i4")
    row[: len(codes)] = codes
    row[len(codes) :] = 0


@shared_memory.create_shared_memory.register(MessageList)
def _create_messages_memory(
    space: MessageList, n: int = 1, ctx: ModuleType = multiprocessing
) -> Any:
    slots = shared_memory.create_shared_memory(space.feature_space, n * space.max_items, ctx)
    return ctx.Array(np.dtype(np.int32).char, n), slots


@shared_memory.read_from_shared_memory.register(MessageList)
def _read_messages(space: MessageList, memory: Any, n: int = 1) -> _SharedMessages:
    counts, slots = memory
    texts = _read_texts(space.feature_space, slots, n * space.max_items)
    return _SharedMessages(np.frombuffer(counts.get_obj(), dtype=np.int32), texts, space.max_items)


@shared_memory.write_to_shared_memory.register(MessageList)
def _write_messages(space: MessageList, index: int, values: tuple[str, ...], memory: Any) -> None:
    counts, slots = memory
    np.frombuffer(counts.get_obj(), dtype=np.int32)[index] = len(values)
    for k, text in enumerate(values):
        _write_text(space.feature_space, index * space.max_items + k, text, slots)

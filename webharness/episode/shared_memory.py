"""Shared memory for ``gym.make_vec(..., vectorization_mode="async")``: the codecs of the
text and message-list spaces, registered with Gymnasium's ``shared_memory`` functions when
this module is imported (``webharness.episode.observation`` imports it).

A text is kept as its code points (int32, the text space's max_length of them, ended by a
0, which is not in the charset). Gymnasium reads an async vector env's buffer once and
hands out what it read after every step, so reading gives live views that decode on
access; the copy Gymnasium makes of them (deepcopy, its default) is plain tuples.
"""

from __future__ import annotations

import collections.abc
import multiprocessing
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium.vector.utils import shared_memory

from webharness.episode.spaces import MessageList, PrintableText


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

"""Identifiers an app generates, which differ between two runs of the same path: found in a
state's URL (and, with a task's own patterns, in its texts) and replaced by one placeholder,
only when states are compared.

Built in: a URL path segment or query value made only of digits (``/books/776/edit``,
``?saved=776``), a UUID, or a hex token of 16 characters or more. A task names more as
regular expressions (``id_patterns``); their matches are replaced in the URL, in element
names and values, and in the title, headings, alerts and dialogs.

>>> ids = generated_ids()
>>> ids.url("http://x/books/776/edit?saved=776&q=salt")
'http://x/books/{id}/edit?saved={id}&q=salt'
>>> generated_ids([r"#\\d+"]).text("Order #1043")
'Order {id}'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from urllib.parse import urlsplit, urlunsplit

from webharness.spec.checks import check_regex

__all__ = ["PLACEHOLDER", "GeneratedIds", "generated_ids"]

PLACEHOLDER = "{id}"
# One whole path segment or query value: digits, a UUID, or a long hex token.
_TOKEN = re.compile(
    r"\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}",
    re.IGNORECASE,
)


class GeneratedIds:
    """The built-in id tokens of URLs, and a task's own patterns (regular expressions).

    Args:
        patterns: the task's extra patterns; each match is an id wherever it occurs.

    Raises:
        ValueError: a pattern that is not a valid regular expression (named).
    """

    def __init__(self, patterns: Sequence[str] = ()) -> None:
        self.patterns = tuple(patterns)
        compiled = []
        for pattern in self.patterns:
            try:
                compiled.append(re.compile(check_regex(pattern)))
            except ValueError as exc:
                raise ValueError(
                    f"id pattern {pattern!r} is {exc}; write it as Python's re module reads it"
                ) from None
        self._own = compiled
        self.url = functools.lru_cache(maxsize=4096)(self._url)

    @property
    def in_texts(self) -> bool:
        """Whether texts are normalised too (only a task's own patterns reach them)."""
        return bool(self._own)

    def text(self, text: str) -> str:
        """``text`` with every match of the task's patterns replaced by ``PLACEHOLDER``."""
        for pattern in self._own:
            text = pattern.sub(PLACEHOLDER, text)
        return text

    def _url(self, url: str) -> str:
        """``url`` with its id segments and query values, and the task's matches, replaced."""
        parts = urlsplit(self.text(url))
        path = "/".join(_id_or(s) for s in parts.path.split("/"))
        query = "&".join(_query_item(item) for item in parts.query.split("&"))
        return urlunsplit(parts._replace(path=path, query=query))


def _id_or(token: str) -> str:
    return PLACEHOLDER if _TOKEN.fullmatch(token) else token


def _query_item(item: str) -> str:
    key, equals, value = item.partition("=")
    return f"{key}={_id_or(value)}" if equals else item


@functools.lru_cache(maxsize=64)
def _cached(patterns: tuple[str, ...]) -> GeneratedIds:
    return GeneratedIds(patterns)


def generated_ids(patterns: Sequence[str] | GeneratedIds = ()) -> GeneratedIds:
    """The ``GeneratedIds`` of these patterns (one shared object per set of patterns)."""
    if isinstance(patterns, GeneratedIds):
        return patterns
    return _cached(tuple(patterns))

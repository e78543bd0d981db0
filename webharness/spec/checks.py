"""What every part of a task spec shares: strict model settings, the checks of URLs,
origins and regular expressions, and turning a validation error into a ``TaskSpecError``
that names the file, the field path as written in the YAML, and the value."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import ConfigDict, ValidationError

from webharness.errors import TaskSpecError

# Unknown fields refused; no lax conversions (``max_steps: true`` is not 1, ``"5"`` is
# not 5, ``1`` is not ``true``): a YAML file has its own numbers and booleans.
# An instance of a spec is validated lax (``strict=False``): a value filled in from a
# parameter takes its field's type, a number as a text field's digits included.
SPEC_CONFIG = ConfigDict(extra="forbid", strict=True, coerce_numbers_to_str=True)

HTTP_SCHEMES = ("http", "https")


def check_http_url(url: str) -> str:
    """``url`` if it is an absolute http(s) URL with a host; ValueError otherwise."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError as exc:
        raise ValueError(f"not a URL ({exc}); write e.g. 'http://localhost:8000/'") from None
    if parts.scheme not in HTTP_SCHEMES or not parts.hostname:
        raise ValueError(
            "only http:// and https:// URLs with a host can be opened, "
            "e.g. 'http://localhost:8000/' (file:, data: and other schemes are refused)"
        )
    return url


def check_origin(origin: str) -> str:
    """``origin`` if it is ``scheme://host[:port]`` for http(s); ValueError otherwise."""
    check_http_url(origin)
    parts = urlsplit(origin)
    if parts.path or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(
            "an origin is scheme://host[:port] and nothing more: "
            f"use {parts.scheme + '://' + parts.netloc.rpartition('@')[2]!r}"
        )
    return origin


def check_regex(pattern: str) -> str:
    """``pattern`` if Python's ``re`` compiles it; ValueError naming the problem otherwise."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a regular expression ({exc})") from None
    except RecursionError:
        raise ValueError("not a regular expression (nested too deeply)") from None
    return pattern


def spec_error(file: str, raw: Any, exc: ValidationError) -> TaskSpecError:
    """The first problem of ``exc`` as a ``TaskSpecError`` naming file, field and value.

    A ``TaskSpecError`` raised by a validator (which knows its own field) is kept as it is.
    """
    first = exc.errors()[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, TaskSpecError):
        return cause
    problem = str(cause) if isinstance(cause, ValueError) else first["msg"]
    where = field_path(raw, first["loc"])
    return TaskSpecError(file, where, first.get("input"), problem)


def field_path(raw: Any, loc: tuple[int | str, ...]) -> str:
    """Pydantic's error location as the path of keys in the YAML: the names pydantic adds
    (the ``kind`` tag of a union member, the member type of a plain union) are left out.

    Example:
        >>> field_path({"success": {"kind": "url", "matches": "("}}, ("success", "url", "matches"))
        'success.matches'
    """
    path: list[str] = []
    node = raw
    tag_seen = False  # of the node we are at: a union member's tag comes once
    for n, part in enumerate(loc):
        tag = isinstance(node, dict) and node.get("kind") == part and not tag_seen
        if tag and _tag_here(node, loc[n + 1 :]):
            tag_seen = True
            continue  # the tag of a union member that also names one of its fields
        tag_seen = False
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(node, dict) and node.get("kind") == part:
            continue  # the tag of the union member that was tried
        elif isinstance(node, (dict, list)) and n == len(loc) - 1:
            pass  # a field missing from the file: name it
        else:
            continue  # a name pydantic added, or a step below a plain value
        path.append(str(part))
    return ".".join(path) or "<root>"


def _tag_here(node: dict[str, Any], rest: tuple[int | str, ...]) -> bool:
    """At a ``kind`` tag that is also a key of the member (``kind: count`` has ``count:``),
    the location means the tag when it ends there or goes on into one of the member's keys."""
    return not rest or rest[0] in node

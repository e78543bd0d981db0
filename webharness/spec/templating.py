"""``{{name}}`` placeholders in task specs, filled from a task instance's parameters.

Double braces, not ``str.format``: specs carry JavaScript predicates full of single braces.
A string that is exactly one placeholder takes the parameter's value with its type. A
list parameter (``kind: sample``) is indexed from 0: ``{{items[1]}}`` is its second value.
"""

from __future__ import annotations

import re
from typing import Any

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?\s*\}\}")


def placeholders(text: str) -> set[str]:
    """The parameter names a string refers to.

    Example:
        >>> sorted(placeholders("{{items[1]}} for {{ name }}"))
        ['items', 'name']
    """
    return {name for name, _ in PLACEHOLDER.findall(text)}


def indexed(text: str) -> list[tuple[str, int]]:
    """The indexed placeholders of a string: ``(name, index)`` for each ``{{name[index]}}``."""
    return [(name, int(index)) for name, index in PLACEHOLDER.findall(text) if index]


def fill(value: Any, params: dict[str, Any]) -> Any:
    """Substitute placeholders in a string, or recursively in lists and dicts.

    Raises:
        KeyError: naming the first placeholder with no parameter.
        IndexError: an index past the end of a list parameter.

    Example:
        >>> fill("Mark {{items[1]}} as done", {"items": ["Milk", "Eggs"]})
        'Mark Eggs as done'
    """
    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value.strip())
        if whole:
            return _value(whole, params)
        return PLACEHOLDER.sub(lambda m: str(_value(m, params)), value)
    if isinstance(value, list):
        return [fill(v, params) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, params) for k, v in value.items()}
    return value


def _value(match: re.Match[str], params: dict[str, Any]) -> Any:
    name, index = match.groups()
    value = params[name]
    return value[int(index)] if index is not None else value

"""``{{name}}`` placeholders in task specs, filled from a task instance's parameters.

Double braces, not ``str.format``: specs carry JavaScript predicates full of single braces.
A string that is exactly one placeholder takes the parameter's value with its type.
"""

from __future__ import annotations

import re
from typing import Any

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")


def placeholders(text: str) -> set[str]:
    """The parameter names a string refers to."""
    return set(PLACEHOLDER.findall(text))


def fill(value: Any, params: dict[str, Any]) -> Any:
    """Substitute placeholders in a string, or recursively in lists and dicts.

    Raises:
        KeyError: naming the first placeholder with no parameter.
    """
    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value.strip())
        if whole:
            return params[whole.group(1)]
        return PLACEHOLDER.sub(lambda m: str(params[m.group(1)]), value)
    if isinstance(value, list):
        return [fill(v, params) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, params) for k, v in value.items()}
    return value

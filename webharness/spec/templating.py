"""``{{name}}`` placeholders in task specs, filled from a task instance's parameters.

Double braces, not ``str.format``: specs carry JavaScript predicates full of single braces.
A string that is exactly one placeholder takes the parameter's value with its type, and
the field it fills gives it the type it wants (an int into a text field is its digits; into
a number field, a number): ``spec/param_types.py`` checks at load that it can. A list
parameter (``kind: sample``) is indexed from 0: ``{{items[1]}}`` is its second value, and
``{{items[i]}}`` the one an int parameter ``i`` picks.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, Field

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*(?:\[\s*(\d+|[A-Za-z_]\w*)\s*\])?\s*\}\}")

_T = TypeVar("_T")


def placeholders(text: str) -> set[str]:
    """The parameter names a string refers to, an index's included.

    Example:
        >>> sorted(placeholders("{{items[i]}} for {{ name }}"))
        ['i', 'items', 'name']
    """
    found = PLACEHOLDER.findall(text)
    return {name for name, _ in found} | {i for _, i in found if i and not i.isdigit()}


def indexed(text: str) -> list[tuple[str, int | str]]:
    """The indexed placeholders of a string: ``(name, index)`` for each ``{{name[index]}}``,
    the index a number or the name of the parameter that holds it."""
    return [
        (name, int(index) if index.isdigit() else index)
        for name, index in PLACEHOLDER.findall(text)
        if index
    ]


def whole(text: str) -> str | None:
    """The parameter a string is exactly one placeholder of (its value keeps its type)."""
    match = PLACEHOLDER.fullmatch(text.strip())
    return match.group(1) if match else None


def check_placeholder(text: str) -> str:
    """``text`` if it is one whole placeholder; ValueError otherwise."""
    if whole(text) is None:
        raise ValueError(f"write a value here, or one placeholder such as '{{{{n}}}}' ({text!r})")
    return text


# A field that holds a number, or one placeholder whose parameter gives it (``"{{n}}"``):
# the spec as written holds the placeholder, an instance of it the number.
Placeholder = Annotated[str, AfterValidator(check_placeholder)]
Amount = Annotated[int, Field(ge=0)] | Placeholder  # a count, or "{{n}}"


def filled(value: _T | str) -> _T:
    """The value of a field that may be written as a placeholder, in an instance.

    Raises:
        TypeError: it is still a placeholder (the spec as written, not an instance).
    """
    if isinstance(value, str):
        raise TypeError(
            f"{value!r} is a placeholder: judge an instance of the spec (instantiate), "
            "not the spec as written"
        )
    return value


def fill(value: Any, params: dict[str, Any]) -> Any:
    """Substitute placeholders in a string, or recursively in lists and dicts.

    Raises:
        KeyError: naming the first placeholder with no parameter.
        IndexError: an index past the end of a list parameter.
        TypeError: an index parameter that is not an int.

    Example:
        >>> fill("Mark {{items[i]}} as done", {"items": ["Milk", "Eggs"], "i": 1})
        'Mark Eggs as done'
    """
    if isinstance(value, str):
        match = PLACEHOLDER.fullmatch(value.strip())
        if match:
            return _value(match, params)
        return PLACEHOLDER.sub(lambda m: str(_value(m, params)), value)
    if isinstance(value, list):
        return [fill(v, params) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, params) for k, v in value.items()}
    return value


def _value(match: re.Match[str], params: dict[str, Any]) -> Any:
    name, index = match.groups()
    value = params[name]
    if index is None:
        return value
    at = int(index) if index.isdigit() else params[index]
    if isinstance(at, bool) or not isinstance(at, int):
        raise TypeError(f"{{{{{name}[{index}]}}}}: the index {index} = {at!r} is not an int")
    return value[at]

"""A step's semantic state as a change from the step before, where that is smaller.

Consecutive states of an episode differ in a field or two (a value typed, a dialog
opened), while a whole state is ~15 kB of JSON on a form page: storing each in full made
``steps.jsonl`` a third of a trace's disk. A delta is JSON of three shapes:

- ``{"=": value}``: the value, whole;
- ``{"d": {key: delta}, "x": [key, ...]}``: a dict's changed or new keys, and its removed keys;
- ``{"l": {"index": delta}}``: a list of the same length, its changed items.

Example:
    >>> before = {"url": "/a", "elements": [{"ref": "e1", "value": ""}, {"ref": "e2"}]}
    >>> after = {"url": "/a", "elements": [{"ref": "e1", "value": "Ada"}, {"ref": "e2"}]}
    >>> delta = json_delta(before, after)
    >>> delta
    {'d': {'elements': {'l': {'0': {'d': {'value': {'=': 'Ada'}}}}}}}
    >>> apply_delta(before, delta) == after
    True
"""

from __future__ import annotations

from typing import Any

__all__ = ["apply_delta", "json_delta"]


def json_delta(before: Any, after: Any) -> dict[str, Any]:
    """The delta that turns JSON value ``before`` into ``after`` (``{}`` when equal)."""
    if _same(before, after):
        return {}
    if isinstance(before, dict) and isinstance(after, dict):
        changed = {
            k: json_delta(before[k], v) if k in before else {"=": v} for k, v in after.items()
        }
        delta: dict[str, Any] = {"d": {k: d for k, d in changed.items() if d}}
        removed = [k for k in before if k not in after]
        if removed:
            delta["x"] = removed
        return delta
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        items = {str(i): json_delta(b, a) for i, (b, a) in enumerate(zip(before, after))}
        return {"l": {i: d for i, d in items.items() if d}}
    return {"=": after}


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: ``1 == True`` in Python, not in JSON."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def apply_delta(before: Any, delta: dict[str, Any]) -> Any:
    """``before`` changed by ``delta`` (a new value; ``before`` is left as it was).

    Raises:
        ValueError: ``delta`` is not a delta of ``before``'s shape.
    """
    if not delta:
        return before
    if "=" in delta:
        return delta["="]
    if "d" in delta and isinstance(before, dict):
        after = {k: v for k, v in before.items() if k not in delta.get("x", ())}
        for key, change in delta["d"].items():
            after[key] = apply_delta(before.get(key), change)
        return after
    if "l" in delta and isinstance(before, list):
        after_list = list(before)
        for index, change in delta["l"].items():
            after_list[int(index)] = apply_delta(before[int(index)], change)
        return after_list
    raise ValueError(f"not a delta of a {type(before).__name__}: {str(delta)[:200]}")

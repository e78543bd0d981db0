"""Golden paths for a handful of MiniWoB++ tasks, written against semantic targets."""

from __future__ import annotations

from typing import Any

GOLDEN: dict[str, list[dict[str, Any]]] = {}


def golden_paths(task: str) -> list[dict[str, Any]]:
    return GOLDEN.get(task, [])

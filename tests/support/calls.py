"""Counting the calls a test makes through a module's function."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest


def counted_calls(monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str) -> list[int]:
    """A list that gains an item at each call of ``module.name`` (which still runs)."""
    counted: list[int] = []
    function = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        counted.append(1)
        return function(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return counted

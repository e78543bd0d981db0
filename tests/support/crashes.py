"""A browser that fails one action of a golden recording, as a crashed renderer or a
starved machine makes it fail, and works again after."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError

import webharness.episode.executor as executor


def first_recordings_crash(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, count: int = 1
) -> None:
    """The first action of each of the first ``count`` calls of ``module.golden_traces``
    fails in the browser (a ``BROWSER_ERROR`` step); every other action works."""
    crashing: list[bool] = []
    for kind, handler in list(executor._HANDLERS.items()):
        monkeypatch.setitem(executor._HANDLERS, kind, _failing_while(crashing, handler))
    record, calls = module.golden_traces, []

    def first_crashes(*args: Any, **kwargs: Any) -> Any:
        crashing.append(len(calls) < count)
        calls.append(1)
        try:
            return record(*args, **kwargs)
        finally:
            crashing.clear()

    monkeypatch.setattr(module, "golden_traces", first_crashes)


def _failing_while(crashing: list[bool], handler: executor.Handler) -> executor.Handler:
    async def failing(session: Any, action: Any, ctx: Any) -> None:
        if any(crashing):
            crashing.clear()
            raise PlaywrightError("Target crashed")
        await handler(session, action, ctx)

    return failing

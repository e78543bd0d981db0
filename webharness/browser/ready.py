"""Waiting for a task's ready condition: a CSS selector that must match a visible element,
a JS expression that must be truthy.

The page agent checks it (``js/page_agent/ready.js``), asking the page's own world for the
expression, which may read the app's state (``js/page_hooks.js``). Playwright's
``wait_for_selector`` and ``wait_for_function`` did this before, at the cost of
Playwright's injected script evaluated in every new document and several round trips a
wait: a fifth of the machine's CPU on the built-in tasks that have a ready condition
(docs/architecture.md).
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from playwright.async_api import Error as PlaywrightError

from webharness.browser.agent_world import AgentWorld


class ReadyCondition(Protocol):
    """What must hold before an observation (a task spec's ``ready``): ``selector``
    matches a visible element and ``js`` is truthy (None: no such part), waited for up to
    ``timeout_ms``."""

    @property
    def selector(self) -> str | None: ...

    @property
    def js(self) -> str | None: ...

    @property
    def timeout_ms(self) -> float: ...


def ready_payload(condition: ReadyCondition) -> dict[str, Any]:
    """The condition as the page agent's ``settleAndObserve`` checks it, once."""
    return {"selector": condition.selector, "js": condition.js}


async def wait_until_ready(world: AgentWorld, condition: ReadyCondition) -> bool:
    """Wait, up to the condition's ``timeout_ms``, until both parts hold; whether they did.

    A part that cannot hold (a selector that is not CSS, an expression that throws) ends
    the wait at once. A document replaced during the wait is checked in turn, as
    Playwright's waits did.
    """
    deadline = time.monotonic() + condition.timeout_ms / 1000
    while True:
        documents = world.documents
        remaining_ms = max(0.0, deadline - time.monotonic()) * 1000
        try:
            answer = await world.call(
                "waitReady", ready_payload(condition), remaining_ms, absent=None
            )
        except PlaywrightError:
            answer = None  # the document went away during the call
        if answer is not None:
            return answer is True
        # No agent in this document (it is being replaced), or it has gone.
        if not await world.next_document(documents, deadline):
            return False

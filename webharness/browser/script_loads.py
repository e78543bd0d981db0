"""The scripts a page is loading, counted from the browser's own request events.

A component library that loads its parts on demand (``import()`` of a lazily loaded
chunk, as Ionic and Stencil do) renders once the chunk has arrived and run. The page's
hooks count its fetch and XHR calls; a dynamic import is neither, so the settle could end
while the chunk was on its way. ``PageSession`` settles again after the scripts that
started meanwhile have arrived. Only scripts count: a stream that never ends (an
EventSource) must not hold every settle to its cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from playwright.async_api import Page, Request


class ScriptLoads:
    """Scripts requested and still in flight in one page (its frames included)."""

    def __init__(self, page: Page) -> None:
        self.started = 0  # scripts requested since the page opened
        self._in_flight: set[Request] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_end)
        page.on("requestfailed", self._on_end)

    def _on_request(self, request: Request) -> None:
        if request.redirected_from is not None:  # a redirect's hop ends in its next one
            self._on_end(request.redirected_from)
        if request.resource_type == "script":
            self.started += 1
            self._in_flight.add(request)
            self._idle.clear()

    def _on_end(self, request: Request) -> None:
        self._in_flight.discard(request)
        if not self._in_flight:
            self._idle.set()

    def forget(self) -> None:
        """A new document: the old one's scripts in flight no longer load into anything."""
        self._in_flight.clear()
        self._idle.set()

    def since(self, started: int) -> bool:
        """Whether a script was requested since ``started`` or one is still in flight."""
        return self.started != started or bool(self._in_flight)

    async def arrived(self, deadline: float) -> bool:
        """Wait, up to ``deadline`` (``time.monotonic()``), until no script is in flight;
        whether none is."""
        remaining = deadline - time.monotonic()
        if remaining > 0:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._idle.wait(), remaining)
        return self._idle.is_set()

"""The env's browser runtime: one host thread and browser, pages made ready ahead of time.

A fresh context + page costs ~150-300 ms; the runtime opens the next one in the background
while the agent works on the current episode, so ``reset`` only navigates.
"""

from __future__ import annotations

import concurrent.futures
import threading
from typing import Any, Coroutine, TypeVar

from webharness.browser import LAUNCH_TIMEOUT_MS, BrowserHost
from webharness.page_session import PageSession

T = TypeVar("T")


class BrowserRuntime:
    def __init__(self, viewport: tuple[int, int], headless: bool = True) -> None:
        self.viewport = viewport
        self.headless = headless
        self.host = BrowserHost(headless=headless)
        self._next: concurrent.futures.Future[PageSession] | None = None
        self._closing: list[threading.Thread] = []  # hosts thrown away, closing in the background

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return self.host.run(coro, timeout)

    def take_session(self, timeout: float) -> PageSession:
        """A ready context + page: the pre-warmed one, or a new one."""
        pending, self._next = self._next, None
        session = None
        if pending is not None:
            try:
                session = pending.result(timeout)
            except Exception:  # a pre-warm that failed (browser died): open afresh
                session = None
        if session is None:
            # The first page of a browser pays for its launch, which has its own bound.
            launch_s = 0.0 if self.host.launched else LAUNCH_TIMEOUT_MS / 1000
            session = self.host.run(self._open(), timeout + launch_s)
        return session

    def prewarm(self) -> None:
        """Start opening the next episode's page in the background."""
        if self._next is None:
            self._next = self.host.submit(self._open())

    def wait_prewarmed(self, timeout: float) -> bool:
        """Block until the next episode's page is ready (what an agent's think time gives
        ``reset``); False when none is being prepared or it is not ready in time."""
        pending = self._next
        if pending is None:
            return False
        try:
            pending.result(timeout)
        except Exception:  # a failed pre-warm is opened afresh by take_session
            return False
        return True

    def discard(self, session: PageSession) -> None:
        """Close a finished episode's context without waiting for it."""
        self.host.submit(session.close())

    async def _open(self) -> PageSession:
        browser = await self.host.browser()
        return await PageSession.open(browser, self.viewport)

    def restart(self) -> None:
        """Throw away the browser (after a crash or a hung page) and start clean.

        Returns at once: the old browser is killed, and its host (Playwright's driver and
        thread) is closed in the background; ``close`` waits for that. The next page
        launches a new browser.
        """
        self._next = None
        old, self.host = self.host, BrowserHost(headless=self.headless)
        old.kill()
        closer = threading.Thread(target=old.close, name="webharness-browser-close", daemon=True)
        closer.start()
        self._closing = [t for t in self._closing if t.is_alive()] + [closer]

    def close(self) -> None:
        self._next = None
        self.host.close()
        for closer in self._closing:
            closer.join()  # bounded: BrowserHost.close kills what does not close in time
        self._closing.clear()

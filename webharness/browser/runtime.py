"""The env's browser runtime: a lease on the process's browser, pages made ready ahead of time.

A fresh context + page costs ~150-300 ms; the runtime opens the next one in the background
while the agent works on the current episode, so ``reset`` only navigates. The browser
itself is shared by every env of the process (``shared_browser``): the runtime owns only
its contexts, and closes them when it is done.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from webharness.browser.host import CLOSE_TIMEOUT_S, LAUNCH_TIMEOUT_MS, BrowserHost
from webharness.browser.page_session import PageSession
from webharness.browser.shared import lease_host, release_host, replace_host

T = TypeVar("T")


class BrowserRuntime:
    def __init__(self, viewport: tuple[int, int], headless: bool = True) -> None:
        self.viewport = viewport
        self.headless = headless
        self.host: BrowserHost = lease_host(headless)
        self._next: concurrent.futures.Future[PageSession] | None = None
        self._open_sessions: set[PageSession] = set()  # contexts this runtime must close
        self._closing: list[threading.Thread] = []  # hosts given up, closing in the background
        self._closed = False

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
        self._open_sessions.discard(session)
        self.host.submit(session.close())

    async def _open(self) -> PageSession:
        browser = await self.host.browser()
        session = await PageSession.open(browser, self.viewport, self.host.proxies)
        self._open_sessions.add(session)
        return session

    def restart(self, failed: PageSession | None = None) -> None:
        """Give up this runtime's pages after a crash or a hung page, and start clean.

        When the failure came from the browser now running (or ``failed`` is not known),
        that browser is killed and the process's envs move to a fresh one; a failure of a
        browser another env has already replaced only moves this runtime along. Returns at
        once: a host given up is closed in the background, and ``close`` waits for that.
        """
        self._next = None
        self._open_sessions.clear()  # they died with their browser
        old = self.host
        browser = None if failed is None else failed.context.browser  # None: not known
        kill = browser is None or old.is_current(browser)
        self.host, old_idle = replace_host(old, kill=kill)
        if old_idle:
            self._close_in_background(old)

    def close(self) -> None:
        """Close this runtime's contexts and give up its lease (the last lease closes the
        browser). Bounded: contexts that do not close in time are killed with their browser."""
        if self._closed:
            return
        self._closed = True
        sessions = self._sessions_to_close()
        if sessions and not self._close_sessions(sessions):
            self.restart()  # a hung page: the browser is killed, the lease moves on
        release_host(self.host)
        for closer in self._closing:
            closer.join()  # bounded: BrowserHost.close kills what does not close in time
        self._closing.clear()

    def _sessions_to_close(self) -> list[PageSession]:
        pending, self._next = self._next, None
        if pending is not None:
            try:
                pending.result(CLOSE_TIMEOUT_S)  # it adds itself to the open sessions
            except Exception:  # never opened: nothing to close
                pass
        sessions, self._open_sessions = list(self._open_sessions), set()
        return sessions

    def _close_sessions(self, sessions: list[PageSession]) -> bool:
        async def close_all() -> None:
            await asyncio.gather(*(s.close() for s in sessions))

        try:
            self.host.run(close_all(), CLOSE_TIMEOUT_S)
        except Exception:  # a hung renderer, a dead browser
            return False
        return True

    def _close_in_background(self, host: BrowserHost) -> None:
        closer = threading.Thread(target=host.close, name="webharness-browser-close", daemon=True)
        closer.start()
        self._closing = [t for t in self._closing if t.is_alive()] + [closer]

"""The env's browser runtime: a lease on the process's browser, and the env's page.

A new context + page costs ~100-150 ms of browser CPU, most of it a new renderer process;
the runtime keeps the page of the episode that ended and ``PageSession.recycle`` wipes it
for the next one, so ``reset`` only navigates (half the CPU). A page that cannot be reused
(it crashed, it was traced, it has served ``EPISODES_PER_PAGE``) is closed and a new one
opened. The browser itself is shared by every env of the process (``shared_browser``): the
runtime owns only its contexts, and closes them when it is done.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from webharness.browser.host import CLOSE_TIMEOUT_S, LAUNCH_TIMEOUT_MS, BrowserHost
from webharness.browser.page_session import PageSession
from webharness.browser.shared import lease_host, release_host, replace_host

T = TypeVar("T")

# A page serves this many episodes, then a new context replaces it: whatever a long-lived
# renderer gathers (its caches, the pages' own leaks) stays bounded.
EPISODES_PER_PAGE = 200
# Wiping a page takes ~40 ms; one that takes seconds is hung (the page's own script spins),
# and a new context serves sooner than waiting out the reset's whole bound.
RECYCLE_TIMEOUT_S = 3.0
# On close, a page is wiped for another env only if that is quick: a page that does not
# leave its document within this is closed instead, so closing an env whose page hangs
# costs at most this much more than closing its context.
KEEP_TIMEOUT_S = 1.0


class BrowserRuntime:
    def __init__(self, viewport: tuple[int, int], headless: bool = True, cdp: bool = False) -> None:
        self.viewport = viewport
        self.headless = headless
        self.host: BrowserHost = lease_host(headless, cdp)
        self._spare: PageSession | None = None  # the last episode's page, to be reused
        self._open_sessions: set[PageSession] = set()  # contexts this runtime must close
        self._closing: list[threading.Thread] = []  # hosts given up, closing in the background
        self._closed = False

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return self.host.run(coro, timeout)

    def release(self, session: PageSession) -> None:
        """A finished episode's page: reused by the next ``take_session`` if it can be."""
        if self._spare is not None:
            self.discard(self._spare)
        self._spare = session

    def take_session(self, timeout: float) -> PageSession:
        """A page ready for an episode: the last one's or one a closed env left (wiped),
        or a new context's."""
        session, self._spare = self._spare, None
        if session is not None and not self._wiped(session, timeout):
            self.discard(session)
            session = None
        if session is None:
            session = self._spare_page()
        if session is None:
            # The first page of a browser pays for its launch, which has its own bound.
            launch_s = 0.0 if self.host.launched else LAUNCH_TIMEOUT_MS / 1000
            session = self.host.run(self._open(), timeout + launch_s)
        session.episodes += 1
        return session

    def _spare_page(self) -> PageSession | None:
        """A page a closed env left, wiped then; None when there is none that still works."""
        while (session := self.host.spare_pages.take(self.viewport)) is not None:
            self._open_sessions.add(session)
            if session.reusable:
                return session
            self.discard(session)  # its browser died meanwhile
        return None

    def _wiped(self, session: PageSession, timeout: float) -> bool:
        """Whether ``session`` may serve another episode and was made ready for it."""
        if not session.reusable or session.episodes >= EPISODES_PER_PAGE:
            return False
        try:
            self.host.run(session.recycle(), min(timeout, RECYCLE_TIMEOUT_S))
        except Exception:  # a page that will not leave its document: start afresh
            return False
        return True

    def discard(self, session: PageSession) -> None:
        """Close a page's context without waiting for it."""
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
        self._spare = None
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
        self._spare = None
        sessions, self._open_sessions = list(self._open_sessions), set()
        sessions = self._keep_for_other_envs(sessions)
        if sessions and not self._close_sessions(sessions):
            self.restart()  # a hung page: the browser is killed, the lease moves on
        release_host(self.host)
        for closer in self._closing:
            closer.join()  # bounded: BrowserHost.close kills what does not close in time
        self._closing.clear()

    def _keep_for_other_envs(self, sessions: list[PageSession]) -> list[PageSession]:
        """Wipe the pages that can serve another env and give them to the browser's spare
        pages (``spare_pages.py``); returns the others, and any they displaced, to close."""
        to_close = []
        for session in sessions:
            if self._wiped(session, KEEP_TIMEOUT_S):
                displaced = self.host.spare_pages.put(session, self.viewport)
                to_close += [displaced] if displaced is not None else []
            else:
                to_close.append(session)
        return to_close

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

"""Reusing a page for the next episode: what an episode leaves in its page, and wiping it.

A new context and page cost ≈160 ms of machine CPU, most of it a new renderer process,
against ≈90 ms for navigating the page the env already has (docs/architecture.md). So the
page of the episode that ended is wiped, not closed, and the next episode must not be able
to tell it from a new context's page (``tests/browser/test_page_reuse.py`` compares them).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, CDPSession, Page

from webharness.browser.agent_world import AgentWorld
from webharness.origins import origin_of

# A reused page's renderer collects the documents it has left only in a full collection,
# which V8 puts off while memory is plentiful: left alone it grew ~7 MB an episode
# (shop-v0: 165 MB after 10 episodes, 610 MB after 80). One forced every few episodes keeps
# it flat (~160 MB); one every episode would also throw away the compiled code of the
# site's scripts, which makes the next load of the same pages faster.
COLLECT_EVERY = 10


class PageLeftBehind(Exception):
    """The page would not stay on ``about:blank``: it is closed, not reused."""


class Leftovers:
    """What one episode has left in its page: the origins its documents had (their storage)
    and the init scripts it added."""

    def __init__(self) -> None:
        self._origins: set[str] = set()
        self._scripts = contextlib.AsyncExitStack()  # Playwright's disposables

    def opened(self, url: str) -> None:
        """A frame committed a document at ``url``."""
        if urlsplit(url).scheme in ("http", "https"):
            self._origins.add(origin_of(url))

    async def add_script(self, context: BrowserContext, source: str) -> None:
        """An init script for this episode's documents only."""
        await self._scripts.enter_async_context(await context.add_init_script(source))

    async def wipe(self, page: Page, cdp: CDPSession, world: AgentWorld, episodes: int) -> None:
        """Bring ``page`` to what a new context's page is: on ``about:blank`` with no
        history (``go_back()`` at the start is refused as on a new page), no episode's init
        scripts, no cookies or permissions, no storage (local, session, IndexedDB, caches)
        of the origins its documents had, no ``window.name`` (it outlives navigations),
        the mouse at the corner (a page loading under it would see it hover)."""
        await self._scripts.aclose()
        await world.remove_episode_scripts()
        # The mouse's move waits for a frame (~14 ms): it runs beside all of leaving (the
        # navigation away and the clearing after it). Wherever the move lands, old document
        # or blank, the mouse ends at the corner before the next document loads.
        # Permissions are the context's own: the old document cannot grant any.
        mouse, permissions = page.mouse.move(0, 0), page.context.clear_permissions()
        await asyncio.gather(self._leave(page, cdp, episodes), mouse, permissions)

    async def _leave(self, page: Page, cdp: CDPSession, episodes: int) -> None:
        """Take ``page`` to ``about:blank`` and clear what the old document left: its
        stores (once it is gone: it cannot write them again), ``window.name``, history."""
        await page.goto("about:blank", wait_until="commit")
        _check_blank(page)
        if episodes % COLLECT_EVERY == 0:
            await cdp.send("HeapProfiler.collectGarbage")
        origins, self._origins = self._origins, set()
        await asyncio.gather(_unnamed_without_history(cdp), *_clearing_stores(page, cdp, origins))
        _check_blank(page)

    async def clear_in_document(self, page: Page, cdp: CDPSession, mouse_moved: bool) -> None:
        """What the episode left outside its document, for a next episode in the same
        document (an in-place reset; the page agent cleared the document's own part and
        ``window.name``): cookies, permissions, the storage of its origins, and the mouse
        back to the corner if an action moved it (an input event waits for a frame)."""
        origins = set(self._origins)  # kept: the next wipe clears them too
        mouse = [page.mouse.move(0, 0)] if mouse_moved else []
        permissions = page.context.clear_permissions()
        await asyncio.gather(*mouse, permissions, *_clearing_stores(page, cdp, origins))


async def _unnamed_without_history(cdp: CDPSession) -> None:
    """No ``window.name`` (it outlives navigations) and no history. The evaluation waits
    for the blank document's context; history reset before that is refused ("not attached
    to an active page": the old document is still going), and the page then not reused."""
    await cdp.send("Runtime.evaluate", {"expression": "window.name = ''"})
    await cdp.send("Page.resetNavigationHistory")


def _clearing_stores(page: Page, cdp: CDPSession, origins: set[str]) -> list[Awaitable[object]]:
    """Clearing the context's cookies, and every storage of ``origins``."""
    storage = [
        cdp.send("Storage.clearDataForOrigin", {"origin": o, "storageTypes": "all"})
        for o in origins
    ]
    return [page.context.clear_cookies(), *storage]


def _check_blank(page: Page) -> None:
    if page.url != "about:blank":  # a navigation of the old document's came after ours
        raise PageLeftBehind(f"the page went on to {page.url[:200]} after about:blank")

"""The file chooser a page opened, held until an ``upload`` answers it.

A click on a file input (or on a drop area that clicks its hidden input) opens the
browser's file chooser. With a listener on Playwright's ``filechooser`` event the browser
does not show it: the page waits, as behind an open dialog, and Playwright hands the
chooser over. The latest one is kept here until it is taken, or the page loads a new
document (its input is gone with the old one).

Playwright hands a chooser over a moment after the click that opened it (it first finds
the input in a world of its own), which may be after the step's observation: ``opened``
waits for it, with a bound.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import FileChooser, Frame, Page


class FileChoosers:
    """The file chooser that is open in ``page``, if one is."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self._open: FileChooser | None = None
        self._handed = asyncio.Event()  # set while a chooser is open
        page.on("filechooser", self._opened)
        page.on("framenavigated", self._navigated)

    def _opened(self, chooser: FileChooser) -> None:
        self._open = chooser
        self._handed.set()

    def _navigated(self, frame: Frame) -> None:
        if frame is self._page.main_frame:
            self.closed()

    async def opened(self, timeout_s: float) -> FileChooser | None:
        """The chooser that is open, waiting up to ``timeout_s`` for one being handed over;
        None when none is."""
        try:
            await asyncio.wait_for(self._handed.wait(), timeout_s)
        except asyncio.TimeoutError:
            return None
        return self._open

    def closed(self) -> None:
        """No chooser is open now: it was answered or dismissed, or its page is gone (or
        the page is reused for another episode)."""
        self._open = None
        self._handed.clear()

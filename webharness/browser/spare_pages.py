"""Pages that closed envs left, kept with their browser for the next env of the process.

A new context and page cost ≈160 ms of machine CPU, where wiping a used page costs ≈35 ms
(``page_reuse.py``). A process that makes envs one after another (the runner moving from
task to task, a notebook, a test module) would pay for a context per env; instead a
runtime that closes hands its pages, wiped, to its host's ``spare_pages``, and a runtime
takes one from there before it opens a context. The pages die with their browser.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the type only: host.py makes one, and need not load page sessions
    from webharness.browser.page_session import PageSession

Viewport = tuple[int, int]

# Spare pages kept per browser and viewport: enough for the envs a process closes and makes
# around one task change (the runner keeps two per worker). Each holds a renderer process.
SPARES_PER_VIEWPORT = 2


class SparePages:
    """One browser's spare pages, by viewport; envs on several threads share them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pages: dict[Viewport, list[PageSession]] = {}

    def put(self, session: PageSession, viewport: Viewport) -> PageSession | None:
        """Keep ``session`` for a later env; returns the page it displaced, to be closed."""
        with self._lock:
            pages = self._pages.setdefault(viewport, [])
            pages.append(session)
            return pages.pop(0) if len(pages) > SPARES_PER_VIEWPORT else None

    def take(self, viewport: Viewport) -> PageSession | None:
        """A spare page of this viewport (the most recently kept), or None."""
        with self._lock:
            pages = self._pages.get(viewport)
            return pages.pop() if pages else None

    def clear(self) -> list[PageSession]:
        """Give up every spare page; returns them, to be closed."""
        with self._lock:
            pages = [session for kept in self._pages.values() for session in kept]
            self._pages.clear()
            return pages

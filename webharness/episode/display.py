"""The agent's display: the size a computer-use agent sees the page at, and its coordinates
mapped back to the page's.

Providers recommend a display such as 1024×768 or 1280×800 for their computer-use models.
With ``WebEvalEnv(display=(w, h))`` the observation's screenshot is scaled to it, and every
coordinate of a pointer action (``mouse_click``, ``mouse_move``, ``drag``, ``scroll`` at a
point) is mapped back to the page's CSS pixels before the action runs. The trace keeps the
page's coordinates, so the diagnosis and the golden paths need not know the display.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image

from webharness import actions as A


@dataclass(frozen=True)
class Display:
    """An agent's display of ``size`` over a page of ``viewport`` (both width, height)."""

    size: tuple[int, int]
    viewport: tuple[int, int]

    @property
    def scale(self) -> tuple[float, float]:
        """Page pixels per display pixel, across and down."""
        return self.viewport[0] / self.size[0], self.viewport[1] / self.size[1]

    def frame(self, pixels: np.ndarray | None) -> np.ndarray | None:
        """The page's screenshot at the display's size."""
        if pixels is None or (pixels.shape[1], pixels.shape[0]) == self.size:
            return pixels
        scaled = Image.fromarray(pixels).resize(self.size, Image.Resampling.LANCZOS)
        return np.asarray(scaled, dtype=np.uint8)

    def to_page(self, action: A.Action) -> A.Action:
        """``action`` with its display coordinates as the page's; other actions as they are."""
        sx, sy = self.scale
        if isinstance(action, (A.MouseClick, A.MouseMove)):
            return action.model_copy(update={"x": action.x * sx, "y": action.y * sy})
        if isinstance(action, A.Drag):
            path = tuple((x * sx, y * sy) for x, y in action.path)
            return action.model_copy(update={"path": path})
        if isinstance(action, A.Scroll) and action.x is not None and action.y is not None:
            return action.model_copy(update={"x": action.x * sx, "y": action.y * sy})
        return action

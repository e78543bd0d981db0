"""What every action handler shares: the episode's context, the failure that ends an
action with an error kind, and finding the element a ref names (or checking a point)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError

from webharness.action_result import ActionErrorKind as K
from webharness.action_result import PointerHit
from webharness.browser.page_session import PageSession


@dataclass
class ExecContext:
    """What the executor needs to know about the episode."""

    max_ref: int  # refs e1..e<max_ref> have all been shown to the agent this episode
    allowed_origins: tuple[str, ...]  # origins a goto may reach
    timeout_ms: float = 5_000
    upload_dir: Path | None = None  # the folder whose files upload() may hand to the page
    # What the step's pointer action hit, set by its handler before the input is sent.
    pointer: PointerHit | None = None
    pointer_end: PointerHit | None = None  # a drag: the element under its last point


class ActionFailed(Exception):
    """Internal: ends an action with an error kind; turned into an ActionResult."""

    def __init__(self, kind: K, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


async def locate(session: PageSession, ref: str, ctx: ExecContext) -> dict[str, Any]:
    try:
        found = await session.call_agent("locate", ref)
    except PlaywrightError:
        found = {"status": "stale"}  # the document changed under us
    status = found["status"]
    if status == "unknown":
        if was_shown(ref, ctx):
            raise ActionFailed(
                K.STALE_REF,
                f"element {ref} is gone: it was in an earlier observation but the page has "
                "changed since. Use a ref from the current observation.",
            )
        raise ActionFailed(
            K.UNKNOWN_REF,
            f"no element has ref {ref!r}; use a ref shown in the current accessibility tree",
        )
    if status == "stale":
        raise ActionFailed(
            K.STALE_REF,
            f"element {ref} is gone: it was replaced since the observation it came from. "
            "Use a ref from the current observation.",
        )
    if status == "hidden":
        raise ActionFailed(K.NOT_VISIBLE, f"element {ref} is not visible on the page")
    if status == "covered":
        raise ActionFailed(
            K.NOT_INTERACTABLE,
            f"element {ref} ({found['label']}) is covered by {found['coveredBy']}, "
            "which would receive the click",
        )
    return found


async def hit_test(
    session: PageSession, points: list[tuple[float, float]], method: str = "pointerAt"
) -> list[PointerHit]:
    """The element under each point (viewport coordinates), in one call into the page
    (``method``: ``pointerAt``, or ``armWheel``, which arms the wheel's wait too)."""
    try:
        hits = await session.call_agent(method, [list(p) for p in points])
    except PlaywrightError:  # the document went as we asked: the input says what happens
        return [PointerHit(x=x, y=y) for x, y in points]
    return [
        PointerHit(x=x, y=y, covered_by=h.pop("coveredBy"), **h)
        for (x, y), h in zip(points, hits, strict=True)
    ]


def was_shown(ref: str, ctx: ExecContext) -> bool:
    number = ref[1:] if ref.startswith("e") else ""
    return number.isdigit() and 0 < int(number) <= ctx.max_ref


def require_enabled(ref: str, found: dict[str, Any]) -> None:
    if found["disabled"]:
        raise ActionFailed(K.NOT_INTERACTABLE, f"element {ref} ({found['label']}) is disabled")


def check_point(session: PageSession, x: float, y: float, ctx: ExecContext | None = None) -> None:
    """Raise the agent's ``invalid_argument`` for a point outside the viewport (recorded
    in ``ctx.pointer`` as a hit outside it, when no point of the action was yet)."""
    size = session.page.viewport_size or {"width": 0, "height": 0}
    if not (0 <= x < size["width"] and 0 <= y < size["height"]):
        if ctx is not None and ctx.pointer is None:
            ctx.pointer = PointerHit(x=x, y=y, in_viewport=False)
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"({x}, {y}) is outside the {size['width']}×{size['height']} viewport",
        )

"""What a pointer action of a trace acted on.

The element its recorded hit names (``ActionResult.pointer``), or, for traces recorded
before hits were, the smallest box of the state the agent saw that holds its point.
"""

from __future__ import annotations

from typing import Any

from webharness.action_result import PointerHit
from webharness.semantic import Element, SemanticState
from webharness.trace.models import StepRecord

__all__ = ["element_under", "pointer_hit", "pointer_point", "pointer_target"]


def pointer_hit(record: StepRecord) -> PointerHit | None:
    """The hit the executor recorded for the step's pointer action, if any."""
    result = record.action_result
    return result.pointer if result is not None else None


def pointer_point(action: Any) -> tuple[float, float] | None:
    """Where a pointer action acts: its point, or where a drag starts (None: no point)."""
    if action.kind in ("mouse_click", "mouse_move"):
        return float(action.x), float(action.y)
    if action.kind == "drag":
        x, y = action.path[0]
        return float(x), float(y)
    return None


def pointer_target(action: Any, record: StepRecord, before: SemanticState) -> Element | None:
    """The interactive element a ref-less pointer action acted on, in the state before it.

    The recorded hit wins: its ref in ``before`` (None when the hit was no control, or
    nothing). Without one, the offline hit test of the action's point.

    Args:
        action: the parsed action (one without a ref).
        record: the step it led to (its ``action_result`` holds the hit).
        before: the state the agent saw when it chose the action.

    Returns:
        The element, or None.
    """
    hit = pointer_hit(record)
    if action.kind == "scroll":  # the wheel scrolls what is under it: no control's act
        return None
    if hit is not None:
        found = before.by_ref(hit.ref) if hit.ref else None
        same = before.find(hit.role, hit.name or "") if found is None and hit.role else []
        return found or (same[0] if same else None)  # one the observation had not shown
    point = pointer_point(action)
    return None if point is None else element_under(before, *point)


def element_under(state: SemanticState, x: float, y: float) -> Element | None:
    """Offline hit test: the smallest box of the state under the point."""
    under = [e for e in state.elements if _contains(e.bbox, x, y)]
    return min(under, key=lambda e: e.bbox[2] * e.bbox[3], default=None)


def _contains(bbox: tuple[float, float, float, float], x: float, y: float) -> bool:
    left, top, width, height = bbox
    return width > 0 and height > 0 and left <= x <= left + width and top <= y <= top + height

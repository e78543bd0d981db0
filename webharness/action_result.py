"""What happened when an action ran: the agent's feedback, never an exception."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict


class ActionErrorKind(str, Enum):
    """Why an action failed: the agent's mistake or the page's, never an exception."""

    UNPARSEABLE = "unparseable"  # not a valid action string
    UNKNOWN_REF = "unknown_ref"  # no element ever had this ref
    STALE_REF = "stale_ref"  # the element had this ref in an earlier observation, now gone
    NOT_VISIBLE = "not_visible"  # the element exists but has no box on screen
    NOT_INTERACTABLE = "not_interactable"  # covered by another element, or disabled
    UNSUPPORTED_CONTROL = "unsupported_control"  # e.g. fill() on a button
    INVALID_ARGUMENT = "invalid_argument"  # e.g. an option the select does not have
    TIMEOUT = "timeout"
    NAVIGATION_BLOCKED = "navigation_blocked"  # goto to an origin the task does not allow
    PAGE_UNSETTLED = "page_unsettled"  # the page navigated itself while the action ran
    BROWSER_ERROR = "browser_error"  # the browser failed (not the agent's, nor the page's)


class PointerHit(BaseModel):
    """The element under the pointer when a pointer action acted, before its input went.

    The hit test goes through open shadow roots and same-origin frames. ``role``,
    ``name`` and ``ref`` are the element a ref agent would have named: the nearest
    element with a role at the point (a point on a ``<label>`` hits its control), with
    the ref the observations gave it (None when no observation showed it). When the
    topmost element there is no control and covers one (a popup over a button), they
    are the covered control, the one the agent presumably aimed at, and ``covered_by``
    says what took the input. All None: the point hit nothing with a role, or was
    outside the viewport (``in_viewport`` false, nothing sent).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    x: float  # CSS pixels of the page's viewport
    y: float
    role: str | None = None
    name: str | None = None
    ref: str | None = None
    covered_by: str | None = None  # e.g. 'dialog "Cookies"': what the input reached instead
    in_viewport: bool = True


class ActionResult(BaseModel):
    """The outcome of one step's action, reported in ``info["action_result"]``.

    Deterministic by design (same seed and actions, same result); timings live apart,
    in ``WebEvalEnv.last_timings_ms``.
    """

    model_config = ConfigDict(extra="forbid")

    ok: bool = True
    error: ActionErrorKind | None = None
    message: str = ""
    state_changed: bool = False
    # Pointer actions: what the pointer hit (a drag: where it started), and where a drag
    # ended (the element under its last point before the drag began).
    pointer: PointerHit | None = None
    pointer_end: PointerHit | None = None

    @classmethod
    def failed(cls, error: ActionErrorKind, message: str) -> ActionResult:
        """A failed action's result: its kind of error and a message for the agent."""
        return cls(ok=False, error=error, message=message)

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

    @classmethod
    def failed(cls, error: ActionErrorKind, message: str) -> ActionResult:
        """A failed action's result: its kind of error and a message for the agent."""
        return cls(ok=False, error=error, message=message)

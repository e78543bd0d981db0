"""A note on one failed or ineffective step: the ``StepFailure`` model and how one is written."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from webharness.diagnosis.failures.codes import NOTE_TEXT, FailureCode
from webharness.diagnosis.failures.evidence import Evidence
from webharness.trace.models import StepRecord

__all__ = ["StepFailure", "note", "sort_notes"]


class StepFailure(BaseModel):
    """One failed or ineffective step, with what the trace showed about it."""

    model_config = ConfigDict(extra="forbid")

    step: int  # StepRecord.index of the step whose action failed
    code: FailureCode
    message: str
    evidence: Evidence = Field(default_factory=Evidence)


def note(
    step: StepRecord,
    code: FailureCode,
    evidence: Evidence,
    detail: str = "",
    text: str | None = None,
) -> StepFailure:
    """A note on ``step``, its message naming the action, its target and the code's text
    (or ``text``, where the rule words it more precisely)."""
    element = evidence.element
    target = f" on {element.role} {element.name!r}" if element else ""
    suffix = f" ({detail})" if detail else ""
    message = f"step {step.index}: {step.action!r}{target}: {text or NOTE_TEXT[code]}{suffix}"
    return StepFailure(step=step.index, code=code, message=message, evidence=evidence)


def sort_notes(notes: list[StepFailure]) -> list[StepFailure]:
    """In step order; at one step, a repeated-action run explains more than the single
    no-op that starts it, so it comes first."""
    return sorted(notes, key=lambda n: (n.step, n.code is not FailureCode.REPEATED_ACTION))

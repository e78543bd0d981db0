"""Episode-level checks, run on failed episodes only: ending while the page was still
loading, and writing a withheld detail without asking the user."""

from __future__ import annotations

from typing import Any

from webharness.actions import Action, ActionKind
from webharness.diagnosis.failures.codes import FailureCode
from webharness.diagnosis.failures.notes import StepFailure, note
from webharness.diagnosis.failures.signals import busy_signals
from webharness.diagnosis.failures.steps import TraceStep, acting_steps, kind_of
from webharness.semantic import Element
from webharness.trace.models import EndedBy, EpisodeEnd, EpisodeTrace

__all__ = ["CLAIMING_ENDS", "episode_failures"]

# Ends by which the agent claims the task is done.
CLAIMING_ENDS = frozenset({EndedBy.DONE, EndedBy.SEND_MSG_TO_USER})
_WRITE_ACTIONS = frozenset({ActionKind.FILL, ActionKind.SELECT_OPTION, ActionKind.KEYBOARD_TYPE})


def episode_failures(trace: EpisodeTrace, end: EpisodeEnd) -> list[StepFailure]:
    """The notes of ``premature_end`` and ``invented_input``, when they apply."""
    return [n for n in (premature_end(trace, end), invented_input(trace, end)) if n]


def premature_end(trace: EpisodeTrace, end: EpisodeEnd) -> StepFailure | None:
    """Ended with done()/an answer while the page the agent saw showed a loading indicator.

    An answer missing from a settled page is not evidence of waiting: a made-up answer,
    or "done" sent as a message, reads the same (``task_incomplete`` covers those).
    Writes ``busy`` and ``final_answer``.
    """
    if end.ended_by not in CLAIMING_ENDS or len(trace.steps) < 2:
        return None
    last = TraceStep(trace, len(trace.steps) - 1)
    busy = busy_signals(last.before.state)  # what the agent observed when it chose to end
    if not busy:
        return None
    evidence = last.evidence(busy=busy, final_answer=end.final_answer)
    return note(last.record, FailureCode.WAITING_TIMEOUT, evidence, detail=f"page showed {busy}")


def invented_input(trace: EpisodeTrace, end: EpisodeEnd) -> StepFailure | None:
    """A withheld detail written without the user having given it.

    Not asking at all, and asking only questions whose replies did not carry the detail
    (a vague "anything else?"), both leave the agent inventing it. The second is
    ambiguous (it did ask: ``task_incomplete`` is defensible), so its note names that
    as the alternative. A question with no reply recorded counts as answered.
    Writes ``withheld`` (the params' names), ``written`` (the value the agent wrote) and,
    when it asked, ``asked_user`` and ``alternative``.
    """
    withheld = _withheld_names(trace.task.params)
    asked = end.asked_user or any(kind_of(s.action) is ActionKind.ASK_USER for s in trace.steps)
    if not withheld or (asked and _told(trace, withheld)):
        return None
    step = _invented_write(trace, withheld)
    if step is None:
        return None
    ambiguous = {"asked_user": True, "alternative": FailureCode.TASK_INCOMPLETE.value}
    evidence = step.evidence(
        withheld=withheld, written=_written_value(step.action), **(ambiguous if asked else {})
    )
    detail = ", ".join(withheld) + ("; its questions did not bring the detail" if asked else "")
    return note(step.record, FailureCode.USER_INPUT_REQUIRED, evidence, detail=detail)


def _told(trace: EpisodeTrace, withheld: list[str]) -> bool:
    """Whether a reply of the user carried a withheld value (or no reply was recorded)."""
    replies = [m for s in trace.steps for m in s.user_messages]
    values = [str(trace.task.params[n]) for n in withheld if n in trace.task.params]
    if not replies or not values:
        return True
    said = _normalise(" ".join(replies))
    return any(_normalise(v) in said for v in values)


def _withheld_names(params: dict[str, Any]) -> list[str]:
    names = params.get("_withheld")
    if isinstance(names, str):
        return [names]
    return [str(n) for n in names] if isinstance(names, (list, tuple)) else []


def _invented_write(trace: EpisodeTrace, withheld: list[str]) -> TraceStep | None:
    """The first write into a field named like a withheld param, else of a value not given.

    A value the agent could have taken from the instruction (any text in it, such as an
    address built from several params, or another param's value) or the withheld param's
    true value is not an invention.
    """
    params = trace.task.params
    known = {str(v) for v in params.values() if not isinstance(v, (list, dict))}
    instruction = _normalise(trace.task.instruction)
    true_values = {str(params[name]) for name in withheld if name in params}
    writes = [(s, _written_value(s.action)) for s in acting_steps(trace) if _is_write(s)]
    by_name = [
        s
        for s, value in writes
        if _names_withheld_field(s.element, withheld) and value not in true_values
    ]
    invented = [
        s for s, value in writes if value not in known and _normalise(value) not in instruction
    ]
    return next(iter(by_name or invented), None)


def _is_write(step: TraceStep) -> bool:
    return step.kind in _WRITE_ACTIONS and (step.result is None or step.result.ok)


def _names_withheld_field(element: Element | None, withheld: list[str]) -> bool:
    if element is None:
        return False
    label = _normalise(element.name.replace("_", " ").replace("-", " "))
    return any(_normalise(w.replace("_", " ").replace("-", " ")) in label for w in withheld)


def _written_value(action: Action | None) -> str:
    return str(getattr(action, "text", None) or getattr(action, "option", ""))


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())

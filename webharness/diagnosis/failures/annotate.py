"""Choosing the primary failure of an episode: ``annotate`` and its ``FailureReport``.

>>> from webharness.trace.models import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance
>>> from webharness.semantic import SemanticState
>>> task = TaskInstance(task_id="t", env_id="WebEval/t-v0", category="c", seed=0, instruction="")
>>> trace = EpisodeTrace(task=task, steps=[StepRecord(index=0, state=SemanticState())],
...                      end=EpisodeEnd(terminated=True, success=True, ended_by="done"))
>>> annotate(trace).passed
True
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from webharness.actions import ActionKind
from webharness.diagnosis.failures.codes import FailureCode, Stage, root_cause_stage
from webharness.diagnosis.failures.episode_checks import CLAIMING_ENDS, episode_failures
from webharness.diagnosis.failures.evidence import Evidence
from webharness.diagnosis.failures.notes import StepFailure, note, sort_notes
from webharness.diagnosis.failures.signals import is_invalid
from webharness.diagnosis.failures.step_checks import step_failures
from webharness.diagnosis.failures.steps import TraceStep, acting_steps, kind_of
from webharness.semantic import SemanticState
from webharness.trace.models import EndedBy, EpisodeEnd, EpisodeTrace, StepRecord

__all__ = ["AlignmentLike", "Decision", "FailureReport", "annotate"]


class Decision(str, Enum):
    """The rule of ``annotate`` that chose the primary failure (docs/failure-codes.md)."""

    RUNTIME_FAULT = "runtime_fault"  # a harness fault the agent did not get past
    AT_DIVERGENCE = "first_at_divergence"  # the first unrecovered note at/after the divergence
    FIRST_UNRECOVERED = "first_unrecovered"  # no alignment, or no note at/after the divergence
    NO_STEP_FAULT = "no_step_fault"  # nothing more specific: task_incomplete


class AlignmentLike(Protocol):
    """What ``annotate`` reads of a golden-trace alignment.

    ``diagnosis.alignment.Alignment`` has it, and so can a test's stand-in (read-only, so
    either kind of attribute will do).
    """

    @property
    def first_divergence_step(self) -> int | None:
        """The ``StepRecord.index`` where the agent left every golden path, if it did."""
        ...

    @property
    def progress_rate(self) -> float:
        """The share of the golden path's key states the agent reached, in order."""
        ...

    @property
    def fidelity(self) -> float:
        """How closely the agent's states follow the golden path's (nDTW-style, 0-1)."""
        ...

    @property
    def wrong_actions(self) -> Sequence[int]:
        """Agent steps paired with a golden step whose action differs in meaning."""
        ...

    @property
    def skipped_golden_steps(self) -> Sequence[int]:
        """Golden steps the agent never reached."""
        ...

    @property
    def extra_steps(self) -> Sequence[int]:
        """Agent steps paired with no golden step."""
        ...


class FailureReport(BaseModel):
    """The diagnosis of one episode: primary code, step, stage, flags and step notes."""

    model_config = ConfigDict(extra="forbid")

    passed: bool
    code: FailureCode | None = None  # None when passed
    step: int | None = None
    stage: Stage | None = None
    message: str = ""
    evidence: Evidence = Field(default_factory=Evidence)
    false_success: bool = False  # ended with done()/send_msg_to_user, criteria unmet
    false_give_up: bool = False  # report_infeasible on a feasible task
    not_executable: bool = False  # a harness fault: kept out of the success rate
    # the code a reader could also defend: the rule's own alternative (a resubmit rejected
    # again: action_no_effect; a vague question: task_incomplete), else the next
    # unrecovered note's different code; None when nothing else is defensible
    runner_up: FailureCode | None = None
    decided_by: Decision | None = None  # the rule that chose ``code``; None when passed
    # the point of no return, from the alignment (``diagnosis.decisive``); None: none
    decisive_step: int | None = None
    step_notes: list[StepFailure] = Field(default_factory=list)


def annotate(
    trace: EpisodeTrace, alignment: AlignmentLike | None = None, feasible: bool = True
) -> FailureReport:
    """Diagnose one episode: the primary failure code, its step and stage, and step notes.

    Args:
        trace: the recorded episode (``trace.end`` missing means the run never finished).
        alignment: the golden-trace alignment; its ``first_divergence_step`` makes the
            primary code the first unrecovered failure at or after that step.
        feasible: whether the task can be done; ``report_infeasible`` on a feasible task
            sets ``false_give_up``.

    Returns:
        A ``FailureReport``; ``code`` is None when the episode passed. Its evidence is
        the primary note's, with the episode's end, the alignment summary and the
        requests the harness blocked.
    """
    end = trace.end or EpisodeEnd(not_executable=True, error="the trace has no end record")
    false_success = end.ended_by in CLAIMING_ENDS and not end.success
    false_give_up = feasible and end.ended_by == EndedBy.REPORT_INFEASIBLE
    notes = step_failures(trace)
    blocked = _blocked_requests(trace)
    if end.success and not end.not_executable:
        return FailureReport(
            passed=True,
            message="passed",
            evidence=Evidence(blocked_requests=blocked),
            false_success=false_success,
            false_give_up=false_give_up,
            step_notes=notes,
        )
    notes = sort_notes(notes + episode_failures(trace, end))
    primary, decided_by, others = _choose(trace, end, notes, alignment)
    episode = {"ended_by": end.ended_by, "end_error": end.error, "blocked_requests": blocked}
    return FailureReport(
        passed=False,
        code=primary.code,
        step=primary.step,
        stage=root_cause_stage(primary.code, primary.evidence),
        message=primary.message,
        evidence=primary.evidence.model_copy(update={**episode, **_alignment_summary(alignment)}),
        false_success=false_success,
        false_give_up=false_give_up,
        not_executable=primary.code is FailureCode.RUNTIME_ERROR,
        runner_up=_runner_up(primary, others),
        decided_by=decided_by,
        decisive_step=getattr(alignment, "decisive_step", None),
        step_notes=notes,
    )


def _choose(
    trace: EpisodeTrace, end: EpisodeEnd, notes: list[StepFailure], alignment: AlignmentLike | None
) -> tuple[StepFailure, Decision, list[StepFailure]]:
    """The primary note, the rule that chose it, and the other candidates in rank order."""
    runtime = _runtime_fault(trace, end, notes)
    unrecovered = [n for n in notes if not _recovered(n, trace, alignment)]
    if runtime is not None:
        return runtime, Decision.RUNTIME_FAULT, [n for n in unrecovered if n is not runtime]
    start = _divergence(alignment)
    after = [
        n for n in unrecovered if start is not None and max(n.evidence.steps or [n.step]) >= start
    ]
    ranked = after + [n for n in unrecovered if n not in after]
    if ranked:
        decided = Decision.AT_DIVERGENCE if after else Decision.FIRST_UNRECOVERED
        return ranked[0], decided, ranked[1:]
    return _incomplete(trace, end, alignment), Decision.NO_STEP_FAULT, []


def _runner_up(primary: StepFailure, others: list[StepFailure]) -> FailureCode | None:
    """The rule's own alternative, else the next candidate's code where it differs."""
    if primary.evidence.alternative is not None:
        return FailureCode(primary.evidence.alternative)
    return next((n.code for n in others if n.code is not primary.code), None)


def _runtime_fault(
    trace: EpisodeTrace, end: EpisodeEnd, notes: list[StepFailure]
) -> StepFailure | None:
    """A harness fault outranks every agent failure: the episode cannot be judged."""
    faults = [
        n for n in notes if n.code is FailureCode.RUNTIME_ERROR and not _recovered(n, trace, None)
    ]
    if faults:
        return faults[0]
    if end.not_executable or end.ended_by == EndedBy.RUNTIME_ERROR:
        last = trace.steps[-1] if trace.steps else StepRecord(index=0, state=SemanticState())
        evidence = Evidence(action=last.action, error=end.error)
        return note(last, FailureCode.RUNTIME_ERROR, evidence, detail=end.error or "")
    return None


def _incomplete(
    trace: EpisodeTrace, end: EpisodeEnd, alignment: AlignmentLike | None
) -> StepFailure:
    """No step-level fault explains the failure: the agent stopped or wandered."""
    divergence, last = _divergence(alignment), len(trace.steps) - 1
    positions = {s.index: p for p, s in enumerate(trace.steps)}
    # No (known) divergence: the last step.
    pos = _past_waits(trace, last if divergence is None else positions.get(divergence, last))
    if pos < 0:
        return StepFailure(
            step=0, code=FailureCode.TASK_INCOMPLETE, message="no steps were recorded"
        )
    step = TraceStep(trace, pos)
    ended_by = end.ended_by.value if end.ended_by is not None else None
    return note(
        step.record,
        FailureCode.TASK_INCOMPLETE,
        step.evidence(ended_by=end.ended_by),
        detail=f"ended by {ended_by}",
    )


def _past_waits(trace: EpisodeTrace, pos: int) -> int:
    """The first step from ``pos`` on that is not a ``wait()``, if the run has one.

    Waiting longer than the golden run is the page's pace (its content came later), not
    a step off the path: the alignment counts the extra waits, the agent's choice comes after.
    """
    later = (
        p
        for p in range(max(pos, 1), len(trace.steps))
        if kind_of(trace.steps[p].action) is not ActionKind.WAIT
    )
    return next(later, pos)


def _divergence(alignment: AlignmentLike | None) -> int | None:
    """The alignment's first divergence, when an action can have caused it (step 0 has none)."""
    step = alignment.first_divergence_step if alignment is not None else None
    return step if step else None


def _recovered(failure: StepFailure, trace: EpisodeTrace, alignment: AlignmentLike | None) -> bool:
    """Whether the agent later achieved what the failed step attempted (so it explains nothing).

    Reads the note's ``invalid_fields`` and ``alerts`` (a validation error), or its
    ``kind`` and ``element`` (any other step failure). A validation error is also
    recovered when the run got past it as the golden path does (``_passed_as_golden``).
    """
    later = [s for s in acting_steps(trace) if s.index > failure.step]
    if failure.code is FailureCode.VALIDATION_ERROR:
        return any(
            _validation_cleared(failure.evidence, s.record.state) for s in later
        ) or _passed_as_golden(failure.step, _flagged(failure.evidence), trace, alignment)
    if failure.code is FailureCode.USER_INPUT_REQUIRED:
        return False  # the invented value stays written
    return any(_achieves(s, failure.evidence) for s in later)


def _passed_as_golden(
    step: int,
    failure_fields: set[tuple[str, str]],
    trace: EpisodeTrace,
    alignment: AlignmentLike | None,
) -> bool:
    """The golden path met the same rejection and the run went on along it.

    The same rejection: the step is paired with a golden step of the same action, at or
    above the cut, and no flagged field's validity differs between the two states. Went
    on: a later effective step took the golden path's next action to a golden state
    further on. The golden path's own rejections are part of it.
    """
    matched = list(getattr(alignment, "matched", None) or [])
    if not matched:
        return False
    cut = getattr(alignment, "threshold", 0.0) * getattr(alignment, "start_similarity", 1.0)
    at = next((m for m in matched if m.agent_step == step and m.similarity >= cut), None)
    if at is None or not at.action_matches or _validity_differs(at, failure_fields):
        return False
    changed = {s.index for s in acting_steps(trace) if s.changed and not s.failed}
    return any(
        m.agent_step > step
        and m.golden_step > at.golden_step
        and m.similarity >= cut
        and m.action_matches
        and m.agent_step in changed
        for m in matched
    )


def _flagged(evidence: Evidence) -> set[tuple[str, str]]:
    return {(f.role, f.name) for f in evidence.invalid_fields or []}


def _validity_differs(pair: Any, fields: set[tuple[str, str]]) -> bool:
    """Whether a flagged field is valid in one state of the pair and invalid in the other."""
    changed = pair.element_diff.changed
    return any((c.role, c.name) in fields and "invalid" in c.fields for c in changed)


def _validation_cleared(evidence: Evidence, state: SemanticState) -> bool:
    flagged = {(f.role, f.name) for f in evidence.invalid_fields or []}
    still_invalid = any(is_invalid(e) and (e.role, e.name) in flagged for e in state.elements)
    return not still_invalid and not set(evidence.alerts or []) & set(state.alerts)


def _achieves(step: TraceStep, evidence: Evidence) -> bool:
    """An effective action of the same kind on the same element (role+name) as the failure."""
    if step.action is None or not step.changed or step.failed:
        return False
    if evidence.kind is None:  # unparseable output: any working action recovers it
        return True
    wanted, found = evidence.element, step.element
    same_target = wanted is None or (found is not None and wanted.locator == found.locator)
    return step.action.kind == evidence.kind and same_target


def _blocked_requests(trace: EpisodeTrace) -> list[str] | None:
    """What the page or the agent tried to reach and the harness refused, if anything."""
    blocked = trace.steps[-1].state.blocked_requests if trace.steps else []
    return list(blocked) or None


def _alignment_summary(alignment: AlignmentLike | None) -> dict[str, Any]:
    if alignment is None:
        return {}
    return {
        "first_divergence_step": alignment.first_divergence_step,
        "decisive_step": getattr(alignment, "decisive_step", None),
        "progress_rate": alignment.progress_rate,
        "fidelity": alignment.fidelity,
        "wrong_actions": list(alignment.wrong_actions),
        "skipped_golden_steps": list(alignment.skipped_golden_steps),
        "extra_steps": list(alignment.extra_steps),
    }

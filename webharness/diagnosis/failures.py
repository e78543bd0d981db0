"""Failure codes: why an episode failed, at which step, and at which stage of the agent.

``annotate`` reads a saved ``EpisodeTrace`` offline (no browser) and returns a
``FailureAnnotation``: one primary ``FailureCode`` with its step and root-cause stage,
the false-success / false-give-up / not-executable flags, and a ``StepFailure`` note for
every failed or ineffective step. Every rule is a table below; ``docs/failure-codes.md``
gives the same definitions and the reason for each stage mapping.

>>> from webharness.trace.models import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance
>>> from webharness.semantic import SemanticState
>>> task = TaskInstance(task_id="t", env_id="WebEval/t-v0", category="c", seed=0, instruction="")
>>> trace = EpisodeTrace(task=task, steps=[StepRecord(index=0, state=SemanticState())],
...                      end=EpisodeEnd(terminated=True, success=True, ended_by="done"))
>>> annotate(trace).passed
True
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field

from webharness.action_result import ActionErrorKind
from webharness.actions import (
    ENDING_ACTIONS,
    PAGE_FREE_ACTIONS,
    ActionKind,
    ActionParseError,
    parse_action,
)
from webharness.semantic import Element, SemanticState
from webharness.trace.models import EpisodeEnd, EpisodeTrace, StepRecord

__all__ = [
    "DEFINITIONS",
    "ERROR_CODES",
    "STAGE_RULES",
    "STAGE_REFINEMENTS",
    "AlignmentLike",
    "FailureAnnotation",
    "FailureCode",
    "RootCauseStage",
    "StageRefinement",
    "StepFailure",
    "annotate",
    "root_cause_stage",
    "step_failures",
]


class FailureCode(str, Enum):
    """Why an episode (or one step of it) failed; ``.definition`` says what each means."""

    MODEL_PROTOCOL = "model_protocol"
    OBSERVATION_MISS = "observation_miss"
    STALE_INDEX = "stale_index"
    ACTION_NO_EFFECT = "action_no_effect"
    UNSUPPORTED_CONTROL = "unsupported_control"
    VALIDATION_ERROR = "validation_error"
    WAITING_TIMEOUT = "waiting_timeout"
    USER_INPUT_REQUIRED = "user_input_required"
    REPEATED_ACTION = "repeated_action"
    TASK_INCOMPLETE = "task_incomplete"
    RUNTIME_ERROR = "runtime_error"

    @property
    def definition(self) -> str:
        """The one-line definition, word for word as in docs/failure-codes.md."""
        return DEFINITIONS[self]


class RootCauseStage(str, Enum):
    """The stage of the agent's perceive → understand → decide → act loop that failed."""

    PERCEPTION = "perception"
    UNDERSTANDING = "understanding"
    DECISION = "decision"
    EXECUTION = "execution"
    ENVIRONMENT = "environment"  # not the agent: the harness or the browser


Stage = RootCauseStage  # the short name of the public API
DEFINITIONS: dict[FailureCode, str] = {
    FailureCode.MODEL_PROTOCOL: "The agent's output could not be parsed as an action (UNPARSEABLE).",
    FailureCode.OBSERVATION_MISS: (
        "The agent acted on something not on the page: a ref that never existed (UNKNOWN_REF), "
        "an element with no box on screen (NOT_VISIBLE), or an option the control does not "
        "offer (INVALID_ARGUMENT)."
    ),
    FailureCode.STALE_INDEX: (
        "The agent used a ref from an earlier observation whose element has since gone (STALE_REF)."
    ),
    FailureCode.ACTION_NO_EFFECT: (
        "The action was refused (NOT_INTERACTABLE, NAVIGATION_BLOCKED) or ran but changed "
        "nothing where a change was needed, e.g. clicking a disabled button."
    ),
    FailureCode.UNSUPPORTED_CONTROL: (
        "The action does not work on that kind of control, e.g. fill() on a custom dropdown "
        "(UNSUPPORTED_CONTROL)."
    ),
    FailureCode.VALIDATION_ERROR: (
        "The app rejected the agent's input: after the action a field became invalid, or a new "
        "alert appeared while the page did not move on."
    ),
    FailureCode.WAITING_TIMEOUT: (
        "The agent acted or answered before awaited content arrived: an action timed out "
        "(TIMEOUT), or the episode was ended while the page showed a loading indicator."
    ),
    FailureCode.USER_INPUT_REQUIRED: (
        "A detail the task withholds (task.params['_withheld']) was needed; the agent never "
        "asked the user and wrote an invented value instead."
    ),
    FailureCode.REPEATED_ACTION: "The agent took the same ineffective action three or more times in a row.",
    FailureCode.TASK_INCOMPLETE: (
        "The episode ended or ran out of steps with the criteria unmet, and no more specific "
        "code explains it."
    ),
    FailureCode.RUNTIME_ERROR: (
        "The harness or browser failed (BROWSER_ERROR, or an episode end marked not "
        "executable); the episode is not executable and stays out of the success rate."
    ),
}

# The action error kinds the harness reports, and the code each one is evidence of.
ERROR_CODES: dict[ActionErrorKind, FailureCode] = {
    ActionErrorKind.UNPARSEABLE: FailureCode.MODEL_PROTOCOL,
    ActionErrorKind.UNKNOWN_REF: FailureCode.OBSERVATION_MISS,
    ActionErrorKind.NOT_VISIBLE: FailureCode.OBSERVATION_MISS,
    ActionErrorKind.INVALID_ARGUMENT: FailureCode.OBSERVATION_MISS,
    ActionErrorKind.STALE_REF: FailureCode.STALE_INDEX,
    ActionErrorKind.NOT_INTERACTABLE: FailureCode.ACTION_NO_EFFECT,
    ActionErrorKind.NAVIGATION_BLOCKED: FailureCode.ACTION_NO_EFFECT,
    ActionErrorKind.UNSUPPORTED_CONTROL: FailureCode.UNSUPPORTED_CONTROL,
    ActionErrorKind.TIMEOUT: FailureCode.WAITING_TIMEOUT,
    ActionErrorKind.BROWSER_ERROR: FailureCode.RUNTIME_ERROR,
}

# Base stage per code; the reasons are in docs/failure-codes.md.
STAGE_RULES: dict[FailureCode, RootCauseStage] = {
    FailureCode.MODEL_PROTOCOL: RootCauseStage.EXECUTION,
    FailureCode.OBSERVATION_MISS: RootCauseStage.PERCEPTION,
    FailureCode.STALE_INDEX: RootCauseStage.PERCEPTION,
    FailureCode.ACTION_NO_EFFECT: RootCauseStage.EXECUTION,
    FailureCode.UNSUPPORTED_CONTROL: RootCauseStage.EXECUTION,
    FailureCode.VALIDATION_ERROR: RootCauseStage.UNDERSTANDING,
    FailureCode.WAITING_TIMEOUT: RootCauseStage.PERCEPTION,
    FailureCode.USER_INPUT_REQUIRED: RootCauseStage.DECISION,
    FailureCode.REPEATED_ACTION: RootCauseStage.DECISION,
    FailureCode.TASK_INCOMPLETE: RootCauseStage.DECISION,
    FailureCode.RUNTIME_ERROR: RootCauseStage.ENVIRONMENT,
}


class StageRefinement(NamedTuple):
    """When ``evidence[key] == value`` for ``code``, the stage is ``stage`` instead."""

    code: FailureCode
    key: str
    value: Any
    stage: RootCauseStage


# Evidence that moves a code off its base stage; first match wins.
STAGE_REFINEMENTS: tuple[StageRefinement, ...] = (
    # The observation showed the control disabled: the agent missed it, the click was fine.
    StageRefinement(
        FailureCode.ACTION_NO_EFFECT, "target_disabled", True, RootCauseStage.PERCEPTION
    ),
    # The ref named a heading, a text or a cell, which the observation showed as no control.
    StageRefinement(
        FailureCode.ACTION_NO_EFFECT, "target_interactive", False, RootCauseStage.PERCEPTION
    ),
    # Leaving the task's site is a choice, not a clumsy click.
    StageRefinement(
        FailureCode.ACTION_NO_EFFECT,
        "error",
        ActionErrorKind.NAVIGATION_BLOCKED.value,
        RootCauseStage.DECISION,
    ),
)

# Actions whose purpose is to change the page; a no-op of theirs is a failure.
_CHANGE_EXPECTED = frozenset(
    {
        ActionKind.CLICK,
        ActionKind.FILL,
        ActionKind.SELECT_OPTION,
        ActionKind.CHECK,
        ActionKind.UNCHECK,
        ActionKind.PRESS,
        ActionKind.MOUSE_CLICK,
        ActionKind.KEYBOARD_TYPE,
        ActionKind.GOTO,
        ActionKind.GO_BACK,
    }
)
# Keys that only move focus, which the state fingerprint leaves out on purpose.
_FOCUS_KEYS = frozenset({"Tab", "Shift+Tab"})
# Text fields, where a click only moves focus (and the caret).
_FOCUS_ROLES = frozenset({"textbox", "searchbox", "spinbutton"})
# A control already in the state the action asks for needs no change.
_ALREADY_SATISFIED: dict[ActionKind, Callable[[Any, Element], bool]] = {
    ActionKind.CLICK: lambda action, e: e.role in _FOCUS_ROLES or e.selected is True,
    ActionKind.FILL: lambda action, e: e.value == action.text,
    ActionKind.SELECT_OPTION: lambda action, e: e.value == action.option,
    ActionKind.CHECK: lambda action, e: e.checked is True,
    ActionKind.UNCHECK: lambda action, e: e.checked is False,
}
_WRITE_ACTIONS = frozenset({ActionKind.FILL, ActionKind.SELECT_OPTION, ActionKind.KEYBOARD_TYPE})
_CLAIMING_ENDS = frozenset({ActionKind.DONE.value, ActionKind.SEND_MSG_TO_USER.value})
_BUSY_ROLES = frozenset({"progressbar"})
# Page *content* (not our error messages): the words sites use for a pending load.
_BUSY_WORDS = re.compile(r"\b(loading|please wait|fetching|generating)\b", re.IGNORECASE)
# A disabled button named like "Running…" or "Saving...": work under way.
_WORKING_SUFFIXES = ("…", "...")
# Errors after which the page never found the ref's node, so nothing is known about it.
_TARGET_UNSEEN = frozenset(
    {
        ActionErrorKind.UNPARSEABLE,
        ActionErrorKind.UNKNOWN_REF,
        ActionErrorKind.STALE_REF,
        ActionErrorKind.BROWSER_ERROR,
    }
)

_NOTE_TEXT: dict[FailureCode, str] = {
    FailureCode.MODEL_PROTOCOL: "the output is not a valid action",
    FailureCode.OBSERVATION_MISS: "the target is not on the page",
    FailureCode.STALE_INDEX: "the ref is from an earlier observation and its element has gone",
    FailureCode.ACTION_NO_EFFECT: "the action changed nothing",
    FailureCode.UNSUPPORTED_CONTROL: "the action does not work on this control",
    FailureCode.VALIDATION_ERROR: "the app rejected the input",
    FailureCode.WAITING_TIMEOUT: "acted before the awaited content arrived",
    FailureCode.USER_INPUT_REQUIRED: "wrote a withheld detail without asking the user",
    FailureCode.REPEATED_ACTION: "the same ineffective action was repeated",
    FailureCode.TASK_INCOMPLETE: "the episode ended with the criteria unmet",
    FailureCode.RUNTIME_ERROR: "the harness or browser failed",
}


class AlignmentLike(Protocol):
    """What ``annotate`` reads from a golden-trace alignment (``webharness.diagnosis.alignment``)."""

    golden_path: Any
    matched: Sequence[Any]
    extra_steps: list[int]
    skipped_golden_steps: list[int]
    wrong_actions: list[int]
    first_divergence_step: int | None  # a StepRecord.index
    progress_rate: float
    fidelity: float


class StepFailure(BaseModel):
    """One failed or ineffective step, with what the trace showed about it."""

    model_config = ConfigDict(extra="forbid")

    step: int  # StepRecord.index of the step whose action failed
    code: FailureCode
    message: str
    evidence: dict[str, Any] = Field(default_factory=dict)


class FailureAnnotation(BaseModel):
    """The diagnosis of one episode: primary code, step, stage, flags and step notes."""

    model_config = ConfigDict(extra="forbid")

    passed: bool
    code: FailureCode | None = None  # None when passed
    step: int | None = None
    stage: RootCauseStage | None = None
    message: str = ""
    evidence: dict[str, Any] = Field(default_factory=dict)
    false_success: bool = False  # ended with done()/send_msg_to_user, criteria unmet
    false_give_up: bool = False  # report_infeasible on a feasible task
    not_executable: bool = False  # a harness fault: kept out of the success rate
    step_notes: list[StepFailure] = Field(default_factory=list)


def root_cause_stage(code: FailureCode, evidence: dict[str, Any] | None = None) -> RootCauseStage:
    """The stage a failure belongs to: ``STAGE_RULES`` unless a ``STAGE_REFINEMENTS`` row matches.

    >>> root_cause_stage(FailureCode.ACTION_NO_EFFECT, {"target_disabled": True})
    <RootCauseStage.PERCEPTION: 'perception'>
    """
    evidence = evidence or {}
    for rule in STAGE_REFINEMENTS:
        if rule.code is code and rule.key in evidence and evidence[rule.key] == rule.value:
            return rule.stage
    return STAGE_RULES[code]


def annotate(
    trace: EpisodeTrace, alignment: AlignmentLike | None = None, feasible: bool = True
) -> FailureAnnotation:
    """Diagnose one episode: the primary failure code, its step and stage, and step notes.

    Args:
        trace: the recorded episode (``trace.end`` missing means the run never finished).
        alignment: the golden-trace alignment; its ``first_divergence_step`` makes the
            primary code the first unrecovered failure at or after that step.
        feasible: whether the task can be done; ``report_infeasible`` on a feasible task
            sets ``false_give_up``.

    Returns:
        A ``FailureAnnotation``; ``code`` is None when the episode passed.
    """
    end = trace.end or EpisodeEnd(not_executable=True, error="the trace has no end record")
    passed = end.success and not end.not_executable
    flags = {
        "false_success": end.ended_by in _CLAIMING_ENDS and not end.success,
        "false_give_up": feasible and end.ended_by == ActionKind.REPORT_INFEASIBLE.value,
    }
    notes = step_failures(trace)
    contained = _blocked_requests(trace)
    if passed:
        return FailureAnnotation(
            passed=True, message="passed", step_notes=notes, evidence=contained, **flags
        )
    notes = _sorted(notes + _episode_failures(trace, end))
    primary = _runtime_fault(trace, end, notes) or _first_explaining(trace, notes, alignment)
    primary = primary or _incomplete(trace, end, alignment)
    return FailureAnnotation(
        passed=False,
        code=primary.code,
        step=primary.step,
        stage=root_cause_stage(primary.code, primary.evidence),
        message=primary.message,
        evidence={
            **primary.evidence,
            "ended_by": end.ended_by,
            "end_error": end.error,
            **_alignment_evidence(alignment),
            **contained,
        },
        not_executable=primary.code is FailureCode.RUNTIME_ERROR,
        step_notes=notes,
        **flags,
    )


def step_failures(trace: EpisodeTrace) -> list[StepFailure]:
    """A note for every failed or ineffective step, in step order (no episode-level checks)."""
    notes: list[StepFailure] = []
    for pos in range(1, len(trace.steps)):
        if trace.steps[pos].action is not None:
            notes += [
                n for n in (_action_failure(trace, pos), _validation_failure(trace, pos)) if n
            ]
    return _sorted(notes + _repeated_actions(trace))


# --- per-step checks -------------------------------------------------------------------


def _action_failure(trace: EpisodeTrace, pos: int) -> StepFailure | None:
    """The action's own error kind, or a no-op where a change was needed."""
    step, action = trace.steps[pos], _parse(trace.steps[pos].action)
    result = step.action_result
    # Without a recorded result, an action we cannot parse is still a protocol error.
    error = result.error if result else (None if action else ActionErrorKind.UNPARSEABLE)
    context = _context(trace, pos)
    if error is not None:
        extra = {"error": error.value, "result_message": result.message if result else ""}
        return _note(step, ERROR_CODES[error], {**context, **extra})
    if (
        action is not None
        and _needs_change(action, _resolve(trace, pos))
        and not _changed(trace, pos)
    ):
        return _note(step, FailureCode.ACTION_NO_EFFECT, context)
    return None


def _validation_failure(trace: EpisodeTrace, pos: int) -> StepFailure | None:
    """A field newly invalid, or a new alert while the page stayed put, after a page action."""
    before, step = trace.steps[pos - 1], trace.steps[pos]
    action = _parse(step.action)
    if action is None or ActionKind(action.kind) in PAGE_FREE_ACTIONS:
        return None
    invalid = _newly_invalid(before.state, step.state)
    alerts = _rejection_alerts(before, step)
    if not invalid and not alerts:
        return None
    evidence = {**_context(trace, pos), "invalid_fields": invalid, "alerts": alerts}
    shown = "; ".join([f"{f['name']}: {f['message']}" for f in invalid] + alerts)
    return _note(step, FailureCode.VALIDATION_ERROR, evidence, detail=shown)


def _newly_invalid(before: SemanticState, after: SemanticState) -> list[dict[str, str]]:
    was_invalid = {(e.role, e.name) for e in before.elements if _is_invalid(e)}
    return [
        {"role": e.role, "name": e.name, "message": e.validation_message}
        for e in after.elements
        if _is_invalid(e) and (e.role, e.name) not in was_invalid
    ]


def _rejection_alerts(before: StepRecord, step: StepRecord) -> list[str]:
    """New alerts count as a rejection only when the app did not move on.

    A status such as "3 results found" or "Saved" comes with new elements, new app data,
    a new URL or met criteria; a rejection leaves all of those as they were.
    """
    diff = before.state.diff(step.state)
    if step.success or diff.url_changed or diff.app_changed or diff.added:
        return []
    return [
        a for a in step.state.alerts if a not in before.state.alerts and not _BUSY_WORDS.search(a)
    ]


def _repeated_actions(trace: EpisodeTrace) -> list[StepFailure]:
    """One note per run of 3+ identical, consecutive, ineffective actions, at its first step."""
    keys = [(pos, _repeat_key(trace, pos)) for pos in range(1, len(trace.steps))]
    notes = []
    for key, group in itertools.groupby(keys, key=lambda item: item[1]):
        positions = [pos for pos, _ in group]
        if key is not None and len(positions) >= 3:
            steps = [trace.steps[p].index for p in positions]
            evidence = {**_context(trace, positions[0]), "count": len(steps), "steps": steps}
            notes.append(
                _note(
                    trace.steps[positions[0]],
                    FailureCode.REPEATED_ACTION,
                    evidence,
                    detail=f"{len(steps)} times in a row",
                )
            )
    return notes


def _repeat_key(trace: EpisodeTrace, pos: int) -> str | None:
    """The normalised action when it was ineffective, else None.

    Ineffective: it failed, or it changed nothing where a change was needed. Waiting,
    scrolling or hovering again is not a repeated failure, nor are outputs that are no
    action or end the episode.
    """
    step, action = trace.steps[pos], _parse(trace.steps[pos].action)
    if action is None or ActionKind(action.kind) in ENDING_ACTIONS:
        return None
    failed = step.action_result is not None and not step.action_result.ok
    no_effect = not _changed(trace, pos) and _needs_change(action, _resolve(trace, pos))
    return action.dsl() if failed or no_effect else None


# --- episode-level checks (failed episodes only) ---------------------------------------


def _episode_failures(trace: EpisodeTrace, end: EpisodeEnd) -> list[StepFailure]:
    return [n for n in (_premature_end(trace, end), _invented_input(trace, end)) if n]


def _premature_end(trace: EpisodeTrace, end: EpisodeEnd) -> StepFailure | None:
    """Ended with done()/an answer while the page the agent saw showed a loading indicator.

    An answer missing from a settled page is not evidence of waiting: a made-up answer,
    or "done" sent as a message, reads the same (``task_incomplete`` covers those).
    """
    if end.ended_by not in _CLAIMING_ENDS or len(trace.steps) < 2:
        return None
    busy = _busy_signals(trace.steps[-2].state)  # what the agent observed when it chose to end
    if not busy:
        return None
    evidence = {
        **_context(trace, len(trace.steps) - 1),
        "busy": busy,
        "final_answer": end.final_answer,
    }
    return _note(
        trace.steps[-1], FailureCode.WAITING_TIMEOUT, evidence, detail=f"page showed {busy}"
    )


def _invented_input(trace: EpisodeTrace, end: EpisodeEnd) -> StepFailure | None:
    """A withheld detail written without ever asking the user."""
    params = trace.task.params
    withheld = _withheld_names(params)
    asked = end.asked_user or any(_kind(s.action) is ActionKind.ASK_USER for s in trace.steps)
    if not withheld or asked:
        return None
    pos = _invented_write(trace, withheld)
    if pos is None:
        return None
    action = _parse(trace.steps[pos].action)
    evidence = {**_context(trace, pos), "withheld": withheld, "written": _written_value(action)}
    return _note(
        trace.steps[pos], FailureCode.USER_INPUT_REQUIRED, evidence, detail=", ".join(withheld)
    )


def _withheld_names(params: dict[str, Any]) -> list[str]:
    names = params.get("_withheld")
    if isinstance(names, str):
        return [names]
    return [str(n) for n in names] if isinstance(names, (list, tuple)) else []


def _invented_write(trace: EpisodeTrace, withheld: list[str]) -> int | None:
    """The first write into a field named like a withheld param, else of a value not given.

    A value the agent could have taken from the instruction (any text in it, such as an
    address built from several params, or another param's value) or the withheld param's
    true value is not an invention.
    """
    params = trace.task.params
    known = {str(v) for v in params.values() if not isinstance(v, (list, dict))}
    instruction = _normalise(trace.task.instruction)
    true_values = {str(params[name]) for name in withheld if name in params}
    writes = [p for p in range(1, len(trace.steps)) if _is_write(trace, p)]
    values = {p: _written_value(_parse(trace.steps[p].action)) for p in writes}
    by_name = [
        p
        for p in writes
        if _names_withheld_field(_resolve(trace, p), withheld) and values[p] not in true_values
    ]
    invented = [
        p for p in writes if values[p] not in known and _normalise(values[p]) not in instruction
    ]
    return (by_name or invented or [None])[0]


def _is_write(trace: EpisodeTrace, pos: int) -> bool:
    result = trace.steps[pos].action_result
    return _kind(trace.steps[pos].action) in _WRITE_ACTIONS and (result is None or result.ok)


def _names_withheld_field(element: Element | None, withheld: list[str]) -> bool:
    if element is None:
        return False
    label = _normalise(element.name.replace("_", " ").replace("-", " "))
    return any(_normalise(w.replace("_", " ").replace("-", " ")) in label for w in withheld)


def _written_value(action: Any) -> str:
    return str(getattr(action, "text", None) or getattr(action, "option", ""))


# --- choosing the primary failure ------------------------------------------------------


def _runtime_fault(
    trace: EpisodeTrace, end: EpisodeEnd, notes: list[StepFailure]
) -> StepFailure | None:
    """A harness fault outranks every agent failure: the episode cannot be judged."""
    faults = [n for n in notes if n.code is FailureCode.RUNTIME_ERROR and not _recovered(n, trace)]
    if faults:
        return faults[0]
    if end.not_executable or end.ended_by == "runtime_error":
        last = trace.steps[-1] if trace.steps else StepRecord(index=0, state=SemanticState())
        evidence = {"action": last.action, "error": end.error}
        return _note(last, FailureCode.RUNTIME_ERROR, evidence, detail=end.error or "")
    return None


def _first_explaining(
    trace: EpisodeTrace, notes: list[StepFailure], alignment: AlignmentLike | None
) -> StepFailure | None:
    """The first unrecovered note, preferring those at or after the first divergence.

    A note that spans steps (a repeated-action run) counts as at or after the divergence
    when the run reaches it.
    """
    unrecovered = [n for n in notes if not _recovered(n, trace)]
    start = _divergence(alignment)
    after = [
        n
        for n in unrecovered
        if start is not None and max(n.evidence.get("steps") or [n.step]) >= start
    ]
    return (after or unrecovered or [None])[0]


def _incomplete(
    trace: EpisodeTrace, end: EpisodeEnd, alignment: AlignmentLike | None
) -> StepFailure:
    """No step-level fault explains the failure: the agent stopped or wandered."""
    divergence = _divergence(alignment)
    positions = {s.index: p for p, s in enumerate(trace.steps)}
    pos = positions.get(divergence, len(trace.steps) - 1)  # no (known) divergence: the last step
    pos = _past_waits(trace, pos)
    if pos < 0:
        return StepFailure(
            step=0, code=FailureCode.TASK_INCOMPLETE, message="no steps were recorded"
        )
    evidence = {**_context(trace, pos), "ended_by": end.ended_by}
    return _note(
        trace.steps[pos], FailureCode.TASK_INCOMPLETE, evidence, detail=f"ended by {end.ended_by}"
    )


def _past_waits(trace: EpisodeTrace, pos: int) -> int:
    """The first step from ``pos`` on that is not a ``wait()``, if the run has one.

    Waiting longer than the golden run is the page's pace (its content came later), not
    a step off the path: the alignment counts the extra waits, the agent's choice comes after.
    """
    later = [
        p
        for p in range(max(pos, 1), len(trace.steps))
        if _kind(trace.steps[p].action) is not ActionKind.WAIT
    ]
    return later[0] if later else pos


def _divergence(alignment: AlignmentLike | None) -> int | None:
    """The alignment's first divergence, when an action can have caused it (step 0 has none)."""
    step = alignment.first_divergence_step if alignment is not None else None
    return step if step else None


def _recovered(note: StepFailure, trace: EpisodeTrace) -> bool:
    """Whether the agent later achieved what the failed step attempted (so it explains nothing)."""
    later = [p for p, s in enumerate(trace.steps) if s.index > note.step]
    if note.code is FailureCode.VALIDATION_ERROR:
        return any(_validation_cleared(note, trace.steps[p].state) for p in later)
    if note.code is FailureCode.USER_INPUT_REQUIRED:
        return False  # the invented value stays written
    return any(_achieves(trace, p, note.evidence) for p in later)


def _validation_cleared(note: StepFailure, state: SemanticState) -> bool:
    flagged = {(f["role"], f["name"]) for f in note.evidence.get("invalid_fields", [])}
    still_invalid = any(_is_invalid(e) and (e.role, e.name) in flagged for e in state.elements)
    return not still_invalid and not set(note.evidence.get("alerts", [])) & set(state.alerts)


def _achieves(trace: EpisodeTrace, pos: int, evidence: dict[str, Any]) -> bool:
    """An effective action of the same kind on the same element (role+name) as the failure."""
    step, action = trace.steps[pos], _parse(trace.steps[pos].action)
    if (
        action is None
        or not _changed(trace, pos)
        or (step.action_result and not step.action_result.ok)
    ):
        return False
    if evidence.get("kind") is None:  # unparseable output: any working action recovers it
        return True
    wanted = evidence.get("element")
    same_target = wanted is None or _locator(wanted) == _locator(_view(_resolve(trace, pos)))
    return action.kind == evidence["kind"] and same_target


# --- small helpers ---------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _parse(text: str | None) -> Any:
    """The typed action, or None for output that is not one (actions are frozen: safe to share)."""
    if text is None:
        return None
    try:
        return parse_action(text)
    except ActionParseError:
        return None


def _kind(text: str | None) -> ActionKind | None:
    action = _parse(text)
    return ActionKind(action.kind) if action is not None else None


def _resolve(trace: EpisodeTrace, pos: int) -> Element | None:
    """The element the step's ref named, from the latest earlier state that had it.

    Searching back past the previous state is what resolves a stale ref.
    """
    action = _parse(trace.steps[pos].action)
    ref = action.ref_target if action is not None else None
    if ref is None:
        return None
    return next(
        (e for p in range(pos - 1, -1, -1) if (e := trace.steps[p].state.by_ref(ref))), None
    )


def _changed(trace: EpisodeTrace, pos: int) -> bool:
    result = trace.steps[pos].action_result
    if result is not None:
        return result.state_changed
    return bool(trace.steps[pos - 1].state.diff(trace.steps[pos].state))


def _needs_change(action: Any, element: Element | None) -> bool:
    kind = ActionKind(action.kind)
    if kind not in _CHANGE_EXPECTED or (kind is ActionKind.PRESS and action.key in _FOCUS_KEYS):
        return False
    satisfied = _ALREADY_SATISFIED.get(kind)
    return not (satisfied and element is not None and satisfied(action, element))


def _context(trace: EpisodeTrace, pos: int) -> dict[str, Any]:
    """The action, its kind, the element it targeted as the agent saw it, and the page after."""
    step, action = trace.steps[pos], _parse(trace.steps[pos].action)
    element = _resolve(trace, pos)
    context: dict[str, Any] = {
        "action": step.action,
        "kind": action.kind if action is not None else None,
        "element": _view(element),
        "page": {
            "url": step.state.url,
            "alerts": step.state.alerts[:],
            "dialogs": step.state.dialogs[:],
        },
    }
    if element is not None:
        context["target_disabled"] = element.disabled
    elif action is not None and action.ref_target and _target_found(step):
        context["target_interactive"] = False  # the page had the ref: a heading, text, cell...
    return context


def _target_found(step: StepRecord) -> bool:
    """Whether the page found the node the step's ref named (whatever happened next)."""
    result = step.action_result
    return result is not None and result.error not in _TARGET_UNSEEN


def _view(element: Element | None) -> dict[str, str] | None:
    """The element as evidence: its ref then, and the role+name that outlive the ref."""
    return (
        None
        if element is None
        else {"ref": element.ref, "role": element.role, "name": element.name}
    )


def _locator(view: dict[str, str] | None) -> tuple[str, str] | None:
    return None if view is None else (view["role"], view["name"])


def _note(
    step: StepRecord, code: FailureCode, evidence: dict[str, Any], detail: str = ""
) -> StepFailure:
    element = evidence.get("element")
    target = f" on {element['role']} {element['name']!r}" if element else ""
    suffix = f" ({detail})" if detail else ""
    message = f"step {step.index}: {step.action!r}{target}: {_NOTE_TEXT[code]}{suffix}"
    return StepFailure(step=step.index, code=code, message=message, evidence=evidence)


def _sorted(notes: list[StepFailure]) -> list[StepFailure]:
    # At one step, a repeated-action run explains more than the single no-op that starts it.
    return sorted(notes, key=lambda n: (n.step, n.code is not FailureCode.REPEATED_ACTION))


def _busy_signals(state: SemanticState) -> list[str]:
    """Loading indicators: a progressbar, a disabled "Running…" button, or a busy word in
    alerts, dialogs or page text."""
    roles = [
        f"{e.role} {e.name!r}"
        for e in state.elements
        if e.role in _BUSY_ROLES
        or (e.role == "button" and e.disabled and e.name.rstrip().endswith(_WORKING_SUFFIXES))
    ]
    texts = [t for t in (*state.alerts, *state.dialogs) if _BUSY_WORDS.search(t)]
    in_page = _BUSY_WORDS.search(state.text)
    return roles + texts + ([f"text {in_page.group(0)!r}"] if in_page else [])


def _is_invalid(element: Element) -> bool:
    return element.invalid or bool(element.validation_message)


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


def _blocked_requests(trace: EpisodeTrace) -> dict[str, Any]:
    """What the page or the agent tried to reach and the harness refused, if anything."""
    blocked = trace.steps[-1].state.blocked_requests if trace.steps else []
    return {"blocked_requests": list(blocked)} if blocked else {}


def _alignment_evidence(alignment: AlignmentLike | None) -> dict[str, Any]:
    if alignment is None:
        return {}
    return {
        "first_divergence_step": alignment.first_divergence_step,
        "progress_rate": alignment.progress_rate,
        "fidelity": alignment.fidelity,
        "wrong_actions": list(alignment.wrong_actions),
        "skipped_golden_steps": list(alignment.skipped_golden_steps),
        "extra_steps": list(alignment.extra_steps),
    }

"""The failure codes, the root-cause stages, and the tables that tie them together.

``docs/failure-codes.md`` gives the same definitions and the reason for each stage mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, NamedTuple

from webharness.action_result import ActionErrorKind
from webharness.diagnosis.failures.evidence import Evidence

__all__ = [
    "DEFINITIONS",
    "ERROR_CODES",
    "NOTE_TEXT",
    "STAGE_REFINEMENTS",
    "STAGE_RULES",
    "FailureCode",
    "Stage",
    "StageRefinement",
    "root_cause_stage",
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


class Stage(str, Enum):
    """The stage of the agent's perceive → understand → decide → act loop that failed."""

    PERCEPTION = "perception"
    UNDERSTANDING = "understanding"
    DECISION = "decision"
    EXECUTION = "execution"
    ENVIRONMENT = "environment"  # not the agent: the harness or the browser


DEFINITIONS: dict[FailureCode, str] = {
    FailureCode.MODEL_PROTOCOL: (
        "The agent's output could not be parsed as an action (UNPARSEABLE)."
    ),
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
        "The app, or the browser's constraint validation, rejected the agent's input: after the "
        "action a field became invalid, a new alert that does not read as a success appeared "
        "while the page did not move on, or a resubmit met the same rejection again."
    ),
    FailureCode.WAITING_TIMEOUT: (
        "The agent acted or answered before awaited content arrived: an action timed out "
        "(TIMEOUT) or was cut short by a navigation of the page's own (PAGE_UNSETTLED), or "
        "the episode was ended while the page showed a loading indicator."
    ),
    FailureCode.USER_INPUT_REQUIRED: (
        "A detail the task withholds (task.params['_withheld']) was needed; the agent never "
        "got it from the user (it did not ask, or no reply carried it) and wrote an invented "
        "value instead."
    ),
    FailureCode.REPEATED_ACTION: (
        "The agent took the same ineffective action three or more times in a row."
    ),
    FailureCode.TASK_INCOMPLETE: (
        "The episode ended or ran out of steps with the criteria unmet, and no more specific "
        "code explains it."
    ),
    FailureCode.RUNTIME_ERROR: (
        "The harness or browser failed (BROWSER_ERROR, or an episode end marked not "
        "executable); the episode is not executable and stays out of the success rate."
    ),
}

# The short text of a step note, after "step N: <action> on <target>: ".
NOTE_TEXT: dict[FailureCode, str] = {
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
    ActionErrorKind.PAGE_UNSETTLED: FailureCode.WAITING_TIMEOUT,
    ActionErrorKind.BROWSER_ERROR: FailureCode.RUNTIME_ERROR,
}

# Base stage per code; the reasons are in docs/failure-codes.md.
STAGE_RULES: dict[FailureCode, Stage] = {
    FailureCode.MODEL_PROTOCOL: Stage.EXECUTION,
    FailureCode.OBSERVATION_MISS: Stage.PERCEPTION,
    FailureCode.STALE_INDEX: Stage.PERCEPTION,
    FailureCode.ACTION_NO_EFFECT: Stage.EXECUTION,
    FailureCode.UNSUPPORTED_CONTROL: Stage.EXECUTION,
    FailureCode.VALIDATION_ERROR: Stage.UNDERSTANDING,
    FailureCode.WAITING_TIMEOUT: Stage.PERCEPTION,
    FailureCode.USER_INPUT_REQUIRED: Stage.DECISION,
    FailureCode.REPEATED_ACTION: Stage.DECISION,
    FailureCode.TASK_INCOMPLETE: Stage.DECISION,
    FailureCode.RUNTIME_ERROR: Stage.ENVIRONMENT,
}


class StageRefinement(NamedTuple):
    """When ``evidence.<key> == value`` for ``code``, the stage is ``stage`` instead."""

    code: FailureCode
    key: str  # an Evidence field
    value: Any
    stage: Stage


# Evidence that moves a code off its base stage; first match wins.
STAGE_REFINEMENTS: tuple[StageRefinement, ...] = (
    # The observation showed the control disabled: the agent missed it, the click was fine.
    StageRefinement(FailureCode.ACTION_NO_EFFECT, "target_disabled", True, Stage.PERCEPTION),
    # The ref named a heading, a text or a cell, which the observation showed as no control.
    StageRefinement(FailureCode.ACTION_NO_EFFECT, "target_interactive", False, Stage.PERCEPTION),
    # Leaving the task's site is a choice, not a clumsy click.
    StageRefinement(
        FailureCode.ACTION_NO_EFFECT,
        "error",
        ActionErrorKind.NAVIGATION_BLOCKED.value,
        Stage.DECISION,
    ),
)


def root_cause_stage(
    code: FailureCode, evidence: Evidence | Mapping[str, Any] | None = None
) -> Stage:
    """The stage a failure belongs to: ``STAGE_RULES`` unless a ``STAGE_REFINEMENTS`` row matches.

    Args:
        code: the failure code.
        evidence: the note's evidence, or a dict of Evidence fields.

    Returns:
        The stage.

    >>> root_cause_stage(FailureCode.ACTION_NO_EFFECT, {"target_disabled": True})
    <Stage.PERCEPTION: 'perception'>
    """
    if not isinstance(evidence, Evidence):
        evidence = Evidence.model_validate(evidence or {})
    for rule in STAGE_REFINEMENTS:
        if rule.code is code and getattr(evidence, rule.key) == rule.value:
            return rule.stage
    return STAGE_RULES[code]

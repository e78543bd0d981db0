"""What a failure note shows: the ``Evidence`` model and the small records inside it.

Every field is written by one rule, named in its comment, and left None elsewhere; None
fields are left out of the dump, so a note's JSON has the keys its rule wrote. For the
readers of the dict it replaced, ``Evidence`` also reads like one: ``evidence["element"]``
(the value as JSON types: a dict, a string for an enum; None for a field no rule wrote),
``"busy" in evidence`` (written or not) and ``{**evidence}``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from webharness.action_result import PointerHit
from webharness.semantic import Element, SemanticLocator, SemanticState
from webharness.trace.models import EndedBy

__all__ = ["ElementRef", "Evidence", "InvalidField", "PageSnapshot"]


class ElementRef(BaseModel):
    """An element as evidence: its ref at the time, and the role+name that outlive the ref."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ref: str
    role: str
    name: str

    @classmethod
    def of(cls, element: Element) -> ElementRef:
        return cls(ref=element.ref, role=element.role, name=element.name)

    @property
    def locator(self) -> SemanticLocator:
        return SemanticLocator(role=self.role, name=self.name)


class PageSnapshot(BaseModel):
    """Where the page was after the step, and what it said."""

    model_config = ConfigDict(extra="forbid")

    url: str
    alerts: list[str]
    dialogs: list[str]

    @classmethod
    def of(cls, state: SemanticState) -> PageSnapshot:
        return cls(url=state.url, alerts=state.alerts[:], dialogs=state.dialogs[:])


class InvalidField(BaseModel):
    """A field the app marked invalid after the step."""

    model_config = ConfigDict(extra="forbid")

    role: str
    name: str
    message: str
    # who rejected it: "browser" (Chromium's constraint validation) or "app"
    rejected_by: str = "app"


class Evidence(BaseModel):
    """What the trace showed about a failure; each field says which rule writes it."""

    model_config = ConfigDict(extra="forbid")

    # Every step note (``TraceStep.evidence``); ``annotate`` reads kind and element to
    # tell a recovered failure, ``root_cause_stage`` reads target_disabled/_interactive.
    action: str | None = None  # the DSL string the agent sent
    kind: str | None = None  # its ActionKind value; None: the output is no action
    element: ElementRef | None = None  # its target as the agent saw it
    page: PageSnapshot | None = None
    target_disabled: bool | None = None  # set when the target was found in a state
    target_interactive: bool | None = None  # False: the page had the ref, but as no control
    pointer: PointerHit | None = None  # a pointer action's hit (ActionResult.pointer)
    # stale_point: the point held ``element`` in an earlier observation, not in the last
    stale_point: bool | None = None
    # action_failure, and a runtime fault from the episode end; ``root_cause_stage`` reads error.
    error: str | None = None  # the ActionErrorKind value, or the end's error text
    result_message: str | None = None
    # validation_failure and same_rejection_again; ``annotate`` reads both to tell when
    # the rejection was cleared.
    invalid_fields: list[InvalidField] | None = None
    alerts: list[str] | None = None
    # same_rejection_again: the submit that met the rejection already on the page
    rejected_again: bool | None = None
    # a rule that chose between two defensible codes names the other one (a FailureCode
    # value); ``annotate`` reports it as the runner-up
    alternative: str | None = None
    # repeated_actions; ``annotate`` reads steps to place the run against the divergence.
    count: int | None = None
    steps: list[int] | None = None  # StepRecord.index of each repeat
    # premature_end
    busy: list[str] | None = None  # the loading indicators the agent saw
    final_answer: str | None = None
    # invented_input
    withheld: list[str] | None = None  # the withheld params' names
    written: str | None = None
    asked_user: bool | None = None  # True: it asked, but no reply carried the detail
    # annotate: the episode's end (ended_by also on a task_incomplete note), the alignment
    # summary, what the harness refused
    ended_by: EndedBy | None = None
    end_error: str | None = None
    first_divergence_step: int | None = None
    decisive_step: int | None = None
    progress_rate: float | None = None
    fidelity: float | None = None
    wrong_actions: list[int] | None = None
    skipped_golden_steps: list[int] | None = None
    extra_steps: list[int] | None = None
    blocked_requests: list[str] | None = None

    @model_serializer(mode="wrap")
    def _written_fields_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # None means "no rule wrote it": the dump holds only the fields a rule wrote.
        return {k: v for k, v in handler(self).items() if v is not None}

    # --- read as a mapping of the fields a rule wrote ------------------------------------

    def keys(self) -> list[str]:
        """The names of the fields a rule wrote (not None), in declaration order."""
        return [k for k in type(self).model_fields if getattr(self, k) is not None]

    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:
            raise KeyError(key)
        value = getattr(self, key)
        return None if value is None else self.model_dump(mode="json", include={key})[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self.keys()

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

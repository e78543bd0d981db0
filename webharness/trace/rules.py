"""User checks over a whole trace, grouped in phases and weighted.

A rule is anything with ``id``, ``phase``, ``weight`` that, called with an
``EpisodeTrace``, returns ``(passed, message)``. The common cases are declarative (they
live in ``task.yaml`` under ``trace_rules:``); anything else is a Python function.

>>> rules = load_rules([{"kind": "must_happen", "id": "save", "phase": "submit",
...                      "action": "click", "role": "button", "name": "Save"}])
>>> rules[0].phase
'submit'
>>> @trace_rule(phase="verify", weight=2)                        # doctest: +SKIP
... def few_steps(trace): return len(trace.steps) < 10, f"{len(trace.steps)} steps"
>>> evaluate_rules(trace, [*rules, few_steps]).score             # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from webharness.actions import ActionKind
from webharness.errors import TaskSpecError, did_you_mean
from webharness.trace.models import EpisodeTrace
from webharness.trace.signatures import ActionSignature, action_signature

__all__ = [
    "ActionPattern",
    "CallableRule",
    "DeclarativeRule",
    "FieldValue",
    "MustHappen",
    "MustNotHappen",
    "NeverVisit",
    "Order",
    "RuleReport",
    "RuleResult",
    "TraceRule",
    "evaluate_rules",
    "load_rules",
    "trace_rule",
]

RuleOutcome = tuple[bool, str]


@runtime_checkable
class TraceRule(Protocol):
    """What ``evaluate_rules`` runs: a named, phased, weighted check of a trace. Read-only
    members, so frozen rules (``CallableRule``, the declared rule models) satisfy it."""

    @property
    def id(self) -> str: ...

    @property
    def phase(self) -> str: ...

    @property
    def weight(self) -> float: ...

    def __call__(self, trace: EpisodeTrace) -> RuleOutcome: ...


@dataclass(frozen=True)
class CallableRule:
    """A plain Python function ``trace -> (passed, message)`` as a ``TraceRule``."""

    fn: Callable[[EpisodeTrace], RuleOutcome | bool]
    id: str
    phase: str = "default"
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not self.weight > 0:
            raise ValueError(f"rule {self.id!r}: weight must be > 0, got {self.weight!r}")

    def __call__(self, trace: EpisodeTrace) -> RuleOutcome:
        outcome = self.fn(trace)
        return (outcome, "") if isinstance(outcome, bool) else (bool(outcome[0]), str(outcome[1]))


def trace_rule(
    *, id: str | None = None, phase: str = "default", weight: float = 1.0
) -> Callable[[Callable[[EpisodeTrace], RuleOutcome | bool]], CallableRule]:
    """Decorator turning ``fn(trace) -> (passed, message)`` into a ``CallableRule``."""

    def wrap(fn: Callable[[EpisodeTrace], RuleOutcome | bool]) -> CallableRule:
        return CallableRule(fn, id or fn.__name__, phase, weight)

    return wrap


# --- declarative rules -----------------------------------------------------------------


class ActionPattern(BaseModel):
    """Which actions a rule is about: a kind, optionally a target role/name and a value.

    The kind matches what the action was written as or what it did (a click that ticked
    a checkbox matches ``check``); names compare case-insensitively; refs never matter.
    """

    model_config = ConfigDict(extra="forbid")

    action: ActionKind
    role: str | None = None
    name: str | None = None
    value: str | None = None

    def matches(self, sig: ActionSignature) -> bool:
        return (
            self.action.value in (sig.kind, sig.effect)
            and (self.role is None or self.role == sig.role)
            and (self.name is None or self.name.strip().lower() == (sig.name or "").strip().lower())
            and (self.value is None or self.value == sig.value)
        )

    def describe(self) -> str:
        target = (
            f" {self.role or 'element'} {self.name!r}"
            if self.name is not None
            else (f" {self.role}" if self.role else "")
        )
        return f"{self.action.value}{target}" + (
            f" = {self.value!r}" if self.value is not None else ""
        )


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    phase: str = "default"  # free text: navigate, fill, submit, verify, ...
    weight: float = Field(default=1.0, gt=0)


class MustHappen(_Rule, ActionPattern):
    """Some step ran a matching action (failed actions did not happen)."""

    kind: Literal["must_happen"] = "must_happen"

    def __call__(self, trace: EpisodeTrace) -> RuleOutcome:
        step = next((i for i, sig in _executed(trace) if self.matches(sig)), None)
        if step is None:
            return False, f"no step did {self.describe()}"
        return True, f"step {step} did {self.describe()}"


class MustNotHappen(_Rule, ActionPattern):
    """No step ran a matching action."""

    kind: Literal["must_not_happen"] = "must_not_happen"

    def __call__(self, trace: EpisodeTrace) -> RuleOutcome:
        steps = [i for i, sig in _executed(trace) if self.matches(sig)]
        if steps:
            more = f" (and {len(steps) - 1} more)" if steps[1:] else ""
            return False, f"step {steps[0]} did {self.describe()}{more}"
        return True, f"no step did {self.describe()}"


class Order(_Rule):
    """``first`` happened, and its first occurrence came before ``then``'s first occurrence."""

    kind: Literal["order"] = "order"
    first: ActionPattern
    then: ActionPattern

    def __call__(self, trace: EpisodeTrace) -> RuleOutcome:
        executed = list(_executed(trace))
        a = next((i for i, sig in executed if self.first.matches(sig)), None)
        b = next((i for i, sig in executed if self.then.matches(sig)), None)
        want = f"{self.first.describe()} before {self.then.describe()}"
        if a is None or b is None:
            missing = self.first if a is None else self.then
            return False, f"{want}: no step did {missing.describe()}"
        return (a < b), f"{want}: steps {a} and {b}"


class FieldValue(_Rule):
    """In the final state, the element with this role+name has this value / checked state."""

    kind: Literal["field_value"] = "field_value"
    role: str
    name: str
    value: str | None = None
    checked: bool | None = None

    @model_validator(mode="after")
    def _wants_something(self) -> FieldValue:
        if self.value is None and self.checked is None:
            raise ValueError("field_value needs 'value' or 'checked'")
        return self

    def __call__(self, trace: EpisodeTrace) -> RuleOutcome:
        if not trace.steps:
            return False, "the trace has no steps"
        found = trace.steps[-1].state.find(self.role, self.name)
        if not found:
            return False, f"no {self.role} {self.name!r} in the final state"
        e = found[0]
        if self.value is not None and e.value != self.value:
            return False, f"{self.role} {self.name!r} is {e.value!r}, expected {self.value!r}"
        if self.checked is not None and e.checked != self.checked:
            return False, f"{self.role} {self.name!r} checked={e.checked}, expected {self.checked}"
        return True, f"{self.role} {self.name!r} as expected"


class NeverVisit(_Rule):
    """No state's URL and no blocked request starts with ``prefix`` (an origin or URL)."""

    kind: Literal["never_visit"] = "never_visit"
    prefix: str = Field(min_length=1)

    def __call__(self, trace: EpisodeTrace) -> RuleOutcome:
        for step in trace.steps:
            for url in [step.state.url, *step.state.blocked_requests]:
                if url.startswith(self.prefix):
                    return False, f"step {step.index} reached {url}"
        return True, f"never reached {self.prefix}"


DeclarativeRule = Annotated[
    MustHappen | MustNotHappen | Order | FieldValue | NeverVisit, Field(discriminator="kind")
]
_RULES: TypeAdapter[list[Any]] = TypeAdapter(list[DeclarativeRule])
_KINDS = ("must_happen", "must_not_happen", "order", "field_value", "never_visit")


def load_rules(data: list[dict[str, Any]] | None, source: str = "task.yaml") -> list[Any]:
    """Validate a ``trace_rules:`` list of dicts into declarative rules.

    Raises:
        TaskSpecError: naming ``source``, the field path (``trace_rules[2].weight``) and value.
    """
    try:
        rules = _RULES.validate_python(data or [])
    except ValidationError as exc:
        raise _spec_error(exc, source) from None
    seen: set[str] = set()
    for n, rule in enumerate(rules):
        if rule.id in seen:
            raise TaskSpecError(source, f"trace_rules[{n}].id", rule.id, "rule ids must be unique")
        seen.add(rule.id)
    return rules


def _spec_error(exc: ValidationError, source: str) -> TaskSpecError:
    err = exc.errors()[0]
    loc = list(err["loc"])
    path = f"trace_rules[{loc[0]}]" if loc else "trace_rules"
    # loc is (index, kind tag, field, ...): the tag is not a field of the YAML
    path += "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[2:])
    problem = err["msg"]
    if err["type"] == "union_tag_invalid":
        problem += did_you_mean(str(err["input"].get("kind")), _KINDS)
    return TaskSpecError(source, path, err.get("input"), problem)


def _executed(trace: EpisodeTrace) -> Iterator[tuple[int, ActionSignature]]:
    """(step index, signature) of every action that ran without error."""
    for i, step in enumerate(trace.steps):
        if step.action is not None and (step.action_result is None or step.action_result.ok):
            sig = action_signature(trace, i)
            if sig is not None:
                yield step.index, sig


# --- evaluation ------------------------------------------------------------------------


class RuleResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    phase: str
    weight: float
    passed: bool
    message: str = ""


class RuleReport(BaseModel):
    """Weighted pass rates overall and per phase, and what failed."""

    model_config = ConfigDict(extra="forbid")

    score: float = 1.0  # weighted fraction of rules passed; 1.0 with no rules
    phases: dict[str, float] = Field(default_factory=dict)  # same, per phase
    passed: list[str] = Field(default_factory=list)  # rule ids
    failed: list[RuleResult] = Field(default_factory=list)


def evaluate_rules(
    trace: EpisodeTrace, rules: Iterable[TraceRule | Callable[[EpisodeTrace], Any]]
) -> RuleReport:
    """Run every rule on the trace and score them per phase and overall.

    Args:
        trace: the episode to check.
        rules: declarative rules (``load_rules``), ``CallableRule`` objects, or bare
            functions ``trace -> (passed, message)`` (phase "default", weight 1).

    Returns:
        A ``RuleReport``. A rule that raises fails, with the exception as its message.
    """
    results = [_run(_as_rule(rule), trace) for rule in rules]
    return RuleReport(
        score=_weighted(results),
        phases={
            p: _weighted([r for r in results if r.phase == p])
            for p in dict.fromkeys(r.phase for r in results)
        },
        passed=[r.id for r in results if r.passed],
        failed=[r for r in results if not r.passed],
    )


def _as_rule(rule: Any) -> TraceRule:
    if isinstance(rule, TraceRule):
        return rule
    if callable(rule):
        return CallableRule(rule, getattr(rule, "__name__", repr(rule)))
    raise TypeError(f"a trace rule is a TraceRule or a callable, got {type(rule).__name__}")


def _run(rule: TraceRule, trace: EpisodeTrace) -> RuleResult:
    try:
        passed, message = rule(trace)
    except Exception as exc:  # a user's check must not sink a whole evaluation run
        passed, message = False, f"rule raised {type(exc).__name__}: {exc}"
    return RuleResult(
        id=rule.id, phase=rule.phase, weight=rule.weight, passed=bool(passed), message=message
    )


def _weighted(results: list[RuleResult]) -> float:
    total = sum(r.weight for r in results)
    return sum(r.weight for r in results if r.passed) / total if total else 1.0

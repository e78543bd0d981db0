"""Success criteria: declarative, composable, judged on page and app state only.

Every criterion is a small pydantic model with ``holds(ctx)``; ``all``/``any``/``not``
compose them. Criteria never read the agent's claim of success, only the final answer
text where the task asks for one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, model_validator

from webharness.semantic import SemanticState
from webharness.spec.checks import SPEC_CONFIG, check_regex
from webharness.spec.page_reward import PageOutcome, PageReward
from webharness.spec.templating import Amount, Placeholder, filled


@dataclass
class CriteriaContext:
    """What criteria may look at after a step."""

    state: SemanticState
    final_answer: str | None = None
    asked_user: bool = False
    js: dict[str, Any] = field(default_factory=dict)  # JS predicate source -> its value now
    js_errors: dict[str, str] = field(default_factory=dict)  # JS source -> what it threw


def _norm(text: Any) -> str:
    return " ".join(str(text).split()).lower()


class _Criterion(BaseModel):
    model_config = SPEC_CONFIG


class Scope(BaseModel):
    """An ancestor to look within: a node of the page (a list item, a row, a region, a
    dialog) by role and name. Element criteria and golden targets take one as ``within``."""

    model_config = SPEC_CONFIG

    role: str
    name: str
    exact: bool = True  # False: the name contains ``name`` (a list item's text, say)


def _scopes(state: SemanticState, scope: Scope | None) -> list[str] | None:
    """The refs ``within`` names (None: no scope, anywhere on the page)."""
    return None if scope is None else state.scopes(scope.role, scope.name, scope.exact)


class UrlIs(_Criterion):
    """The page URL equals, contains, or (its path) matches."""

    kind: Literal["url"] = "url"
    equals: str | None = None
    contains: str | None = None
    path: str | None = None  # compared with the URL's path, query left out
    # a regular expression, searched in the whole URL
    matches: Annotated[str, AfterValidator(check_regex)] | None = None

    def holds(self, ctx: CriteriaContext) -> bool:
        url = ctx.state.url
        path = re.sub(r"^[a-z]+://[^/]+", "", url).split("?")[0].split("#")[0] or "/"
        return (
            (self.equals is None or url == self.equals)
            and (self.contains is None or self.contains in url)
            and (self.path is None or path == self.path)
            and (self.matches is None or re.search(self.matches, url) is not None)
        )


class TitleIs(_Criterion):
    kind: Literal["title"] = "title"
    equals: str | None = None
    contains: str | None = None

    def holds(self, ctx: CriteriaContext) -> bool:
        title = _norm(ctx.state.title)
        return (self.equals is None or title == _norm(self.equals)) and (
            self.contains is None or _norm(self.contains) in title
        )


class HeadingShown(_Criterion):
    """A heading with this text (and level, when given) is on the page."""

    kind: Literal["heading"] = "heading"
    text: str
    level: int | Placeholder | None = None
    exact: bool = True

    def holds(self, ctx: CriteriaContext) -> bool:
        want, level = _norm(self.text), filled(self.level)
        return any(
            (level is None or h.level == level)
            and (_norm(h.text) == want if self.exact else want in _norm(h.text))
            for h in ctx.state.headings
        )


class ElementState(_Criterion):
    """An element found by role and name (``within`` an ancestor, when given) exists (or
    not) and has the given states."""

    kind: Literal["element"] = "element"
    role: str
    name: str
    exact: bool = True
    within: Scope | None = None
    exists: bool = True
    value: str | None = None
    checked: bool | None = None
    selected: bool | None = None
    disabled: bool | None = None
    expanded: bool | None = None
    invalid: bool | None = None
    pressed: bool | None = None

    def holds(self, ctx: CriteriaContext) -> bool:
        within = _scopes(ctx.state, self.within)
        candidates = ctx.state.find(self.role, self.name, self.exact, within)
        found = [e for e in candidates if self._matches(e)]
        return bool(found) == self.exists

    def _matches(self, element: Any) -> bool:
        states = {"checked", "selected", "disabled", "expanded", "invalid", "pressed"}
        wanted = self.model_dump(include=states, exclude_none=True)
        if self.value is not None and _norm(element.value or "") != _norm(self.value):
            return False
        return all(bool(getattr(element, k)) == v for k, v in wanted.items())


class Current(_Criterion):
    """The element (role and name) is the page's current one: ``aria-current`` (the nav link
    of this page, the step of a wizard), the selected tab, or a pressed toggle button."""

    kind: Literal["current"] = "current"
    role: str
    name: str
    exact: bool = True
    within: Scope | None = None

    def holds(self, ctx: CriteriaContext) -> bool:
        within = _scopes(ctx.state, self.within)
        return any(e.is_current for e in ctx.state.find(self.role, self.name, self.exact, within))


class Count(_Criterion):
    """How many elements and nodes of a role (and name, ``within`` an ancestor) the page
    has, or how many match a CSS ``selector``: exactly ``count``, or from ``min`` to ``max``."""

    kind: Literal["count"] = "count"
    role: str | None = None
    name: str | None = None
    exact: bool = True
    within: Scope | None = None
    selector: str | None = None  # counted in the page: document.querySelectorAll
    count: Amount | None = None
    min: Amount | None = None
    max: Amount | None = None

    @model_validator(mode="after")
    def _one_way_to_count(self) -> Count:
        if (self.role is None) == (self.selector is None):
            raise ValueError("give either role (and name, within) or selector, not both")
        if self.selector is not None and (self.name is not None or self.within is not None):
            raise ValueError("name and within go with role; write a selector's scope into it")
        if self.count is None and self.min is None and self.max is None:
            raise ValueError("give count, or min and/or max")
        if self.count is not None and (self.min is not None or self.max is not None):
            raise ValueError("give count, or min and/or max, not both")
        low, high = self.min, self.max
        if isinstance(low, int) and isinstance(high, int) and low > high:
            raise ValueError(f"min {low} is above max {high}: no count lies in between")
        return self

    @property
    def expression(self) -> str | None:
        """The JS the page evaluates for a selector count (None for a count by role)."""
        if self.selector is None:
            return None
        return f"document.querySelectorAll({json.dumps(self.selector)}).length"

    def holds(self, ctx: CriteriaContext) -> bool:
        if self.expression is not None:
            value = ctx.js.get(self.expression)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return False
            n = int(value)
        else:
            within = _scopes(ctx.state, self.within)
            n = ctx.state.count(self.role or "", self.name, self.exact, within)
        count, low, high = filled(self.count), filled(self.min), filled(self.max)
        if count is not None:
            return n == count
        return (low is None or n >= low) and (high is None or n <= high)


class TextVisible(_Criterion):
    """Text is (or is not) in the page's visible text."""

    kind: Literal["text"] = "text"
    text: str
    present: bool = True

    def holds(self, ctx: CriteriaContext) -> bool:
        return (_norm(self.text) in _norm(ctx.state.text)) == self.present


class FinalAnswer(_Criterion):
    """The agent's final message contains / equals a text, or states a number."""

    kind: Literal["answer"] = "answer"
    contains: str | None = None
    equals: str | None = None
    number: float | Placeholder | None = None
    tolerance: float | Placeholder = 0.0

    def holds(self, ctx: CriteriaContext) -> bool:
        if ctx.final_answer is None:
            return False
        answer = _norm(ctx.final_answer)
        if self.contains is not None and _norm(self.contains) not in answer:
            return False
        if self.equals is not None and answer != _norm(self.equals):
            return False
        number, tolerance = filled(self.number), filled(self.tolerance)
        if number is not None:
            numbers = [
                float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*\.?\d*", ctx.final_answer)
            ]
            return any(abs(n - number) <= tolerance for n in numbers)
        return True


class DbRecords(_Criterion):
    """Rows of a backend collection matching ``where``: exactly ``count``, or at least
    ``min_count``."""

    kind: Literal["db"] = "db"
    collection: str
    where: dict[str, Any] = Field(default_factory=dict)
    count: Amount | None = None
    min_count: Amount | None = None

    def matching(self, state: SemanticState) -> list[dict[str, Any]]:
        rows = state.app.get(self.collection, [])
        return [row for row in rows if all(_same(row.get(k), v) for k, v in self.where.items())]

    def holds(self, ctx: CriteriaContext) -> bool:
        hits = len(self.matching(ctx.state))
        count, least = filled(self.count), filled(self.min_count)
        if count is not None:
            return hits == count
        return hits >= (least if least is not None else 1)


class AskedUser(_Criterion):
    kind: Literal["asked_user"] = "asked_user"
    asked: bool = True

    def holds(self, ctx: CriteriaContext) -> bool:
        return ctx.asked_user == self.asked


class JsPredicate(_Criterion):
    """A JavaScript expression evaluated in the page after each step; holds when truthy."""

    kind: Literal["js"] = "js"
    expression: str

    def holds(self, ctx: CriteriaContext) -> bool:
        return self.expression not in ctx.js_errors and bool(ctx.js.get(self.expression))


class AllOf(_Criterion):
    kind: Literal["all"] = "all"
    of: list[Criterion] = Field(min_length=1)

    def holds(self, ctx: CriteriaContext) -> bool:
        return all(c.holds(ctx) for c in self.of)


class AnyOf(_Criterion):
    kind: Literal["any"] = "any"
    of: list[Criterion] = Field(min_length=1)

    def holds(self, ctx: CriteriaContext) -> bool:
        return any(c.holds(ctx) for c in self.of)


class Not(_Criterion):
    kind: Literal["not"] = "not"
    criterion: Criterion

    def holds(self, ctx: CriteriaContext) -> bool:
        return not self.criterion.holds(ctx)


class Eventually(_Criterion):
    """The criterion holds within ``within_ms`` of the episode's end, for apps that save
    asynchronously: when the episode ends with the criteria unmet, the env waits (bounded
    by the largest ``within_ms``) for the page to change until they hold. After each step
    it is judged at once, as the criterion it wraps."""

    kind: Literal["eventually"] = "eventually"
    within_ms: int = Field(ge=1, le=60_000)
    criterion: Criterion

    def holds(self, ctx: CriteriaContext) -> bool:
        return self.criterion.holds(ctx)


Criterion = Annotated[
    UrlIs
    | TitleIs
    | HeadingShown
    | ElementState
    | TextVisible
    | FinalAnswer
    | DbRecords
    | AskedUser
    | JsPredicate
    | Current
    | Count
    | PageReward
    | AllOf
    | AnyOf
    | Not
    | Eventually,
    Field(discriminator="kind"),
]
for _model in (AllOf, AnyOf, Not, Eventually):
    _model.model_rebuild()


def walk(criterion: Any) -> list[Any]:
    """The criterion and every criterion nested in it."""
    nested = getattr(criterion, "of", None) or (
        [criterion.criterion] if isinstance(criterion, (Not, Eventually)) else []
    )
    return [criterion, *(c for child in nested for c in walk(child))]


def js_expressions(criterion: Any) -> list[str]:
    """The JS a criterion tree needs evaluated in the page: its predicates, its selector
    counts, a page reward's two expressions."""
    found = [getattr(c, "expression", None) for c in walk(criterion)]
    found += [e for c in walk(criterion) for e in getattr(c, "expressions", ())]
    return list(dict.fromkeys(e for e in found if e is not None))


def uses_scopes(criterion: Any) -> bool:
    """Whether judging the tree needs the page's nodes (a scope, a count by role)."""
    return any(
        getattr(c, "within", None) is not None or (isinstance(c, Count) and c.role is not None)
        for c in walk(criterion)
    )


def page_outcome(criterion: Any, ctx: CriteriaContext) -> PageOutcome | None:
    """Where the page's own episode stands, for a tree with a ``page_reward`` (else None)."""
    found = next((c for c in walk(criterion) if isinstance(c, PageReward)), None)
    return found.outcome(ctx) if found is not None else None


def settle_ms(criterion: Any) -> int:
    """How long the env may wait at the episode's end for the tree to hold (``eventually``)."""
    return max((c.within_ms for c in walk(criterion) if isinstance(c, Eventually)), default=0)


def criteria_errors(criterion: Any, ctx: CriteriaContext) -> list[str]:
    """What the tree's JavaScript threw in this state, one line each: a criterion that
    cannot be judged is an error the task's author must see, never a silent false."""
    return [
        f"js criterion {expression!r} threw {ctx.js_errors[expression]}"
        for expression in js_expressions(criterion)
        if expression in ctx.js_errors
    ]


def _same(actual: Any, expected: Any) -> bool:
    """Stored value vs the spec's: exact up to surrounding and repeated white space (case
    counts: "exact text" means it); a number and its digits as a string are the same."""
    if actual is None:
        return expected is None
    if isinstance(expected, bool) or isinstance(actual, bool):
        return bool(actual) == bool(expected)
    if isinstance(expected, str) or isinstance(actual, str):
        return " ".join(str(actual).split()) == " ".join(str(expected).split())
    return bool(actual == expected)

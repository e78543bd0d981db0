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
from webharness.spec.page_reward import PageReward
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
    """An ancestor to look within: a node of the page found by role and name.

    The node is a list item, a row, a region or a dialog, say. Element criteria and golden
    targets take one as ``within``.
    """

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
        """Whether the URL meets every condition given (none given: any URL)."""
        url = ctx.state.url
        path = re.sub(r"^[a-z]+://[^/]+", "", url).split("?")[0].split("#")[0] or "/"
        return (
            (self.equals is None or url == self.equals)
            and (self.contains is None or self.contains in url)
            and (self.path is None or path == self.path)
            and (self.matches is None or re.search(self.matches, url) is not None)
        )


class TitleIs(_Criterion):
    """The page title equals or contains a text (case and spacing ignored)."""

    kind: Literal["title"] = "title"
    equals: str | None = None
    contains: str | None = None

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether the title meets every condition given, case and spacing ignored."""
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
        """Whether a heading of the page has this text (and level)."""
        want, level = _norm(self.text), filled(self.level)
        return any(
            (level is None or h.level == level)
            and (_norm(h.text) == want if self.exact else want in _norm(h.text))
            for h in ctx.state.headings
        )


class ElementState(_Criterion):
    """An element found by role and name exists (or not) and has the given states.

    With ``within``, the element is looked for inside that ancestor only.
    """

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
        """Whether a match of role, name, value and states is there (``exists: false``: none)."""
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
    """The element (role and name) is the page's current one.

    Current means ``aria-current`` (the nav link of this page, the step of a wizard), the
    selected tab, or a pressed toggle button.
    """

    kind: Literal["current"] = "current"
    role: str
    name: str
    exact: bool = True
    within: Scope | None = None

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether an element with this role and name is marked current."""
        within = _scopes(ctx.state, self.within)
        return any(e.is_current for e in ctx.state.find(self.role, self.name, self.exact, within))


class Count(_Criterion):
    """The page has exactly ``count``, or from ``min`` to ``max``, of something countable.

    What is counted is the elements and nodes of a role (and name, ``within`` an
    ancestor), or the nodes that match a CSS ``selector``.
    """

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
        """Whether the count is in range; a selector count the page did not give is not."""
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
        """Whether the text's presence, case and spacing ignored, is as ``present`` says."""
        return (_norm(self.text) in _norm(ctx.state.text)) == self.present


class FinalAnswer(_Criterion):
    """The agent's final message contains / equals a text, or states a number."""

    kind: Literal["answer"] = "answer"
    contains: str | None = None
    equals: str | None = None
    number: float | Placeholder | None = None
    tolerance: float | Placeholder = 0.0

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether there is a final answer and it meets every condition given."""
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
    """Rows of a backend collection that match ``where``.

    There must be exactly ``count`` of them, or at least ``min_count`` (default: one).
    """

    kind: Literal["db"] = "db"
    collection: str
    where: dict[str, Any] = Field(default_factory=dict)
    count: Amount | None = None
    min_count: Amount | None = None

    def matching(self, state: SemanticState) -> list[dict[str, Any]]:
        """The collection's rows whose fields equal ``where``'s values (see ``_same``)."""
        rows = state.app.get(self.collection, [])
        return [row for row in rows if all(_same(row.get(k), v) for k, v in self.where.items())]

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether the number of matching rows is as required."""
        hits = len(self.matching(ctx.state))
        count, least = filled(self.count), filled(self.min_count)
        if count is not None:
            return hits == count
        return hits >= (least if least is not None else 1)


class AskedUser(_Criterion):
    """The agent asked the user a question (or, ``asked: false``, did not)."""

    kind: Literal["asked_user"] = "asked_user"
    asked: bool = True

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether the agent's asking matches ``asked``."""
        return ctx.asked_user == self.asked


class JsPredicate(_Criterion):
    """A JavaScript expression evaluated in the page after each step; holds when truthy."""

    kind: Literal["js"] = "js"
    expression: str

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether the expression's value is truthy; one that threw does not hold."""
        return self.expression not in ctx.js_errors and bool(ctx.js.get(self.expression))


class AllOf(_Criterion):
    """Every one of the criteria ``of`` holds."""

    kind: Literal["all"] = "all"
    of: list[Criterion] = Field(min_length=1)

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether all the nested criteria hold."""
        return all(c.holds(ctx) for c in self.of)


class AnyOf(_Criterion):
    """At least one of the criteria ``of`` holds."""

    kind: Literal["any"] = "any"
    of: list[Criterion] = Field(min_length=1)

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether at least one nested criterion holds."""
        return any(c.holds(ctx) for c in self.of)


class Not(_Criterion):
    """The nested criterion does not hold."""

    kind: Literal["not"] = "not"
    criterion: Criterion

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether the nested criterion fails."""
        return not self.criterion.holds(ctx)


class Eventually(_Criterion):
    """The criterion holds within ``within_ms`` of the episode's end.

    It is for apps that save asynchronously: when the episode ends with the criteria
    unmet, the env waits (bounded by the largest ``within_ms``) for the page to change
    until they hold. After each step it is judged at once, as the criterion it wraps.
    """

    kind: Literal["eventually"] = "eventually"
    within_ms: int = Field(ge=1, le=60_000)
    criterion: Criterion

    def holds(self, ctx: CriteriaContext) -> bool:
        """Whether the wrapped criterion holds now (the env does the waiting)."""
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


def _same(actual: Any, expected: Any) -> bool:
    """Whether a stored value is the spec's: exact up to surrounding and repeated spaces.

    Case counts ("exact text" means it); a number and its digits as a string are the
    same; booleans compare by truth.
    """
    if actual is None:
        return expected is None
    if isinstance(expected, bool) or isinstance(actual, bool):
        return bool(actual) == bool(expected)
    if isinstance(expected, str) or isinstance(actual, str):
        return " ".join(str(actual).split()) == " ".join(str(expected).split())
    return bool(actual == expected)

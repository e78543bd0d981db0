"""Success criteria: declarative, composable, judged on page and app state only.

Every criterion is a small pydantic model with ``holds(ctx)``; ``all``/``any``/``not``
compose them. Criteria never read the agent's claim of success, only the final answer
text where the task asks for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field

from webharness.semantic import SemanticState
from webharness.spec.checks import SPEC_CONFIG, check_regex


@dataclass
class CriteriaContext:
    """What criteria may look at after a step."""

    state: SemanticState
    final_answer: str | None = None
    asked_user: bool = False
    js: dict[str, Any] = field(default_factory=dict)  # JS predicate source -> its value now


def _norm(text: Any) -> str:
    return " ".join(str(text).split()).lower()


class _Criterion(BaseModel):
    model_config = SPEC_CONFIG


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
    level: int | None = None
    exact: bool = True

    def holds(self, ctx: CriteriaContext) -> bool:
        want = _norm(self.text)
        return any(
            (self.level is None or h.level == self.level)
            and (_norm(h.text) == want if self.exact else want in _norm(h.text))
            for h in ctx.state.headings
        )


class ElementState(_Criterion):
    """An element found by role and name exists (or not) and has the given states."""

    kind: Literal["element"] = "element"
    role: str
    name: str
    exists: bool = True
    value: str | None = None
    checked: bool | None = None
    selected: bool | None = None
    disabled: bool | None = None
    expanded: bool | None = None
    invalid: bool | None = None

    def holds(self, ctx: CriteriaContext) -> bool:
        found = [e for e in ctx.state.find(self.role, self.name) if self._matches(e)]
        return bool(found) == self.exists

    def _matches(self, element: Any) -> bool:
        wanted = {
            k: v
            for k, v in self.model_dump(
                include={"checked", "selected", "disabled", "expanded", "invalid"}
            ).items()
            if v is not None
        }
        if self.value is not None and _norm(element.value or "") != _norm(self.value):
            return False
        return all(bool(getattr(element, k)) == v for k, v in wanted.items())


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
    number: float | None = None
    tolerance: float = 0.0

    def holds(self, ctx: CriteriaContext) -> bool:
        if ctx.final_answer is None:
            return False
        answer = _norm(ctx.final_answer)
        if self.contains is not None and _norm(self.contains) not in answer:
            return False
        if self.equals is not None and answer != _norm(self.equals):
            return False
        if self.number is not None:
            numbers = [
                float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*\.?\d*", ctx.final_answer)
            ]
            return any(abs(n - self.number) <= self.tolerance for n in numbers)
        return True


class DbRecords(_Criterion):
    """Rows of a backend collection matching ``where``: exactly ``count``, or at least
    ``min_count``."""

    kind: Literal["db"] = "db"
    collection: str
    where: dict[str, Any] = Field(default_factory=dict)
    count: int | None = None
    min_count: int | None = None

    def holds(self, ctx: CriteriaContext) -> bool:
        rows = ctx.state.app.get(self.collection, [])
        hits = sum(1 for row in rows if all(_same(row.get(k), v) for k, v in self.where.items()))
        if self.count is not None:
            return hits == self.count
        return hits >= (self.min_count if self.min_count is not None else 1)


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
        return bool(ctx.js.get(self.expression))


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
    | AllOf
    | AnyOf
    | Not,
    Field(discriminator="kind"),
]
for _model in (AllOf, AnyOf, Not):
    _model.model_rebuild()


def walk(criterion: Any) -> list[Any]:
    """The criterion and every criterion nested in it."""
    nested = getattr(criterion, "of", None) or (
        [criterion.criterion] if isinstance(criterion, Not) else []
    )
    return [criterion, *(c for child in nested for c in walk(child))]


def js_expressions(criterion: Any) -> list[str]:
    """The JS predicates a criterion tree needs evaluated in the page."""
    return [c.expression for c in walk(criterion) if isinstance(c, JsPredicate)]


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

"""The semantic state of a page: what an agent could know, as one JSON-able model.

Extracted in one in-page pass (``browser/js/page_agent/``) plus the scenario backend's data.
``fingerprint()`` and ``diff()`` make "did this action change anything?" one comparison.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field


class SemanticLocator(BaseModel):
    """A way to name an element that survives re-renders and id randomisation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str
    name: str = ""


class Element(BaseModel):
    """One interactive element as the accessibility tree shows it."""

    model_config = ConfigDict(extra="forbid")

    ref: str
    role: str
    name: str = ""
    value: str | None = None
    checked: bool | None = None
    selected: bool | None = None
    disabled: bool = False
    expanded: bool | None = None
    required: bool = False
    invalid: bool = False
    validation_message: str = ""
    bbox: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # x, y, width, height
    in_viewport: bool = False
    current: str | None = None  # aria-current ("page", "step", "true"...), when it has one
    pressed: bool | None = None  # aria-pressed, on toggle buttons
    scope: str | None = None  # ref of the node it is in (``nodes``), for tasks with scopes

    @property
    def locator(self) -> SemanticLocator:
        """The element's role and accessible name, which survive re-rendering."""
        return SemanticLocator(role=self.role, name=self.name)

    @property
    def is_current(self) -> bool:
        """Whether the page marks it as the current one.

        That is aria-current, a selected tab, or a pressed toggle button.
        """
        if self.current not in (None, "", "false"):
            return True
        return bool(self.pressed) or (self.role == "tab" and bool(self.selected))


class PageNode(BaseModel):
    """A node of the page that is not an interactive element, and the node it is in.

    A list, a list item, a row, a region, a dialog, a heading... The state holds them only
    for a task that asks for scopes (``within``, counts by role): the others pay nothing.
    """

    model_config = ConfigDict(extra="forbid")

    ref: str
    role: str
    name: str = ""
    scope: str | None = None  # ref of the node it is in


class Heading(BaseModel):
    """A heading of the page: its level (1-6) and text."""

    model_config = ConfigDict(extra="forbid")

    level: int
    text: str


_Scoped = TypeVar("_Scoped", Element, PageNode, Element | PageNode)


class SemanticState(BaseModel):
    """Everything the harness knows about the page after a step."""

    model_config = ConfigDict(extra="forbid")

    url: str = ""
    title: str = ""
    focused: str | None = None  # ref of the focused element
    elements: list[Element] = Field(default_factory=list)
    headings: list[Heading] = Field(default_factory=list)
    alerts: list[str] = Field(default_factory=list)  # alert/status roles, toasts
    dialogs: list[str] = Field(default_factory=list)  # names of open dialogs
    text: str = ""  # visible text of the page, capped
    scroll: tuple[float, float] = (0.0, 0.0)
    app: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)  # backend data
    blocked_requests: list[str] = Field(default_factory=list)  # URLs refused this episode
    nodes: list[PageNode] = Field(default_factory=list)  # only for tasks with scopes

    def fingerprint(self) -> str:
        """A short hash of the meaning of the state: geometry and refs left out."""
        payload = self.model_dump(exclude={"focused"})
        payload["elements"] = [_content(e) for e in self.elements]
        payload["nodes"] = [n.model_dump(exclude={"ref", "scope"}) for n in self.nodes]
        blob = json.dumps(payload, sort_keys=True, default=str)
        return hashlib.sha1(blob.encode()).hexdigest()[:16]

    def find(
        self, role: str, name: str, exact: bool = True, within: Iterable[str] | None = None
    ) -> list[Element]:
        """Elements with this role whose name equals (or contains) ``name``.

        With ``within`` (refs of nodes, see ``scopes``), only those inside one of them.
        """
        found = [e for e in self.elements if _named(e, role, name, exact)]
        return found if within is None else self._inside(found, set(within))

    def scopes(self, role: str, name: str, exact: bool = True) -> list[str]:
        """The refs of the nodes and elements with this role and name.

        These are the scopes a ``within`` names (empty when the page has none).
        """
        return [n.ref for n in self._all() if _named(n, role, name, exact)]

    def count(
        self,
        role: str,
        name: str | None = None,
        exact: bool = True,
        within: Iterable[str] | None = None,
    ) -> int:
        """How many elements and nodes have this role (and name, when given)."""
        found = [
            n
            for n in self._all()
            if n.role == role and (name is None or _named(n, role, name, exact))
        ]
        return len(found if within is None else self._inside(found, set(within)))

    def _all(self) -> list[Element | PageNode]:
        return [*self.nodes, *self.elements]

    def _inside(self, found: list[_Scoped], scopes: set[str]) -> list[_Scoped]:
        """Those of ``found`` with one of ``scopes`` among the nodes they are in."""
        parent = {n.ref: n.scope for n in self.nodes}
        parent.update((e.ref, e.scope) for e in self.elements if e.ref not in parent)
        inside = []
        for node in found:
            ref, seen = node.scope, 0
            while ref is not None and ref not in scopes and seen < len(parent):
                ref, seen = parent.get(ref), seen + 1
            if ref is not None and ref in scopes:
                inside.append(node)
        return inside

    def by_ref(self, ref: str) -> Element | None:
        """The element with this ref, None when the state has none."""
        return next((e for e in self.elements if e.ref == ref), None)

    def diff(self, after: SemanticState) -> StateDiff:
        """What changed from this state to ``after``, matched by role+name."""
        before_keys, after_keys = _keyed(self.elements), _keyed(after.elements)
        changed = [
            key
            for key in before_keys.keys() & after_keys.keys()
            if _content(before_keys[key]) != _content(after_keys[key])
        ]
        return StateDiff(
            url_changed=self.url != after.url,
            title_changed=self.title != after.title,
            added=sorted(after_keys.keys() - before_keys.keys()),
            removed=sorted(before_keys.keys() - after_keys.keys()),
            changed=sorted(changed),
            alerts_changed=self.alerts != after.alerts,
            dialogs_changed=self.dialogs != after.dialogs,
            text_changed=self.text != after.text,
            app_changed=self.app != after.app,
            scrolled=self.scroll != after.scroll,
        )


class StateDiff(BaseModel):
    """The difference between two semantic states; ``bool(diff)`` is "anything changed"."""

    model_config = ConfigDict(extra="forbid")

    url_changed: bool = False
    title_changed: bool = False
    added: list[str] = Field(default_factory=list)  # element keys "role|name#n"
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    alerts_changed: bool = False
    dialogs_changed: bool = False
    text_changed: bool = False
    app_changed: bool = False
    scrolled: bool = False

    def __bool__(self) -> bool:
        return any(bool(v) for v in self.model_dump().values())


def element_key(role: str, name: str, occurrence: int = 0) -> str:
    """The key an element is matched by across states: role, name and which occurrence."""
    return f"{role}|{name}#{occurrence}"


def _keyed(elements: list[Element]) -> dict[str, Element]:
    seen: Counter[tuple[str, str]] = Counter()
    keyed = {}
    for e in elements:
        keyed[element_key(e.role, e.name, seen[(e.role, e.name)])] = e
        seen[(e.role, e.name)] += 1
    return keyed


def _content(e: Element) -> dict[str, Any]:
    return e.model_dump(exclude={"ref", "bbox", "scope"})


def _named(node: Element | PageNode, role: str, name: str, exact: bool) -> bool:
    wanted = name.strip().lower()
    return node.role == role and (
        node.name.strip().lower() == wanted if exact else wanted in node.name.lower()
    )

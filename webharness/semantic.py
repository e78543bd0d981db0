"""The semantic state of a page: what an agent could know, as one JSON-able model.

Extracted in one in-page pass (``browser/js/page_agent/``) plus the scenario backend's data.
``fingerprint()`` and ``diff()`` make "did this action change anything?" one comparison.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

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

    @property
    def locator(self) -> SemanticLocator:
        return SemanticLocator(role=self.role, name=self.name)


class Heading(BaseModel):
    model_config = ConfigDict(extra="forbid")

    level: int
    text: str


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

    def fingerprint(self) -> str:
        """A short hash of the meaning of the state: geometry and refs left out."""
        payload = self.model_dump(exclude={"focused"})
        payload["elements"] = [_content(e) for e in self.elements]
        blob = json.dumps(payload, sort_keys=True, default=str)
        return hashlib.sha1(blob.encode()).hexdigest()[:16]

    def find(self, role: str, name: str, exact: bool = True) -> list[Element]:
        """Elements with this role whose name equals (or contains) ``name``."""
        wanted = name.strip().lower()
        return [
            e
            for e in self.elements
            if e.role == role
            and (e.name.strip().lower() == wanted if exact else wanted in e.name.lower())
        ]

    def by_ref(self, ref: str) -> Element | None:
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
    return f"{role}|{name}#{occurrence}"


def _keyed(elements: list[Element]) -> dict[str, Element]:
    seen: Counter[tuple[str, str]] = Counter()
    keyed = {}
    for e in elements:
        keyed[element_key(e.role, e.name, seen[(e.role, e.name)])] = e
        seen[(e.role, e.name)] += 1
    return keyed


def _content(e: Element) -> dict[str, Any]:
    return e.model_dump(exclude={"ref", "bbox"})

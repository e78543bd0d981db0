"""What a page state shows that the checks read: loading indicators and invalid fields."""

from __future__ import annotations

import re

from webharness.semantic import Element, SemanticState

__all__ = ["BUSY_WORDS", "busy_signals", "is_invalid"]

# Page *content* (not our error messages): the words sites use for a pending load.
BUSY_WORDS = re.compile(r"\b(loading|please wait|fetching|generating)\b", re.IGNORECASE)
_BUSY_ROLES = frozenset({"progressbar"})
# A disabled button named like "Running…" or "Saving...": work under way.
_WORKING_SUFFIXES = ("…", "...")


def busy_signals(state: SemanticState) -> list[str]:
    """Loading indicators: a progressbar, a disabled "Running…" button, or a busy word in
    alerts, dialogs or page text."""
    roles = [
        f"{e.role} {e.name!r}"
        for e in state.elements
        if e.role in _BUSY_ROLES
        or (e.role == "button" and e.disabled and e.name.rstrip().endswith(_WORKING_SUFFIXES))
    ]
    texts = [t for t in (*state.alerts, *state.dialogs) if BUSY_WORDS.search(t)]
    in_page = BUSY_WORDS.search(state.text)
    return roles + texts + ([f"text {in_page.group(0)!r}"] if in_page else [])


def is_invalid(element: Element) -> bool:
    """Whether the app marks the field invalid (aria-invalid, or a validation message)."""
    return element.invalid or bool(element.validation_message)

"""What a page state shows that the checks read: loading indicators, invalid fields, who
rejected a field, and whether a status message reports a success or an error."""

from __future__ import annotations

import re

from webharness.semantic import Element, SemanticState

__all__ = [
    "BROWSER_MESSAGES",
    "BUSY_WORDS",
    "busy_signals",
    "is_invalid",
    "reads_as_success",
    "rejected_by",
]

# Page *content* (not our error messages): the words sites use for a pending load.
BUSY_WORDS = re.compile(r"\b(loading|please wait|fetching|generating)\b", re.IGNORECASE)
_BUSY_ROLES = frozenset({"progressbar"})
# Page content again: how apps word a success, and how they word an error. The state's
# alerts list mixes role=alert and role=status and carries no severity, so the words
# decide; an error word wins over a success word ("was not saved").
SUCCESS_WORDS = re.compile(
    r"\b(saved|updated|created|added|sent|submitted|success(ful(ly)?)?|completed?|"
    r"thank you|thanks|registered|placed|signed in|welcome|confirmed)\b",
    re.IGNORECASE,
)
ERROR_WORDS = re.compile(
    r"\b(error|invalid|fail(ed|s)?|could not|couldn't|cannot|can't|not|required|must|"
    r"incorrect|wrong|try again|attention|denied|rejected|missing|unable)\b",
    re.IGNORECASE,
)
# Chromium's own constraint-validation messages (the element's validationMessage when
# the browser, not the app, finds the value invalid): type, required, pattern, range.
BROWSER_MESSAGES = re.compile(
    r"^(Please (fill (out|in) (this|all of these) field|include an '@'|enter (a|an) |"
    r"match the requested format|select (an|one of)|check this box|lengthen|shorten|"
    r"use at least|enter a part)|Value must be|A part following '@'|'.' is used at a wrong)",
    re.IGNORECASE,
)
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


def reads_as_success(alert: str) -> bool:
    """Whether a status or alert text reports a success ("Ticket #12 updated") rather than
    an error or a rejection: a success word and no error word."""
    return bool(SUCCESS_WORDS.search(alert)) and not ERROR_WORDS.search(alert)


def rejected_by(element: Element) -> str:
    """Who marked the field invalid: ``"browser"`` when its message is Chromium's own
    constraint validation (type, required, pattern) and the app set no ``aria-invalid``
    message of its own, else ``"app"``."""
    message = element.validation_message.strip()
    return "browser" if message and BROWSER_MESSAGES.match(message) else "app"

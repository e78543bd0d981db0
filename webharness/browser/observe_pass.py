"""One observation pass into the page: what it is asked for and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The observation's budget in tree lines (``snapshot.js``): past half of it the in-page walk
# keeps to the viewport, at the budget it stops and says what it left out.
DEFAULT_TREE_LINES = 5_000


@dataclass
class Snapshot:
    """The in-page pass: accessibility tree text, the raw semantic state, and the values
    of the task's JS criteria on that same page (and what those that threw threw)."""

    axtree: str
    state: dict[str, Any]
    max_ref: int
    js: dict[str, Any]  # true/false, or a number (a count)
    js_errors: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ObserveRequest:
    """What one observation pass is asked for."""

    min_ref: int = 1  # refs handed out from here on
    expressions: tuple[str, ...] = ()  # the task's JS criteria, evaluated on the same page
    max_lines: int = DEFAULT_TREE_LINES  # the tree's budget
    scopes: bool = False  # list the page's nodes, and the node each element is in

    def payload(self) -> dict[str, Any]:
        return {
            "minRef": self.min_ref,
            "maxLines": self.max_lines,
            "expressions": list(self.expressions),
            "scopes": self.scopes,
        }

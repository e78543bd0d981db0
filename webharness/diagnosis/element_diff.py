"""How the agent's elements differ from a golden state's, matched by role+name: missing,
extra, or with another value or flag. Each pair of an alignment carries one.

>>> element_diff(agent_state, golden_state).describe()   # doctest: +SKIP
["no button 'Submit'"]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from webharness.diagnosis.similarity import COMPARED_FIELDS, keyed_elements
from webharness.semantic import SemanticLocator, SemanticState

__all__ = ["ElementChange", "ElementDiff", "element_diff"]


class ElementChange(BaseModel):
    """An element both states have (same role+name) whose value or flags differ."""

    model_config = ConfigDict(extra="forbid")

    role: str
    name: str
    fields: list[str]  # which of value/checked/selected/disabled/invalid/expanded differ
    agent: dict[str, Any] = Field(default_factory=dict)
    golden: dict[str, Any] = Field(default_factory=dict)


class ElementDiff(BaseModel):
    """How the agent's elements differ from the golden state's, matched by role+name."""

    model_config = ConfigDict(extra="forbid")

    missing: list[SemanticLocator] = Field(default_factory=list)  # golden has, agent lacks
    extra: list[SemanticLocator] = Field(default_factory=list)  # agent has, golden lacks
    changed: list[ElementChange] = Field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.missing or self.extra or self.changed)

    def describe(self) -> list[str]:
        """One short line per difference, e.g. ``no button 'Submit'``."""
        lines = [f"no {loc.role} {loc.name!r}" for loc in self.missing]
        lines += [f"unexpected {loc.role} {loc.name!r}" for loc in self.extra]
        for c in self.changed:
            shown = ", ".join(f"{f} {c.agent[f]!r} (golden {c.golden[f]!r})" for f in c.fields)
            lines.append(f"{c.role} {c.name!r}: {shown}")
        return lines


def element_diff(
    agent: SemanticState, golden: SemanticState, id_patterns: Sequence[str] = ()
) -> ElementDiff:
    """Elements missing, extra or changed in ``agent`` relative to ``golden``.

    Args:
        agent: the agent's state.
        golden: the golden state it was matched with.
        id_patterns: the task's own patterns of generated ids, replaced in names.

    Returns:
        The difference, keyed by role+name (duplicates by occurrence).

    >>> element_diff(agent_state, golden_state).describe()   # doctest: +SKIP
    ["no button 'Submit'"]
    """
    mine, theirs = keyed_elements(agent, id_patterns), keyed_elements(golden, id_patterns)
    changed = []
    for key in sorted(mine.keys() & theirs.keys()):
        a, g = mine[key], theirs[key]
        fields = [f for f in COMPARED_FIELDS if getattr(a, f) != getattr(g, f)]
        if fields:
            changed.append(
                ElementChange(
                    role=a.role,
                    name=a.name,
                    fields=fields,
                    agent={f: getattr(a, f) for f in fields},
                    golden={f: getattr(g, f) for f in fields},
                )
            )
    return ElementDiff(
        missing=[theirs[k].locator for k in sorted(theirs.keys() - mine.keys())],
        extra=[mine[k].locator for k in sorted(mine.keys() - theirs.keys())],
        changed=changed,
    )

"""A harmless detour: two actions that leave the golden path and come straight back.

In order of preference: type into a text field and put its value back; tick a checkbox
no golden step uses and untick it; follow a link no golden step uses and go back. The
oracle then plays on, so the run still passes: the alignment must place the first
divergence at the detour, keep the golden path the run followed, and find no decisive
step.
"""

from __future__ import annotations

from webharness.semantic import Element
from webharness.testing.fault_agent import FaultContext, FaultSetupError, Planned

__all__ = ["DETOUR_TEXT", "detour"]

DETOUR_TEXT = "a detour"
_TEXT_ROLES = ("textbox", "searchbox")


def detour(ctx: FaultContext) -> list[Planned]:
    """Leave the path and come back: see the module docstring for the choice."""
    golden = _golden_refs(ctx)
    shown = [e for e in ctx.state.elements if e.in_viewport and not e.disabled]
    texts = sorted((e for e in shown if e.role in _TEXT_ROLES), key=lambda e: e.required)
    if texts:
        field = texts[0]
        return [_fill(field, DETOUR_TEXT), _fill(field, field.value or "")]
    boxes = [e for e in shown if e.role == "checkbox" and not e.checked and e.ref not in golden]
    if boxes:
        return [f'check("{boxes[0].ref}")', f'uncheck("{boxes[0].ref}")']
    links = [e for e in shown if e.role == "link" and e.ref not in golden]
    if links:
        return [f'click("{links[-1].ref}")', "go_back()"]
    raise FaultSetupError(f"no way to leave the path and come back at golden step {ctx.agent.at}")


def _fill(element: Element, text: str) -> str:
    return f"fill({element.ref!r}, {text!r})"


def _golden_refs(ctx: FaultContext) -> set[str]:
    """The refs that some golden step of the path names on the page now."""
    steps = range(1, len(ctx.agent.oracle.path.steps) + 1)
    return {a.ref_target for a in map(ctx.resolve, steps) if a is not None and a.ref_target}

"""A golden step played as a computer-use agent plays it (``OracleAgent(pixels=True)``).

Pointer and keyboard input at the centres of the targets' boxes: each ref action becomes
the input a person's hand gives:

- ``click`` → ``mouse_click`` at the centre of the target's box (same button, count and
  modifiers); ``hover`` → ``mouse_move`` there;
- ``fill`` → a click at the centre, ``press('Control+a')`` when the field holds a value
  (typing then replaces it), and ``keyboard_type`` of the text (``press('Delete')`` for
  an empty one);
- ``check`` / ``uncheck`` → a click when the box must change; nothing when it is already
  so;
- ``press(ref, key)`` → a click on a text field that does not have the focus, then
  ``press(key)``; on another control the ref form stays (a click would act on it);
- ``drag_and_drop`` → a ``drag`` from the centre of one box to the centre of the other;
- ``select_option`` stays a ref action: a native ``<select>`` opens its list in the
  browser's own popup, outside the page and its screenshot, so no point of the page
  picks an option (a custom listbox is clicked like any other control).

A target whose centre is outside the viewport is first scrolled to (``scroll_to``).
"""

from __future__ import annotations

from typing import Any

from webharness import actions as A
from webharness.semantic import Element, SemanticState

__all__ = ["centre", "pixel_actions", "scroll_to"]

# Roles where a click only puts the caret (a press on them may be preceded by one).
_TEXT_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})


def centre(element: Element) -> tuple[float, float]:
    """The centre of the element's box, in viewport CSS pixels (rounded to 0.5 px)."""
    left, top, width, height = element.bbox
    return round((left + width / 2) * 2) / 2, round((top + height / 2) * 2) / 2


def scroll_to(element: Element, viewport: tuple[int, int]) -> A.Scroll | None:
    """A scroll that brings the element's centre to the viewport's middle, if outside it.

    Returns:
        The scroll; None when the centre is inside the viewport.
    """
    x, y = centre(element)
    width, height = viewport
    if 0 <= x < width and 0 <= y < height:
        return None
    return A.Scroll(dx=0 if 0 <= x < width else x - width / 2, dy=y - height / 2)


def pixel_actions(action: Any, state: SemanticState) -> list[Any] | None:
    """The pointer and keyboard actions that play ``action`` in ``state``.

    Args:
        action: a typed action of a golden step, its target resolved to a ref.
        state: the state the action is played in (its elements' boxes).

    Returns:
        The actions, in order (empty: nothing to do, the control is already so); None
        when the action stays as it is (no target, ``select_option``, a key on a control
        a click would act on).
    """
    ref = getattr(action, "ref", None)
    element = state.by_ref(ref) if isinstance(ref, str) else None
    if isinstance(action, A.DragAndDrop):
        start, end = state.by_ref(action.from_ref), state.by_ref(action.to_ref)
        return None if start is None or end is None else [A.Drag(path=(centre(start), centre(end)))]
    if element is None:
        return None
    x, y = centre(element)
    if isinstance(action, A.Click):
        click = A.MouseClick(
            x=x, y=y, button=action.button, count=action.count, modifiers=action.modifiers
        )
        return [click]
    if isinstance(action, A.Hover):
        return [A.MouseMove(x=x, y=y)]
    if isinstance(action, A.Fill):
        select = [A.Press(key="Control+a")] if element.value else []
        typed = A.KeyboardType(text=action.text) if action.text else A.Press(key="Delete")
        return [A.MouseClick(x=x, y=y), *select, typed]
    if isinstance(action, (A.Check, A.Uncheck)):
        wanted = isinstance(action, A.Check)
        return [] if element.checked is wanted else [A.MouseClick(x=x, y=y)]
    if isinstance(action, A.Press) and element.role in _TEXT_ROLES:
        focus = [] if state.focused == ref else [A.MouseClick(x=x, y=y)]
        return [*focus, A.Press(key=action.key)]
    return None

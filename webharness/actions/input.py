"""The typed actions of the pointer and the keyboard: what a computer-use agent does.

Points are CSS pixels of the viewport, ``(0, 0)`` at its top left; a point outside the
viewport is the agent's ``invalid_argument``, nothing is sent. Keys are Playwright's
names; other spellings (``ctrl+a``, ``Return``, ``Page_Down``) are rewritten to them as
the action is made (``webharness.actions.keys.normalize_key``).
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field, model_validator

from webharness.actions.keys import normalize_key
from webharness.actions.models import Button, Modifiers, _Action

MAX_DRAG_POINTS = 100
MAX_HOLD_MS = 10_000
# A key or combination, in Playwright's spelling whichever spelling the agent wrote.
KeyName = Annotated[str, AfterValidator(normalize_key)]


class Press(_Action):
    """``press(ref?, key)``: press a key or combination on the element or the focus.

    ``key`` is one key (``Enter``, ``a``) or a combination of keys held together,
    joined by ``+`` (``Control+a``, ``Shift+ArrowDown``): each key goes down in order and
    comes up in reverse order. With a ref the element is focused first.
    """

    kind: Literal["press"] = "press"
    ref: str | None = None  # None: the focused element
    key: KeyName

    def dsl(self) -> str:
        """The action as a DSL string (``press('e3', 'Enter')`` or ``press('Enter')``)."""
        return f"press({self.ref!r}, {self.key!r})" if self.ref else f"press({self.key!r})"


class KeyDown(_Action):
    """``key_down(key)``: press one key and keep it down (until ``key_up``)."""

    kind: Literal["key_down"] = "key_down"
    key: KeyName


class KeyUp(_Action):
    """``key_up(key)``: release a key that ``key_down`` holds."""

    kind: Literal["key_up"] = "key_up"
    key: KeyName


class HoldKey(_Action):
    """``hold_key(key, ms)``: hold a key or combination down for ``ms`` milliseconds.

    The keys go down in order, stay down while the page runs for ``ms`` (at most 10 s,
    and within the action timeout), and come up in reverse order, even when the step
    fails.
    """

    kind: Literal["hold_key"] = "hold_key"
    key: KeyName
    ms: int = Field(ge=0, le=MAX_HOLD_MS)


class KeyboardType(_Action):
    """``keyboard_type(text)``: type into whatever has the focus."""

    kind: Literal["keyboard_type"] = "keyboard_type"
    text: str


class Scroll(_Action):
    """``scroll(dx, dy, x=None, y=None, modifiers=None)``: scroll by CSS pixels.

    Without a point the page's scrolling element scrolls by ``(dx, dy)``, as ever. With
    ``x`` and ``y`` (both or neither) the pointer moves there and the mouse wheel turns by
    ``(dx, dy)``: the element under the point gets the ``wheel`` event and scrolls, as a
    person's wheel would. ``modifiers`` (``Shift``, ``Control+Shift``) are held during the
    wheel, at the point or at the viewport's centre.
    """

    kind: Literal["scroll"] = "scroll"
    dx: float
    dy: float
    x: float | None = None
    y: float | None = None
    modifiers: Modifiers = None

    _positional: ClassVar[int | None] = 2

    @model_validator(mode="after")
    def _both_or_neither(self) -> Scroll:
        if (self.x is None) != (self.y is None):
            raise ValueError("give both x and y, or neither")
        return self


class MouseClick(_Action):
    """``mouse_click(x, y, button='left', count=1, modifiers=None)``: click at a point.

    ``button`` is ``left``, ``right`` or ``middle``; ``count`` is 1, 2 (a double click) or
    3 (a triple click): the button goes down and up ``count`` times, each press with its
    click count, so the page sees ``click`` events with ``detail`` 1..count, then
    ``dblclick`` for a double click (``contextmenu`` for the right button, ``auxclick``
    for right and middle). ``modifiers`` (``Shift``, ``Control+Shift``) are held during
    the click.
    """

    kind: Literal["mouse_click"] = "mouse_click"
    x: float
    y: float
    button: Button = "left"
    count: int = Field(default=1, ge=1, le=3)
    modifiers: Modifiers = None

    _positional: ClassVar[int | None] = 2


class MouseMove(_Action):
    """``mouse_move(x, y)``: move the pointer to a point, in several small moves.

    A held button stays held, so this continues a drag.
    """

    kind: Literal["mouse_move"] = "mouse_move"
    x: float
    y: float


class MouseDown(_Action):
    """``mouse_down(button='left')``: press a button where the pointer is and keep it down.

    It stays down, through the next steps, until ``mouse_up``.
    """

    kind: Literal["mouse_down"] = "mouse_down"
    button: Button = "left"

    _positional: ClassVar[int | None] = 0


class MouseUp(_Action):
    """``mouse_up(button='left')``: release a button where the pointer is."""

    kind: Literal["mouse_up"] = "mouse_up"
    button: Button = "left"

    _positional: ClassVar[int | None] = 0


class Drag(_Action):
    """``drag(path)``: a left-button drag along a list of ``[x, y]`` points (2 to 100).

    The pointer moves to the first point, the left button goes down, the pointer moves
    to each next point in several small moves (so HTML5 drag and drop, which starts on
    a move after the press, and pointer-event widgets both see the drag), and the button
    comes up at the last point. Every point must be in the viewport.
    """

    kind: Literal["drag"] = "drag"
    path: tuple[tuple[float, float], ...] = Field(min_length=2, max_length=MAX_DRAG_POINTS)

    def dsl(self) -> str:
        """The action as a DSL string: ``drag([[10.0, 20.0], [200.0, 20.0]])``."""
        return f"drag({[list(point) for point in self.path]!r})"

"""The providers' own computer-use action objects, read into webharness's typed actions.

Each provider action becomes exactly one typed action; ``screenshot`` and the like become
``noop()``, since every step is observed anyway. A malformed object (an unknown action
type, a field missing, of the wrong type, or one the action does not take) raises a
``ProviderActionError`` naming the field; through ``env.step`` it is the agent's
``invalid_argument``. docs/agents.md has the whole mapping.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from webharness.actions.errors import ProviderActionError
from webharness.actions.input import (
    MAX_HOLD_MS,
    Drag,
    HoldKey,
    KeyboardType,
    MouseClick,
    MouseDown,
    MouseMove,
    MouseUp,
    Press,
    Scroll,
)
from webharness.actions.keys import is_modifier_combo, normalize_key
from webharness.actions.models import GoBack, Noop, Wait, _Action
from webharness.errors import did_you_mean

# One click of Anthropic's ``scroll_amount``, in CSS pixels (a mouse wheel's notch).
PIXELS_PER_SCROLL_CLICK = 100
MAX_WAIT_S = 30  # a wait is cut to the DSL's limit for wait(ms)


class _Fields:
    """The fields of one provider action, read by name, each type checked."""

    def __init__(self, where: str, obj: Mapping[str, Any], takes: tuple[str, ...]) -> None:
        self.where, self.obj = where, obj
        for name in obj:
            if name not in takes:
                raise self.error(
                    name,
                    f"is not a field of this action (it takes {', '.join(takes) or 'none'})"
                    + did_you_mean(name, takes),
                )

    def error(self, name: str, problem: str) -> ProviderActionError:
        return ProviderActionError(f"{self.where}: field {name!r} {problem}")

    def get(self, name: str) -> Any:
        if self.obj.get(name) is None:
            raise self.error(name, "is missing")
        return self.obj[name]

    def number(self, name: str, value: Any = None) -> float:
        value = self.get(name) if value is None else value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(name, f"must be a number, not {type(value).__name__}")
        if not math.isfinite(value):
            raise self.error(name, f"must be a finite number, not {value!r}")
        return float(value)

    def string(self, name: str) -> str:
        value = self.get(name)
        if not isinstance(value, str):
            raise self.error(name, f"must be a string, not {type(value).__name__}")
        return value

    def point(self, name: str) -> tuple[float, float]:
        """An ``[x, y]`` pair (Anthropic's ``coordinate``)."""
        value = self.get(name)
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise self.error(name, f"must be a pair [x, y], not {value!r}"[:200])
        return self.number(f"{name}[0]", value[0]), self.number(f"{name}[1]", value[1])

    def xy(self, obj: Any = None, name: str = "") -> tuple[float, float]:
        """The ``x`` and ``y`` fields of the action (OpenAI), or of ``obj``."""
        if obj is None:
            return self.number("x"), self.number("y")
        if not isinstance(obj, Mapping) or set(obj) != {"x", "y"}:
            raise self.error(name, f"must be an object with x and y, not {obj!r}"[:200])
        return self.number(f"{name}.x", obj["x"]), self.number(f"{name}.y", obj["y"])

    def modifiers(self, name: str) -> str | None:
        """Modifier keys to hold, such as ``"shift"`` or ``"ctrl+shift"``; None if not given.

        Anthropic's ``text`` on a click or a scroll.
        """
        if self.obj.get(name) is None:
            return None
        combo = normalize_key(self.string(name))
        if not is_modifier_combo(combo):
            raise self.error(name, f"must be modifier keys such as 'shift', not {combo!r}")
        return combo


Reader = Callable[[_Fields], _Action]


def _action(
    provider: str, tag: str, obj: object, readers: Mapping[str, tuple[tuple[str, ...], Reader]]
) -> Any:
    if not isinstance(obj, Mapping):
        raise ProviderActionError(
            f"an {provider} computer action is an object, not {type(obj).__name__}"
        )
    kind = obj.get(tag)
    if not isinstance(kind, str):
        raise ProviderActionError(
            f"{provider} computer action: field {tag!r} is missing or not a string"
        )
    if kind not in readers:
        raise ProviderActionError(
            f"{provider} computer action: unknown {tag} {kind!r}.{did_you_mean(kind, readers)}"
            f" (known: {', '.join(readers)})"
        )
    takes, read = readers[kind]
    fields = _Fields(f"{provider} computer action {kind!r}", obj, (tag, *takes))
    try:
        return read(fields)
    except ValidationError as exc:
        problems = "; ".join(e["msg"] for e in exc.errors())
        raise ProviderActionError(f"{fields.where}: {problems}") from None


# --- OpenAI's computer use -------------------------------------------------------------
def _openai_click(f: _Fields) -> _Action:
    button = f.string("button") if f.obj.get("button") is not None else "left"
    if button == "back":
        return GoBack()  # a mouse's back button: the browser goes back
    if button not in _OPENAI_BUTTONS:
        raise f.error(
            "button",
            f"is {button!r}; webharness takes left, right, wheel and back"
            + (" (there is no forward navigation)" if button == "forward" else ""),
        )
    x, y = f.xy()
    return MouseClick(x=x, y=y, button=_OPENAI_BUTTONS[button])


_OPENAI_BUTTONS = {"left": "left", "right": "right", "wheel": "middle"}


def _openai_drag(f: _Fields) -> _Action:
    path = f.get("path")
    if not isinstance(path, list):
        raise f.error("path", f"must be a list of {{x, y}} points, not {type(path).__name__}")
    return Drag(path=tuple(f.xy(point, f"path[{i}]") for i, point in enumerate(path)))


def _openai_keypress(f: _Fields) -> _Action:
    keys = f.get("keys")
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        raise f.error("keys", f"must be a non-empty list of key names, not {keys!r}"[:200])
    return Press(key="+".join(keys))


def _openai_scroll(f: _Fields) -> _Action:
    x, y = f.xy()
    return Scroll(dx=f.number("scroll_x"), dy=f.number("scroll_y"), x=x, y=y)


_OPENAI: dict[str, tuple[tuple[str, ...], Reader]] = {
    "click": (("x", "y", "button"), _openai_click),
    "double_click": (("x", "y"), lambda f: MouseClick(x=f.number("x"), y=f.number("y"), count=2)),
    "drag": (("path",), _openai_drag),
    "keypress": (("keys",), _openai_keypress),
    "move": (("x", "y"), lambda f: MouseMove(x=f.number("x"), y=f.number("y"))),
    "scroll": (("x", "y", "scroll_x", "scroll_y"), _openai_scroll),
    "type": (("text",), lambda f: KeyboardType(text=f.string("text"))),
    "wait": ((), lambda f: Wait()),
    "screenshot": ((), lambda f: Noop()),
}


def from_openai_computer(obj: object) -> Any:
    """The typed action of an OpenAI computer-use action object.

    ``obj`` is the ``action`` of a ``computer_call`` output item, or the item itself.

    >>> from_openai_computer({"type": "keypress", "keys": ["CTRL", "A"]})
    Press(kind='press', ref=None, key='Control+a')

    Raises:
        ProviderActionError: an unknown action type, or a field missing, of the wrong
            type or not taken by the action; the message names it.
    """
    if isinstance(obj, Mapping) and obj.get("type") == "computer_call":
        obj = obj.get("action")
    return _action("OpenAI", "type", obj, _OPENAI)


# --- Anthropic's computer tool ---------------------------------------------------------
def _click(button: str, count: int) -> tuple[tuple[str, ...], Reader]:
    def read(f: _Fields) -> _Action:
        x, y = f.point("coordinate")
        return MouseClick(x=x, y=y, button=button, count=count, modifiers=f.modifiers("text"))

    return ("coordinate", "text"), read


def _anthropic_drag(f: _Fields) -> _Action:
    return Drag(path=(f.point("start_coordinate"), f.point("coordinate")))


def _anthropic_move(f: _Fields) -> _Action:
    x, y = f.point("coordinate")
    return MouseMove(x=x, y=y)


def _anthropic_hold_key(f: _Fields) -> _Action:
    seconds = f.number("duration")
    if not 0 <= seconds * 1000 <= MAX_HOLD_MS:
        raise f.error("duration", f"is {seconds} s; a key is held 0 to {MAX_HOLD_MS // 1000} s")
    return HoldKey(key=f.string("text"), ms=round(seconds * 1000))


_DIRECTIONS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def _anthropic_scroll(f: _Fields) -> _Action:
    direction = f.string("scroll_direction")
    if direction not in _DIRECTIONS:
        raise f.error("scroll_direction", f"is {direction!r}; it is up, down, left or right")
    amount = f.number("scroll_amount")
    if amount < 0:
        raise f.error("scroll_amount", f"is {amount}; it counts wheel clicks, 0 or more")
    (sx, sy), pixels = _DIRECTIONS[direction], amount * PIXELS_PER_SCROLL_CLICK
    x, y = f.point("coordinate") if f.obj.get("coordinate") is not None else (None, None)
    return Scroll(dx=sx * pixels, dy=sy * pixels, x=x, y=y, modifiers=f.modifiers("text"))


def _anthropic_wait(f: _Fields) -> _Action:
    seconds = f.number("duration")
    if seconds < 0:
        raise f.error("duration", f"is {seconds}; it is seconds, 0 or more")
    return Wait(ms=round(min(seconds, MAX_WAIT_S) * 1000))


_ANTHROPIC: dict[str, tuple[tuple[str, ...], Reader]] = {
    "left_click": _click("left", 1),
    "right_click": _click("right", 1),
    "middle_click": _click("middle", 1),
    "double_click": _click("left", 2),
    "triple_click": _click("left", 3),
    "left_click_drag": (("start_coordinate", "coordinate"), _anthropic_drag),
    "left_mouse_down": ((), lambda f: MouseDown()),
    "left_mouse_up": ((), lambda f: MouseUp()),
    "mouse_move": (("coordinate",), _anthropic_move),
    "key": (("text",), lambda f: Press(key=f.string("text"))),
    "hold_key": (("text", "duration"), _anthropic_hold_key),
    "type": (("text",), lambda f: KeyboardType(text=f.string("text"))),
    "scroll": (("coordinate", "scroll_direction", "scroll_amount", "text"), _anthropic_scroll),
    "wait": (("duration",), _anthropic_wait),
    "screenshot": ((), lambda f: Noop()),
    "cursor_position": ((), lambda f: Noop()),
    "zoom": (("region",), lambda f: Noop()),
}


def from_anthropic_computer(obj: object) -> Any:
    """The typed action of an Anthropic computer tool call's input.

    ``obj`` is the ``input`` of a ``tool_use`` block for the computer tool, or the block.

    >>> from_anthropic_computer({"action": "key", "text": "ctrl+s"})
    Press(kind='press', ref=None, key='Control+s')

    Raises:
        ProviderActionError: an unknown action, or a field missing, of the wrong type or
            not taken by the action; the message names it.
    """
    if isinstance(obj, Mapping) and obj.get("type") == "tool_use":
        obj = obj.get("input")
    return _action("Anthropic", "action", obj, _ANTHROPIC)


def from_provider(obj: Mapping[str, Any]) -> Any:
    """The typed action of a provider's object, told apart by its fields.

    ``type`` (and no ``action``) is OpenAI's action; ``action`` (and no ``type``) is
    Anthropic's tool input; ``type: "computer_call"`` and ``type: "tool_use"`` are the
    items that hold them. Typed actions' dicts have ``kind`` instead, so no dict is read
    two ways.

    Raises:
        ProviderActionError: the dict is none of those, or does not make a valid action.
    """
    kind = obj.get("type")
    if kind == "tool_use" or ("action" in obj and "type" not in obj):
        return from_anthropic_computer(obj)
    if kind == "computer_call" or ("type" in obj and "action" not in obj):
        return from_openai_computer(obj)
    raise ProviderActionError(
        "a dict action has 'kind' (a webharness action), 'type' (an OpenAI computer-use "
        "action) or 'action' (Anthropic's computer tool input); got fields "
        f"{sorted(map(str, obj))[:10]}"
    )

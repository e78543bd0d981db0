"""The providers' computer-use action objects, with their own field names, read into the
typed actions; a malformed one is an error naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from webharness import actions as A
from webharness.action_result import ActionErrorKind
from webharness.actions import (
    ProviderActionError,
    from_anthropic_computer,
    from_openai_computer,
    parse_action,
)

# Every action of OpenAI's computer-use tool (the ``action`` of a ``computer_call`` item).
OPENAI: list[tuple[dict[str, Any], A.Action]] = [
    ({"type": "click", "x": 10, "y": 20, "button": "left"}, A.MouseClick(x=10, y=20)),
    ({"type": "click", "x": 10, "y": 20}, A.MouseClick(x=10, y=20)),
    (
        {"type": "click", "x": 10, "y": 20, "button": "right"},
        A.MouseClick(x=10, y=20, button="right"),
    ),
    (
        {"type": "click", "x": 10, "y": 20, "button": "wheel"},
        A.MouseClick(x=10, y=20, button="middle"),
    ),
    ({"type": "click", "x": 10, "y": 20, "button": "back"}, A.GoBack()),
    ({"type": "double_click", "x": 10, "y": 20}, A.MouseClick(x=10, y=20, count=2)),
    (
        {"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 3, "y": 4}, {"x": 5, "y": 6}]},
        A.Drag(path=((1, 2), (3, 4), (5, 6))),
    ),
    ({"type": "keypress", "keys": ["CTRL", "A"]}, A.Press(key="Control+a")),
    ({"type": "keypress", "keys": ["ENTER"]}, A.Press(key="Enter")),
    ({"type": "keypress", "keys": ["SHIFT", "ARROWDOWN"]}, A.Press(key="Shift+ArrowDown")),
    ({"type": "keypress", "keys": ["ESC"]}, A.Press(key="Escape")),
    ({"type": "move", "x": 10, "y": 20}, A.MouseMove(x=10, y=20)),
    (
        {"type": "scroll", "x": 10, "y": 20, "scroll_x": 0, "scroll_y": 300},
        A.Scroll(dx=0, dy=300, x=10, y=20),
    ),
    ({"type": "type", "text": "Ada"}, A.KeyboardType(text="Ada")),
    ({"type": "wait"}, A.Wait(ms=1000)),
    ({"type": "screenshot"}, A.Noop()),
]

# Every action of Anthropic's computer tool (the ``input`` of its ``tool_use`` block).
ANTHROPIC: list[tuple[dict[str, Any], A.Action]] = [
    ({"action": "left_click", "coordinate": [10, 20]}, A.MouseClick(x=10, y=20)),
    (
        {"action": "left_click", "coordinate": [10, 20], "text": "shift"},
        A.MouseClick(x=10, y=20, modifiers="Shift"),
    ),
    (
        {"action": "right_click", "coordinate": [10, 20]},
        A.MouseClick(x=10, y=20, button="right"),
    ),
    (
        {"action": "middle_click", "coordinate": [10, 20]},
        A.MouseClick(x=10, y=20, button="middle"),
    ),
    ({"action": "double_click", "coordinate": [10, 20]}, A.MouseClick(x=10, y=20, count=2)),
    ({"action": "triple_click", "coordinate": [10, 20]}, A.MouseClick(x=10, y=20, count=3)),
    (
        {"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [30, 40]},
        A.Drag(path=((1, 2), (30, 40))),
    ),
    ({"action": "left_mouse_down"}, A.MouseDown()),
    ({"action": "left_mouse_up"}, A.MouseUp()),
    ({"action": "mouse_move", "coordinate": [10, 20]}, A.MouseMove(x=10, y=20)),
    ({"action": "key", "text": "ctrl+s"}, A.Press(key="Control+s")),
    ({"action": "key", "text": "Return"}, A.Press(key="Enter")),
    ({"action": "key", "text": "Page_Down"}, A.Press(key="PageDown")),
    ({"action": "key", "text": "super+Left"}, A.Press(key="Meta+ArrowLeft")),
    ({"action": "hold_key", "text": "shift", "duration": 0.5}, A.HoldKey(key="Shift", ms=500)),
    ({"action": "type", "text": "Ada"}, A.KeyboardType(text="Ada")),
    (
        {
            "action": "scroll",
            "coordinate": [10, 20],
            "scroll_direction": "down",
            "scroll_amount": 3,
        },
        A.Scroll(dx=0, dy=300, x=10, y=20),
    ),
    (
        {
            "action": "scroll",
            "coordinate": [10, 20],
            "scroll_direction": "left",
            "scroll_amount": 2,
        },
        A.Scroll(dx=-200, dy=0, x=10, y=20),
    ),
    (
        {
            "action": "scroll",
            "coordinate": [10, 20],
            "scroll_direction": "up",
            "scroll_amount": 1,
            "text": "ctrl",
        },
        A.Scroll(dx=0, dy=-100, x=10, y=20, modifiers="Control"),
    ),
    ({"action": "wait", "duration": 2}, A.Wait(ms=2000)),
    ({"action": "wait", "duration": 90}, A.Wait(ms=30_000)),
    ({"action": "screenshot"}, A.Noop()),
    ({"action": "cursor_position"}, A.Noop()),
    ({"action": "zoom", "region": [0, 0, 100, 100]}, A.Noop()),
]


@pytest.mark.parametrize("obj, action", OPENAI)
def test_each_openai_action_is_one_typed_action(obj, action):
    assert from_openai_computer(obj) == action
    assert parse_action(obj) == action  # as env.step takes it
    assert parse_action(action.dsl()) == action


@pytest.mark.parametrize("obj, action", ANTHROPIC)
def test_each_anthropic_action_is_one_typed_action(obj, action):
    assert from_anthropic_computer(obj) == action
    assert parse_action(obj) == action
    assert parse_action(action.dsl()) == action


def test_every_documented_action_type_is_in_the_tables():
    openai = {"click", "double_click", "drag", "keypress", "move", "scroll", "type", "wait"}
    anthropic = {"left_click", "right_click", "middle_click", "double_click", "triple_click"}
    anthropic |= {"left_click_drag", "left_mouse_down", "left_mouse_up", "mouse_move", "key"}
    anthropic |= {"hold_key", "type", "scroll", "wait", "screenshot", "cursor_position"}
    assert openai | {"screenshot"} <= {obj["type"] for obj, _ in OPENAI}
    assert anthropic <= {obj["action"] for obj, _ in ANTHROPIC}


def test_the_items_that_hold_an_action_are_read_too():
    call = {
        "type": "computer_call",
        "id": "cu_1",
        "call_id": "call_1",
        "action": {"type": "move", "x": 1, "y": 2},
        "pending_safety_checks": [],
        "status": "completed",
    }
    block = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "computer",
        "input": {"action": "screenshot"},
    }
    assert parse_action(call) == from_openai_computer(call) == A.MouseMove(x=1, y=2)
    assert parse_action(block) == from_anthropic_computer(block) == A.Noop()


@pytest.mark.parametrize(
    "read, obj, message",
    [
        (
            from_openai_computer,
            {"type": "clik", "x": 1, "y": 2},
            "unknown type 'clik'. Did you mean: 'click'?",
        ),
        (from_openai_computer, {"x": 1}, "field 'type' is missing"),
        (from_openai_computer, {"type": "click", "x": 1}, "field 'y' is missing"),
        (
            from_openai_computer,
            {"type": "click", "x": "1", "y": 2},
            "field 'x' must be a number, not str",
        ),
        (
            from_openai_computer,
            {"type": "move", "x": 1, "y": 2, "z": 3},
            "field 'z' is not a field",
        ),
        (
            from_openai_computer,
            {"type": "click", "x": 1, "y": 2, "button": "forward"},
            "field 'button'",
        ),
        (from_openai_computer, {"type": "drag", "path": [{"x": 1, "y": 2}]}, "at least 2"),
        (from_openai_computer, {"type": "drag", "path": [{"x": 1}, {"x": 2, "y": 3}]}, "'path[0]'"),
        (from_openai_computer, {"type": "keypress", "keys": "ctrl+a"}, "field 'keys' must be"),
        (
            from_openai_computer,
            {"type": "scroll", "x": 1, "y": 2, "scroll_y": 3},
            "'scroll_x' is missing",
        ),
        (from_openai_computer, [1, 2], "is an object, not list"),
        (
            from_anthropic_computer,
            {"action": "left_clik", "coordinate": [1, 2]},
            "Did you mean: 'left_click'?",
        ),
        (from_anthropic_computer, {"action": "left_click"}, "field 'coordinate' is missing"),
        (
            from_anthropic_computer,
            {"action": "left_click", "coordinate": [1]},
            "field 'coordinate' must be a pair",
        ),
        (
            from_anthropic_computer,
            {"action": "left_click", "coordinate": [1, "2"]},
            "'coordinate[1]' must be a number",
        ),
        (
            from_anthropic_computer,
            {"action": "left_click", "coordinate": [1, 2], "text": "a"},
            "field 'text' must be modifier keys",
        ),
        (
            from_anthropic_computer,
            {"action": "left_click_drag", "coordinate": [1, 2]},
            "'start_coordinate' is missing",
        ),
        (
            from_anthropic_computer,
            {"action": "left_mouse_down", "coordinate": [1, 2]},
            "field 'coordinate' is not a field",
        ),
        (
            from_anthropic_computer,
            {"action": "key", "text": 5},
            "field 'text' must be a string, not int",
        ),
        (
            from_anthropic_computer,
            {"action": "hold_key", "text": "a", "duration": 60},
            "field 'duration' is 60.0 s",
        ),
        (
            from_anthropic_computer,
            {"action": "scroll", "scroll_direction": "sideways", "scroll_amount": 1},
            "'scroll_direction' is 'sideways'",
        ),
        (
            from_anthropic_computer,
            {"action": "scroll", "scroll_direction": "up"},
            "'scroll_amount' is missing",
        ),
        (from_anthropic_computer, {"action": "wait"}, "field 'duration' is missing"),
        (
            from_anthropic_computer,
            {"action": "type", "text": "x", "coordinate": [1, 2]},
            "'coordinate' is not a field",
        ),
    ],
)
def test_a_malformed_object_is_an_error_naming_the_field(read, obj, message):
    with pytest.raises(ProviderActionError) as caught:
        read(obj)
    assert message in str(caught.value)


def test_a_dict_is_read_one_way_only():
    assert parse_action({"kind": "click", "ref": "e1"}) == A.Click(ref="e1")
    with pytest.raises(ProviderActionError, match="'kind'.*'type'.*'action'"):
        parse_action({"type": "click", "action": "left_click"})
    with pytest.raises(ProviderActionError, match="got fields"):
        parse_action({"x": 1})


def test_step_action_makes_a_provider_error_the_agents_invalid_argument():
    action, refused = A.step_action({"type": "click", "x": 1})
    assert action == A.Noop() and refused is not None
    assert (
        refused.error is A.ActionErrorKind.INVALID_ARGUMENT
        if False
        else refused.error.value == "invalid_argument"
    )
    assert "field 'y' is missing" in refused.message
    _, unparseable = A.step_action("click(")
    assert unparseable is not None and unparseable.error is ActionErrorKind.UNPARSEABLE


@pytest.mark.parametrize(
    "spelling, key",
    [
        ("ctrl+a", "Control+a"),
        ("CTRL+A", "Control+a"),
        ("cmd+shift+z", "Meta+Shift+z"),
        ("Return", "Enter"),
        ("KP_Enter", "Enter"),
        ("Page_Up", "PageUp"),
        ("esc", "Escape"),
        ("BackSpace", "Backspace"),
        ("A", "A"),
        ("NotAKey", "NotAKey"),
        ("+", "+"),
        ("Control+", "Control+"),
        ("minus", "-"),
    ],
)
def test_key_spellings_become_playwrights_names(spelling, key):
    assert A.normalize_key(spelling) == key
    assert A.Press(key=spelling).key == key


def test_the_trace_writes_an_action_as_dsl_and_an_object_that_made_none_as_json():
    assert A.action_text(A.MouseClick(x=1, y=2, count=2)) == "mouse_click(1.0, 2.0, count=2)"
    assert A.action_text("click('e1')") == "click('e1')"
    assert A.action_text({"type": "clik"}) == '{"type": "clik"}'
    assert A.action_text(None) is None

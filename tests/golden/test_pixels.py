"""Each ref action of a golden step played as pointer and keyboard input at the centre of
its target's box, and the oracle that plays a path so (offline: a state made by hand)."""

from __future__ import annotations

import pytest

from webharness import actions as A
from webharness.agents import load_agent
from webharness.golden.oracle import OracleAgent
from webharness.golden.pixels import centre, pixel_actions, scroll_to
from webharness.semantic import Element, SemanticState

STATE = SemanticState(
    focused="e4",
    elements=[
        Element(ref="e1", role="button", name="Save", bbox=(10, 20, 100, 40)),
        Element(ref="e2", role="textbox", name="Name", value="Ada", bbox=(10, 100, 200, 30)),
        Element(ref="e3", role="checkbox", name="VIP", checked=True, bbox=(10, 150, 20, 20)),
        Element(ref="e4", role="searchbox", name="Search", bbox=(300, 20, 200, 30)),
        Element(ref="e5", role="combobox", name="Country", bbox=(10, 200, 200, 30)),
        Element(ref="e6", role="button", name="Far", bbox=(10, 2000, 100, 40)),
    ],
)


def played(text: str) -> list[str] | None:
    twin = pixel_actions(A.parse_action(text), STATE)
    return None if twin is None else [a.dsl() for a in twin]


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("click('e1')", ["mouse_click(60.0, 40.0)"]),
        ("click('e1', count=2)", ["mouse_click(60.0, 40.0, count=2)"]),
        ("hover('e1')", ["mouse_move(60.0, 40.0)"]),
        (
            "fill('e2', 'Grace')",
            ["mouse_click(110.0, 115.0)", "press('Control+a')", "keyboard_type('Grace')"],
        ),
        ("fill('e4', 'tea')", ["mouse_click(400.0, 35.0)", "keyboard_type('tea')"]),
        ("fill('e2', '')", ["mouse_click(110.0, 115.0)", "press('Control+a')", "press('Delete')"]),
        ("uncheck('e3')", ["mouse_click(20.0, 160.0)"]),
        ("check('e3')", []),  # already checked: nothing to do
        ("press('e4', 'Enter')", ["press('Enter')"]),  # the search box has the focus
        ("press('e2', 'Enter')", ["mouse_click(110.0, 115.0)", "press('Enter')"]),
        ("press('e1', 'Enter')", None),  # a click would press the button: kept by ref
        ("select_option('e5', 'France')", None),  # a native select's list is no page
        ("drag_and_drop('e1', 'e2')", ["drag([[60.0, 40.0], [110.0, 115.0]])"]),
        ("done()", None),
    ],
)
def test_a_ref_action_is_played_as_a_hand_plays_it(action, expected):
    assert played(action) == expected


def test_a_target_outside_the_viewport_is_scrolled_to_first():
    far = STATE.by_ref("e6")
    assert far is not None and centre(far) == (60.0, 2020.0)
    assert scroll_to(far, (1280, 720)) == A.Scroll(dx=0, dy=2020.0 - 360)
    assert scroll_to(STATE.elements[0], (1280, 720)) is None


def test_the_runner_makes_the_pixel_oracle_from_its_spec():
    oracle = load_agent("oracle[pixels=true]")
    assert isinstance(oracle, OracleAgent) and oracle.pixels

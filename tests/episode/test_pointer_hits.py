"""What a pointer action hit, recorded in ``ActionResult.pointer`` before its input went:
through a label to its control, through an open shadow root and a same-origin frame, the
control a popup covers, a heading, empty space, a point off the viewport, both ends of a
drag, and where mouse_down, mouse_up and a wheel at a point act."""

from __future__ import annotations

import pytest

from tests.support.sites import site_spec
from webharness.action_result import PointerHit
from webharness.envs import WebEvalEnv


@pytest.fixture(scope="module")
def env(browser):
    env = WebEvalEnv(site_spec("pointer_site", max_steps=100), obs_mode="text")
    yield env
    env.close()


def hit(env: WebEvalEnv, action: str) -> PointerHit | None:
    env.reset(seed=0)
    *_, info = env.step(action)
    return info["action_result"].pointer


def named(pointer: PointerHit | None) -> tuple[str | None, str | None, str | None]:
    assert pointer is not None
    return pointer.role, pointer.name, pointer.ref


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("mouse_click(80, 40)", ("button", "Save", "e1")),
        ("mouse_click(40, 90)", ("checkbox", "I agree", "e2")),  # its label
        ("mouse_click(80, 240)", ("button", "Shadow button", "e5")),  # in a shadow root
        ("mouse_click(80, 325)", ("button", "Inner button", "e7")),  # in a frame
        ("mouse_click(450, 40)", ("heading", "Pointer hits", "e4")),
        ("mouse_click(1000, 600)", (None, None, None)),  # empty space
        ("mouse_move(80, 40)", ("button", "Save", "e1")),
        ("scroll(0, 10, x=80, y=40)", ("button", "Save", "e1")),
    ],
)
def test_a_pointer_action_records_the_element_a_ref_agent_would_name(env, action, expected):
    pointer = hit(env, action)
    assert named(pointer) == expected
    assert pointer is not None and pointer.covered_by is None and pointer.in_viewport


def test_a_covered_control_is_recorded_with_what_covered_it(env):
    pointer = hit(env, "mouse_click(80, 160)")
    assert named(pointer) == ("button", "Covered", "e3")
    assert pointer is not None and pointer.covered_by == "div"


def test_a_point_off_the_viewport_is_recorded_outside_it(env):
    pointer = hit(env, "mouse_click(5000, 40)")
    assert pointer == PointerHit(x=5000, y=40, in_viewport=False)


def test_a_drag_records_where_it_started_and_where_it_ended(env):
    env.reset(seed=0)
    *_, info = env.step("drag([(440, 220), (560, 240), (675, 250)])")
    result = info["action_result"]
    assert named(result.pointer) == ("button", "Card", "e8")
    assert named(result.pointer_end) == ("region", "Drop zone", "e9")


def test_mouse_down_and_up_act_where_the_mouse_was_left(env):
    env.reset(seed=0)
    env.step("mouse_move(80, 40)")
    for action in ("mouse_down()", "mouse_up()"):
        *_, info = env.step(action)
        assert named(info["action_result"].pointer) == ("button", "Save", "e1")


def test_mouse_down_acts_where_a_ref_click_left_the_mouse(env):
    env.reset(seed=0)
    env.step("click('e1')")
    *_, info = env.step("mouse_down()")
    env.step("mouse_up()")
    assert named(info["action_result"].pointer) == ("button", "Save", "e1")


def test_a_ref_action_records_no_pointer(env):
    assert hit(env, "click('e1')") is None

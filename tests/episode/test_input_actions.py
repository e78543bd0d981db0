"""The pointer and keyboard actions on a page that logs every input event: each gives the
events plain Playwright gives doing the same on the same page (HTML5 drag and drop and a
pointer-captured slider included), and a point off the viewport sends nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from webharness.action_result import ActionErrorKind
from webharness.envs import WebEvalEnv
from webharness.spec.task_spec import TaskSpec

SITE = Path(__file__).parents[1] / "fixtures" / "input_site"
Script = Callable[[Page], Awaitable[Any]]


@pytest.fixture(scope="module")
def env(browser):
    spec = TaskSpec.model_validate(
        {
            "id": "input_events",
            "category": "test",
            "instruction": "Drop the card.",
            "site": str(SITE),
            "max_steps": 500,
            "success": {"kind": "text", "text": "Dropped: card"},
        }
    )
    env = WebEvalEnv(spec, obs_mode="text")
    yield env
    env.close()


def run(env: WebEvalEnv, coroutine: Awaitable[Any]) -> Any:
    return env.runtime.run(coroutine, 10)


def event_log(env: WebEvalEnv) -> list[str]:
    return run(env, env.episode.session.page.evaluate("window.__log"))


def by_playwright(env: WebEvalEnv, script: Script) -> list[str]:
    env.reset(seed=0)
    run(env, script(env.episode.session.page))
    return event_log(env)


def by_steps(env: WebEvalEnv, *actions: str | Callable[[str], str]) -> tuple[list[str], dict]:
    """Each action stepped (a callable: made from the latest accessibility tree); every
    result must be ok."""
    obs, info = env.reset(seed=0)
    for action in actions:
        text = action(obs["axtree"]) if callable(action) else action
        obs, *_, info = env.step(text)
        assert info["action_result"].ok, (text, info["action_result"])
    return event_log(env), info


def ref(axtree: str, role: str, name: str) -> str:
    found = re.search(rf'- {role} "{name}".*\[ref=(e\d+)\]', axtree)
    assert found, (role, name, axtree)
    return found.group(1)


# --- what plain Playwright does ----------------------------------------------------------
async def shift_click(page: Page) -> None:
    await page.keyboard.down("Shift")
    await page.mouse.click(100, 100)
    await page.keyboard.up("Shift")


async def move_press_release(page: Page) -> None:
    await page.mouse.move(50, 50, steps=5)
    await page.mouse.down()
    await page.mouse.move(150, 80, steps=5)
    await page.mouse.up()


async def drag_path(page: Page) -> None:
    await page.mouse.move(50, 50)
    await page.mouse.down()
    await page.mouse.move(150, 60, steps=5)
    await page.mouse.move(250, 80, steps=5)
    await page.mouse.up()


async def wheel_at(page: Page) -> None:
    await page.mouse.move(100, 100)
    await page.mouse.wheel(0, 120)
    await wheel_arrived(page)  # Playwright's wheel returns before the page has the event


async def shift_wheel(page: Page) -> None:
    await page.keyboard.down("Shift")
    await page.mouse.move(100, 100)
    await page.mouse.wheel(0, 120)
    await wheel_arrived(page)
    await page.keyboard.up("Shift")


async def wheel_arrived(page: Page) -> None:
    await page.wait_for_function("window.__log.some((e) => e.startsWith('wheel'))", timeout=5000)


def in_field(*keys: Callable[[Page], Awaitable[Any]]) -> Script:
    async def script(page: Page) -> None:
        await page.mouse.click(120, 460)
        for key in keys:
            await key(page)

    return script


async def held_shift_typing(page: Page) -> None:
    await page.keyboard.down("Shift")
    await page.keyboard.type("ab")
    await page.keyboard.up("Shift")


async def held_combo(page: Page) -> None:
    await page.keyboard.down("Shift")
    await page.keyboard.down("ArrowLeft")
    await page.keyboard.up("ArrowLeft")
    await page.keyboard.up("Shift")


async def drag_card(page: Page) -> None:
    await page.mouse.move(60, 270)  # the card's centre
    await page.mouse.down()
    await page.mouse.move(375, 300, steps=5)  # the drop zone's
    await page.mouse.up()


async def slide(page: Page) -> None:
    await page.mouse.move(30, 410)
    await page.mouse.down()
    await page.mouse.move(200, 410, steps=5)
    await page.mouse.up()


CASES: dict[str, tuple[tuple[str, ...], Script]] = {
    "left click": (("mouse_click(100, 100)",), lambda p: p.mouse.click(100, 100)),
    "right click": (
        ("mouse_click(100, 100, button='right')",),
        lambda p: p.mouse.click(100, 100, button="right"),
    ),
    "middle click": (
        ("mouse_click(100, 100, 'middle')",),
        lambda p: p.mouse.click(100, 100, button="middle"),
    ),
    "double click": (("mouse_click(100, 100, count=2)",), lambda p: p.mouse.dblclick(100, 100)),
    "triple click": (
        ("mouse_click(100, 100, count=3)",),
        lambda p: p.mouse.click(100, 100, click_count=3),
    ),
    "shift click": (("mouse_click(100, 100, modifiers='shift')",), shift_click),
    "move, press, release": (
        ("mouse_move(50, 50)", "mouse_down()", "mouse_move(150, 80)", "mouse_up()"),
        move_press_release,
    ),
    "drag along a path": (("drag([[50, 50], [150, 60], [250, 80]])",), drag_path),
    "wheel at a point": (("scroll(0, 120, x=100, y=100)",), wheel_at),
    "shift wheel": (("scroll(0, 120, x=100, y=100, modifiers='Shift')",), shift_wheel),
    "ctrl+a": (
        ("mouse_click(120, 460)", "press('ctrl+a')"),
        in_field(lambda p: p.keyboard.press("Control+a")),
    ),
    "shift+ArrowDown": (
        ("mouse_click(120, 460)", "press('shift+ArrowDown')"),
        in_field(lambda p: p.keyboard.press("Shift+ArrowDown")),
    ),
    "key held while typing": (
        ("mouse_click(120, 460)", "key_down('shift')", "keyboard_type('ab')", "key_up('Shift')"),
        in_field(held_shift_typing),
    ),
    "hold_key": (("mouse_click(120, 460)", "hold_key('shift+Left', 50)"), in_field(held_combo)),
    "pointer-captured slider": (("drag([[30, 410], [200, 410]])",), slide),
}


@pytest.mark.parametrize("case", CASES)
def test_an_input_action_gives_the_events_playwright_gives(env, case):
    actions, script = CASES[case]
    ours, _ = by_steps(env, *actions)
    assert ours == by_playwright(env, script)
    assert ours, "the page saw nothing"


def test_a_double_click_is_two_clicks_then_dblclick(env):
    ours, _ = by_steps(env, "mouse_click(100, 100, count=2)")
    clicks = [e.split(" at ")[0].strip() for e in ours if e.startswith(("click", "dblclick"))]
    assert clicks == [
        "click pad button=0 detail=1",
        "click pad button=0 detail=2",
        "dblclick pad button=0 detail=2",
    ]


def test_a_right_click_is_a_contextmenu_and_an_auxclick(env):
    ours, _ = by_steps(env, "mouse_click(100, 100, button='right')")
    assert [e.split(" ")[0] for e in ours if "button=2" in e and "pointer" not in e] == [
        "contextmenu",
        "auxclick",
    ]


def test_a_modifier_combination_reaches_the_page_held(env):
    ours, _ = by_steps(env, "mouse_click(120, 460)", "press('CTRL+A')")
    assert "keydown a KeyA ctrl" in ours


def test_drag_and_drop_by_ref_is_an_html5_drop_as_a_hand_makes_it(env):
    def drop(tree: str) -> str:
        return (
            f"drag_and_drop({ref(tree, 'button', 'Card')!r}, {ref(tree, 'region', 'Drop zone')!r})"
        )

    ours, info = by_steps(env, drop)
    assert ours == by_playwright(env, drag_card)
    assert ours[-4:] == ["dragenter zone", "dragover zone", "drop zone", "dragend source"]
    assert "dragstart source" in ours
    assert "Dropped: card" in info["semantic_state"].text


def test_a_drag_moves_a_pointer_event_slider(env):
    _, info = by_steps(env, "drag([[30, 410], [200, 410]])")
    assert info["semantic_state"].find("slider", "Volume")[0].value == "60"  # 180 of 300 px


def test_a_click_by_ref_takes_a_button_a_count_and_modifiers(env):
    def click(tree: str) -> str:
        return f"click({ref(tree, 'region', 'Pad')!r}, 'right', 'Shift', 2)"

    ours, _ = by_steps(env, click)
    assert "contextmenu pad button=2 detail=0 shift at 200,100" in ours
    assert sum(e.startswith("auxclick pad button=2") for e in ours) == 2


@pytest.mark.parametrize(
    "action",
    [
        "mouse_click(5000, 10)",
        "mouse_move(10, -1)",
        "drag([[10, 10], [10, 9000]])",
        "scroll(0, 100, x=-5, y=10)",
    ],
)
def test_a_point_off_the_viewport_is_an_invalid_argument_and_sends_nothing(env, action):
    env.reset(seed=0)
    before = event_log(env)
    *_, info = env.step(action)
    assert info["action_result"].error is ActionErrorKind.INVALID_ARGUMENT
    assert "outside the 1280×720 viewport" in info["action_result"].message
    assert event_log(env) == before


@pytest.mark.parametrize(
    "action, message",
    [("key_down('Control+a')", "is a combination"), ("press('NotAKey')", "unknown key")],
)
def test_a_bad_key_is_an_invalid_argument(env, action, message):
    env.reset(seed=0)
    *_, info = env.step(action)
    assert info["action_result"].error is ActionErrorKind.INVALID_ARGUMENT
    assert message in info["action_result"].message


def test_a_held_button_stays_down_until_released(env):
    ours, _ = by_steps(env, "mouse_move(50, 50)", "mouse_down()", "mouse_move(60, 60)")
    assert ours[-1].startswith("pointermove pad button=-1 buttons=1")
    run(env, env.episode.session.page.mouse.up())  # leave the mouse as it was


def test_provider_objects_are_step_input_on_a_built_in_env(make_env):
    env = make_env("WebEval/form-v0", obs_mode="text")
    _, info = env.reset(seed=0)
    left, top, width, height = info["semantic_state"].find("button", "New contact")[0].bbox
    x, y = left + width / 2, top + height / 2
    *_, info = env.step({"type": "click", "x": x, "y": y, "button": "left"})  # OpenAI's
    assert info["action_result"].ok and info["action_result"].state_changed
    assert info["action"] == f"mouse_click({x!r}, {y!r})"
    name = info["semantic_state"].find("textbox", "Full name")[0]
    left, top, width, height = name.bbox
    click = {"action": "left_click", "coordinate": [left + width / 2, top + height / 2]}
    *_, info = env.step({"type": "tool_use", "name": "computer", "input": click})  # Anthropic's
    assert info["action_result"].ok
    *_, info = env.step({"action": "type", "text": "Ada Lovelace"})
    assert info["semantic_state"].by_ref(name.ref).value == "Ada Lovelace"
    *_, info = env.step({"action": "left_click", "coordinate": [10, 10], "modifier": "shift"})
    assert info["action_result"].error is ActionErrorKind.INVALID_ARGUMENT
    assert "field 'modifier' is not a field" in info["action_result"].message
    assert json.loads(info["action"])["modifier"] == "shift"  # kept, for the trace, as JSON

"""The tools on a live episode (the form task over stdio): an unknown ref is a tool error
naming ``target``, the executor's; observations take no step; a blocked navigation is the
env's; the goal as a tool, a prompt and a resource; screenshots as images; the end of the
episode and webharness_reset."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tests.support.mcp_clients import stdio_session, text_of

ARGS = ("form", "--seed", "0", "--obs-mode", "text", "--caps", "vision")


@pytest.fixture(scope="module")
def texts(browser: None) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with stdio_session(*ARGS) as session:

            async def call(key: str, name: str, arguments: dict[str, Any]) -> None:
                out[key] = await session.call_tool(name, arguments)

            await call("goal", "webharness_task", {})
            out["prompt"] = (await session.get_prompt("webharness_task")).messages[0].content.text
            resource = await session.read_resource("webharness://task/goal")
            out["resource"] = resource.contents[0].text
            await call("snapshot", "browser_snapshot", {})
            await call("screenshot", "browser_take_screenshot", {})
            await call("unknown_ref", "browser_click", {"target": "e999"})
            await call("ref_alias", "browser_click", {"ref": "e9", "element": "New contact"})
            await call("blocked", "browser_navigate", {"url": "https://example.com/"})
            await call("wheel", "browser_mouse_wheel", {"deltaX": 0, "deltaY": 100})
            await call("move", "browser_mouse_move_xy", {"x": 5, "y": 5})
            drag = {"startX": 5, "startY": 5, "endX": 50, "endY": 5}
            await call("drag", "browser_mouse_drag_xy", drag)
            await call("off_screen", "browser_mouse_move_xy", {"x": 5000, "y": 5})
            await call("ask", "webharness_ask_user", {"question": "Which country?"})
            await call("done", "webharness_done", {})
            await call("after_end", "browser_click", {"target": "e9"})
            await call("other_task", "webharness_reset", {"task": "WebEval/login-v0"})
            await call("reset", "webharness_reset", {"seed": 1})
            await call("after_reset", "browser_snapshot", {})
        return out

    return anyio.run(main)


def test_the_goal_is_a_tool_a_prompt_and_a_resource(texts: dict[str, Any]) -> None:
    goal = text_of(texts["goal"]).removeprefix("### Result\n")
    assert goal.startswith("In Relay CRM, add a new contact")
    assert texts["prompt"] == texts["resource"] == goal


def test_an_unknown_ref_is_the_executors_error_naming_target(texts: dict[str, Any]) -> None:
    result = texts["unknown_ref"]
    assert result.is_error
    assert text_of(result).startswith("### Error\ntarget 'e999': no element has ref 'e999'")
    assert "### Snapshot\n```yaml\n- banner [ref=e1]:" in text_of(result)


def test_the_older_ref_argument_acts_as_target(texts: dict[str, Any]) -> None:
    assert not texts["ref_alias"].is_error
    assert 'region "Add contact"' in text_of(texts["ref_alias"])


def test_a_navigation_the_task_does_not_allow_is_refused_as_in_env_step(
    texts: dict[str, Any],
) -> None:
    assert texts["blocked"].is_error
    assert "example.com" in text_of(texts["blocked"]).split("### Page")[0]


def test_a_screenshot_is_an_image_and_takes_no_step(texts: dict[str, Any]) -> None:
    kinds = [c.type for c in texts["screenshot"].content]
    assert kinds == ["text", "image"]
    assert texts["screenshot"].content[1].mime_type == "image/png"


def test_vision_tools_scroll_move_and_drag_the_pointer(texts: dict[str, Any]) -> None:
    assert not texts["wheel"].is_error
    assert not texts["move"].is_error and not texts["drag"].is_error
    assert texts["off_screen"].is_error
    assert "(5000.0, 5.0) is outside the" in text_of(texts["off_screen"])


def test_asking_the_user_returns_a_result(texts: dict[str, Any]) -> None:
    assert not texts["ask"].is_error
    assert text_of(texts["ask"]).startswith("### Result\n")


def test_the_end_of_the_episode_is_in_every_later_result(texts: dict[str, Any]) -> None:
    done = texts["done"]
    assert done.structured_content["ended"] is True
    assert done.structured_content["success"] is False
    after = text_of(texts["after_end"])
    assert texts["after_end"].is_error and "the episode has ended" in after
    assert "- Next: webharness_reset starts another episode" in after
    assert "### Episode\n- Ended: done" in after


def test_reset_starts_the_next_episode_with_its_seed(texts: dict[str, Any]) -> None:
    reset = text_of(texts["reset"])
    assert "- Task: WebEval/form-v0\n- Seed: 1\n" in reset
    assert "### Episode" not in text_of(texts["after_reset"])


def test_reset_plays_only_the_tasks_the_server_was_given(texts: dict[str, Any]) -> None:
    assert texts["other_task"].is_error
    text = text_of(texts["other_task"])
    assert "task 'WebEval/login-v0' is not one this server plays: WebEval/form-v0" in text

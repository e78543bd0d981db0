"""``llm[mode=computer]``: the screenshot and the goal only go to the model, and its
computer-use tool calls come back as pixel actions. A scripted model that clicks and types
at the form's pixels passes form-v0; its tokens are counted as the DSL agent's are."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from tests.support.episodes import play
from tests.support.fake_openai import OBS, FakeOpenAI, Reply, completion, llm_agent


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def computer_call(arguments: dict[str, Any] | str, tokens: int = 50) -> Reply:
    """A chat completion whose message calls the ``computer`` tool."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call = {"id": "call_1", "type": "function", "function": {"name": "computer", "arguments": raw}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    usage = {"prompt_tokens": tokens, "completion_tokens": 7, "total_tokens": tokens + 7}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return Reply(200, {"id": "c", "object": "chat.completion", "choices": [choice], "usage": usage})


def test_only_the_goal_and_the_screenshot_are_sent_and_the_tool_is_offered(
    fake: FakeOpenAI,
) -> None:
    fake.script(computer_call({"type": "click", "x": 10, "y": 20, "button": "right"}))
    agent = llm_agent(fake, mode="computer")
    frame = {"screenshot": np.zeros((8, 8, 3), dtype="uint8")}
    assert agent.act({**OBS, **frame}, {}) == "mouse_click(10.0, 20.0, button='right')"
    body = fake.bodies()[0]
    assert [t["function"]["name"] for t in body["tools"]] == ["computer"]
    user = body["messages"][-1]["content"]
    assert [part["type"] for part in user] == ["text", "image_url"]
    assert OBS["goal"] in user[0]["text"] and "[ref=" not in json.dumps(body["messages"])


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        (completion("The contact is saved."), "send_msg_to_user('The contact is saved.')"),
        (computer_call({"type": "keypress", "keys": ["CTRL", "A"]}), "press('Control+a')"),
        (computer_call({"type": "click", "x": "left"}), {"type": "click", "x": "left"}),
        (computer_call("not json"), "not json"),
    ],
)
def test_a_reply_becomes_an_action_or_what_the_env_reports(
    fake: FakeOpenAI, reply: Reply, action: Any
) -> None:
    fake.script(reply)
    assert llm_agent(fake, mode="computer").act(OBS, {}) == action


def test_a_scripted_pixel_model_passes_the_form(fake: FakeOpenAI, browser: None) -> None:
    env = gym.make("WebEval/form-v0")
    try:
        plan = pixel_plan(env)
        fake.script(*[computer_call(step) for step in plan], completion("Added Thea Olsen."))
        agent = llm_agent(fake, mode="computer")
        agent.reset(None)
        run = play(env, agent.act, seed=0)
    finally:
        env.close()
    assert run.infos[-1]["success"], [i["action_result"] for i in run.infos[1:]]
    assert (
        run.actions[0].startswith("mouse_click(") and "keyboard_type('Thea Olsen')" in run.actions
    )
    assert agent.usage.prompt_tokens == 50 * len(plan) + 100
    assert all("[ref=" not in json.dumps(body["messages"]) for body in fake.bodies())


def pixel_plan(env: gym.Env) -> list[dict[str, Any]]:
    """The computer actions that add form-v0 seed 0's contact, at the page's own pixels."""
    _, info = env.reset(seed=0)
    new = info["semantic_state"].find("button", "New contact")[0]
    info = env.step(f"click({new.ref!r})")[4]
    state = info["semantic_state"]

    def centre(role: str, name: str) -> dict[str, float]:
        x, y, width, height = state.find(role, name)[0].bbox
        return {"x": x + width / 2, "y": y + height / 2}

    plan: list[dict[str, Any]] = [{"type": "click", **_centre_of(new.bbox)}]
    for name, text in (
        ("Full name", "Thea Olsen"),
        ("Email", "thea.olsen@oakridge-partners.example"),
        ("Company", "Oakridge Partners"),
    ):
        plan += [{"type": "click", **centre("textbox", name)}, {"type": "type", "text": text}]
    plan += [{"type": "click", **centre("combobox", "Country")}, {"type": "type", "text": "France"}]
    plan += [{"type": "keypress", "keys": ["ENTER"]}]
    plan += [{"type": "click", **centre("checkbox", "VIP customer")}]
    return [*plan, {"type": "click", **centre("button", "Save contact")}]


def _centre_of(bbox: tuple[float, float, float, float]) -> dict[str, float]:
    x, y, width, height = bbox
    return {"x": x + width / 2, "y": y + height / 2}

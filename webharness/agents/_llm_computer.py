"""``LLMAgent(mode="computer")``: the screenshot and the goal in, a computer action out.

A pixel agent over any OpenAI-compatible chat endpoint: each step sends the goal, the
agent's recent actions (and the last one's error) and the page's screenshot, nothing of
the accessibility tree, and offers one tool, ``computer``, whose arguments are OpenAI's
computer-use action object (``click``, ``double_click``, ``drag``, ``keypress``, ``move``,
``scroll``, ``type``, ``wait``, ``screenshot``). The call's arguments become the step's
action through ``actions.from_openai_computer``; a reply without a tool call is the
model's final answer (``send_msg_to_user``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from webharness import actions as A
from webharness.agents._llm_prompt import Turn

_POINT = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}}
COMPUTER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "computer",
        "description": (
            "Act on the screen: an OpenAI computer-use action. x and y are pixels of the "
            "screenshot; keys are key names such as CTRL, ENTER or A."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "type": {
                    "type": "string",
                    "enum": [
                        "click",
                        "double_click",
                        "drag",
                        "keypress",
                        "move",
                        "scroll",
                        "type",
                        "wait",
                        "screenshot",
                    ],
                },
                "x": {"type": "number"},
                "y": {"type": "number"},
                "button": {"type": "string", "enum": ["left", "right", "wheel"]},
                "path": {"type": "array", "items": _POINT},
                "keys": {"type": "array", "items": {"type": "string"}},
                "scroll_x": {"type": "number"},
                "scroll_y": {"type": "number"},
                "text": {"type": "string"},
            },
            "required": ["type"],
        },
    },
}
COMPUTER_PROMPT = """\
You operate a web browser by looking at its screen. Each turn you see the goal, your recent \
actions and a screenshot. Act with the computer tool: one action per turn, at pixel \
coordinates of the screenshot (click a field before you type into it). When the task is \
done, reply in text with your final answer and no tool call."""


def computer_messages(
    goal: str, image_url: str | None, turns: Sequence[Turn]
) -> list[dict[str, Any]]:
    """The chat for one step: the prompt, then the goal, recent actions and the screenshot."""
    lines = [f"Goal: {goal}"]
    if turns:
        lines.append("Your recent actions:")
        for turn in turns:
            error = f" (error: {turn.error})" if turn.error else ""
            lines.append(f"{turn.step}. {turn.action}{error}")
    content: list[dict[str, Any]] = [{"type": "text", "text": "\n".join(lines)}]
    if image_url is not None:
        content.append({"type": "image_url", "image_url": {"url": image_url}})
    return [{"role": "system", "content": COMPUTER_PROMPT}, {"role": "user", "content": content}]


def computer_action(message: dict[str, Any]) -> str | dict[str, Any]:
    """The action of the model's reply: its computer call, else its text as the final
    answer. A call whose arguments make no action is handed on as the object it is, so the
    env reports the field to the agent (``invalid_argument``); arguments that are no JSON
    as their text (``unparseable``)."""
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        if function.get("name") != "computer":
            continue
        raw = str(function.get("arguments") or "{}")
        try:
            given = json.loads(raw)
        except ValueError:
            return raw
        try:
            return str(A.from_openai_computer(given).dsl())
        except A.ActionParseError:  # ProviderActionError: a field missing or mistyped
            return given if isinstance(given, dict) else raw
    text = str(message.get("content") or "").strip()
    return f"send_msg_to_user({text!r})" if text else "noop()"

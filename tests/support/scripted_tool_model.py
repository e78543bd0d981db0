"""A scripted model for tool-calling agents, served by ``FakeOpenAI``: it answers each
Chat Completions request with the next tool call of a script, by reading what the agent
sent.

The model name the agent asks for picks the behaviour (``golden``, ``stale_ref``, ...), the
goal in its first user message picks the episode's script, and the tool calls already in
the conversation say which call comes next. A golden script adapts to the page's pace as
a model would: while the next call's target is not in the latest snapshot, it waits
(``browser_wait_for``), and it skips a scripted wait whose target is there already. Once
the script is done, it answers in text and the agent's run ends.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tests.support.fake_openai import Reply, completion, error

MAX_WAITS = 40  # adaptive waits in one episode
_REF = re.compile(r"\[ref=(e\d+)\]")


@dataclass(frozen=True)
class Script:
    """One episode's tool calls; ``adapt`` waits for targets as a golden model would."""

    calls: list[tuple[str, dict[str, Any]]]
    adapt: bool = False


class ScriptedToolModel:
    """A ``FakeOpenAI`` responder: ``scripts[model][goal]`` is an episode's ``Script``."""

    def __init__(self, scripts: dict[str, dict[str, Script]]) -> None:
        self.scripts = scripts

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body.get("messages", [])
        goal = next((_text(m) for m in messages if m.get("role") == "user"), "")
        script = self.scripts.get(body.get("model", ""), {}).get(goal)
        if script is None:
            return error(400, f"no script for model {body.get('model')!r} and goal {goal!r}")
        made = [c["id"] for m in messages for c in m.get("tool_calls") or []]
        scripted = [int(i.split("_")[1]) for i in made if i.startswith("call_")]
        waits = len(made) - len(scripted)
        index = max(scripted, default=-1) + 1
        page = _latest_snapshot(messages)
        while script.adapt and index < len(script.calls) and _skippable(script, index, page):
            index += 1
        if index >= len(script.calls):
            return completion("Finished.", *usage_of(messages))
        name, arguments = script.calls[index]
        target = arguments.get("target")
        if script.adapt and target and target not in _REF.findall(page) and waits < MAX_WAITS:
            return _tool_call(f"wait_{waits}", "browser_wait_for", {"time": 0.25}, messages)
        return _tool_call(f"call_{index}", name, arguments, messages)


def _skippable(script: Script, index: int, page: str) -> bool:
    """A scripted wait whose next target is on the page already."""
    name, _ = script.calls[index]
    later = script.calls[index + 1][1].get("target") if index + 1 < len(script.calls) else None
    return name == "browser_wait_for" and later is not None and later in _REF.findall(page)


def _latest_snapshot(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        text = _text(message)
        if message.get("role") == "tool" and "### Snapshot" in text:
            return text
    return ""


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def usage_of(messages: list[dict[str, Any]]) -> tuple[int, int]:
    """Tokens the reply reports: a quarter of the prompt's characters, and 12."""
    return len(json.dumps(messages)) // 4, 12


def _tool_call(
    call_id: str, name: str, arguments: dict[str, Any], messages: list[dict[str, Any]]
) -> Reply:
    prompt, completion_tokens = usage_of(messages)
    call = {"id": call_id, "type": "function"}
    call["function"] = {"name": name, "arguments": json.dumps(arguments)}  # type: ignore[assignment]
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return Reply(
        200,
        {
            "id": f"chatcmpl-{call_id}",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt + completion_tokens,
            },
        },
    )

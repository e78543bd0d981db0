"""What ``LLMAgent`` sends (``build_messages``) and how it reads the reply (``parse_reply``).

The chat for one step: the system prompt (role, action DSL, rules); then the last
``history`` earlier turns, each a short user message (step number and URL: no tree, no
image) and the model's own reply; then the current observation as one user message,
with the screenshot as an image part when one is sent. ``docs/agents.md`` shows it all.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from webharness import actions as A

MAX_TREE_CHARS = 12_000
MAX_REPLY_CHARS = 2_000  # an earlier reply is cut to this in the chat memory
# Parts of an observation that can be sent; "screenshot" needs a model that reads images.
OBS_PARTS = ("goal", "url", "last_action_error", "user_messages", "axtree", "screenshot")
TEXT_PARTS = OBS_PARTS[:-1]

SYSTEM_PROMPT = """\
You are a web agent. You operate a real web browser to accomplish the user's goal. Each turn \
you see the goal, the page (its accessibility tree, a screenshot, or both) and your recent \
actions, and you reply with exactly one action.

Actions (a ref such as e12 is the [ref=e12] mark of an element in the current tree):
click(ref) - click an element
fill(ref, text) - clear a text field and type text into it
select_option(ref, option) - choose an option of a native select (a combobox with option children)
check(ref) / uncheck(ref) - tick or untick a checkbox or radio button
hover(ref) - move the mouse over an element
drag_and_drop(from_ref, to_ref) - drag an element onto another
press(ref, key) or press(key) - press a key such as "Enter", "Tab", "ArrowDown" or "Control+a" \
(on the focused element when no ref)
scroll(dx, dy) - scroll the page by pixels (dy > 0 scrolls down)
mouse_click(x, y) - click at page coordinates; mouse_click(x, y, button="right", count=2) \
for another button or a double click
keyboard_type(text) - type text into the focused element
goto(url) - open a URL
go_back() - go back one page
wait(ms) - wait for content that is still loading
noop() - do nothing this turn
ask_user(question) - ask the user for missing information; replies appear under \
"Messages from the user"
send_msg_to_user(text) - give the final answer to the user (ends the task)
report_infeasible(reason) - the task cannot be done (ends the task)
done() - the task is complete (ends the task)

Rules:
- Reply with exactly one action, in a fenced block, for example:
```action
click("e12")
```
- Arguments are string or number literals, e.g. fill("e5", "Ada Lovelace").
- Use refs from the current tree only; they change when the page re-renders.
- When the goal asks a question, answer with send_msg_to_user(answer) instead of done().
- When required information is missing or ambiguous, use ask_user(question) instead of guessing.
- If an action failed, read the error and try something different; do not repeat it.
- Call done() only when the goal is achieved on the page."""

VISION_NOTE = """
- A screenshot of the viewport comes with the current step. Where elements are boxed and \
labelled (e.g. e12), the label is the element's ref: use it as you would a ref of the tree."""


@dataclass
class Turn:
    """One earlier step of the episode, as the chat memory keeps it.

    Args:
        step: the step's number in the episode, from 1.
        action: the action played (DSL), or the raw reply when none parsed.
        reply: the model's reply (the assistant message replayed in later prompts).
        url: the page's URL when the action was chosen.
        error: the action's error, learned from the next observation ("" when fine).
    """

    step: int
    action: str
    reply: str = ""
    url: str = ""
    error: str = ""


def build_messages(
    obs: dict[str, Any],
    turns: Sequence[Turn],
    *,
    history: int = 4,
    obs_parts: Collection[str] = TEXT_PARTS,
    max_tree_chars: int = MAX_TREE_CHARS,
    image_url: str | None = None,
    marked: bool = False,
) -> list[dict[str, Any]]:
    """The chat messages for one step.

    Args:
        obs: the env's observation (``goal``, ``url``, ``axtree``, ``last_action_error``,
            ``user_messages``).
        turns: earlier steps of this episode, oldest first.
        history: how many of the latest turns to replay (and list under "Previous actions").
        obs_parts: which parts of ``obs`` to show (see ``OBS_PARTS``).
        max_tree_chars: the accessibility tree is cut to this many characters.
        image_url: the screenshot as a ``data:`` URL, sent as an image part; None for none.
        marked: the screenshot carries set-of-marks labels (said in the text).

    Example:
        >>> messages = build_messages({"goal": "Save", "axtree": "- button [ref=e1]"}, [])
        >>> [m["role"] for m in messages]
        ['system', 'user']
    """
    recent = list(turns)[-history:] if history > 0 else []
    system = SYSTEM_PROMPT + (VISION_NOTE if image_url else "")
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for turn in recent:
        messages.append({"role": "user", "content": _earlier(turn, obs_parts)})
        reply = turn.reply[:MAX_REPLY_CHARS] or f"```action\n{turn.action}\n```"
        messages.append({"role": "assistant", "content": reply})
    text = _current(obs, recent, obs_parts, max_tree_chars, image_url, marked)
    content: str | list[dict[str, Any]] = text
    if image_url:
        content = [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": image_url}},
        ]
    messages.append({"role": "user", "content": content})
    return messages


def _earlier(turn: Turn, obs_parts: Collection[str]) -> str:
    lines = [f"# Step {turn.step} (earlier: its tree and screenshot are not repeated)"]
    if "url" in obs_parts:
        lines.append(f"URL: {turn.url}")
    return "\n".join(lines)


def _current(
    obs: dict[str, Any],
    recent: list[Turn],
    parts: Collection[str],
    max_tree_chars: int,
    image_url: str | None,
    marked: bool,
) -> str:
    actions = "\n".join(
        f"{t.step}. {t.action}" + (f"  -> error: {t.error}" if t.error else "") for t in recent
    )
    user_messages = "\n".join(f"- {m}" for m in obs.get("user_messages") or [])
    sections = {
        "goal": f"# Goal\n{obs.get('goal', '')}",
        "url": f"# Current page\nURL: {obs.get('url', '')}",
        "last_action_error": f"# Last action error\n{obs.get('last_action_error') or 'none'}",
        "user_messages": f"# Messages from the user\n{user_messages or 'none'}",
    }
    shown = [text for part, text in sections.items() if part in parts]
    shown.append(f"# Previous actions (oldest first)\n{actions or 'none yet'}")
    if "axtree" in parts and "axtree" in obs:
        shown.append(f"# Accessibility tree\n{_cut(str(obs['axtree']), max_tree_chars)}")
    if image_url:
        marks = ", each interactive element boxed and labelled with its ref" if marked else ""
        shown.append(f"# Screenshot\nThe viewport is attached as an image{marks}.")
    shown.append("Reply with your next action.")
    return "\n\n".join(shown)


def _cut(tree: str, max_chars: int) -> str:
    if len(tree) <= max_chars:
        return tree
    return tree[:max_chars] + f"\n... (truncated: {len(tree) - max_chars} more characters)"


def without_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with each image's data replaced by its size (for transcripts)."""
    kept: list[dict[str, Any]] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            content = [
                {"type": "image_url", "image_url": {"url": _omitted(p["image_url"]["url"])}}
                if p.get("type") == "image_url"
                else p
                for p in content
            ]
        kept.append({**message, "content": content})
    return kept


def _omitted(url: str) -> str:
    head, _, data = url.partition(",")
    return f"{head},<{len(data)} characters omitted>"


_FENCE = re.compile(r"```[ \t]*[\w-]*[ \t]*\n?(.*?)```", re.S)
_LEAD = re.compile(r"^\s*(?:action\s*:|[-*>]|\d+\.)\s*", re.I)


def parse_reply(reply: str) -> str:
    """The action in a model reply as a DSL string, or the reply itself if none parses.

    Tried in order: the fenced blocks, last first; then the reply's lines, last first
    (a leading ``Action:``, bullet or number is dropped).

    Example:
        >>> parse_reply('I will save.\\n```action\\nclick("e6")\\n```')
        "click('e6')"
    """
    candidates = _FENCE.findall(reply)[::-1] + reply.splitlines()[::-1]
    for candidate in candidates:
        for line in [candidate, *candidate.strip().splitlines()]:
            text = _LEAD.sub("", line.strip()).strip("` ")
            if not text:
                continue
            try:
                return A.parse_action(text).dsl()
            except A.ActionParseError:
                continue
    return reply

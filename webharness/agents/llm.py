"""``LLMAgent``: an agent driven by any OpenAI-compatible chat-completions endpoint.

Configuration (arguments win over the environment):

- ``base_url`` / ``WEBHARNESS_LLM_BASE_URL`` (default ``https://api.openai.com/v1``);
  ``POST {base_url}/chat/completions`` is called.
- ``model`` / ``WEBHARNESS_LLM_MODEL`` (required).
- ``api_key`` / ``WEBHARNESS_LLM_API_KEY``, falling back to ``OPENAI_API_KEY``
  (required; for a local server that ignores keys, set any value).

A missing model or key raises ``LLMUnavailableError`` (an ``AgentUnavailableError``) in the constructor; an unreachable
endpoint, an HTTP error or a malformed response raises it from ``act``. These are never
turned into agent failures: a run without a working model has no result to report.

The prompt (``build_messages``):

- **system**: the role, the action DSL (one line per action with its meaning) and the
  rules: reply with exactly one action in an ```` ```action ```` fenced block; refs come
  from the ``[ref=…]`` marks of the current tree and change when the page re-renders;
  end with ``done()``, or ``send_msg_to_user(answer)`` when the goal asks a question;
  ``ask_user(question)`` when information is missing; do not repeat a failing action.
- **user** (one message a step, no chat history): the goal, the URL, the error of the
  last action, messages from the user, the last ``history_len`` actions with their
  errors, and the accessibility tree truncated to ``max_tree_chars``.

The reply is read by ``parse_reply``: the last fenced block, else the last line that
parses as an action; if nothing parses the raw reply is returned, and the env reports it
as ``unparseable`` (a ``model_protocol`` failure, not a crash).

Prompts and replies are kept (in ``transcript``) only with ``log_prompts=True``.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from typing import Any

from webharness import actions as A
from webharness.agents.base import TokenUsage
from webharness.errors import AgentUnavailableError
from webharness.trace.models import TaskInstance

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_TREE_CHARS = 12_000

SYSTEM_PROMPT = """\
You are a web agent. You operate a real web browser to accomplish the user's goal. Each turn \
you see the goal, the page's accessibility tree and your recent actions, and you reply with \
exactly one action.

Actions (a ref such as e12 is the [ref=e12] mark of an element in the current tree):
click(ref) - click an element
fill(ref, text) - clear a text field and type text into it
select_option(ref, option) - choose an option of a native select (a combobox with option children)
check(ref) / uncheck(ref) - tick or untick a checkbox or radio button
hover(ref) - move the mouse over an element
press(ref, key) or press(key) - press a key such as "Enter", "Tab", "Escape", "ArrowDown" (on the focused element when no ref)
scroll(dx, dy) - scroll the page by pixels (dy > 0 scrolls down)
mouse_click(x, y) - click at page coordinates
keyboard_type(text) - type text into the focused element
goto(url) - open a URL
go_back() - go back one page
wait(ms) - wait for content that is still loading
noop() - do nothing this turn
ask_user(question) - ask the user for missing information; replies appear under "Messages from the user"
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


class LLMUnavailableError(AgentUnavailableError):
    """The model cannot be called: no key or model configured, endpoint down, HTTP error.

    An ``AgentUnavailableError``: the runner stops the run instead of counting failures."""


def build_messages(
    obs: dict[str, Any],
    history: list[dict[str, str]],
    *,
    history_len: int = 5,
    max_tree_chars: int = MAX_TREE_CHARS,
) -> list[dict[str, str]]:
    """The chat messages for one step: the system prompt and one user message.

    Args:
        obs: the env's observation (``goal``, ``url``, ``axtree``, ``last_action_error``,
            ``user_messages``).
        history: earlier steps of this episode, oldest first, as ``{"action", "error"}``.
        history_len: how many of the latest actions to show.
        max_tree_chars: the accessibility tree is cut to this many characters.
    """
    tree = str(obs.get("axtree", ""))
    if len(tree) > max_tree_chars:
        tree = (
            tree[:max_tree_chars]
            + f"\n... (truncated: {len(tree) - max_tree_chars} more characters)"
        )
    recent = history[-history_len:] if history_len > 0 else []
    first = len(history) - len(recent) + 1
    actions = "\n".join(
        f"{first + i}. {h['action']}" + (f"  -> error: {h['error']}" if h.get("error") else "")
        for i, h in enumerate(recent)
    )
    user_messages = "\n".join(f"- {m}" for m in obs.get("user_messages") or [])
    sections = [
        f"# Goal\n{obs.get('goal', '')}",
        f"# Current page\nURL: {obs.get('url', '')}",
        f"# Last action error\n{obs.get('last_action_error') or 'none'}",
        f"# Messages from the user\n{user_messages or 'none'}",
        f"# Previous actions (oldest first)\n{actions or 'none yet'}",
        f"# Accessibility tree\n{tree}",
        "Reply with your next action.",
    ]
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "\n\n".join(sections)},
    ]


_FENCE = re.compile(r"```[ \t]*[\w-]*[ \t]*\n?(.*?)```", re.S)


def parse_reply(reply: str) -> str:
    """The action in a model reply as a DSL string, or the reply itself if none parses."""
    candidates = [block for block in _FENCE.findall(reply)[::-1]]
    candidates += reply.splitlines()[::-1]
    for candidate in candidates:
        for line in [candidate, *candidate.strip().splitlines()]:
            text = re.sub(r"^\s*(?:action\s*:|[-*>]|\d+\.)\s*", "", line.strip(), flags=re.I).strip(
                "` "
            )
            if not text:
                continue
            try:
                return A.parse_action(text).dsl()
            except A.ActionParseError:
                continue
    return reply


class LLMAgent:
    """Asks a chat model for each action. ``usage`` and ``transcript`` cover the current
    episode (cleared by ``reset``); ``total_usage`` covers the agent's lifetime.

    Example:
        >>> agent = LLMAgent(model="gpt-4o-mini")  # doctest: +SKIP
    """

    name = "llm"

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 300,
        log_prompts: bool = False,
        timeout_s: float = 60.0,
        history_len: int = 5,
        max_tree_chars: int = MAX_TREE_CHARS,
    ) -> None:
        self.base_url = (
            base_url or os.environ.get("WEBHARNESS_LLM_BASE_URL") or DEFAULT_BASE_URL
        ).rstrip("/")
        self.model = model or os.environ.get("WEBHARNESS_LLM_MODEL") or ""
        self._api_key = (
            api_key
            or os.environ.get("WEBHARNESS_LLM_API_KEY")
            or os.environ.get("OPENAI_API_KEY")
            or ""
        )
        if not self.base_url.startswith(("http://", "https://")):
            raise LLMUnavailableError(
                f"base_url={self.base_url!r} is not an http(s) URL; set WEBHARNESS_LLM_BASE_URL"
            )
        if not self.model:
            raise LLMUnavailableError(
                f"no model for {self.base_url}: pass model=... or set WEBHARNESS_LLM_MODEL"
            )
        if not self._api_key:
            raise LLMUnavailableError(
                f"no API key for {self.base_url} (model {self.model!r}): pass api_key=... or set "
                "WEBHARNESS_LLM_API_KEY (or OPENAI_API_KEY); for a local server that ignores keys, any value works"
            )
        if timeout_s <= 0 or max_tokens <= 0:
            raise ValueError(
                f"timeout_s={timeout_s!r} and max_tokens={max_tokens!r} must be positive"
            )
        self.temperature, self.max_tokens, self.timeout_s = temperature, max_tokens, timeout_s
        self.log_prompts, self.history_len, self.max_tree_chars = (
            log_prompts,
            history_len,
            max_tree_chars,
        )
        self.total_usage = TokenUsage()
        self.reset(None)

    def __repr__(self) -> str:  # never shows the key
        return f"LLMAgent(model={self.model!r}, base_url={self.base_url!r})"

    def reset(self, instance: TaskInstance | None) -> None:
        self.usage = TokenUsage()
        self.transcript: list[dict[str, Any]] = []
        self._history: list[dict[str, str]] = []

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self._history and obs.get("last_action_error"):
            self._history[-1]["error"] = str(obs["last_action_error"])[:300]
        messages = build_messages(
            obs, self._history, history_len=self.history_len, max_tree_chars=self.max_tree_chars
        )
        reply, usage = self.complete(messages)
        action = parse_reply(reply)
        self._history.append({"action": action[:300], "error": ""})
        if self.log_prompts:
            self.transcript.append(
                {
                    "step": len(self._history),
                    "messages": messages,
                    "reply": reply,
                    "action": action,
                    "usage": usage.model_dump(),
                }
            )
        return action

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, TokenUsage]:
        """One chat completion: the reply text and its token usage (added to ``usage``)."""
        body = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        data = self._post(body)
        try:
            reply = data["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise LLMUnavailableError(
                f"{self._where()} answered without choices[0].message: {str(data)[:200]}"
            ) from None
        raw = data.get("usage") or {}
        usage = TokenUsage(
            prompt_tokens=int(raw.get("prompt_tokens") or 0),
            completion_tokens=int(raw.get("completion_tokens") or 0),
        )
        for total in (self.usage, self.total_usage):
            total.prompt_tokens += usage.prompt_tokens
            total.completion_tokens += usage.completion_tokens
        return str(reply), usage

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Authorization": f"Bearer {self._api_key}",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            with exc:
                detail = exc.read()[:300].decode(errors="replace")
            hint = " (check the API key)" if exc.code in (401, 403) else ""
            raise LLMUnavailableError(
                f"{self._where()} returned HTTP {exc.code}{hint}: {detail}"
            ) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise LLMUnavailableError(
                f"cannot reach {self._where()}: {reason}; check WEBHARNESS_LLM_BASE_URL and that the server is up"
            ) from None
        try:
            data = json.loads(payload)
        except ValueError:
            raise LLMUnavailableError(
                f"{self._where()} did not answer JSON: {payload[:200]!r}"
            ) from None
        if not isinstance(data, dict):
            raise LLMUnavailableError(
                f"{self._where()} answered {type(data).__name__}, not a JSON object"
            )
        return data

    def _where(self) -> str:
        return f"{self.base_url}/chat/completions (model {self.model!r})"

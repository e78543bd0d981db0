"""``LLMAgent``: an agent driven by any OpenAI-compatible chat-completions endpoint.

Configuration (arguments win over the environment):

- ``base_url`` / ``WEBHARNESS_LLM_BASE_URL`` (default ``https://api.openai.com/v1``);
  ``POST {base_url}/chat/completions`` is called.
- ``model`` / ``WEBHARNESS_LLM_MODEL`` (required).
- ``api_key`` / ``WEBHARNESS_LLM_API_KEY``, falling back to ``OPENAI_API_KEY``
  (required; for a local server that ignores keys, set any value).

A missing model or key raises ``LLMUnavailableError`` (an ``AgentUnavailableError``) in
the constructor. From ``act``, transient failures (HTTP 429 and 5xx, timeouts, dropped
connections) are retried with backoff (``max_attempts``, ``max_retry_wait_s``); what is
left raises ``LLMUnavailableError``, saying whether the server was unreachable, timed out
or refused the request. These are never turned into agent failures: a run without a
working model has no result to report.

The prompt (``build_messages``), the reply parsing (``parse_reply``), every option, the
retry policy and set-of-marks are described in ``docs/agents.md``.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from webharness.agents._llm_client import (
    TOKEN_PARAMS,
    ChatClient,
    LLMStats,
    LLMUnavailableError,
    parse_completion,
    reply_message,
)
from webharness.agents._llm_computer import COMPUTER_TOOL, computer_action, computer_messages
from webharness.agents._llm_prompt import (
    MAX_TREE_CHARS,
    OBS_PARTS,
    SYSTEM_PROMPT,
    TEXT_PARTS,
    Turn,
    build_messages,
    parse_reply,
    without_images,
)
from webharness.agents._llm_retry import RetryPolicy, parse_retry_after
from webharness.agents._llm_vision import screenshot_data_url
from webharness.agents.base import TokenUsage
from webharness.errors import did_you_mean
from webharness.trace.models import TaskInstance

__all__ = [
    "DEFAULT_BASE_URL",
    "MAX_HISTORY",
    "MAX_TREE_CHARS",
    "OBS_PARTS",
    "SYSTEM_PROMPT",
    "LLMAgent",
    "LLMStats",
    "LLMUnavailableError",
    "RetryPolicy",
    "Turn",
    "build_messages",
    "parse_reply",
    "parse_retry_after",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MODES = ("dom", "computer")  # what is sent and what comes back (``mode``)
MAX_HISTORY = 20  # earlier turns the chat memory can hold at most


class LLMAgent:
    """Asks a chat model for each action.

    ``usage`` (tokens) and ``stats`` (requests, retries, backoff) cover the current
    episode and are cleared by ``reset``, as is the chat memory; ``total_usage`` and
    ``total_stats`` cover the agent's lifetime.

    Args:
        model: the model name (default ``WEBHARNESS_LLM_MODEL``).
        base_url: the API root (default ``WEBHARNESS_LLM_BASE_URL``, else OpenAI's).
        api_key: the key (default ``WEBHARNESS_LLM_API_KEY``, else ``OPENAI_API_KEY``).
        temperature: sampling temperature; not sent at all when None.
        max_tokens: the reply's token limit.
        log_prompts: keep each step's messages and reply in ``transcript``.
        timeout_s: seconds to wait for each answer of the server.
        history: earlier turns kept in the chat (0 to ``MAX_HISTORY``).
        max_tree_chars: the accessibility tree is cut to this many characters.
        obs_parts: the observation's parts to send (a list, or a comma-separated string)
            out of ``OBS_PARTS``; by default all text parts, plus ``screenshot`` with
            ``vision``.
        vision: the model reads images: send the screenshot, when there is one.
        set_of_marks: draw each element's box and ref onto the screenshot (needs vision).
        token_param: ``"max_tokens"`` or ``"max_completion_tokens"``, the name the limit
            is sent under; switched (and remembered) when the server rejects it.
        max_attempts: requests per step at most, the first included.
        max_retry_wait_s: seconds of backoff per step at most.
        rng: draws the backoff's jitter (default: a fresh ``random.Random``).
        sleep: waits before a retry (injectable for tests).
        clock: the Unix time, to read ``Retry-After`` dates (injectable for tests).
        mode: ``"dom"`` (the observation as chosen above, a DSL action back) or
            ``"computer"``: the goal and the screenshot only, and a computer-use action
            back as a tool call (``_llm_computer``); it needs a model that reads images.

    Raises:
        LLMUnavailableError: no model, no key, or a base_url that is not http(s).
        ValueError: an option out of range, or options that contradict each other.

    Example:
        >>> agent = LLMAgent(model="gpt-4o-mini", vision=True)  # doctest: +SKIP
    """

    name = "llm"

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        max_tokens: int = 300,
        log_prompts: bool = False,
        timeout_s: float = 60.0,
        history: int = 4,
        max_tree_chars: int = MAX_TREE_CHARS,
        obs_parts: Sequence[str] | str | None = None,
        vision: bool = False,
        set_of_marks: bool = False,
        token_param: str = "max_tokens",
        max_attempts: int = 4,
        max_retry_wait_s: float = 60.0,
        rng: random.Random | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        mode: str = "dom",
    ) -> None:
        if mode not in MODES:
            raise ValueError(
                f"mode={mode!r}: use one of {', '.join(MODES)}.{did_you_mean(mode, MODES)}"
            )
        self.mode = mode
        if mode == "computer":  # the screenshot and the goal, nothing of the tree
            vision, obs_parts = True, obs_parts or ("goal", "screenshot")
        self.base_url = (
            base_url or os.environ.get("WEBHARNESS_LLM_BASE_URL") or DEFAULT_BASE_URL
        ).rstrip("/")
        self.model = model or os.environ.get("WEBHARNESS_LLM_MODEL") or ""
        key = (
            api_key or os.environ.get("WEBHARNESS_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        )
        self._check_endpoint(key)
        _check_numbers(timeout_s=timeout_s, max_tokens=max_tokens, history=history)
        self.vision, self.set_of_marks = vision, set_of_marks
        self.obs_parts = self._parts(obs_parts)
        if token_param not in TOKEN_PARAMS:
            raise ValueError(
                f"token_param={token_param!r}: use one of {', '.join(TOKEN_PARAMS)}."
                f"{did_you_mean(token_param, TOKEN_PARAMS)}"
            )
        self.log_prompts, self.history, self.max_tree_chars = log_prompts, history, max_tree_chars
        self.client = ChatClient(
            base_url=self.base_url,
            api_key=str(key),
            model=self.model,
            timeout_s=timeout_s,
            max_tokens=max_tokens,
            temperature=temperature,
            token_param=token_param,
            retry=RetryPolicy(max_attempts=max_attempts, max_wait_s=max_retry_wait_s),
            sleep=sleep,
            clock=clock,
            rng=rng or random.Random(),
        )
        if mode == "computer":
            self.client.tools = [COMPUTER_TOOL]
        self.total_usage, self.total_stats = TokenUsage(), LLMStats()
        self.reset(None)

    def __repr__(self) -> str:  # never shows the key
        return f"LLMAgent(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def token_param(self) -> str:
        """The name the token limit is sent under (it may have switched after a 400)."""
        return self.client.token_param

    def reset(self, instance: TaskInstance | None) -> None:
        """Start an episode: forget the chat, zero ``usage``, ``stats`` and ``transcript``."""
        self.usage, self.stats = TokenUsage(), LLMStats()
        self.transcript: list[dict[str, Any]] = []
        self._turns: deque[Turn] = deque(maxlen=self.history)
        self._step = 0

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> Any:
        """The next action (DSL), or the raw reply when it holds none (the env says so);
        in computer mode, a computer call the env could not read as it is.

        Raises:
            LLMUnavailableError: the model could not be called (see ``docs/agents.md``).
        """
        if self._turns and obs.get("last_action_error"):
            self._turns[-1].error = str(obs["last_action_error"])[:300]
        image = self._image(obs, info)
        if self.mode == "computer":
            goal = str(obs.get("goal", ""))
            messages = computer_messages(goal, image, list(self._turns))
            message, usage = self._reply(messages)
            action: Any = computer_action(message)
            reply = json.dumps(message.get("tool_calls") or message.get("content"))
        else:
            messages = build_messages(
                obs,
                self._turns,
                history=self.history,
                obs_parts=self.obs_parts,
                max_tree_chars=self.max_tree_chars,
                image_url=image,
                marked=bool(image) and self.set_of_marks,
            )
            reply, usage = self.complete(messages)
            action = parse_reply(reply)
        self._step += 1
        url = str(obs.get("url", ""))
        shown = action if isinstance(action, str) else json.dumps(action)
        self._turns.append(Turn(self._step, shown[:300], reply=reply, url=url))
        if self.log_prompts:
            self.transcript.append(
                {
                    "step": self._step,
                    "messages": without_images(messages),
                    "reply": reply,
                    "action": action,
                    "usage": usage.model_dump(),
                }
            )
        return action

    def complete(self, messages: list[dict[str, Any]]) -> tuple[str, TokenUsage]:
        """One chat completion: the reply text and its token usage (added to ``usage``).

        Requests and retries are added to ``stats`` and ``total_stats``.
        """
        message, usage = self._reply(messages)
        return str(message.get("content") or ""), usage

    def _reply(self, messages: list[dict[str, Any]]) -> tuple[dict[str, Any], TokenUsage]:
        """One chat completion: the reply's message and its token usage (counted)."""
        data = self.client.complete(messages, self.stats, self.total_stats)
        message = reply_message(data, self.client.where)
        _, usage = parse_completion(data, self.client.where)
        for total in (self.usage, self.total_usage):
            total.prompt_tokens += usage.prompt_tokens
            total.completion_tokens += usage.completion_tokens
        return message, usage

    def _image(self, obs: dict[str, Any], info: dict[str, Any]) -> str | None:
        frame = obs.get("screenshot")
        if "screenshot" not in self.obs_parts or frame is None:
            return None
        state = info.get("semantic_state")
        marks = getattr(state, "elements", []) if self.set_of_marks else []
        return screenshot_data_url(frame, marks)

    def _check_endpoint(self, key: str | None) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise LLMUnavailableError(
                f"base_url={self.base_url!r} is not an http(s) URL; set WEBHARNESS_LLM_BASE_URL"
            )
        if not self.model:
            raise LLMUnavailableError(
                f"no model for {self.base_url}: pass model=... or set WEBHARNESS_LLM_MODEL"
            )
        if not key:
            raise LLMUnavailableError(
                f"no API key for {self.base_url} (model {self.model!r}): pass api_key=... or "
                "set WEBHARNESS_LLM_API_KEY (or OPENAI_API_KEY); for a local server that "
                "ignores keys, any value works"
            )

    def _parts(self, obs_parts: Sequence[str] | str | None) -> tuple[str, ...]:
        if self.set_of_marks and not self.vision:
            raise ValueError(
                "set_of_marks=True draws on the screenshot sent to the model: it needs vision=True"
            )
        if obs_parts is None:
            return TEXT_PARTS + (("screenshot",) if self.vision else ())
        parts = obs_parts.split(",") if isinstance(obs_parts, str) else list(obs_parts)
        parts = [p.strip() for p in parts if p.strip()]
        for part in parts:
            if part not in OBS_PARTS:
                raise ValueError(
                    f"obs_parts has {part!r}, not a part of an observation."
                    f"{did_you_mean(part, OBS_PARTS)} Parts: {', '.join(OBS_PARTS)}"
                )
        if "screenshot" in parts and not self.vision:
            raise ValueError(
                "obs_parts has 'screenshot' but vision=False: pass vision=True for a model "
                "that reads images, or leave the screenshot out"
            )
        return tuple(parts)


def _check_numbers(*, timeout_s: float, max_tokens: int, history: int) -> None:
    if not timeout_s > 0 or max_tokens <= 0:
        raise ValueError(f"timeout_s={timeout_s!r} and max_tokens={max_tokens!r} must be positive")
    if not 0 <= history <= MAX_HISTORY:
        raise ValueError(f"history={history!r}: keep 0 to {MAX_HISTORY} earlier turns")

"""The HTTP side of ``LLMAgent``: one chat completion, with retries and readable errors.

``ChatClient.complete`` posts to ``{base_url}/chat/completions``; a transient failure is
retried under a ``RetryPolicy``; what cannot be retried becomes an ``LLMUnavailableError``
that says which of three things happened: the server is *unreachable* (refused, unknown
host), it *timed out* (reachable but slow), or it *refused the request* (a 4xx).
"""

from __future__ import annotations

import http.client
import json
import random
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from webharness.agents._llm_retry import RetryPolicy, parse_retry_after, retryable_status
from webharness.agents.base import TokenUsage
from webharness.errors import AgentUnavailableError

TOKEN_PARAMS = ("max_tokens", "max_completion_tokens")
_DETAIL_CHARS = 300


class LLMUnavailableError(AgentUnavailableError):
    """The model cannot be called: no key or model configured, endpoint down, HTTP error.

    An ``AgentUnavailableError``: the runner stops the run instead of counting failures."""


class LLMStats(BaseModel):
    """What calling the model took besides tokens: requests made, retries, time waited."""

    model_config = ConfigDict(extra="forbid")

    requests: int = 0  # HTTP requests sent, retries included
    retries: int = 0  # requests that were a retry of a failed one
    retry_wait_s: float = 0.0  # seconds slept before retries
    token_param_switches: int = 0  # max_tokens <-> max_completion_tokens, after a 400


@dataclass(eq=False)
class _Failure(Exception):
    """One failed attempt, classified (internal: the client turns it into an error)."""

    # unreachable: refused, unknown host; no_connection: connecting timed out;
    # timeout: connected, but no answer in time; dropped: the connection was cut.
    kind: Literal["unreachable", "no_connection", "timeout", "dropped", "http"]
    detail: str
    status: int = 0
    param: str = ""  # the request field a 400 names, when the server says
    retry_after: float | None = None
    attempts: int = 1
    waited_s: float = 0.0
    refused_wait_s: float = 0.0  # a Retry-After beyond what was left of the budget

    @property
    def retryable(self) -> bool:
        return self.kind in ("no_connection", "timeout", "dropped") or (
            retryable_status(self.status)
        )


class ChatClient:
    """Posts chat completions to an OpenAI-compatible endpoint.

    Args:
        base_url: the API root; ``{base_url}/chat/completions`` is called.
        api_key: sent as ``Authorization: Bearer ...``.
        model: the ``model`` field of every request.
        timeout_s: seconds to wait for each answer.
        max_tokens: the reply's token limit, sent under ``token_param``.
        temperature: sent only when not None.
        token_param: ``"max_tokens"`` or ``"max_completion_tokens"``; switched once (and
            kept) when the server rejects it with a 400 that names it.
        retry: when and how long to retry transient failures.
        sleep: waits between attempts (injectable for tests).
        clock: the Unix time, to read ``Retry-After`` dates (injectable for tests).
        rng: draws the jitter of the backoff.
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        model: str,
        timeout_s: float,
        max_tokens: int,
        temperature: float | None,
        token_param: str,
        retry: RetryPolicy,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
        rng: random.Random,
    ) -> None:
        self.base_url, self.model, self._api_key = base_url, model, api_key
        self.timeout_s, self.max_tokens, self.temperature = timeout_s, max_tokens, temperature
        self.token_param, self.retry = token_param, retry
        self._sleep, self._clock, self._rng = sleep, clock, rng
        self.tools: list[dict[str, Any]] = []  # offered to the model with every request

    @property
    def where(self) -> str:
        """The endpoint and model, as error messages name them."""
        return f"{self.base_url}/chat/completions (model {self.model!r})"

    def complete(self, messages: list[dict[str, Any]], *stats: LLMStats) -> dict[str, Any]:
        """The server's JSON answer to one chat completion.

        Args:
            messages: the chat messages.
            *stats: counters to add requests, retries and waiting to.

        Raises:
            LLMUnavailableError: the server is unreachable, timed out, refused the request,
                kept failing past the retry bounds, or did not answer a JSON object.
        """
        try:
            return self._post_with_retries(self._body(messages), stats)
        except _Failure as failure:
            if not self._rejects_token_param(failure):
                raise LLMUnavailableError(self._message(failure)) from None
            first = failure
        sent = self.token_param
        self.token_param = other = TOKEN_PARAMS[1 - TOKEN_PARAMS.index(sent)]
        try:
            data = self._post_with_retries(self._body(messages), stats)
        except _Failure as failure:
            self.token_param = sent  # the other name did not help either: keep the first
            raise LLMUnavailableError(
                f"{self._message(first)} (sent as {other!r} instead: {failure.detail})"
            ) from None
        for counter in stats:
            counter.token_param_switches += 1
        return data

    def _body(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        body[self.token_param] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.tools:
            body["tools"] = self.tools
        return body

    def _rejects_token_param(self, failure: _Failure) -> bool:
        return failure.status == 400 and (
            failure.param == self.token_param or self.token_param in failure.detail
        )

    def _post_with_retries(
        self, body: dict[str, Any], stats: tuple[LLMStats, ...]
    ) -> dict[str, Any]:
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            for counter in stats:
                counter.requests += 1
            try:
                return self._post(body)
            except _Failure as failure:
                failure.attempts, failure.waited_s = attempt, waited
                delay = self._retry_delay(failure)
                if delay is None:
                    raise
                self._sleep(delay)
                waited += delay
                for counter in stats:
                    counter.retries += 1
                    counter.retry_wait_s += delay

    def _retry_delay(self, failure: _Failure) -> float | None:
        """Seconds to wait before retrying ``failure``, or None to give up."""
        if not failure.retryable or failure.attempts >= self.retry.max_attempts:
            return None
        delay = self.retry.delay(failure.attempts, failure.retry_after, self._rng)
        if failure.waited_s + delay > self.retry.max_wait_s:
            failure.refused_wait_s = delay
            return None
        return delay

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
                retry_after = parse_retry_after(exc.headers.get("Retry-After"), self._clock())
                raise _http_failure(exc.code, _error_body(exc), retry_after) from None
        except (OSError, http.client.HTTPException) as exc:
            raise _network_failure(exc) from None
        return self._json_object(payload)

    def _json_object(self, payload: bytes) -> dict[str, Any]:
        try:
            data = json.loads(payload)
        except ValueError:
            raise LLMUnavailableError(
                f"{self.where} did not answer JSON: {payload[:200]!r}"
            ) from None
        if not isinstance(data, dict):
            raise LLMUnavailableError(
                f"{self.where} answered {type(data).__name__}, not a JSON object"
            )
        return data

    def _message(self, failure: _Failure) -> str:
        tries = ""
        if failure.attempts > 1:
            tries = f" after {failure.attempts} attempts ({failure.waited_s:.1f} s of backoff)"
        if failure.kind == "unreachable":
            return self._unreachable(failure.detail)
        if failure.kind == "no_connection":
            return self._unreachable(f"no connection within timeout_s={self.timeout_s:g} s{tries}")
        if failure.kind == "timeout":
            return (
                f"{self.where} timed out{tries}: no answer within timeout_s={self.timeout_s:g} s. "
                "The server was reachable but slow: raise the timeout_s option "
                f"(e.g. timeout_s={self.timeout_s * 4:g})"
            )
        if not failure.retryable:
            hint = " (check the API key)" if failure.status in (401, 403) else ""
            return (
                f"{self.where} refused the request: HTTP {failure.status}{hint}: {failure.detail}"
            )
        if failure.kind == "dropped":
            return f"{self.where} dropped the connection{tries}: {failure.detail}" + (
                self._budget_hint(failure)
            )
        return f"{self.where} returned HTTP {failure.status}{tries}: {failure.detail}" + (
            self._budget_hint(failure)
        )

    def _unreachable(self, detail: str) -> str:
        return (
            f"cannot reach {self.where}: the server is unreachable ({detail}); "
            "check base_url (WEBHARNESS_LLM_BASE_URL) and that the server is up"
        )

    def _budget_hint(self, failure: _Failure) -> str:
        if failure.refused_wait_s:
            left = self.retry.max_wait_s - failure.waited_s
            return (
                f"; the next retry would wait {failure.refused_wait_s:.1f} s, more than the "
                f"{left:.1f} s left of max_retry_wait_s={self.retry.max_wait_s:g}: raise it "
                "to wait longer"
            )
        return f"; raise max_attempts (now {self.retry.max_attempts}) to retry more"


def parse_completion(data: dict[str, Any], where: str) -> tuple[str, TokenUsage]:
    """The reply text and token usage of a chat-completion answer.

    Raises:
        LLMUnavailableError: the answer has no ``choices[0].message``.
    """
    reply = reply_message(data, where).get("content") or ""
    raw = data.get("usage") or {}
    usage = TokenUsage(
        prompt_tokens=int(raw.get("prompt_tokens") or 0),
        completion_tokens=int(raw.get("completion_tokens") or 0),
    )
    return str(reply), usage


def reply_message(data: dict[str, Any], where: str) -> dict[str, Any]:
    """The answer's ``choices[0].message``.

    Raises:
        LLMUnavailableError: it has none.
    """
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        message = None
    if not isinstance(message, dict):
        raise LLMUnavailableError(f"{where} answered without choices[0].message: {str(data)[:200]}")
    return message


def _error_body(exc: urllib.error.HTTPError) -> bytes:
    try:
        return exc.read()
    except (OSError, http.client.HTTPException):  # cut off mid-body: the status must do
        return b""


def _http_failure(status: int, raw: bytes, retry_after: float | None) -> _Failure:
    text = raw[:4000].decode(errors="replace")
    message, param = text, ""
    try:
        error = json.loads(text).get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, dict):
        message, param = str(error.get("message") or text), str(error.get("param") or "")
    elif isinstance(error, str):
        message = error
    return _Failure(
        "http",
        message[:_DETAIL_CHARS],
        status=status,
        param=param,
        retry_after=retry_after,
    )


def _network_failure(exc: BaseException) -> _Failure:
    # urllib wraps what fails while connecting and sending in a URLError; what fails
    # while waiting for the answer comes bare.
    reason = getattr(exc, "reason", exc)
    if not isinstance(reason, BaseException):  # URLError("...") with a bare string
        return _Failure("unreachable", str(reason))
    if isinstance(reason, TimeoutError):
        return _Failure("no_connection" if reason is not exc else "timeout", str(reason))
    if isinstance(reason, (ConnectionResetError, ConnectionAbortedError, BrokenPipeError)) or (
        isinstance(reason, http.client.HTTPException)
    ):
        return _Failure("dropped", repr(reason))
    return _Failure("unreachable", str(reason) or type(reason).__name__)

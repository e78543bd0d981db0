"""A fake OpenAI-compatible server, and fake time, for the LLM agent and LLM proxy tests.

``FakeOpenAI`` is a stdlib ``ThreadingHTTPServer`` on 127.0.0.1 (an ephemeral port) in a
thread. Each ``POST`` is logged (path, headers, JSON body and its bytes) and answered by
the next scripted ``Reply`` (``script(...)``), else by ``responder(body)``. A reply can be
held until ``release`` is set (a slow server), dropped without an answer (a reset), or
streamed as server-sent events (``chunks``, ``responses_stream``), chunk by chunk.

Example:
    >>> with FakeOpenAI() as server:  # doctest: +SKIP
    ...     server.script(Reply(500, {"error": {"message": "overloaded"}}), completion("done()"))
"""

from __future__ import annotations

import json
import random
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from webharness.agents import LLMAgent

HOLD_LIMIT_S = 30.0  # a held reply waits for release at most this long
# A text observation of the contact form, as the env would give it.
OBS: dict[str, Any] = {
    "goal": 'Add a contact: full name "Ada Lovelace". Save it.',
    "url": "http://webeval.test/index.html",
    "axtree": '- textbox "Full name" [ref=e5]\n- button "Save contact" [ref=e6]',
    "last_action_error": "",
    "user_messages": [],
}


@dataclass
class Reply:
    """One scripted answer.

    Args:
        status: the HTTP status.
        body: a dict or list (sent as JSON) or a str or bytes (sent as is).
        headers: extra response headers, e.g. ``{"Retry-After": "1"}``.
        hold: wait for the server's ``release`` event before answering (a stream: before
            its last event, so the client can read the others first).
        drop: close the connection without answering.
        events: answer with this stream of server-sent events (each dict sent as one
            ``data:`` line of JSON, each str as a ``data:`` line as is), in HTTP chunks.
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    hold: bool = False
    drop: bool = False
    events: list[Any] | None = None


@dataclass
class Request:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes = b""  # the body's bytes, as received


Responder = Callable[[dict[str, Any]], "Reply | tuple[int, Any]"]


def completion(content: str | None, prompt_tokens: int = 100, completion_tokens: int = 10) -> Reply:
    """A successful chat completion whose message is ``content``."""
    return Reply(
        200,
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        },
    )


def chunks(
    content: str, prompt_tokens: int = 100, completion_tokens: int = 10, include_usage: bool = True
) -> Reply:
    """A streamed chat completion of ``content``, a word a chunk, then ``[DONE]``; its usage
    comes in a last chunk of no choices, as when the request set ``stream_options={
    "include_usage": True}`` (``include_usage=False``: as when it did not)."""
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": "fake-model"}
    events: list[Any] = [
        {**base, "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}]}
        for word in content.split(" ")
    ]
    events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if include_usage:
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}
        events.append(
            {**base, "choices": [], "usage": {**usage, "total_tokens": sum(usage.values())}}
        )
    return Reply(200, headers={"Content-Type": "text/event-stream"}, events=[*events, "[DONE]"])


def response(text: str, input_tokens: int = 100, output_tokens: int = 10) -> Reply:
    """A Responses API answer (``POST /responses``) whose output is the message ``text``."""
    return Reply(200, _response_object(text, input_tokens, output_tokens))


def responses_stream(text: str, input_tokens: int = 100, output_tokens: int = 10) -> Reply:
    """A streamed Responses API answer: created, one text delta a word, then completed (the
    one event that carries the usage)."""
    created = _response_object("", 0, 0) | {"status": "in_progress", "usage": None, "output": []}
    events: list[Any] = [{"type": "response.created", "response": created}]
    events += [
        {
            "type": "response.output_text.delta",
            "item_id": "msg-test",
            "output_index": 0,
            "content_index": 0,
            "delta": word,
            "logprobs": [],
        }
        for word in text.split(" ")
    ]
    completed = _response_object(text, input_tokens, output_tokens)
    events.append({"type": "response.completed", "response": completed})
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return Reply(200, headers={"Content-Type": "text/event-stream"}, events=events)


def _response_object(text: str, input_tokens: int, output_tokens: int) -> dict[str, Any]:
    message = {
        "type": "message",
        "id": "msg-test",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    usage = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    return {
        "id": "resp-test",
        "object": "response",
        "created_at": 1_700_000_000,
        "model": "fake-model",
        "status": "completed",
        "output": [message],
        "usage": usage,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


def error(status: int, message: str, headers: dict[str, str] | None = None, **fields: Any) -> Reply:
    """An OpenAI-style error answer: ``{"error": {"message": ..., **fields}}``."""
    return Reply(status, {"error": {"message": message, **fields}}, dict(headers or {}))


class FakeOpenAI:
    """Answers ``POST {base_url}/...`` (chat completions, responses) from a script, logging
    every request."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.responder: Responder = lambda body: completion("noop()")
        self.release = threading.Event()  # lets held replies (and slow responders) finish
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        # serve_forever notices shutdown() at its next poll: a short one keeps teardown fast.
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def script(self, *replies: Reply) -> None:
        """Answer the next requests with ``replies``, in order, then fall back to ``responder``."""
        with self._lock:
            self._script.extend(replies)

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies received so far, oldest first."""
        with self._lock:
            return [r.body for r in self.requests]

    def answer(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            scripted = self._script.popleft() if self._script else None
        reply = scripted or self.responder(request.body)
        return reply if isinstance(reply, Reply) else Reply(*reply)

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            request = Request(self.path, dict(self.headers), json.loads(raw), raw)
            reply = server.answer(request)
            if reply.events is not None:
                self.stream(reply)
                return
            if reply.hold:
                server.release.wait(HOLD_LIMIT_S)
            if reply.drop:
                self.close_connection = True
                return
            body = reply.body if isinstance(reply.body, (str, bytes)) else json.dumps(reply.body)
            data = body if isinstance(body, bytes) else body.encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (a timeout test)
                pass

        def stream(self, reply: Reply) -> None:
            """Send ``reply.events`` as server-sent events, one HTTP chunk each."""
            self.protocol_version = "HTTP/1.1"  # for chunked transfer; one answer, then close
            self.close_connection = True
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            events = reply.events or []
            try:
                for number, event in enumerate(events):
                    if reply.hold and number == len(events) - 1:
                        server.release.wait(HOLD_LIMIT_S)
                    line = event if isinstance(event, str) else json.dumps(event)
                    data = f"data: {line}\n\n".encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:  # the client gave up
                pass

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def llm_agent(server: FakeOpenAI, clock: FakeClock | None = None, **options: Any) -> LLMAgent:
    """An ``LLMAgent`` of ``server`` whose retries wait on ``clock`` (a fresh fake one by
    default), never for real, with jitter from a seeded generator."""
    clock = clock or FakeClock()
    options = {"sleep": clock.sleep, "clock": clock.time, "rng": random.Random(0), **options}
    return LLMAgent(model="fake-model", base_url=server.base_url, api_key="sk-test", **options)


class FakeClock:
    """Time that passes only when slept: ``sleep`` records the delay and moves ``time``."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def time(self) -> float:
        return self.now

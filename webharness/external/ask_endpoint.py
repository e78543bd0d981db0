"""The simulated user, for an agent that drives its own browser: a local HTTP endpoint.

An MCP agent asks with the ``webharness_ask_user`` tool; an agent on CDP has no tools, so
its command gets ``{ask_url}``: ``POST`` a question there (a JSON ``{"question": ...}`` or
plain text) and the answer comes back as JSON ``{"answer": ...}``. Each question is the
episode's ``ask_user`` step, recorded like any other. The path holds an unguessable token;
the server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

from webharness.local_http import LocalServer

MAX_QUESTION_BYTES = 10_000


class AskEndpoint:
    """Answers an agent's questions with ``ask(question)``; ``start`` gives its URL."""

    def __init__(self, ask: Callable[[str], str]) -> None:
        self.ask = ask
        self.token = secrets.token_urlsafe(24)
        self._server = LocalServer(_handler(self))
        self._lock = threading.Lock()  # one question at a time: each is a step

    def start(self) -> str:
        """Serve from a thread of its own; the URL to ``POST`` questions to."""
        return f"http://127.0.0.1:{self._server.start()}/{self.token}/ask"

    def stop(self) -> None:
        """Stop serving, after the question being answered, if any."""
        self._server.stop()

    def answer(self, body: bytes, content_type: str) -> str:
        """The user's answer to the question in ``body``.

        Raises:
            ValueError: no question in it.
        """
        text = body.decode("utf-8", errors="replace")
        if "json" in content_type:
            given = json.loads(text)
            question = given.get("question") if isinstance(given, dict) else None
            if not isinstance(question, str):
                raise ValueError('give the question as {"question": "..."}')
            text = question
        if not text.strip():
            raise ValueError("the question is empty")
        with self._lock:
            return self.ask(text.strip())


def _handler(endpoint: AskEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            if self.path != f"/{endpoint.token}/ask":
                return self._reply(404, {"error": "no endpoint at this path"})
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_QUESTION_BYTES:
                return self._reply(
                    413, {"error": f"a question is at most {MAX_QUESTION_BYTES} bytes"}
                )
            try:
                answer = endpoint.answer(
                    self.rfile.read(length), self.headers.get("Content-Type", "")
                )
            except ValueError as exc:  # json.JSONDecodeError is one
                return self._reply(400, {"error": str(exc)})
            self._reply(200, {"answer": answer})

        def _reply(self, status: int, body: dict[str, str]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass  # the episode's trace records the questions

    return Handler

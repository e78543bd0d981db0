"""MCP's streamable HTTP transport for one endpoint, every answer a single JSON response.

The spec lets a server answer a POSTed request with one ``application/json`` body instead
of an SSE stream, and answer the GET that would open a server-to-client stream with 405.
Our server never calls the client, so that is all it needs. A request is answered in the
thread of its connection (``local_http.py``), without the SDK's streams and SSE framing:
this is the MCP door's speed (``benchmarks/bench_mcp.py``).

Each session is made by ``initialize`` (its id comes back in ``Mcp-Session-Id``) and ended
by a DELETE. Requests are checked as the SDK's transport checks them: ``Host`` and
``Origin`` must be local (DNS rebinding), the body JSON of at most 4 MiB, the session known.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from webharness.mcp.methods import McpMethods

ReadBody = Callable[[], bytes]  # the request's body, read when it is wanted

MAX_BODY = 4 * 1024 * 1024
MAX_DRAINED = 64 * 1024 * 1024  # a bigger body is not read: its connection is closed
LOCAL_HOSTS = ("127.0.0.1", "localhost")
log = logging.getLogger(__name__)


class HttpError(Exception):
    """A request refused before it reaches a method: an HTTP status, and why."""

    def __init__(self, status: int, message: str, code: int = types.INVALID_REQUEST) -> None:
        super().__init__(message)
        self.status, self.code = status, code


@dataclass(frozen=True)
class Reply:
    """A whole HTTP response."""

    status: int
    body: bytes = b""
    content_type: str = "text/plain"
    headers: tuple[tuple[str, str], ...] = ()


class StreamableHttpEndpoint:
    """One endpoint's sessions and requests, answered by ``methods``.

    Args:
        methods: what answers the requests.
        on_session_end: called with a session's id when its client ends it with a DELETE.
    """

    def __init__(self, methods: McpMethods, on_session_end: Callable[[str], None]) -> None:
        self.methods, self.on_session_end = methods, on_session_end
        self._sessions: set[str] = set()
        self._lock = threading.Lock()

    def handle(self, method: str, headers: Mapping[str, str], read_body: ReadBody) -> Reply:
        """Answer one HTTP request to the endpoint's path (``headers`` lower-cased)."""
        try:
            _check_local(headers)
            match method:
                case "POST":
                    return self._post(headers, read_body)
                case "DELETE":
                    return self._delete(headers)
                case _:  # GET would open a stream for server-to-client messages: there are none
                    return Reply(405, headers=(("allow", "POST, DELETE"),))
        except HttpError as exc:
            return _json_reply(exc.status, _error(None, exc.code, str(exc)))

    def _post(self, headers: Mapping[str, str], read_body: ReadBody) -> Reply:
        if not headers.get("content-type", "").startswith("application/json"):
            raise HttpError(415, "Content-Type must be application/json")
        accept = headers.get("accept", "*/*")
        if "application/json" not in accept and "*/*" not in accept:
            raise HttpError(406, "Accept must include application/json")
        message = _message(read_body())
        if "method" not in message or "id" not in message:  # a notification or a response
            return Reply(202)
        request_id, method = message["id"], message["method"]
        if method == "initialize":
            answer, session = self._initialize(request_id, message.get("params")), None
            if "result" in answer:
                session = secrets.token_hex(16)
                with self._lock:
                    self._sessions.add(session)
            return _json_reply(200, answer, session)
        session = self._session(headers)
        try:
            result = self.methods.answer(session, method, message.get("params"))
            answer = {"jsonrpc": "2.0", "id": request_id, "result": _dump(result)}
        except MCPError as exc:
            answer = _error(request_id, exc.error.code, exc.error.message)
        except Exception as exc:  # a bug of ours: the client still gets an answer
            log.exception("MCP %s failed", method)
            answer = _error(request_id, types.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        return _json_reply(200, answer)

    def _initialize(self, request_id: Any, params: Any) -> dict[str, Any]:
        try:
            checked = types.InitializeRequestParams.model_validate(params or {})
        except ValidationError as exc:
            return _error(request_id, types.INVALID_PARAMS, f"invalid initialize params: {exc}")
        result = _dump(self.methods.initialize(checked))
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def _delete(self, headers: Mapping[str, str]) -> Reply:
        session = self._session(headers)
        with self._lock:
            self._sessions.discard(session)
        self.on_session_end(session)
        return Reply(200)

    def _session(self, headers: Mapping[str, str]) -> str:
        """The request's known session; its protocol version header, if any, one we speak."""
        session = headers.get("mcp-session-id")
        if session is None:
            raise HttpError(400, "Mcp-Session-Id header missing: send initialize first")
        with self._lock:
            known = session in self._sessions
        if not known:
            raise HttpError(404, f"session {session!r} not found: initialize a new one")
        version = headers.get("mcp-protocol-version")
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            supported = ", ".join(HANDSHAKE_PROTOCOL_VERSIONS)
            raise HttpError(400, f"MCP-Protocol-Version {version!r} unsupported: use {supported}")
        return session


def _check_local(headers: Mapping[str, str]) -> None:
    """Refuse a request for another host, or sent by a page of another origin."""
    host = headers.get("host", "").rsplit(":", 1)[0]
    if host not in LOCAL_HOSTS:
        raise HttpError(421, f"Host {headers.get('host')!r} is not this server (127.0.0.1)")
    origin = headers.get("origin")
    if origin is not None and origin.removeprefix("http://").rsplit(":", 1)[0] not in LOCAL_HOSTS:
        raise HttpError(403, f"Origin {origin!r} refused: only local pages may call this server")


def _message(body: bytes) -> dict[str, Any]:
    """The one JSON-RPC message a POST carries."""
    try:
        message = json.loads(body)
    except ValueError as exc:
        raise HttpError(400, f"Parse error: {exc}", types.PARSE_ERROR) from None
    if isinstance(message, list):
        raise HttpError(400, "JSON-RPC batches are not supported: send one message per POST")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise HttpError(400, 'not a JSON-RPC 2.0 message: expected an object with "jsonrpc": "2.0"')
    return message


def _dump(result: BaseModel) -> dict[str, Any]:
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _json_reply(status: int, message: dict[str, Any], session: str | None = None) -> Reply:
    extra = (("mcp-session-id", session),) if session is not None else ()
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    return Reply(status, body, "application/json", extra)


def body_of(headers: Mapping[str, str], read: Callable[[int], bytes]) -> bytes:
    """The request's body of ``Content-Length`` bytes, read with ``read``.

    One without its length, or over ``MAX_BODY``, is refused; an oversized one is read
    and dropped first (up to ``MAX_DRAINED``), so its client gets the answer, not a broken
    pipe.
    """
    length = headers.get("content-length")
    if length is None or not length.isdigit():
        raise HttpError(411, "Content-Length required: send the JSON body with its length")
    if int(length) > MAX_BODY:
        left = int(length) if int(length) <= MAX_DRAINED else 0
        while left > 0 and (chunk := read(min(left, 1 << 16))):
            left -= len(chunk)
        raise HttpError(413, f"request body over {MAX_BODY} bytes")
    return read(int(length))

"""MCP's streamable HTTP transport for one endpoint, every answer a single JSON response.

The spec lets a server answer a POSTed request with one ``application/json`` body instead
of an SSE stream, and answer the GET that would open a server-to-client stream with 405.
Our server never calls the client, so that is all it needs. Answering in the ASGI task
itself, without the SDK's streams and SSE framing, takes milliseconds off every tool call:
this is the MCP door's speed (``benchmarks/bench_mcp.py``).

Each session is made by ``initialize`` (its id comes back in ``Mcp-Session-Id``) and ended
by a DELETE. Requests are checked as the SDK's transport checks them: ``Host`` and
``Origin`` must be local (DNS rebinding), the body JSON of at most 4 MiB, the session known.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from webharness.mcp.methods import McpMethods

Send = Callable[[dict[str, Any]], Any]
Receive = Callable[[], Any]

MAX_BODY = 4 * 1024 * 1024
LOCAL_HOSTS = ("127.0.0.1", "localhost")
log = logging.getLogger(__name__)


class HttpError(Exception):
    """A request refused before it reaches a method: an HTTP status, and why."""

    def __init__(self, status: int, message: str, code: int = types.INVALID_REQUEST) -> None:
        super().__init__(message)
        self.status, self.code = status, code


class StreamableHttpEndpoint:
    """One endpoint's sessions and requests, answered by ``methods``.

    Args:
        methods: what answers the requests.
        on_session_end: called (in a worker thread) with a session's id when its client
            ends it with a DELETE.
    """

    def __init__(self, methods: McpMethods, on_session_end: Callable[[str], None]) -> None:
        self.methods, self.on_session_end = methods, on_session_end
        self._sessions: set[str] = set()

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        """Answer one HTTP request to the endpoint's path."""
        headers = _headers(scope)
        try:
            _check_local(headers)
            match scope["method"]:
                case "POST":
                    await self._post(headers, receive, send)
                case "DELETE":
                    await self._delete(headers, send)
                case _:  # GET would open a stream for server-to-client messages: there are none
                    await respond(send, 405, b"", extra=[(b"allow", b"POST, DELETE")])
        except HttpError as exc:
            await _respond_json(send, exc.status, _error(None, exc.code, str(exc)))

    async def _post(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        if not headers.get("content-type", "").startswith("application/json"):
            raise HttpError(415, "Content-Type must be application/json")
        accept = headers.get("accept", "*/*")
        if "application/json" not in accept and "*/*" not in accept:
            raise HttpError(406, "Accept must include application/json")
        message = _message(await _body(receive))
        if "method" not in message or "id" not in message:  # a notification or a response
            await respond(send, 202, b"")
            return
        request_id, method = message["id"], message["method"]
        if method == "initialize":
            answer, session = self._initialize(request_id, message.get("params")), None
            if "result" in answer:
                session = secrets.token_hex(16)
                self._sessions.add(session)
            await _respond_json(send, 200, answer, session)
            return
        session = self._session(headers)
        try:
            result = await self.methods.answer(session, method, message.get("params"))
            answer = {"jsonrpc": "2.0", "id": request_id, "result": _dump(result)}
        except MCPError as exc:
            answer = _error(request_id, exc.error.code, exc.error.message)
        except Exception as exc:  # a bug of ours: the client still gets an answer
            log.exception("MCP %s failed", method)
            answer = _error(request_id, types.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        await _respond_json(send, 200, answer)

    def _initialize(self, request_id: Any, params: Any) -> dict[str, Any]:
        try:
            checked = types.InitializeRequestParams.model_validate(params or {})
        except ValidationError as exc:
            return _error(request_id, types.INVALID_PARAMS, f"invalid initialize params: {exc}")
        result = _dump(self.methods.initialize(checked))
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    async def _delete(self, headers: dict[str, str], send: Send) -> None:
        session = self._session(headers)
        self._sessions.discard(session)
        await anyio.to_thread.run_sync(self.on_session_end, session)
        await respond(send, 200, b"")

    def _session(self, headers: dict[str, str]) -> str:
        """The request's known session; its protocol version header, if any, one we speak."""
        session = headers.get("mcp-session-id")
        if session is None:
            raise HttpError(400, "Mcp-Session-Id header missing: send initialize first")
        if session not in self._sessions:
            raise HttpError(404, f"session {session!r} not found: initialize a new one")
        version = headers.get("mcp-protocol-version")
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            supported = ", ".join(HANDSHAKE_PROTOCOL_VERSIONS)
            raise HttpError(400, f"MCP-Protocol-Version {version!r} unsupported: use {supported}")
        return session


def _check_local(headers: dict[str, str]) -> None:
    """Refuse a request for another host, or sent by a page of another origin."""
    host = headers.get("host", "").rsplit(":", 1)[0]
    if host not in LOCAL_HOSTS:
        raise HttpError(421, f"Host {headers.get('host')!r} is not this server (127.0.0.1)")
    origin = headers.get("origin")
    if origin is not None and origin.removeprefix("http://").rsplit(":", 1)[0] not in LOCAL_HOSTS:
        raise HttpError(403, f"Origin {origin!r} refused: only local pages may call this server")


async def _body(receive: Receive) -> bytes:
    chunks, size = [], 0
    while True:
        event = await receive()
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise HttpError(413, f"request body over {MAX_BODY} bytes")
        chunks.append(chunk)
        if not event.get("more_body"):
            return b"".join(chunks)


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


def _headers(scope: dict[str, Any]) -> dict[str, str]:
    return {key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]}


async def _respond_json(
    send: Send, status: int, message: dict[str, Any], session: str | None = None
) -> None:
    extra = [(b"mcp-session-id", session.encode())] if session is not None else []
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    await respond(send, status, body, b"application/json", extra)


async def respond(
    send: Send,
    status: int,
    body: bytes,
    content_type: bytes = b"text/plain",
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """Send a whole response: ``status``, ``body`` and its headers."""
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    headers += extra or []
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

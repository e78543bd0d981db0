"""One browser's DevTools protocol served to several WebSocket clients, each on a path with
an unguessable token and a browser session of its own.

Each client gets its own browser-level session (``Target.attachToBrowserTarget``), so its
auto-attach, discovery and ids never mix with another's; the sessions it attaches are
its own, and their messages reach it alone. A client with an ``EpisodeView`` (an agent)
sees its episode's context only (``cdp_view``); the harness's own client (Playwright's
``connect_over_cdp``) sees all. Every command an agent sends goes to ``on_command`` first,
with whether its view refused it, so the harness sees each step the agent takes
(``webharness.cdp.steps``); what the hook returns runs once the browser has
answered the command, before the agent gets the answer (the page as a script left it).

``GET /<token>/json/version`` answers as Chromium's does, so a client given an http URL
(browser-use's ``cdp_url``) finds the WebSocket.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from webharness.browser.cdp_pipe import ChromiumPipe
from webharness.browser.cdp_view import Answer, EpisodeView, Refused
from webharness.errors import BrowserError

HOST = "127.0.0.1"
REQUEST_TIMEOUT_S = 30.0
# run once the browser has answered a command, before its client gets the answer
AfterHook = Callable[[], Awaitable[None]]
# a command's method, params and session, and whether the client's view refused it; what
# to run once the browser has answered it, if anything
CommandHook = Callable[[str, dict[str, Any], str | None, bool], Awaitable[AfterHook | None]]


@dataclass
class _Client:
    socket: ServerConnection
    root: str  # its browser session
    view: EpisodeView | None
    outbox: asyncio.Queue[str] = field(default_factory=asyncio.Queue)

    def send(self, message: dict[str, Any]) -> None:
        self.outbox.put_nowait(json.dumps(message))


@dataclass
class _Door:
    view: EpisodeView | None
    on_command: CommandHook | None
    clients: list[_Client] = field(default_factory=list)


@dataclass
class _Pending:
    client: _Client | None  # None: the mux's own request
    client_id: int
    method: str
    at_root: bool
    future: asyncio.Future[dict[str, Any]] | None = None
    after: AfterHook | None = None  # the door's, before the client gets the answer


class CdpMux:
    """The protocol of ``pipe``'s browser, served on 127.0.0.1; ``open`` makes a door."""

    def __init__(self, pipe: ChromiumPipe) -> None:
        self.pipe = pipe
        pipe.listener = self._from_browser
        self.contexts: dict[str, str] = {}  # target id -> browser context id
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._owners: dict[str, _Client] = {}  # session id -> its client
        self._doors: dict[str, _Door] = {}
        self._server: Server | None = None
        self._afters: set[asyncio.Task[None]] = set()  # answers held for their after hooks
        self.port = 0

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        self._server = await serve(
            self._serve, HOST, 0, process_request=self._http, max_size=None, compression=None
        )
        self.port = int(self._server.sockets[0].getsockname()[1])

    def open(self, view: EpisodeView | None = None, on_command: CommandHook | None = None) -> str:
        """A new door: its WebSocket URL. ``view`` limits what its clients see (None: all)."""
        token = secrets.token_urlsafe(24)
        if view is not None:
            view.contexts = self.contexts
        self._doors[token] = _Door(view, on_command)
        return self.url(token)

    def url(self, token: str) -> str:
        """The WebSocket URL of the door ``token``."""
        return f"ws://{HOST}:{self.port}/devtools/browser/{token}"

    async def shut(self, url: str) -> None:
        """Close a door and the connections through it (their sessions are detached)."""
        door = self._doors.pop(url.rsplit("/", 1)[-1], None)
        for client in door.clients if door is not None else []:
            await client.socket.close()

    async def request(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        """Send a command of the mux's own and wait for its result.

        Raises:
            BrowserError: the browser answered with an error or not at all.
        """
        uid = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[uid] = _Pending(None, 0, method, False, future)
        message: dict[str, Any] = {"id": uid, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self.pipe.send(message)
        try:
            return await asyncio.wait_for(future, REQUEST_TIMEOUT_S)
        except TimeoutError:
            raise BrowserError(f"the browser did not answer {method}") from None

    async def close(self) -> None:
        """Stop listening and close every connection."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    # --- clients ---------------------------------------------------------------------------
    def _door_of(self, path: str) -> tuple[str, _Door | None]:
        token = path.strip("/").split("/")
        key = token[2] if token[:2] == ["devtools", "browser"] and len(token) == 3 else token[0]
        return key, self._doors.get(key)

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """404 for a wrong token; ``/<token>/json/version`` as Chromium answers it."""
        parts = request.path.strip("/").split("/")
        token, door = self._door_of(request.path)
        if door is None:
            return connection.respond(HTTPStatus.NOT_FOUND, "no browser at this path\n")
        if parts[1:3] == ["json", "version"]:
            body = json.dumps({"Browser": "webharness", "webSocketDebuggerUrl": self.url(token)})
            headers = Headers({"Content-Type": "application/json"})
            return Response(200, "OK", headers, body.encode())
        return None  # the WebSocket handshake goes on

    async def _serve(self, socket: ServerConnection) -> None:
        _, door = self._door_of(socket.request.path if socket.request else "")
        if door is None:
            return
        root = (await self.request("Target.attachToBrowserTarget"))["sessionId"]
        client = _Client(socket, root, door.view)
        self._owners[root] = client
        door.clients.append(client)
        writer = asyncio.create_task(self._write(client))
        try:
            async for raw in socket:
                await self._from_client(client, json.loads(raw), door.on_command)
        except Exception:  # a client that goes away mid-message ends its connection only
            pass
        finally:
            writer.cancel()
            for session in [s for s, c in self._owners.items() if c is client]:
                del self._owners[session]
            try:
                await self.request("Target.detachFromTarget", {"sessionId": root})
            except BrowserError:
                pass

    async def _write(self, client: _Client) -> None:
        while True:
            await client.socket.send(await client.outbox.get())

    async def _from_client(
        self, client: _Client, message: dict[str, Any], on_command: CommandHook | None
    ) -> None:
        cid, method = message.get("id", 0), str(message.get("method", ""))
        params = dict(message.get("params") or {})
        session = message.get("sessionId")
        at_root = session is None
        if session is not None and self._owners.get(session) is not client:
            return client.send(_error(cid, session, f"No session with given id: {session}"))
        try:
            checked = client.view.check(method, params, at_root) if client.view else params
        except Refused as exc:
            if on_command is not None:
                await on_command(method, params, session, True)
            return client.send(_error(cid, session, str(exc)))
        if isinstance(checked, Answer):
            return client.send({"id": cid, "result": checked.result, **_session(session)})
        after = await on_command(method, checked, session, False) if on_command else None
        uid = next(self._ids)
        self._pending[uid] = _Pending(client, cid, method, at_root, after=after)
        self.pipe.send(
            {"id": uid, "method": method, "params": checked, "sessionId": session or client.root}
        )

    # --- the browser -----------------------------------------------------------------------
    def _from_browser(self, message: dict[str, Any]) -> None:
        if "id" in message:
            return self._answer(message)
        session, method = message.get("sessionId"), str(message.get("method", ""))
        params = message.get("params") or {}
        self._note_target(params)
        client = self._owners.get(session or "")
        if client is None:
            return
        if method == "Target.attachedToTarget":
            child = params["sessionId"]
            if client.view is not None and not client.view.shows(method, params):
                detach = {"id": next(self._ids), "method": "Target.detachFromTarget"}
                self.pipe.send({**detach, "params": {"sessionId": child}, "sessionId": session})
                return
            self._owners[child] = client
        elif method == "Target.detachedFromTarget":
            self._owners.pop(params.get("sessionId", ""), None)
        at_root = session == client.root
        if at_root and client.view is not None and not client.view.shows(method, params):
            return
        client.send({k: v for k, v in message.items() if not (at_root and k == "sessionId")})

    def _answer(self, message: dict[str, Any]) -> None:
        pending = self._pending.pop(message["id"], None)
        if pending is None:
            return
        if pending.client is None:
            if pending.future is not None and not pending.future.done():
                if "error" in message:
                    error = message["error"].get("message", message["error"])
                    pending.future.set_exception(BrowserError(f"{pending.method}: {error}"))
                else:
                    pending.future.set_result(message.get("result", {}))
            return
        client = pending.client
        reply: dict[str, Any] = {"id": pending.client_id}
        if "error" in message:
            reply["error"] = message["error"]
        else:
            result = message.get("result", {})
            if pending.method == "Target.attachToTarget" and "sessionId" in result:
                self._owners[result["sessionId"]] = client
            reply["result"] = client.view.result(pending.method, result) if client.view else result
        if not pending.at_root:
            reply["sessionId"] = message.get("sessionId")
        if pending.after is None:
            return client.send(reply)
        task = asyncio.get_running_loop().create_task(_after(pending.after, client, reply))
        self._afters.add(task)
        task.add_done_callback(self._afters.discard)

    def _note_target(self, params: dict[str, Any]) -> None:
        info = params.get("targetInfo")
        if isinstance(info, dict) and "browserContextId" in info:
            self.contexts[info["targetId"]] = info["browserContextId"]


async def _after(hook: AfterHook, client: _Client, reply: dict[str, Any]) -> None:
    """Run the door's hook, then give the client its answer (whatever the hook did)."""
    try:
        await hook()
    finally:
        client.send(reply)


def _error(cid: int, session: str | None, message: str) -> dict[str, Any]:
    return {"id": cid, "error": {"code": -32000, "message": message}, **_session(session)}


def _session(session: str | None) -> dict[str, Any]:
    return {"sessionId": session} if session is not None else {}

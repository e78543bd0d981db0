"""The streamable HTTP transport answers as the MCP spec (2025-11-25, "Transports") asks:
a session made by ``initialize`` and ended by DELETE, one JSON answer per request, 405
for the GET stream it does not offer, and a clear status for each malformed request. No
tool runs, so no browser starts; the real SDK client's view is in the other MCP tests."""

from __future__ import annotations

import gc
import http.client
import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from webharness.mcp import EpisodeConfig, EpisodeEndpoints, ServingThread
from webharness.mcp.episodes import McpEpisode
from webharness.mcp.http import MAX_SESSIONS

JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
HELLO = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "test", "version": "0"},
}


class Answer:
    """One HTTP answer: its status, headers and body (parsed when JSON)."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = {k.lower(): v for k, v in response.getheaders()}
        raw = response.read()
        self.body: Any = json.loads(raw) if raw and "json" in self.headers["content-type"] else raw


@pytest.fixture(scope="module")
def path() -> Iterator[tuple[int, str]]:
    endpoints = EpisodeEndpoints()
    endpoint = endpoints.add(EpisodeConfig("WebEval/form-v0"))
    serving = ServingThread(endpoints)
    port = serving.start()
    try:
        yield port, endpoint.path
    finally:
        serving.stop()


def send(
    where: tuple[int, str], method: str, body: Any = None, headers: dict[str, str] | None = None
) -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", where[0], timeout=30)
    data = (
        body if isinstance(body, (bytes, Iterator)) or body is None else json.dumps(body).encode()
    )
    connection.request(method, where[1], data, {**JSON, **(headers or {})})
    try:
        return Answer(connection.getresponse())
    finally:
        connection.close()


def initialize(where: tuple[int, str], version: str = "2025-06-18") -> Answer:
    hello = {**HELLO, "protocolVersion": version}
    return send(where, "POST", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})


def session_of(where: tuple[int, str]) -> dict[str, str]:
    return {"Mcp-Session-Id": initialize(where).headers["mcp-session-id"]}


def request(where: tuple[int, str], session: dict[str, str], method: str, params: Any) -> Answer:
    message = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    return send(where, "POST", message, session)


def test_initialize_makes_a_session_and_negotiates_the_version(path: tuple[int, str]) -> None:
    answer = initialize(path)
    assert answer.status == 200 and answer.headers["content-type"] == "application/json"
    result = answer.body["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"]["name"] == "webharness"
    assert set(result["capabilities"]) == {"tools", "prompts", "resources"}
    assert len(answer.headers["mcp-session-id"]) == 32
    # A version the server does not know gets its latest handshake version instead.
    assert initialize(path, "1999-01-01").body["result"]["protocolVersion"] == "2025-11-25"


def test_a_session_answers_requests_in_json(path: tuple[int, str]) -> None:
    session = session_of(path)
    notified = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert send(path, "POST", notified, session).status == 202
    tools = request(path, session, "tools/list", {}).body["result"]["tools"]
    assert "browser_click" in {t["name"] for t in tools}
    assert request(path, session, "ping", None).body == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_requests_without_a_live_session_are_refused(path: tuple[int, str]) -> None:
    assert request(path, {}, "tools/list", {}).status == 400
    gone = request(path, {"Mcp-Session-Id": "0" * 32}, "tools/list", {})
    assert gone.status == 404 and "initialize a new one" in gone.body["error"]["message"]
    session = session_of(path)
    assert send(path, "DELETE", None, session).status == 200
    assert request(path, session, "tools/list", {}).status == 404


def test_malformed_requests_get_a_status_and_a_reason(path: tuple[int, str]) -> None:
    session = session_of(path)
    parse = send(path, "POST", b"{not json", session)
    assert parse.status == 400 and parse.body["error"]["code"] == -32700
    batch = send(path, "POST", [{"jsonrpc": "2.0", "id": 1, "method": "ping"}], session)
    assert batch.status == 400 and "batches" in batch.body["error"]["message"]
    text = send(path, "POST", b"{}", {**session, "Content-Type": "text/plain"})
    assert text.status == 415
    assert send(path, "POST", b"{}", {**session, "Accept": "text/html"}).status == 406
    huge = send(path, "POST", b" " * (4 * 1024 * 1024 + 1), session)
    assert huge.status == 413
    chunked = send(path, "POST", iter([b"{}"]), {**session, "Transfer-Encoding": "chunked"})
    assert chunked.status == 411 and "Content-Length" in chunked.body["error"]["message"]
    old = request(path, {**session, "MCP-Protocol-Version": "1999-01-01"}, "ping", None)
    assert old.status == 400 and "1999-01-01" in old.body["error"]["message"]


def test_errors_in_a_request_are_json_rpc_errors_naming_the_problem(
    path: tuple[int, str],
) -> None:
    session = session_of(path)
    unknown = request(path, session, "tools/nosuch", {}).body["error"]
    assert unknown["code"] == -32601 and "tools/nosuch" in unknown["message"]
    bad = request(path, session, "tools/call", {"arguments": {}}).body["error"]
    assert bad["code"] == -32602 and "name" in bad["message"]
    prompt = request(path, session, "prompts/get", {"name": "other"}).body["error"]
    assert prompt["code"] == -32602 and "webharness_task" in prompt["message"]


def test_the_get_stream_is_not_offered(path: tuple[int, str]) -> None:
    answer = send(path, "GET", None, session_of(path))
    assert answer.status == 405 and answer.headers["allow"] == "POST, DELETE"


def test_the_sdk_client_lists_tools_and_prompts(path: tuple[int, str]) -> None:
    async def main() -> tuple[set[str], list[str]]:
        url = f"http://127.0.0.1:{path[0]}{path[1]}"
        async with streamable_http_client(url) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                prompts = [p.name for p in (await session.list_prompts()).prompts]
                return tools, prompts

    tools, prompts = anyio.run(main)
    assert {"browser_click", "browser_snapshot", "webharness_reset"} <= tools
    assert prompts == ["webharness_task"]


def test_one_connection_carries_a_clients_requests(path: tuple[int, str]) -> None:
    """HTTP/1.1 keep-alive: an agent's calls share one connection (the speed of a call)."""
    session = session_of(path)
    connection = http.client.HTTPConnection("127.0.0.1", path[0], timeout=30)
    try:
        for n in range(3):
            message = {"jsonrpc": "2.0", "id": n, "method": "ping"}
            connection.request("POST", path[1], json.dumps(message), {**JSON, **session})
            answer = Answer(connection.getresponse())
            assert answer.body == {"jsonrpc": "2.0", "id": n, "result": {}}
            assert answer.headers.get("connection") != "close"
    finally:
        connection.close()


def test_an_ended_sessions_episode_is_let_go(path: tuple[int, str]) -> None:
    """A server that sees many sessions keeps nothing of the ended ones: each session's
    tools (made by its first request) go with its DELETE, and with them its episode."""

    def live_episodes() -> int:
        gc.collect()
        return sum(isinstance(o, McpEpisode) for o in gc.get_objects())

    before = live_episodes()
    for _ in range(MAX_SESSIONS + 4):  # beyond the bound on live sessions, too
        session = session_of(path)
        assert request(path, session, "tools/list", {}).status == 200
        assert send(path, "DELETE", None, session).status == 200
    assert live_episodes() == before

"""The HTTP transport: it listens on 127.0.0.1 only, refuses a foreign ``Origin`` (DNS
rebinding) and a wrong episode token. No tool runs, so no browser starts."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.mcp_clients import http_server

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


def post(url: str, headers: dict[str, str]) -> int:
    """The HTTP status of an MCP initialize request to ``url``."""
    request = urllib.request.Request(
        url,
        data=json.dumps(INITIALIZE).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def listening_addresses(port: int) -> set[str]:
    """The local addresses with a listening TCP socket on ``port`` (from /proc/net/tcp*)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


@pytest.fixture(scope="module")
def endpoint() -> str:
    with http_server("form") as (url, _):
        yield url


def test_the_endpoint_answers_a_local_client(endpoint: str) -> None:
    assert post(endpoint, {"Origin": f"http://127.0.0.1:{urlsplit(endpoint).port}"}) == 200


def test_it_listens_on_127_0_0_1_only(endpoint: str) -> None:
    assert listening_addresses(int(urlsplit(endpoint).port or 0)) == {"0100007F"}


def test_a_foreign_origin_is_refused(endpoint: str) -> None:
    assert post(endpoint, {"Origin": "http://attacker.example"}) == 403


def test_a_wrong_token_is_refused(endpoint: str) -> None:
    wrong = endpoint.rsplit("/", 1)[0] + "/not-the-token"
    assert post(wrong, {}) == 404
    assert post(endpoint[:-1], {}) == 404  # one character short

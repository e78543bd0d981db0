"""Nothing leaves an episode for an origin the task does not allow, by any route: a page on
an external site's origin (a real server on 127.0.0.1) and the same page on the built-in
scenarios' origin try every way out towards a second local server, the witness, which logs
every TCP connection and UDP datagram it gets. The witness gets nothing, and each attempt
is in ``blocked_requests`` with its URL and its kind (``docs/reliability.md``)."""

from __future__ import annotations

import socket
import urllib.request
from collections.abc import Iterator

import pytest

from tests.reliability.conftest import click_action
from tests.reliability.egress_servers import SITE, App, Witness
from tests.support.waiting import wait_until
from webharness.envs import WebEvalEnv
from webharness.spec.task_spec import TaskSpec

# Each button of egress_site/index.html, and the entry it must leave (after the witness's
# origin; "" for a tunnel, whose entry is host:port).
THROUGH_A_REDIRECT = {
    "Fetch redirect": ("/fetch-redirect", "[egress: fetch]"),
    "Image redirect": ("/image-redirect", "[egress: image]"),
    "Script redirect": ("/script-redirect", "[egress: script]"),
    "Frame redirect": ("/frame-redirect", "[egress: iframe]"),
    "EventSource redirect": ("/events-redirect", "[egress: fetch]"),
    "Navigate redirect": ("/navigate-redirect", "[egress: document]"),
    "Download redirect": ("/download-redirect", "[egress: document]"),
}
ANY_ORIGIN = {
    "Beacon on leave": ("/beacon", "[egress: fetch]"),
    "Keepalive on leave": ("/keepalive", "[egress: fetch]"),
    "Prefetch rules": ("/prefetch", "[egress: document, prefetch]"),
    "Prerender rules": ("/prerender", "[egress: document, prefetch;prerender]"),
    "Shared worker": ("/shared-worker", "[egress: fetch]"),
    "WebRTC STUN": ("", "[webrtc udp]"),
    "WebRTC TURN": ("", "[egress: tunnel]"),
    "WebTransport": ("/transport", "[webtransport]"),
    "Fetch direct": ("/fetch-direct", "[fetch]"),
    "Image direct": ("/image-direct", "[image]"),
    "Frame direct": ("/frame-direct", "[document]"),
    "Socket direct": ("/socket-direct", "[websocket]"),
    "Navigate direct": ("/navigate-direct", "[document]"),
}


@pytest.fixture(scope="module")
def witness() -> Iterator[Witness]:
    server = Witness()
    yield server
    server.close()


@pytest.fixture(scope="module")
def apps() -> Iterator[tuple[App, App]]:
    """The task's origin, and a second origin the task allows too."""
    first, second = App(), App()
    yield first, second
    first.close()
    second.close()


def _spec(start_url: str | None, allowed: list[str], witness: Witness) -> TaskSpec:
    return TaskSpec.model_validate(
        {
            "id": "egress",
            "category": "test",
            "instruction": "Try every way out.",
            "site": None if start_url else str(SITE),
            "start_url": start_url,
            "start_page": f"/index.html?b={witness.origin}",
            "allowed_origins": allowed,
            "max_steps": 1_000,
            "success": {"kind": "text", "text": "never shown"},
        }
    )


@pytest.fixture(scope="module")
def envs(browser, apps, witness) -> Iterator[dict[str, WebEvalEnv]]:
    """An external-site task on the first app's origin (the second app allowed too), and
    the same page served on the built-in scenarios' origin."""
    app, other = apps
    external = _spec(f"{app.origin}/index.html?b={witness.origin}", [other.origin], witness)
    made = {
        "external": WebEvalEnv(external, obs_mode="text", action_timeout_ms=3_000),
        "built-in": WebEvalEnv(_spec(None, [], witness), obs_mode="text", action_timeout_ms=3_000),
    }
    yield made
    for env in made.values():
        env.close()


def _expected_entry(witness: Witness, path: str, kind: str) -> str:
    if kind == "[egress: tunnel]":
        return f"127.0.0.1:{witness.port} {kind}"
    if kind == "[webrtc udp]":
        return f"stun:127.0.0.1:{witness.port} {kind}"
    if kind == "[webtransport]":
        return f"https://127.0.0.1:{witness.port}{path} {kind}"
    if kind == "[websocket]":
        return f"ws://127.0.0.1:{witness.port}{path} {kind}"
    return f"{witness.origin}{path} {kind}"


def _blocked_after(env: WebEvalEnv, button: str) -> list[str]:
    """Click ``button`` on a fresh episode; the blocked list once something is in it (a
    beacon or a worker's request comes after the step that caused it)."""
    _, info = env.reset(seed=0)
    info = env.step(click_action(info, button))[4]
    for _ in range(10):
        if info["semantic_state"].blocked_requests:
            break
        info = env.step("wait(200)")[4]
    return info["semantic_state"].blocked_requests


CASES = [("external", b) for b in {**THROUGH_A_REDIRECT, **ANY_ORIGIN}] + [
    ("built-in", b) for b in ANY_ORIGIN
]
# The built-in origin (http://webeval.test) is not a secure context: Chromium has no
# WebTransport there and makes no speculative load to another site from it, so those
# buttons try nothing (the witness still must see nothing).
NOT_TRIED_FROM_BUILT_IN = {"Prefetch rules", "Prerender rules", "WebTransport"}


@pytest.mark.parametrize(("origin", "button"), CASES, ids=[f"{o}-{b}" for o, b in CASES])
def test_no_route_from_the_page_reaches_a_disallowed_origin(envs, witness, origin, button):
    before = len(witness.seen)
    if origin == "built-in" and button in NOT_TRIED_FROM_BUILT_IN:
        _, info = envs[origin].reset(seed=0)
        info = envs[origin].step(click_action(info, button))[4]
        assert info["action_result"].ok and info["semantic_state"].blocked_requests == []
    else:
        blocked = _blocked_after(envs[origin], button)
        assert _expected_entry(witness, *{**THROUGH_A_REDIRECT, **ANY_ORIGIN}[button]) in blocked
    assert witness.seen[before:] == []


@pytest.mark.parametrize("origin", ["external", "built-in"])
@pytest.mark.parametrize("button", ["Preconnect", "Favicon"])
def test_connection_hints_and_icons_reach_nothing(envs, witness, origin, button):
    """No request need exist for these (a connection opened ahead, an icon the headless
    browser may not fetch): the witness, which logs every TCP accept, sees nothing."""
    before = len(witness.seen)
    _, info = envs[origin].reset(seed=0)
    info = envs[origin].step(click_action(info, button))[4]
    info = envs[origin].step("wait(300)")[4]
    assert info["action_result"].ok
    assert witness.seen[before:] == []


@pytest.mark.parametrize("via_redirect", [True, False], ids=["through-a-redirect", "direct"])
def test_the_agent_s_goto_reaches_no_disallowed_origin(envs, apps, witness, via_redirect):
    env, before = envs["external"], len(witness.seen)
    target = f"{witness.origin}/goto"
    url = f"{apps[0].origin}/redirect?to={target}" if via_redirect else target
    env.reset(seed=0)
    obs, _, _, _, info = env.step(f"goto({url!r})")
    kind = "[egress: document]" if via_redirect else "[goto]"
    assert f"{target} {kind}" in info["semantic_state"].blocked_requests
    assert witness.seen[before:] == []
    if not via_redirect:  # refused before any request: the agent is told why
        assert "outside this task" in obs["last_action_error"]


def test_a_redirect_between_allowed_origins_still_works(envs, apps, witness):
    app, other = apps
    env = envs["external"]
    env.reset(seed=0)
    obs, _, _, _, info = env.step(f"goto('{app.origin}/redirect?to={other.origin}/page2.html')")
    assert obs["url"] == f"{other.origin}/page2.html" and "Page 2" in obs["axtree"]
    assert info["semantic_state"].blocked_requests == []
    assert "/page2.html" in other.hits


def test_the_witness_sees_what_nothing_blocks(witness):
    """The witness is real: a request and a datagram from this process reach it."""
    before = len(witness.seen)
    with urllib.request.urlopen(f"{witness.origin}/probe", timeout=5) as answer:
        assert answer.read() == b"SECRET"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.sendto(b"ping", ("127.0.0.1", witness.port))
    assert wait_until(lambda: len(witness.seen) >= before + 2, 5)
    assert sorted(witness.seen[before:]) == ["tcp: GET /probe HTTP/1.1", "udp: 4 bytes"]

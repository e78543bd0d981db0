"""A task may point at an external site (start_url) and be judged by url/element/text/answer/JS."""

from __future__ import annotations

import http.server
from collections.abc import Iterator

import pytest

from tests.support.static_server import serving_with
from webharness.envs import WebEvalEnv
from webharness.spec.task_spec import TaskSpec

PAGES = {
    "/": b"""<!doctype html><html><head><title>Local shop</title></head><body>
        <h1>Welcome</h1><a href="/about">About us</a>
        <label for="q">Search</label><input id="q">
        <script>fetch('https://tracker.example/pixel').catch(() => {});</script></body></html>""",
    "/about": b"""<!doctype html><html><head><title>About</title></head><body><h1>About us</h1>
        <p>Founded in 1987.</p></body></html>""",
}


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        body = PAGES.get(self.path)
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body or b"not found")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving_with(_Handler) as origin:
        yield origin


@pytest.fixture
def env(browser, server):
    spec = TaskSpec.model_validate(
        {
            "id": "external_about",
            "category": "navigation",
            "site": None,
            "instruction": "Find the year the shop was founded and report it.",
            "start_url": f"{server}/",
            "max_steps": 10,
            "success": {
                "kind": "all",
                "of": [
                    {"kind": "url", "path": "/about"},
                    {"kind": "heading", "text": "About us"},
                    {"kind": "answer", "number": 1987},
                    {"kind": "js", "expression": "document.title === 'About'"},
                ],
            },
        }
    )
    env = WebEvalEnv(spec, obs_mode="text")
    yield env
    env.close()


def test_an_external_site_is_opened_and_judged_on_its_state(env):
    obs, info = env.reset(seed=0)
    assert obs["url"].endswith("/") and '- link "About us"' in obs["axtree"]
    link = info["semantic_state"].find("link", "About us")[0].ref
    env.step(f"click({link!r})")
    _, reward, terminated, _, info = env.step("send_msg_to_user('It was founded in 1987.')")
    assert terminated and reward == 1.0 and info["success"]


def test_a_wrong_answer_on_the_right_page_fails(env):
    _, info = env.reset(seed=0)
    env.step(f"click({info['semantic_state'].find('link', 'About us')[0].ref!r})")
    _, reward, _, _, info = env.step("send_msg_to_user('1978')")
    assert reward == 0.0 and not info["success"]


def test_other_origins_stay_blocked_on_an_external_site(env):
    _, info = env.reset(seed=0)
    assert "https://tracker.example/pixel [fetch]" in info["semantic_state"].blocked_requests

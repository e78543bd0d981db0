"""Helpers for the reliability tests: our browser processes, memory, a hostile site, a
real local HTTP server that pages must not reach."""

from __future__ import annotations

import http.server
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.static_server import serving_with
from webharness.envs import WebEvalEnv
from webharness.spec.task_spec import TaskSpec
from webharness.testing.processes import chromium_pids

SITE = Path(__file__).parent / "site"
# Every browser this test process launches inherits this variable (through Playwright's
# driver), so a browser that escaped its parent (re-parented to init) is still ours.
_MARK = f"WEBHARNESS_RELIABILITY_OWNER={os.getpid()}"
os.environ["WEBHARNESS_RELIABILITY_OWNER"] = str(os.getpid())


def our_browser_pids() -> set[int]:
    """Chromium processes of this test process: its descendants, and any orphan it launched."""
    pids = set(chromium_pids())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in pids:
            continue
        try:
            stat = (entry / "stat").read_text()
            if (
                "chrom" not in stat[stat.index("(") + 1 : stat.rindex(")")]
                or stat[stat.rindex(")") + 2] == "Z"
            ):
                continue
            if _MARK.encode() in (entry / "environ").read_bytes().split(b"\0"):
                pids.add(int(entry.name))
        except (OSError, ValueError):
            continue
    return pids


def rss_mb(pids: set[int]) -> float:
    """Resident memory of these processes, in MB (gone processes count 0)."""
    total_kb = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
        except OSError:
            continue
    return total_kb / 1024


def hostile_spec(port: int = 9, allowed: tuple[str, ...] = (), **fields) -> TaskSpec:
    """The test's own task: a page whose buttons try everything a page should not do."""
    return TaskSpec.model_validate(
        {
            "id": "hostile",
            "category": "test",
            "instruction": "Survive the page.",
            "site": str(SITE),
            "start_page": f"/index.html?port={port}",
            "max_steps": 1_000,
            "allowed_origins": list(allowed),
            "success": {"kind": "text", "text": "never shown"},
            **fields,
        }
    )


def hostile_env(port: int = 9, allowed: tuple[str, ...] = (), **kwargs) -> WebEvalEnv:
    kwargs.setdefault("action_timeout_ms", 2_000)
    kwargs.setdefault("settle_cap_ms", 1_500)
    return WebEvalEnv(hostile_spec(port, allowed), obs_mode="text", **kwargs)


def click_action(info: dict, name: str) -> str:
    state = info["semantic_state"]
    found = state.find("button", name) or state.find("link", name)
    assert found, f"no button or link {name!r} on the page"
    return f"click({found[0].ref!r})"


@dataclass
class LocalServer:
    """A real HTTP server on 127.0.0.1 that records every request it gets."""

    origin: str
    hits: list[str] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.origin.rsplit(":", 1)[1])


@pytest.fixture(scope="module")
def local_server() -> Iterator[LocalServer]:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            hits.append(self.path)
            body = b"<title>secret</title>SECRET"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with serving_with(Handler) as origin:
        yield LocalServer(origin, hits)

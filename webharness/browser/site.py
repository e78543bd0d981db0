"""Serving a scenario into a browser context by route interception.

The scenario's static files and its REST backend answer on a fixed origin; every request
to any other origin is refused and recorded, unless the task allows that origin. No port,
no server process: each context gets its own router, so episodes are isolated.
"""

from __future__ import annotations

import json
import logging
import mimetypes
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Request, Route, WebSocketRoute

from webharness.browser.backend import Backend
from webharness.origins import origin_of

_log = logging.getLogger("webharness.browser.site")

RUNTIME_PATH = "/__webharness/runtime.js"
# A blank page of an origin, served while the episode's setup seeds that origin's storage.
SETUP_PATH = "/__webharness/setup"
SETUP_PAGE = "<!doctype html><title>webharness setup</title>"
# What an asset origin may serve: static files, never a document, a script or an API call.
ASSET_TYPES = frozenset({"stylesheet", "image", "font", "media"})
SHARED_PREFIX = "/_shared/"
# A hostile page can refuse to stop trying: the record is capped, the blocking is not.
MAX_BLOCKED_RECORDS = 200
NOT_FOUND = "<h1>Not found</h1>"

# A request hook may delay a request (latency perturbation); a body transform may rewrite
# an HTML document before the page sees it (theme, label drift, id randomisation).
RequestHook = Callable[[Request], Awaitable[None]]
HtmlTransform = Callable[[str], str]


@dataclass
class SiteEpisode:
    """What one episode serves: the site folder, its backend, the origins it may reach."""

    origin: str
    site_dir: Path | None = None
    shared_dir: Path | None = None  # assets every built-in site shares, served at /_shared/
    backend: Backend | None = None
    allowed_origins: tuple[str, ...] = ()
    asset_origins: tuple[str, ...] = ()  # static assets only (ASSET_TYPES)
    runtime: dict[str, Any] = field(default_factory=dict)  # seed and params the site's JS sees
    request_hooks: list[RequestHook] = field(default_factory=list)
    html_transforms: list[HtmlTransform] = field(default_factory=list)
    # What was refused, in order, each as "<url or name> [<kind>]": a request's kind is
    # its resource type ("[egress: ...]" when the context's proxy caught it past the
    # routes); "[new window]", "[download]", "[permission]", "[goto]" for the rest.
    blocked: list[str] = field(default_factory=list)
    setting_up: bool = False  # the setup is running: SETUP_PATH is served

    def serves_setup_page(self, origin: str, url: str) -> bool:
        """While the setup runs, its blank page on the task's own origins."""
        return (
            self.setting_up
            and (origin == self.origin or origin in self.allowed_origins)
            and urlsplit(url).path == SETUP_PATH
        )


class SiteRouter:
    """The route handler of one browser context; ``episode`` is swapped at each reset."""

    def __init__(self) -> None:
        self.episode: SiteEpisode | None = None

    async def handle(self, route: Route, request: Request) -> None:
        episode = self.episode
        url = request.url
        try:
            if episode is None:
                await route.abort("blockedbyclient")
                return
            if not episode.setting_up:  # the setup brings the app to its start state, as is
                await _run_request_hooks(episode, request)
            origin = origin_of(url)
            if episode.serves_setup_page(origin, url):
                await route.fulfill(body=SETUP_PAGE, content_type="text/html")
            elif origin == episode.origin and episode.site_dir is not None:
                await self._serve_site(route, request, episode)
            elif origin in episode.asset_origins and request.resource_type not in ASSET_TYPES:
                self.record(f"{url} [{request.resource_type}]")  # an asset origin: assets only
                await route.abort("blockedbyclient")
            elif self.reaches(origin):
                await route.continue_()  # through the context's proxy (browser/egress.py)
            else:
                self.record(f"{url} [{request.resource_type}]")
                await route.abort("blockedbyclient")
        except PlaywrightError:
            # The page went away while the request was in flight (navigation, close).
            pass

    def reaches(self, origin: str) -> bool:
        """Whether this episode may send a request to ``origin`` over the network: the
        origin of an external site, or one the task allows (for an asset origin, the route
        has let only static assets through). A local site's origin is served by the route
        alone; nothing goes to the network for it."""
        episode = self.episode
        if episode is None:
            return False
        if origin == episode.origin:
            return episode.site_dir is None
        return origin in episode.allowed_origins or origin in episode.asset_origins

    def record(self, entry: str) -> None:
        """Note something refused this episode (it shows in ``blocked_requests``)."""
        episode = self.episode
        if episode is not None and len(episode.blocked) < MAX_BLOCKED_RECORDS:
            episode.blocked.append(entry[:500])

    async def handle_websocket(self, ws: WebSocketRoute) -> None:
        """WebSockets bypass request routes: the same origin rule, applied to them."""
        episode = self.episode
        parts = urlsplit(ws.url)
        origin = f"{_HTTP_SCHEME.get(parts.scheme, parts.scheme)}://{parts.netloc}"
        try:
            if episode is not None and (
                origin == episode.origin or origin in episode.allowed_origins
            ):
                ws.connect_to_server()
            else:
                self.record(f"{ws.url} [websocket]")
                await ws.close(code=1008, reason="blocked by webharness")
        except PlaywrightError:
            pass  # the page went away

    async def _serve_site(self, route: Route, request: Request, episode: SiteEpisode) -> None:
        path = urlsplit(request.url).path or "/"
        if path.startswith("/api/") and episode.backend is not None:
            status, body = _api_answer(episode.backend, request, path)
            await route.fulfill(status=status, body=body, content_type="application/json")
            return
        if path == RUNTIME_PATH:
            await route.fulfill(
                body=runtime_script(episode.runtime), content_type="text/javascript"
            )
            return
        answer = _file_answer(episode, unquote(path))
        if answer is None:
            await route.fulfill(status=404, body=NOT_FOUND, content_type="text/html")
        else:
            await route.fulfill(body=answer[0], content_type=answer[1])


def _file_answer(episode: SiteEpisode, path: str) -> tuple[str | bytes, str] | None:
    """The body and content type of a site file (HTML with its assets inlined and the
    episode's transforms applied); None when there is no such file or it cannot be read."""
    file = _local_file(episode, path)
    if file is None:
        return None
    content_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    try:
        if content_type != "text/html":
            return file.read_bytes(), content_type
        html = inline_assets(file.read_text(encoding="utf-8"), episode)
    except (OSError, UnicodeDecodeError):  # unreadable, or HTML that is not UTF-8
        return None
    return _transformed(html, episode), "text/html; charset=utf-8"


# Our own sites' markup: <script src="/x.js"></script> and <link rel="stylesheet" href="/x.css">.
_SCRIPT_TAG = re.compile(r'<script src="([^"]+)"></script>')
_STYLE_TAG = re.compile(r'<link rel="stylesheet" href="([^"]+)">')


def inline_assets(html: str, episode: SiteEpisode) -> str:
    """Put the page's local scripts and styles into the document itself.

    Each intercepted request costs a round trip through Playwright's driver (~10 ms);
    inlining turns a page load of five requests into one, which is most of ``reset``.
    """

    def script(match: re.Match[str]) -> str:
        source = _asset_text(episode, match.group(1))
        if source is None:
            return match.group(0)
        return "<script>" + source.replace("</script", "<\\/script") + "</script>"

    def style(match: re.Match[str]) -> str:
        source = _asset_text(episode, match.group(1))
        return match.group(0) if source is None else "<style>" + source + "</style>"

    return _STYLE_TAG.sub(style, _SCRIPT_TAG.sub(script, html))


def _asset_text(episode: SiteEpisode, src: str) -> str | None:
    if src == RUNTIME_PATH:
        return runtime_script(episode.runtime)
    if not src.startswith("/"):
        src = "/" + src  # our pages live at the site root
    file = _local_file(episode, src)
    try:
        return file.read_text(encoding="utf-8") if file is not None else None
    except (OSError, UnicodeDecodeError):  # left as a tag: its request gets the 404
        return None


def _local_file(episode: SiteEpisode, path: str) -> Path | None:
    if path.startswith(SHARED_PREFIX) and episode.shared_dir is not None:
        return _site_file(episode.shared_dir, path.removeprefix(SHARED_PREFIX))
    if episode.site_dir is None:
        return None
    return _site_file(episode.site_dir, path)


async def _run_request_hooks(episode: SiteEpisode, request: Request) -> None:
    """A wrapper's hook that fails must not leave the request unanswered (the page would
    hang until the step's bound): the failure is logged and the request goes on."""
    for hook in episode.request_hooks:
        try:
            await hook(request)
        except PlaywrightError:
            raise
        except Exception:
            _log.exception(
                "request hook %r failed on %s; serving the request unchanged", hook, request.url
            )


def _transformed(html: str, episode: SiteEpisode) -> str:
    if episode.setting_up:
        return html
    for transform in episode.html_transforms:
        try:
            html = transform(html)
        except Exception:
            _log.exception("HTML transform %r failed; serving the page without it", transform)
    return html


def runtime_script(runtime: dict[str, Any]) -> str:
    """The per-episode script a scenario page loads first: its parameters and a seeded
    ``Math.random`` (mulberry32), so the same seed gives the same page."""
    return (
        f"window.__WEBEVAL__ = {json.dumps(runtime)};\n"
        "(() => {\n"
        "  let a = ((window.__WEBEVAL__.seed ^ 0x9E3779B9) >>> 0) || 1;  // seeds 0 and 1 differ\n"
        "  Math.random = () => {\n"
        "    a |= 0; a = (a + 0x6D2B79F5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a);\n"
        "    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;\n"
        "    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;\n"
        "  };\n"
        "})();\n"
    )


def _site_file(site_dir: Path, path: str) -> Path | None:
    """The file a URL path names inside the site folder; None outside it, missing, or a
    name the file system refuses (too long, a NUL byte): an agent's ``goto`` can ask for
    any path, and the answer is a 404, never an error of the harness."""
    relative = path.lstrip("/") or "index.html"
    if relative.endswith("/"):
        relative += "index.html"
    try:
        root = site_dir.resolve()
        candidate = (root / relative).resolve()
        if not candidate.is_relative_to(root) or not candidate.is_file():
            return None
    except (OSError, ValueError):
        return None
    return candidate


def _api_answer(backend: Backend, request: Request, path: str) -> tuple[int, str]:
    """The backend's status and JSON body; a request it fails on is its 500, not ours."""
    query = dict(parse_qsl(urlsplit(request.url).query))
    try:
        answer = backend.handle(request.method, path, query, request.post_data_buffer)
    except Exception:
        _log.exception("the backend failed on %s %s; answering 500", request.method, path)
        return 500, json.dumps({"error": f"the server failed on {request.method} {path}"})
    return answer.status, "" if answer.body is None else json.dumps(answer.body)


_HTTP_SCHEME = {"ws": "http", "wss": "https"}

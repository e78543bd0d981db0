"""The pages every library loads, served on 127.0.0.1 by ``http.server``.

- MiniWoB++ task pages from the miniwob package's ``html`` folder, as shipped. With
  ``?autostart=1&seed=N`` the page starts its episode by itself, seeded like MiniWoB++'s
  own ``reset(seed=N)`` does (``Math.seedrandom(N)`` then ``core.startEpisodeReal()``),
  with the 10 s episode timer lifted: libraries other than MiniWoB++ do not drive the
  page's ``core`` object, and a slow library must not see the episode time out.
- A scenario of ours (``WebEval/form-v0``) for the peers, served from the same files,
  backend and seeded runtime that webharness routes into its own contexts.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

AUTOSTART = """<script>
window.onload = null;  /* the page would show MiniWoB++'s START cover on load */
core.EPISODE_MAX_TIME = 3600 * 1000;
Math.seedrandom(%d);
core.startEpisode();
core.startEpisodeReal();
</script>"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def _miniwob_handler(root: Path) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(_Quiet):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            parts = urlsplit(self.path)
            query = dict(parse_qsl(parts.query))
            if "autostart" in query and parts.path.endswith(".html"):
                file = (root / parts.path.lstrip("/")).resolve()
                if not file.is_relative_to(root) or not file.is_file():
                    self.send_error(404)
                    return
                html = file.read_text(encoding="utf-8")
                script = AUTOSTART % int(query.get("seed", "0"))
                body = html.replace("</body>", script + "</body>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

    return Handler


def _scenario_handler(
    site,
) -> type[http.server.BaseHTTPRequestHandler]:  # site: webharness SiteEpisode
    from webharness.browser import site as S

    class Handler(_Quiet):
        def _answer(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _serve(self, method: str) -> None:
            parts = urlsplit(self.path)
            path = parts.path or "/"
            if path.startswith("/api/") and site.backend is not None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else None
                answer = site.backend.handle(method, path, dict(parse_qsl(parts.query)), data)
                body = b"" if answer.body is None else json.dumps(answer.body).encode()
                self._answer(answer.status, body, "application/json")
                return
            if path == S.RUNTIME_PATH:
                self._answer(200, S.runtime_script(site.runtime).encode(), "text/javascript")
                return
            file = S._local_file(site, path)
            if file is None:
                self._answer(404, b"<h1>Not found</h1>", "text/html")
                return
            if file.suffix == ".html":
                self._answer(
                    200,
                    S.inline_assets(file.read_text(encoding="utf-8"), site).encode(),
                    "text/html; charset=utf-8",
                )
            else:
                import mimetypes

                kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
                self._answer(200, file.read_bytes(), kind)

        def do_GET(self) -> None:  # noqa: N802
            self._serve("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._serve("POST")

        def do_PUT(self) -> None:  # noqa: N802
            self._serve("PUT")

        def do_PATCH(self) -> None:  # noqa: N802
            self._serve("PATCH")

        def do_DELETE(self) -> None:  # noqa: N802
            self._serve("DELETE")

    return Handler


@contextmanager
def serve(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, name="bench-pages", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def miniwob_server(html_dir: Path):
    """Serves ``html_dir`` (miniwob's ``html`` folder: ``miniwob/``, ``core/``, ``common/``)."""
    return serve(_miniwob_handler(html_dir.resolve()))


def scenario_site(env_id: str, seed: int):
    """The SiteEpisode webharness would route for ``env_id`` at ``seed``: files, backend, runtime.

    Built by a text-mode reset (it opens a browser once, closed at once)."""
    import gymnasium as gym

    import webharness  # noqa: F401  (registers the envs)

    env = gym.make(env_id, obs_mode="text")
    try:
        env.reset(seed=seed)
        return env.unwrapped.episode.site
    finally:
        env.close()


def scenario_server(site):
    return serve(_scenario_handler(site))

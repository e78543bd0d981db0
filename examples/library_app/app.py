"""Shelfwise, a small library catalogue: the team's own stateful example app for
``examples/library_tasks``. Server-rendered (stdlib ``wsgiref`` + ``sqlite3``), its state in
``<data-dir>/library.sqlite3``: sign-in sessions (a cookie), a change list with search and
filters, add and edit forms the server validates, a delete confirmation page.

Run it::

    python examples/library_app/app.py --port 8000 --data-dir /tmp/lib

then open http://127.0.0.1:8000/ and sign in as ``librarian`` / ``read-more-books``.
For the harness (not for people): ``POST /__reset`` restores the seed (optionally with a
signed-in session, JSON ``{"session": "<token>"}``), ``GET /__state?title=...`` lists the
books whose columns equal the query's, ``GET /__ready`` answers 200.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sqlite3
import sys
from collections.abc import Callable, Iterable
from contextlib import closing
from http.cookies import SimpleCookie
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from urllib.parse import parse_qs, quote, urlencode
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its modules, run as a script

import books_db as db  # noqa: E402
import books_html as html  # noqa: E402

USERS = {"librarian": "read-more-books"}
Start = Callable[[str, list[tuple[str, str]]], Any]
Answer = tuple[str, list[tuple[str, str]], str]  # status, headers, body


class Library:
    """The WSGI app over one database file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        db.create(path)

    def __call__(self, environ: dict[str, Any], start: Start) -> Iterable[bytes]:
        with closing(db.connect(self.path)) as conn:
            status, headers, body = self.route(conn, Request(environ))
        start(status, [("Content-Type", "text/html; charset=utf-8"), *headers])
        return [body.encode()]

    def route(self, conn: sqlite3.Connection, req: Request) -> Answer:
        parts = [p for p in req.path.split("/") if p]
        if parts and parts[0].startswith("__"):
            return self.harness(conn, req, parts[0])
        if parts == ["login"]:
            return self.login(conn, req)
        if not db.signed_in(conn, req.session):
            return _redirect("/login?" + urlencode({"next": req.full_path}))
        if parts == ["logout"] and req.method == "POST":
            db.sign_out(conn, req.session)
            return _redirect("/login")
        if parts in ([], ["books"]):
            return self.books(conn, req)
        if parts == ["books", "add"]:
            return self.edit(conn, req, None)
        if parts == ["books", "bulk"] and req.method == "POST":
            ids = [int(i) for i in req.form_list("ids") if i.isdigit()]
            if req.form.get("action") in ("available", "unavailable") and ids:
                db.set_available(conn, ids, req.form["action"] == "available")
            return _redirect("/books?" + urlencode({"updated": len(ids)}))
        if len(parts) == 3 and parts[0] == "books" and parts[1].isdigit():
            book = db.book(conn, int(parts[1]))
            if book is None:
                return "404 Not Found", [], html.not_found(f"No book has the id {parts[1]}.")
            if parts[2] == "edit":
                return self.edit(conn, req, book)
            if parts[2] == "delete":
                return self.delete(conn, req, book)
        return "404 Not Found", [], html.not_found(f"No page at {req.path}.")

    def harness(self, conn: sqlite3.Connection, req: Request, name: str) -> Answer:
        json_type = [("Content-Type", "application/json")]
        if name == "__reset" and req.method == "POST":
            body = json.loads(req.body or b"{}")
            db.reset(conn, body.get("session") if isinstance(body, dict) else None)
            return "200 OK", json_type, json.dumps({"ok": True})
        if name == "__state":
            books = db.matching(conn, req.query)
            return "200 OK", json_type, json.dumps({"count": len(books), "books": books})
        if name == "__ready":
            return "200 OK", json_type, json.dumps({"ok": True})
        return "404 Not Found", [], html.not_found(f"No page at {req.path}.")

    def login(self, conn: sqlite3.Connection, req: Request) -> Answer:
        next_url = req.form.get("next") or req.query.get("next") or "/books"
        if not next_url.startswith("/") or next_url.startswith("//"):
            next_url = "/books"
        if req.method != "POST":
            return "200 OK", [], html.login(next_url, failed=False)
        user, password = req.form.get("username", ""), req.form.get("password", "")
        if USERS.get(user) != password:
            return "200 OK", [], html.login(next_url, failed=True)
        token = secrets.token_hex(16)
        db.sign_in(conn, token, user)
        cookie = f"session={token}; Path=/; HttpOnly; SameSite=Lax"
        return _redirect(next_url, [("Set-Cookie", cookie)])

    def books(self, conn: sqlite3.Connection, req: Request) -> Answer:
        q = req.query
        found = db.search(conn, q.get("q", ""), q.get("genre", ""), q.get("available") == "1")
        return "200 OK", [], html.book_list(found, q, self.flash(conn, q))

    @staticmethod
    def flash(conn: sqlite3.Connection, query: dict[str, str]) -> str:
        for key, verb in (("added", "Added"), ("saved", "Saved")):
            if query.get(key, "").isdigit():
                book = db.book(conn, int(query[key]))
                return f"{verb} “{book['title']}”." if book else ""
        if "deleted" in query:
            return f"Deleted “{query['deleted']}”."
        if query.get("updated", "").isdigit():
            return f"Updated {query['updated']} book(s)." if query["updated"] != "0" else ""
        return ""

    def edit(self, conn: sqlite3.Connection, req: Request, book: sqlite3.Row | None) -> Answer:
        heading = f"Edit “{book['title']}”" if book else "Add book"
        book_id = book["id"] if book else None
        if req.method != "POST":
            values = dict(book) if book else {"available": "1"}
            return "200 OK", [], html.book_form(heading, values, {}, book_id)
        fields, errors = db.validate(req.form)
        if errors:
            return "200 OK", [], html.book_form(heading, req.form, errors, book_id)
        saved = db.save(conn, fields, book_id)
        return _redirect("/books?" + urlencode({"saved" if book else "added": saved}))

    def delete(self, conn: sqlite3.Connection, req: Request, book: sqlite3.Row) -> Answer:
        if req.method != "POST":
            return "200 OK", [], html.confirm_delete(book)
        db.delete(conn, book["id"])
        return _redirect("/books?" + urlencode({"deleted": book["title"]}))


class Request:
    """What a handler reads of a request: path, query, form, session cookie."""

    def __init__(self, environ: dict[str, Any]) -> None:
        self.method = environ["REQUEST_METHOD"]
        self.path = environ.get("PATH_INFO") or "/"
        raw_query = environ.get("QUERY_STRING", "")
        self.full_path = self.path + (f"?{raw_query}" if raw_query else "")
        self.query = {k: v[-1] for k, v in parse_qs(raw_query).items()}
        length = int(environ.get("CONTENT_LENGTH") or 0)
        self.body = environ["wsgi.input"].read(length) if length else b""
        form_type = environ.get("CONTENT_TYPE", "").startswith("application/x-www-form")
        self._form = parse_qs(self.body.decode(), keep_blank_values=True) if form_type else {}
        self.form = {k: v[-1] for k, v in self._form.items()}
        cookie = SimpleCookie(environ.get("HTTP_COOKIE", ""))
        self.session = cookie["session"].value if "session" in cookie else None

    def form_list(self, name: str) -> list[str]:
        return self._form.get(name, [])


def _redirect(location: str, headers: list[tuple[str, str]] | None = None) -> Answer:
    return (
        "303 See Other",
        [("Location", quote(location, safe="/?=&%+#:;,@!$()*~")), *(headers or [])],
        "",
    )


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a browser's idle pre-connection never holds up another request


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.command} {self.path} {args[1] if len(args) > 1 else ''}\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--data-dir", type=Path, required=True, help="where its database lives")
    args = parser.parse_args(argv)
    args.data_dir.mkdir(parents=True, exist_ok=True)
    app = Library(args.data_dir / "library.sqlite3")
    with make_server(args.host, args.port, app, _Server, _QuietHandler) as server:
        print(f"Shelfwise on http://{args.host}:{args.port}/ (Ctrl-C stops it)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()

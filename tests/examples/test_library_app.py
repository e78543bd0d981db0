"""The team's own stateful example app (``examples/library_app``), over HTTP without a
browser, started as its task folder declares it: sign-in sessions, server-side validation
whose messages sit beside each field and describe it, the change list's ``required`` bulk
action, ids that grow across resets, and a database per instance."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest

from tests.support.library import running_library
from webharness.apps import AppInstance

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BOOK = {"title": "The Amber Index", "author": "Ada Moss", "isbn": "978-1-2345-67890"}
BOOK |= {"year": "1999", "genre": "Poetry", "available": "1"}


class Browser:
    """Cookies kept, redirects followed, no proxy: a client of one instance."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(CookieJar())
        )

    def get(self, path: str) -> tuple[str, str]:
        with self.opener.open(self.url + path, timeout=5) as answer:
            return answer.url.removeprefix(self.url), answer.read().decode()

    def post(self, path: str, form: dict[str, str]) -> tuple[str, str]:
        data = urllib.parse.urlencode(form).encode()
        with self.opener.open(self.url + path, data=data, timeout=5) as answer:
            return answer.url.removeprefix(self.url), answer.read().decode()

    def state(self, **where: str) -> list[dict[str, Any]]:
        return json.loads(self.get("/__state?" + urllib.parse.urlencode(where))[1])["books"]

    def sign_in(self) -> None:
        self.post("/login", {"username": "librarian", "password": "read-more-books"})


@pytest.fixture(scope="module")
def app() -> Iterator[AppInstance]:
    with running_library() as running:
        yield running


@pytest.fixture
def client(app: AppInstance) -> Browser:
    app.reset()  # the declared per-episode reset: the seed again, signed out
    return Browser(app.url)


def test_pages_need_a_session_and_sign_in_returns_to_them(client):
    assert client.get("/books/add")[0] == "/login?next=%2Fbooks%2Fadd"
    where, page = client.post("/login", {"username": "librarian", "password": "no"})
    assert "Wrong username or password." in page
    where, page = client.post(
        "/login", {"username": "librarian", "password": "read-more-books", "next": "/books/add"}
    )
    assert where == "/books/add" and "<h1>Add book</h1>" in page


def test_a_rejected_field_is_named_beside_it_and_in_its_description(client):
    client.sign_in()
    bad = {**BOOK, "title": " ", "isbn": "978 1 2345 67890", "year": "1200"}
    where, page = client.post("/books/add", bad)
    assert where == "/books/add" and 'role="alert"' in page
    for field, message in (("title", "Enter the book"), ("isbn", "no spaces"), ("year", "1450")):
        control = re.search(f'<input id="{field}"[^>]*>', page)
        assert control and f'aria-describedby="{field}-errors"' in control.group(0)
        assert 'aria-invalid="true"' in control.group(0)
        errors = re.search(f'<ul class="errorlist" id="{field}-errors"><li>([^<]*)', page)
        assert errors and message in errors.group(1)
    assert 'aria-describedby="author-errors"' not in page  # a good field is not marked
    assert client.state(title="The Amber Index") == []


def test_a_valid_book_is_added_and_listed(client):
    client.sign_in()
    where, page = client.post("/books/add", BOOK)
    assert where.startswith("/books?added=") and "Added “The Amber Index”." in page
    (added,) = client.state(title="The Amber Index")
    assert added["isbn"] == "9781234567890" and added["available"] == 1


def test_the_change_list_filters_and_its_bulk_action_is_required(client):
    client.sign_in()
    _, page = client.get("/books?q=Okafor&genre=Poetry&available=1")
    assert "2 books" in page and "Lanterns" in page and "The Salt Road" not in page
    assert '<select id="action" name="action" required>' in page
    assert '<th scope="row"><a href="/books/' in page


def test_delete_asks_first_then_deletes(client):
    client.sign_in()
    (book,) = client.state(title="Lanterns")
    _, page = client.get(f"/books/{book['id']}/delete")
    assert "Are you sure you want to delete “Lanterns”" in page
    assert client.state(title="Lanterns") != []
    where, page = client.post(f"/books/{book['id']}/delete", {})
    assert "Deleted “Lanterns”." in page and client.state(title="Lanterns") == []


def test_ids_grow_across_resets_and_the_reset_ends_every_session(app, client):
    client.sign_in()
    first = {b["id"] for b in client.state()}
    app.reset()
    again = {b["id"] for b in client.state()}
    assert len(again) == 15 and min(again) > max(first)  # AUTOINCREMENT: never reused
    assert client.get("/books")[0].startswith("/login")


def test_each_instance_has_a_database_of_its_own(app, client):
    with running_library() as other:
        client.sign_in()
        client.post("/books/add", BOOK)
        assert client.state(title="The Amber Index") != []
        assert Browser(other.url).state(title="The Amber Index") == []


def test_users_run_it_as_a_script(tmp_path):
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "library_app" / "app.py"), "--help"],
        capture_output=True, text=True, timeout=30, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0 and "--data-dir" in done.stdout

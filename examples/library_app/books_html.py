"""The library's pages, rendered on the server: plain HTML forms, no script. A field the
server rejects carries its message twice, as a screen reader and a sighted user get it:
in an error list beside the field, and as the field's description (``aria-describedby``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from html import escape
from typing import Any

from books_db import GENRES

STYLE = """body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222}
header{background:#264653;color:#fff;padding:.6em 1.2em;display:flex;gap:1.2em;align-items:center}
header a{color:#fff}main{padding:1em 1.2em;max-width:60em}
.field{margin:.5em 0}label{display:inline-block;min-width:7em}
.errorlist{color:#b00020;margin:.2em 0 .2em 7em;padding:0;list-style:none}
[aria-invalid=true]{border:2px solid #b00020}.flash{background:#e9f5ec;padding:.4em .8em}
table{border-collapse:collapse;margin-top:.6em}
td,th{border-bottom:1px solid #ddd;padding:.3em .6em;text-align:left}
form.inline{display:inline}"""


def page(title: str, body: str, signed_in: bool = True) -> str:
    nav = ""
    if signed_in:
        nav = (
            '<nav aria-label="Main"><a href="/books">Books</a> · <a href="/books/add">Add book</a>'
            '</nav><form class="inline" method="post" action="/logout">'
            '<button type="submit">Sign out</button></form>'
        )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)} · '
        f"Shelfwise</title><style>{STYLE}</style></head><body><header><strong>Shelfwise</strong>"
        f"{nav}</header><main>{body}</main></body></html>"
    )


def login(next_url: str, failed: bool) -> str:
    error = '<p role="alert">Wrong username or password.</p>' if failed else ""
    return page(
        "Sign in",
        f"<h1>Sign in to Shelfwise</h1>{error}"
        f'<form method="post" action="/login"><input type="hidden" name="next" '
        f'value="{escape(next_url)}">'
        '<div class="field"><label for="username">Username</label>'
        '<input id="username" name="username" autocomplete="username"></div>'
        '<div class="field"><label for="password">Password</label>'
        '<input id="password" name="password" type="password"></div>'
        '<button type="submit">Sign in</button></form>',
        signed_in=False,
    )


def _options(values: tuple[str, ...], chosen: str, empty: str) -> str:
    items = [f'<option value="">{escape(empty)}</option>']
    for value in values:
        selected = " selected" if value == chosen else ""
        items.append(f'<option value="{escape(value)}"{selected}>{escape(value)}</option>')
    return "".join(items)


def book_list(books: list[sqlite3.Row], query: Mapping[str, str], flash: str = "") -> str:
    """The change list: a search and filters (a GET form), the books, and a bulk action whose
    ``<select>`` is ``required``: the browser holds its "Please select an item in the list"
    from the moment the page loads."""
    text, genre = query.get("q", ""), query.get("genre", "")
    available = " checked" if query.get("available") == "1" else ""
    rows = "".join(
        f'<tr><td><input type="checkbox" name="ids" value="{b["id"]}" '
        f'aria-label="Select {escape(b["title"])}"></td>'
        f'<th scope="row"><a href="/books/{b["id"]}/edit">{escape(b["title"])}</a></th>'
        f"<td>{escape(b['author'])}</td><td>{escape(b['genre'])}</td><td>{b['year']}</td>"
        f"<td>{'Yes' if b['available'] else 'No'}</td></tr>"
        for b in books
    )
    count = f"{len(books)} book{'s' if len(books) != 1 else ''}"
    flash_html = f'<p class="flash" role="status">{escape(flash)}</p>' if flash else ""
    return page(
        "Books",
        f"<h1>Books</h1>{flash_html}"
        '<form method="get" action="/books" role="search" aria-label="Filter books">'
        '<label for="q">Search</label>'
        f'<input id="q" name="q" type="search" value="{escape(text)}"> '
        f'<label for="genre">Genre</label><select id="genre" name="genre">'
        f"{_options(GENRES, genre, 'Any genre')}</select> "
        f'<input type="checkbox" id="available" name="available" value="1"{available}>'
        '<label for="available">Available only</label> <button type="submit">Filter</button>'
        f'</form><p id="count">{count}</p>'
        '<form method="post" action="/books/bulk"><label for="action">Action</label>'
        '<select id="action" name="action" required><option value="">---------</option>'
        '<option value="available">Mark selected as available</option>'
        '<option value="unavailable">Mark selected as not available</option></select> '
        '<button type="submit">Go</button>'
        '<table><caption>Books</caption><thead><tr><th scope="col">Select</th>'
        '<th scope="col">Title</th><th scope="col">Author</th><th scope="col">Genre</th>'
        '<th scope="col">Year</th><th scope="col">Available</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></form>",
    )


def _field(name: str, label: str, control: str, errors: Mapping[str, str]) -> str:
    """A labelled control; when the server rejected it, its error list beside it, which is
    also its description."""
    if name not in errors:
        return f'<div class="field"><label for="{name}">{label}</label>{control}</div>'
    described = control.replace(
        f'id="{name}"', f'id="{name}" aria-invalid="true" aria-describedby="{name}-errors"', 1
    )
    return (
        f'<div class="field"><label for="{name}">{label}</label>{described}'
        f'<ul class="errorlist" id="{name}-errors"><li>{escape(errors[name])}</li></ul></div>'
    )


def book_form(
    heading: str, values: Mapping[str, Any], errors: Mapping[str, str], book_id: int | None
) -> str:
    """The add and edit form. The server validates it (the form says ``novalidate``)."""

    def text(name: str, label: str, kind: str = "text") -> str:
        value = escape(str(values.get(name, "")))
        control = f'<input id="{name}" name="{name}" type="{kind}" value="{value}">'
        return _field(name, label, control, errors)

    genre = f'<select id="genre" name="genre">{_options(GENRES, values.get("genre", ""), "Choose a genre")}</select>'  # noqa: E501
    checked = " checked" if str(values.get("available", "")) in ("1", "True") else ""
    alert = '<p role="alert">Please correct the errors below.</p>' if errors else ""
    delete = f'<p><a href="/books/{book_id}/delete">Delete this book</a></p>' if book_id else ""
    return page(
        heading,
        f'<h1>{escape(heading)}</h1>{alert}<form method="post" novalidate>'
        f"{text('title', 'Title')}{text('author', 'Author')}{text('isbn', 'ISBN')}"
        f"{text('year', 'Year', 'number')}{_field('genre', 'Genre', genre, errors)}"
        f'<div class="field"><input type="checkbox" id="available" name="available" value="1"'
        f'{checked}><label for="available">Available for loan</label></div>'
        f'<button type="submit">Save</button></form>{delete}',
    )


def confirm_delete(book: sqlite3.Row) -> str:
    title = escape(book["title"])
    return page(
        f"Delete {book['title']}",
        f"<h1>Delete “{title}”?</h1><p>Are you sure you want to delete “{title}” by "
        f"{escape(book['author'])}? This cannot be undone.</p>"
        '<form method="post"><button type="submit">Yes, delete it</button></form>'
        f'<p><a href="/books/{book["id"]}/edit">No, keep it</a></p>',
    )


def not_found(what: str) -> str:
    return page("Not found", f"<h1>Not found</h1><p>{escape(what)}</p>")

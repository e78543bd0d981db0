"""The library's data: books and sign-in sessions in one SQLite file, and the seed the app
starts from and goes back to on ``POST /__reset``. Ids come from SQLite's AUTOINCREMENT, so
they grow with every insert and never repeat, even across resets."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

GENRES = ("Fiction", "History", "Poetry", "Science", "Travel")
FIRST_YEAR, LAST_YEAR = 1450, 2026  # the printing press; this year
COLUMNS = ("title", "author", "isbn", "year", "genre", "available")

# title, author, ISBN-13, year, genre, available
SEED = (
    ("The Salt Road", "Ines Calder", "9781402894626", 2011, "Fiction", 1),
    ("Harbour Lights", "Tomas Reyes", "9780141439518", 1998, "Fiction", 1),
    ("Paper Rivers", "Tomas Reyes", "9781982137274", 2022, "Fiction", 1),
    ("The Glass Orchard", "Lena Marsh", "9780571334650", 2017, "Fiction", 0),
    ("Empires of Grain", "Hugo Varga", "9780199535569", 2007, "History", 1),
    ("The Long Parliament", "Edith Hale", "9780521292948", 1987, "History", 0),
    ("Small Machines", "Priya Natarajan", "9780262046305", 2021, "Science", 1),
    ("Notes on Light", "Jonas Berg", "9780691139555", 2003, "Science", 1),
    ("The Tide Clock", "Jonas Berg", "9780465055999", 2016, "Science", 0),
    ("Field of Verses", "Amara Okafor", "9781556594328", 2012, "Poetry", 1),
    ("Lanterns", "Amara Okafor", "9780374529260", 1995, "Poetry", 1),
    ("Salt and Iron", "Wen Li", "9781619322193", 2018, "Poetry", 1),
    ("Night Harbour Songs", "Wen Li", "9781556595127", 2009, "Poetry", 1),
    ("A Winter in Lisbon", "Marta Sousa", "9780307387899", 2015, "Travel", 1),
    ("The Quiet Atlas", "Ines Calder", "9781250301697", 2019, "Travel", 0),
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS books (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL, author TEXT NOT NULL, isbn TEXT NOT NULL,
    year INTEGER NOT NULL, genre TEXT NOT NULL, available INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (token TEXT PRIMARY KEY, username TEXT NOT NULL);
"""


def connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=10, isolation_level=None)  # autocommit; BEGIN by hand
    db.row_factory = sqlite3.Row
    return db


def create(path: Path) -> None:
    """Make the database with the seed, unless it is there already."""
    with connect(path) as db:
        fresh = not db.execute("SELECT 1 FROM sqlite_master WHERE name='books'").fetchone()
        db.executescript(SCHEMA)
        if fresh:
            reset(db)


def reset(db: sqlite3.Connection, session: str | None = None) -> None:
    """Back to the seed: every book replaced (with new ids), every session ended; then
    ``session``, if given, is a signed-in session of the librarian."""
    db.execute("BEGIN IMMEDIATE")
    db.execute("DELETE FROM books")
    db.execute("DELETE FROM sessions")
    db.executemany(f"INSERT INTO books ({', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?)", SEED)
    if session:
        db.execute("INSERT INTO sessions VALUES (?, 'librarian')", (session,))
    db.execute("COMMIT")


def search(db: sqlite3.Connection, text: str, genre: str, available: bool) -> list[sqlite3.Row]:
    """Books whose title or author holds ``text``, of ``genre`` (any if empty), available
    only if asked; by title."""
    sql, args = "SELECT * FROM books WHERE (title LIKE ? OR author LIKE ?)", [f"%{text}%"] * 2
    if genre:
        sql, args = sql + " AND genre = ?", [*args, genre]
    if available:
        sql += " AND available = 1"
    return db.execute(sql + " ORDER BY title", args).fetchall()


def matching(db: sqlite3.Connection, where: dict[str, str]) -> list[dict[str, Any]]:
    """Books whose columns equal ``where`` (for ``GET /__state``)."""
    known = {k: v for k, v in where.items() if k in (*COLUMNS, "id")}
    clause = " AND ".join(f"{k} = ?" for k in known) or "1"
    rows = db.execute(f"SELECT * FROM books WHERE {clause} ORDER BY id", list(known.values()))
    return [dict(row) for row in rows]


def book(db: sqlite3.Connection, book_id: int) -> sqlite3.Row | None:
    return db.execute("SELECT * FROM books WHERE id = ?", (book_id,)).fetchone()


def save(db: sqlite3.Connection, fields: dict[str, Any], book_id: int | None = None) -> int:
    """Insert a book (``book_id`` None) or update one; its id."""
    values = [fields[c] for c in COLUMNS]
    if book_id is None:
        marks = ", ".join("?" * len(COLUMNS))
        cursor = db.execute(f"INSERT INTO books ({', '.join(COLUMNS)}) VALUES ({marks})", values)
        return int(cursor.lastrowid or 0)
    sets = ", ".join(f"{c} = ?" for c in COLUMNS)
    db.execute(f"UPDATE books SET {sets} WHERE id = ?", [*values, book_id])
    return book_id


def set_available(db: sqlite3.Connection, ids: list[int], available: bool) -> None:
    db.executemany(
        "UPDATE books SET available = ? WHERE id = ?", [(int(available), i) for i in ids]
    )


def delete(db: sqlite3.Connection, book_id: int) -> None:
    db.execute("DELETE FROM books WHERE id = ?", (book_id,))


def validate(form: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """A book form's fields, cleaned, and an error per field that is not valid."""
    errors: dict[str, str] = {}
    title, author = form.get("title", "").strip(), form.get("author", "").strip()
    if not title:
        errors["title"] = "Enter the book's title."
    if not author:
        errors["author"] = "Enter the author's name."
    isbn = form.get("isbn", "").strip()
    if not re.fullmatch(r"97[89][0-9-]*", isbn) or len(isbn.replace("-", "")) != 13:
        errors["isbn"] = (
            "Enter an ISBN-13: 13 digits starting with 978 or 979, hyphens allowed, no "
            "spaces (e.g. 978-1-4028-9462-6)."
        )
    year_text = form.get("year", "").strip()
    year = int(year_text) if year_text.isdigit() else 0
    if not FIRST_YEAR <= year <= LAST_YEAR:
        errors["year"] = f"Enter a year from {FIRST_YEAR} to {LAST_YEAR}."
    genre = form.get("genre", "")
    if genre not in GENRES:
        errors["genre"] = "Choose a genre."
    fields = {
        "title": title, "author": author, "isbn": isbn.replace("-", ""), "year": year,
        "genre": genre, "available": int(form.get("available") == "1"),
    }  # fmt: skip
    return fields, errors


def signed_in(db: sqlite3.Connection, token: str | None) -> bool:
    return (
        bool(token)
        and db.execute("SELECT 1 FROM sessions WHERE token = ?", (token,)).fetchone() is not None
    )


def sign_in(db: sqlite3.Connection, token: str, username: str) -> None:
    db.execute("INSERT INTO sessions VALUES (?, ?)", (token, username))


def sign_out(db: sqlite3.Connection, token: str | None) -> None:
    db.execute("DELETE FROM sessions WHERE token = ?", (token or "",))

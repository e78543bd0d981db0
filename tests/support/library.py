"""The team's own database app, Shelfwise (``examples/library_app``), started from its task
folder's app declaration for a test module."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from webharness.apps import AppInstance, load_app

TASKS = Path(__file__).resolve().parents[2] / "examples" / "library_tasks"


@contextmanager
def running_library() -> Iterator[AppInstance]:
    """One instance of the app (a free port, a database of its own) until the block ends."""
    spec = load_app(TASKS / "delete_book" / "task.yaml")
    assert spec is not None, "examples/library_tasks declares its app in app.yaml"
    with AppInstance(spec) as running:
        yield running

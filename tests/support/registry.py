"""Registering task folders in a test without leaving them registered for the next test
(the catalogue and Gymnasium's registry are per process, and a pytest worker runs many
modules)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import gymnasium as gym

from webharness.spec import catalogue

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NOTES_TASK = FIXTURES / "notes_task"  # a task folder of the suite's own: local site, two paths


@contextmanager
def registrations_undone() -> Iterator[None]:
    """Within it, tasks may be registered; after it, only those registered before are."""
    gym_ids = set(gym.registry)
    registered = dict(catalogue._REGISTERED)
    try:
        yield
    finally:
        for env_id in set(gym.registry) - gym_ids:
            del gym.registry[env_id]
        catalogue._REGISTERED.clear()
        catalogue._REGISTERED.update(registered)

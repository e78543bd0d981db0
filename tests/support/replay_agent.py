"""A Python agent that plays DSL actions read from a JSON file: the DSL twin, through
``env.step``, of an external agent making the same moves as tool calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from webharness.trace.models import TaskInstance


class ReplayAgent:
    """Plays the actions of ``actions_file`` in order, then ``done()``."""

    name = "replay"

    def __init__(self, actions_file: str) -> None:
        self.actions: list[str] = json.loads(Path(actions_file).read_text())
        self._next = iter(self.actions)

    def reset(self, instance: TaskInstance) -> None:
        self._next = iter(self.actions)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        return next(self._next, "done()")

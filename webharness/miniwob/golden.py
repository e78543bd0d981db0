"""Golden paths for the MiniWoB++ tasks whose solution is the same on every seed, written
against semantic targets: the oracle plays them, and alignment and progress work as on
the built-in scenarios. A task whose target changes with the seed (the button the
utterance names) has none: a golden path cannot read the page's utterance. A step has no
``expect``: the page's verdict is the task's success criterion, judged at the end."""

from __future__ import annotations

from typing import Any


def _click(role: str, name: str) -> dict[str, Any]:
    return {"action": "click", "target": {"role": role, "name": name}}


GOLDEN: dict[str, list[dict[str, Any]]] = {
    # "Click the button." on a button that moves
    "click-test": [{"id": "click", "steps": [_click("button", "Click Me!")]}],
    # "Close the dialog box by clicking the "x"." on a dialog that moves
    "click-dialog": [{"id": "close", "steps": [_click("button", "Close")]}],
}


def golden_paths(task: str) -> list[dict[str, Any]]:
    """The task's golden paths as spec data (none for most)."""
    return GOLDEN.get(task, [])

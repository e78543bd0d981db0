"""``RandomAgent``: valid but aimless actions over the refs on the page (a floor baseline)."""

from __future__ import annotations

from typing import Any

import numpy as np

from webharness import actions as A
from webharness.agents._axtree import CLICK_ROLES, TEXT_ROLES, Node, parse_axtree
from webharness.trace.models import TaskInstance

WORDS = ("alpha", "blue", "north", "seven", "river", "quick", "hello", "test", "maple", "orbit")
KEYS = ("Enter", "Tab", "Escape", "ArrowDown", "ArrowUp", "Space")
# Relative weights of the action kinds; each is only drawn when the page offers a target.
WEIGHTS = {
    "click": 5,
    "fill": 3,
    "select_option": 2,
    "check": 1,
    "scroll": 1,
    "press": 1,
    "noop": 1,
}


class RandomAgent:
    """Draws a random action over the current refs each step; ``done()`` with probability
    ``done_prob``. Reproducible: its generator is seeded from ``seed`` and the instance seed.

    Example:
        >>> agent = RandomAgent(seed=1)
    """

    name = "random"

    def __init__(self, seed: int = 0, done_prob: float = 0.03) -> None:
        if not 0.0 <= done_prob <= 1.0:
            raise ValueError(f"done_prob={done_prob!r} must be between 0 and 1")
        self.seed = int(seed)
        self.done_prob = done_prob
        self.rng = np.random.default_rng(self.seed)

    def reset(self, instance: TaskInstance) -> None:
        instance_seed = instance.seed if instance.seed is not None else 0
        self.rng = np.random.default_rng([abs(self.seed), abs(int(instance_seed))])

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self.rng.random() < self.done_prob:
            return A.Done().dsl()
        nodes = [n for n in parse_axtree(obs.get("axtree", "")) if not n.disabled]
        targets = {
            "click": [n for n in nodes if n.role in CLICK_ROLES and n.role != "option"],
            "fill": [
                n for n in nodes if n.role in TEXT_ROLES or (n.role == "combobox" and not n.options)
            ],
            "select_option": [n for n in nodes if n.is_native_select],
            "check": [n for n in nodes if n.role in ("checkbox", "radio", "switch")],
        }
        kinds = [k for k in WEIGHTS if k not in targets or targets[k]]
        weights = np.array([WEIGHTS[k] for k in kinds], dtype=float)
        kind = kinds[int(self.rng.choice(len(kinds), p=weights / weights.sum()))]
        return self._action(kind, targets.get(kind, [])).dsl()

    def _action(self, kind: str, targets: list[Node]) -> Any:
        node = targets[int(self.rng.integers(len(targets)))] if targets else None
        if kind == "click" and node:
            return A.Click(ref=node.ref)
        if kind == "fill" and node:
            words = self.rng.choice(WORDS, size=int(self.rng.integers(1, 4)))
            return A.Fill(ref=node.ref, text=" ".join(str(w) for w in words))
        if kind == "select_option" and node:
            return A.SelectOption(
                ref=node.ref, option=node.options[int(self.rng.integers(len(node.options)))]
            )
        if kind == "check" and node:
            return A.Uncheck(ref=node.ref) if node.checked else A.Check(ref=node.ref)
        if kind == "scroll":
            return A.Scroll(dx=0.0, dy=float(self.rng.choice([-400, -200, 200, 400])))
        if kind == "press":
            return A.Press(key=str(self.rng.choice(KEYS)))
        return A.Noop()

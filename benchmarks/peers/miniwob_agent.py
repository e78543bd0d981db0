"""The random agent of ``bench_miniwob.py``, the same in every library's driver.

Standard library only: each driver imports it with its own interpreter. Per episode the
agent resets with a seed, then up to ``clicks`` times asks the page for its candidates
(``CANDIDATES_JS``: the enabled, visible controls in DOM order, MiniWoB++'s own displays
left out), picks one with a generator seeded by task and seed, and clicks it by the
library's own reference to it. Same page + same picks = same actions, so both libraries
should end every episode with the same outcome. A library implements ``Episodes``.

With ``"agent": "pointer"`` in the plan, each episode is played instead by the scripted
pixel agent of the suite (``tests/support/miniwob_pointer.py``, on the drag, draw, resize
and text-selection tasks): the same points in both libraries, written in each one's
coordinate actions; a library then implements ``PointerEpisodes``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: tests.support

from tests.support.miniwob_pointer import PointerAgent  # noqa: E402

# The controls an agent could click, in DOM order; ``bid`` is BrowserGym's reference and
# ``wob_ref`` MiniWoB++'s (null elsewhere); the centre is in viewport pixels, after the
# library scrolled.
CANDIDATES_JS = """() => {
  const displays = ['reward-display', 'click-canvas', 'sync-task-cover', 'query'];
  const controls = 'button, input:not([type=hidden]), select, textarea, a[href], '
    + '[role=button], [role=tab], [role=checkbox], [role=radio], [role=link], '
    + '[role=menuitem], [role=option], [role=treeitem], [role=spinbutton], [role=slider]';
  const found = [];
  for (const el of document.querySelectorAll(controls)) {
    if (displays.some((id) => el.closest('#' + id)) || el.disabled) continue;
    const box = el.getBoundingClientRect();
    if (box.width <= 0 || box.height <= 0 || getComputedStyle(el).visibility === 'hidden') {
      continue;
    }
    found.push({
      bid: el.getAttribute('bid'), tag: el.tagName.toLowerCase(),
      wob_ref: el.dataset.wob_ref === undefined ? null : Number(el.dataset.wob_ref),
      label: (el.getAttribute('aria-label') || el.textContent || el.value || '').trim()
        .slice(0, 40),
      x: box.left + box.width / 2, y: box.top + box.height / 2,
    });
  }
  return found;
}"""
OUTCOME_JS = "() => [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, core.getUtterance()]"


class Episodes(Protocol):
    """What a driver offers the agent, for one task."""

    errors: list[str]  # the actions the library refused

    def reset(self, seed: int) -> str: ...  # returns the goal
    def candidates(self) -> list[dict[str, Any]]: ...
    def click(self, candidate: dict[str, Any]) -> bool: ...  # True: the episode ended
    def outcome(self) -> dict[str, Any]: ...  # done, raw reward, the library's reward
    def close(self) -> None: ...


class PointerEpisodes(Protocol):
    """What a driver offers the pointer agent, for one task."""

    errors: list[str]

    def reset(self, seed: int) -> str: ...  # returns the goal
    def look(self) -> dict[str, Any]: ...  # the agent's read-only look (LOOK_JS)
    def act(self, op: tuple[Any, ...]) -> bool: ...  # one op a step; True: the episode ended
    def outcome(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


POINTER_OPS = 30  # an episode's most ops (the longest solution takes 11)


def play_pointer(episodes: PointerEpisodes, task: str, seed: int) -> dict[str, Any]:
    """One episode of the pointer agent; its ops, its outcome and the times."""
    started = time.perf_counter()
    goal = episodes.reset(seed)
    reset_ms = (time.perf_counter() - started) * 1000
    agent, ops, step_ms = PointerAgent(task), [], []
    for _ in range(POINTER_OPS):
        op = agent.act(goal, episodes.look())
        ops.append(op)
        started = time.perf_counter()
        ended = episodes.act(op)
        step_ms.append((time.perf_counter() - started) * 1000)
        if ended:
            break
    actions = [json.dumps(op) for op in ops]
    return record(task, seed, goal, actions, reset_ms, step_ms) | episodes.outcome()


def record(
    task: str, seed: int, goal: str, actions: list[str], reset_ms: float, step_ms: list[float]
) -> dict[str, Any]:
    """An episode's record, before its outcome."""
    return {
        "task": task,
        "seed": seed,
        "goal": goal,
        "actions": actions,
        "reset_ms": round(reset_ms, 2),
        "step_ms": [round(ms, 2) for ms in step_ms],
    }


def page_seed(seed: int) -> int:
    """What BrowserGym's MiniWoB++ task seeds the page with for ``reset(seed=seed)``:
    ``Math.seedrandom(np.random.RandomState(seed).randint(0, 1000000))``."""
    import numpy as np

    return int(np.random.RandomState(seed).randint(0, 1000000))


def play(episodes: Episodes, task: str, seed: int, clicks: int) -> dict[str, Any]:
    """One episode of the random agent; its picks, its outcome and the times."""
    started = time.perf_counter()
    goal = episodes.reset(seed)
    reset_ms = (time.perf_counter() - started) * 1000
    picks = random.Random(zlib.crc32(f"{task}:{seed}".encode()))
    actions: list[str] = []
    step_ms: list[float] = []
    for _ in range(clicks):
        found = episodes.candidates()
        if not found:
            break
        chosen = found[picks.randrange(len(found))]
        actions.append(f"{chosen['tag']}:{chosen['label']}")
        started = time.perf_counter()
        ended = episodes.click(chosen)
        step_ms.append((time.perf_counter() - started) * 1000)
        if ended:
            break
    return record(task, seed, goal, actions, reset_ms, step_ms) | episodes.outcome()


def play_plan(
    plan: dict[str, Any], make: Callable[[str], Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every task of the plan on every seed, a library's env made per task (``Episodes``,
    or ``PointerEpisodes`` for the pointer agent); the episodes
    and the actions the library refused."""
    episodes: list[dict[str, Any]] = []
    errors: list[str] = []
    for task in plan["tasks"]:
        library = make(task)
        try:
            for seed in plan["seeds"]:
                if plan.get("agent") == "pointer":
                    episodes.append(play_pointer(library, task, seed))
                else:
                    episodes.append(play(library, task, seed, plan["clicks"]))
        finally:
            errors += library.errors
            library.close()
    return episodes, errors


def print_result(
    library: str, episodes: list[dict[str, Any]], errors: list[str], **extra: Any
) -> None:
    """The driver's one JSON line on stdout."""
    result = {"library": library, "episodes": episodes, "errors": errors[:20]}
    result.update(error_count=len(errors), load=os.getloadavg(), **extra)
    print(json.dumps(result))

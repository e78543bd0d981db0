"""A task spec for each MiniWoB++ task, generated from the installed library's page list:
``WebEval/miniwob.<task>-v0``, served from the library's own ``html`` folder on our origin.

Each episode loads the task's page, then starts its episode the way MiniWoB++'s own
``reset(seed=N)`` does (``Math.seedrandom(N)``, ``core.startEpisodeReal()``), so one
seed gives one instance; the page's utterance is the goal, and its own raw
reward judges it (``page_reward``; see ``docs/miniwob.md`` for the thresholds).
"""

from __future__ import annotations

import functools
from typing import Any

from webharness.miniwob import library
from webharness.miniwob.golden import golden_paths
from webharness.miniwob.unsupported import NOT_REGISTERED
from webharness.spec.task_spec import TaskSpec

PREFIX = "miniwob."  # a pack task's id: miniwob.<task>; its env id WebEval/miniwob.<task>-v0
CATEGORY = "miniwob"
# Tasks whose reward is a closeness score (how near the bisector, the centre, the colour):
# a full 1.0 is out of reach, and a wrong answer still scores (a random colour ≈ 0.66).
CLOSENESS_TASKS = frozenset(
    {
        "bisect-angle",
        "circle-center",
        "draw-circle",
        "draw-line",
        "find-midpoint",
        "right-angle",
        "use-colorwheel",
        "use-colorwheel-2",
    }
)
CLOSENESS_THRESHOLD = 0.9
# Tasks whose page changes what it shows on wall-clock timers, whatever the agent does:
# stock-market's price every 100 ms, terminal's caret every 800 ms. Two runs of one seed
# and one set of actions can observe them at different ticks (so Gymnasium's check_env,
# which compares two such runs, can see them differ).
WALL_CLOCK_TASKS = frozenset({"stock-market", "terminal"})
FULL_REWARD = 1.0
# Tasks whose page keeps something of an episode through MiniWoB++'s restart, so their
# resets load the page anew instead of restarting it in place: jQuery UI's datepicker
# stays open (choose-date*, book-flight), stock-market's price timer runs on from the
# load. Measured: after random clicks, an in-place reset against a new load of the same
# seed, four seed pairs per task over the pack; these differed, no other did. drag-cube's
# restart sets the cube's angles but not its spin, so a cube released turning turns on
# into the next episode (seen by the pointer agent; random clicks do not spin it).
LOAD_ANEW_TASKS = frozenset(
    {
        "book-flight",
        "choose-date",
        "choose-date-easy",
        "choose-date-medium",
        "drag-cube",
        "stock-market",
    }
)

# Run in the page once it has loaded. MiniWoB++'s wall-clock limit is lifted (as
# BrowserGym does): the step budget stands for it (max_steps below), so an outcome does
# not hang on the agent's thinking time or the machine's load. Its on-page display of
# rewards and time left (outside the task's 160x210 area) is hidden, and the START cover
# it shows at the episode's end starts nothing: one episode per reset.
START_SCRIPT = """
core.EPISODE_MAX_TIME = 24 * 3600 * 1000;
core.countdownTimer = function () {};
Math.seedrandom({{page_seed}});
core.startEpisodeReal();
core.cover_div.onclick = null;
document.getElementById("reward-display").style.display = "none";
document.getElementById("click-canvas").style.display = "none";
"""


def pack_names() -> list[str]:
    """The pack's task names (``miniwob.click-button``): every MiniWoB++ task whose page runs
    here (``NOT_REGISTERED`` says which do not, and why)."""
    return [PREFIX + t for t in library.task_names() if t not in NOT_REGISTERED]


@functools.cache
def pack_spec(name: str) -> TaskSpec:
    """The spec of ``miniwob.<task>``, built once."""
    task = name.removeprefix(PREFIX)
    page = library.page(task)
    return TaskSpec.model_validate(spec_data(task), context={"file": str(page)})


def spec_data(task: str) -> dict[str, Any]:
    """The spec of one task, as data."""
    return {
        "id": PREFIX + task,
        "category": CATEGORY,
        "title": f"MiniWoB++ {task}",
        "instruction": f"The MiniWoB++ task {task} (its page states the goal when it starts).",
        "params": {"page_seed": {"kind": "seed"}},
        "site": str(library.html_dir()),
        "start_page": f"/miniwob/{task}.html",
        "page_start": {
            "script": START_SCRIPT,
            "goal": "core.getUtterance()",
            "in_place": task not in LOAD_ANEW_TASKS,  # one document, episode after episode
        },
        "max_steps": max_steps(task),
        "success": {"kind": "page_reward", "threshold": threshold(task)},
        "golden_paths": golden_paths(task),
    }


def max_steps(task: str) -> int:
    """The task's own time limit as a step budget: one step per second of it (7 to 30)."""
    return max(1, library.time_limit_ms(task) // 1000)


def threshold(task: str) -> float:
    """The raw reward that counts as success."""
    return CLOSENESS_THRESHOLD if task in CLOSENESS_TASKS else FULL_REWARD

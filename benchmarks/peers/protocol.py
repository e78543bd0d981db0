"""The measurement protocol every library's driver runs, and its /proc memory sampler.

Standard library only: each driver runs with its own library's virtual environment
(BrowserGym and MiniWoB++ pin their own Playwright / Selenium), imports this module from
its folder, and prints one JSON document on stdout. ``bench_peers.py`` reads it.

The plan (JSON on the driver's stdin) names the tasks: for each, a page URL template, a
JavaScript expression that finds the element to click, whether that click ends the
episode, and an optional element to click first (``prepare``, untimed). Per episode the
driver times: ``reset``, ``first_step`` (an observation-only step right after reset),
``screenshot`` (capture alone), element / coordinate clicks with the full observation
after them, and ``noop`` (the observation-only step again, at the end of the episode).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

# Per op, the sample lists the drivers return. ``first_step`` is an observation-only step
# right after reset (it shares the machine with whatever the library does in the
# background after a reset); ``noop`` is the same step later in the episode.
OPS = ("reset", "first_step", "noop", "screenshot", "click", "mouse_click")

# Marks the element a task's target expression finds and reports its centre (viewport
# CSS pixels). ``%s`` is the task's expression.
TARGET_JS = """() => {
  const el = (%s);
  if (!el) return null;
  el.scrollIntoView({block: 'nearest'});
  document.querySelectorAll('[data-bench-target]')
    .forEach((e) => e.removeAttribute('data-bench-target'));
  el.setAttribute('data-bench-target', '1');
  const r = el.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height,
          tag: el.tagName.toLowerCase(), bid: el.getAttribute('bid'),
          wob_ref: el.dataset.wob_ref === undefined ? null : Number(el.dataset.wob_ref)};
}"""


@dataclass
class TaskPlan:
    name: str
    url: str  # "{seed}" is replaced by the episode's seed
    target: str  # JS expression evaluating to the element to click
    ends_on_click: bool = False  # clicking the target ends the episode (one click per episode)
    prepare: str | None = None  # JS expression: an element to click before measuring
    clicks_per_episode: int = 2  # when the click does not end the episode
    native: str | None = None  # the library's own id for this task, if it has one


@dataclass
class Plan:
    tasks: list[TaskPlan]
    episodes: int = 6
    warmup_episodes: int = 1
    viewport: tuple[int, int] = (1280, 720)
    chromium: str = "/usr/bin/chromium"
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Plan:
        tasks = [TaskPlan(**t) for t in data.pop("tasks")]
        return cls(tasks=tasks, **{**data, "viewport": tuple(data.get("viewport", (1280, 720)))})


class Adapter(Protocol):
    """What a driver implements for its library. Each method does one thing and returns
    only once that library would hand the result to the agent."""

    name: str

    def open_task(self, task: TaskPlan) -> None: ...  # untimed: make the env, launch the browser
    def reset(self, task: TaskPlan, seed: int) -> None: ...
    def target(self, task: TaskPlan, expression: str) -> dict[str, Any]: ...  # untimed
    def click(
        self, task: TaskPlan, target: dict[str, Any], timed: bool = True
    ) -> None: ...  # element click + observation
    def mouse_click(
        self, task: TaskPlan, x: float, y: float
    ) -> None: ...  # coordinate click + observation
    def noop(self, task: TaskPlan) -> None: ...  # a step that only observes
    def screenshot(self, task: TaskPlan) -> None: ...  # the capture alone, None if not offered
    def close_task(self, task: TaskPlan) -> None: ...
    def close(self) -> None: ...


def timed(samples: list[float], fn: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = fn()
    samples.append((time.perf_counter() - started) * 1000)
    return result


def run_plan(adapter: Adapter, plan: Plan, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Run every task of the plan; samples per task and op, in milliseconds."""
    results: dict[str, Any] = {}
    for task in plan.tasks:
        samples: dict[str, list[float]] = {op: [] for op in OPS if op not in skip}
        error = None
        try:
            adapter.open_task(task)
            for episode in range(plan.warmup_episodes + plan.episodes):
                warm = episode < plan.warmup_episodes
                _episode(adapter, task, episode, {op: [] for op in samples} if warm else samples)
        except Exception as exc:  # one task failing (a peer that cannot load it) spares the others
            error = f"{type(exc).__name__}: {exc}"[:1500]
            log(f"[{adapter.name}] {task.name}: {error}")
        finally:
            try:
                adapter.close_task(task)
            except Exception as exc:
                log(f"[{adapter.name}] closing {task.name}: {exc}")
        results[task.name] = {op: [round(s, 2) for s in v] for op, v in samples.items()}
        if error:
            results[task.name]["error"] = error
    return results


def _episode(
    adapter: Adapter, task: TaskPlan, episode: int, samples: dict[str, list[float]]
) -> None:
    seed = 1000 + episode
    timed(samples["reset"], lambda: adapter.reset(task, seed))
    timed(samples["first_step"], lambda: adapter.noop(task))
    if task.prepare:
        adapter.click(task, adapter.target(task, task.prepare), timed=False)
    target = adapter.target(task, task.target)
    if "screenshot" in samples:
        timed(samples["screenshot"], lambda: adapter.screenshot(task))
    if task.ends_on_click:  # one click ends the episode: alternate the kinds across episodes
        kinds = ["click"] if episode % 2 == 0 else ["mouse_click"]
    else:
        kinds = ["click"] * task.clicks_per_episode + ["mouse_click"] * task.clicks_per_episode
    for kind in kinds:
        if kind == "click":
            timed(samples["click"], lambda target=target: adapter.click(task, target))
        else:
            x, y = target["x"], target["y"]
            timed(samples["mouse_click"], lambda x=x, y=y: adapter.mouse_click(task, x, y))
        if not task.ends_on_click:
            target = adapter.target(task, task.target)  # refs may change after a step
    timed(samples["noop"], lambda: adapter.noop(task))


# --- memory, from /proc ------------------------------------------------------------------
def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants (Playwright's driver, Chromium, chromedriver)."""
    children = _children_map()
    tree, stack = [], [root]
    while stack:
        pid = stack.pop()
        tree.append(pid)
        stack.extend(children.get(pid, ()))
    return tree


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


def pss_mb(pid: int) -> float:
    """Proportional set size: shared pages split between the processes sharing them."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def tree_memory(root: int) -> dict[str, float]:
    pids = process_tree(root)
    return {
        "rss_mb": round(sum(rss_mb(p) for p in pids), 1),
        "pss_mb": round(sum(pss_mb(p) for p in pids), 1),
        "processes": len(pids),
    }


class MemorySampler:
    """Peak RSS (and PSS) of a process tree, sampled from /proc in a background thread.

    RSS summed over processes counts pages they share (Chromium's code) once per process,
    so it is an upper bound; PSS splits shared pages and sums to the real footprint.
    PSS is read less often: its file makes the kernel walk every mapping.
    """

    def __init__(self, root: int | None = None, every_s: float = 0.2, pss_every: int = 5) -> None:
        self.root = root or os.getpid()
        self.every_s, self.pss_every = every_s, pss_every
        self.peak_rss_mb = self.peak_pss_mb = 0.0
        self.peak_processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-sampler", daemon=True)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self, with_pss: bool = True) -> None:
        pids = process_tree(self.root)
        self.peak_processes = max(self.peak_processes, len(pids))
        self.peak_rss_mb = max(self.peak_rss_mb, sum(rss_mb(p) for p in pids))
        if with_pss:
            self.peak_pss_mb = max(self.peak_pss_mb, sum(pss_mb(p) for p in pids))

    def _run(self) -> None:
        tick = 0
        while not self._stop.wait(self.every_s):
            self.sample(with_pss=tick % self.pss_every == 0)
            tick += 1

    def report(self) -> dict[str, float]:
        return {
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            "peak_pss_mb": round(self.peak_pss_mb, 1),
            "peak_processes": self.peak_processes,
        }


# --- the driver's main ---------------------------------------------------------------------
def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


def median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def driver_main(make_adapter: Callable[[Plan], Adapter]) -> None:
    """Read the plan from stdin, run it under the memory sampler, print one JSON line.

    Plan option ``skip``: ops not to time (text mode has no screenshot).
    """
    plan = Plan.from_json(json.load(sys.stdin))
    skip = frozenset(plan.options.get("skip", ()))
    started = time.perf_counter()
    output: dict[str, Any] = {"load_before": os.getloadavg()}
    with MemorySampler() as memory:
        try:
            adapter = make_adapter(plan)
        except Exception as exc:  # the library cannot even start here: say why
            output["error"] = f"{type(exc).__name__}: {exc}"[:2000]
            sys.stdout.write(json.dumps(output) + "\n")
            return
        try:
            output["tasks"] = run_plan(adapter, plan, skip)
        except Exception as exc:  # reported, not raised: the orchestrator goes on with the others
            output["error"] = f"{type(exc).__name__}: {exc}"[:2000]
        finally:
            adapter.close()
    extra = getattr(adapter, "extra", None)
    if extra is not None:
        output.update(extra())
    output.update(
        adapter=adapter.name,
        memory=memory.report(),
        wall_s=round(time.perf_counter() - started, 1),
        load_after=os.getloadavg(),
    )
    sys.stdout.write(json.dumps(output) + "\n")
    sys.stdout.flush()

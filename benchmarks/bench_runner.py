"""Where a run's wall time and disk go: the runner over a grid, with 1 and 2 workers.

The grid is the main job's runner over the given tasks and seeds (default: the oracle over
every built-in scenario, seeds 0-3, observation and screenshots as ``webharness run``
keeps them by default). Each configuration runs into a fresh run folder with a fresh,
empty golden-trace cache (a cold start), and a last run plays a second agent over the same
grid with the cache the 1-worker run left (warm: it should record no golden trace).

Per run it reports:
- wall time, and the sum of the episodes' own time (``duration_ms``);
- the 1-worker run's wall time broken down, timed in this process around the runner's
  own functions (so the same breakdown works on older commits, which have no
  ``phases_ms``): start-up (until the first episode begins: folder, agents, envs), the
  episodes (of which the writing of their traces), golden traces (finding or recording
  them), scoring, the report, and the rest;
- golden recordings made (counted from the same wrapping);
- disk: bytes on disk of the run folder and the cache, each file once (hard links are
  shared), per episode;
- env steps per second of wall time, and per busy core-second (the machine's CPU time over
  the run from /proc/stat, so run it on a quiet machine).

Run: python benchmarks/bench_runner.py [--tasks 'WebEval/*'] [--seeds 0-3] [--agent oracle]
        [--second-agent heuristic] [--workers 1 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import webharness  # noqa: F401  (registers the envs)
import webharness.runner.worker as worker_module
from webharness.reporting.records import EvalAttempt
from webharness.runner import RunConfig, RunFolder, parse_seeds, prepare_run, report_run, run_jobs
from webharness.trace import io as trace_io

CACHE_ENV = "WEBHARNESS_CACHE_DIR"  # read by runs that have a golden-trace cache


class Stopwatch:
    """Seconds spent inside wrapped functions, by name (the outermost call only)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.first_episode_at: float | None = None
        self._inside: set[str] = set()

    @contextmanager
    def wrapped(self, owner: Any, attribute: str, name: str) -> Iterator[None]:
        original = getattr(owner, attribute)

        def timed(*args: Any, **kwargs: Any) -> Any:
            if name in self._inside:
                return original(*args, **kwargs)
            self._inside.add(name)
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - started
                self.calls[name] += 1
                self._inside.discard(name)

        setattr(owner, attribute, timed)
        try:
            yield
        finally:
            setattr(owner, attribute, original)

    def mark_first_episode(self) -> Callable[..., Any]:
        original = worker_module.play_episode

        def marking(*args: Any, **kwargs: Any) -> Any:
            if self.first_episode_at is None:
                self.first_episode_at = time.perf_counter()
            return original(*args, **kwargs)

        return marking


def busy_core_seconds() -> float:
    """The machine's CPU time so far (all cores, not idle or waiting on I/O), in seconds."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def disk_bytes(*folders: Path) -> int:
    """Bytes on disk (allocated blocks) of the folders' files, each inode once."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for folder in folders:
        for path in folder.rglob("*") if folder.is_dir() else ():
            stat = path.lstat()
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_blocks * 512
    return total


def one_run(config: RunConfig, run_dir: Path, cache: Path, breakdown: bool) -> dict[str, Any]:
    os.environ[CACHE_ENV] = str(cache)  # the default cache of every run made now
    config = RunConfig(**{**config.model_dump(), **_cache_field(cache)})
    watch = Stopwatch()
    with wrapping(watch, breakdown):
        started_cpu, started = busy_core_seconds(), time.perf_counter()
        jobs = prepare_run(config, run_dir, resume=False)
        attempts: list[EvalAttempt] = run_jobs(jobs, config, run_dir)
        ran = time.perf_counter()
        report_run(RunFolder(run_dir))
        ended, ended_cpu = time.perf_counter(), busy_core_seconds()
    episodes_s = sum(a.duration_ms for a in attempts) / 1000
    steps = sum(a.steps for a in attempts)
    result: dict[str, Any] = {
        "workers": config.workers,
        "agent": config.agents[0],
        "episodes": len(attempts),
        "passed": sum(a.passed for a in attempts),
        "steps": steps,
        "wall_s": round(ended - started, 1),
        "run_s": round(ran - started, 1),
        "report_s": round(ended - ran, 1),
        "episodes_own_s": round(episodes_s, 1),
        "wall_over_episodes": round((ended - started) / episodes_s, 2),
        "steps_per_s": round(steps / (ended - started), 2),
        "steps_per_busy_core_s": round(steps / max(ended_cpu - started_cpu, 1e-9), 2),
        "disk_run_bytes": disk_bytes(run_dir),
        "disk_cache_bytes": disk_bytes(cache) if cache.exists() else 0,
        "disk_bytes_per_episode": round(disk_bytes(run_dir, cache) / max(len(attempts), 1)),
        "phases_s": _phases(attempts),
    }
    if breakdown:
        writing = watch.seconds["trace_writing"]
        golden = watch.seconds["golden"]
        startup = (watch.first_episode_at or started) - started
        accounted = startup + episodes_s + golden + watch.seconds["scoring"] + (ended - ran)
        result["breakdown_s"] = {
            "startup": round(startup, 1),
            "episodes": round(episodes_s, 1),
            "of_which_trace_writing": round(writing, 1),
            "golden": round(golden, 1),
            "scoring": round(watch.seconds["scoring"], 1),
            "report": round(ended - ran, 1),
            "rest": round((ended - started) - accounted, 1),
        }
        result["golden_recordings"] = watch.calls["golden_recording"]
    return result


@contextmanager
def wrapping(watch: Stopwatch, breakdown: bool) -> Iterator[None]:
    """Wrap the runner's functions (1 worker only: it runs in this process)."""
    with ExitStack() as stack:
        if breakdown:
            worker = worker_module.Worker
            stack.enter_context(watch.wrapped(worker, "_goldens", "golden"))
            stack.enter_context(watch.wrapped(worker_module, "golden_traces", "golden_recording"))
            stack.enter_context(watch.wrapped(worker_module, "score_trace", "scoring"))
            for method in ("add_step", "finish"):
                stack.enter_context(watch.wrapped(trace_io.TraceWriter, method, "trace_writing"))
            stack.enter_context(_patched(worker_module, "play_episode", watch.mark_first_episode()))
        yield


@contextmanager
def _patched(owner: Any, attribute: str, value: Any) -> Iterator[None]:
    original = getattr(owner, attribute)
    setattr(owner, attribute, value)
    try:
        yield
    finally:
        setattr(owner, attribute, original)


def _cache_field(cache: Path) -> dict[str, Any]:
    """The run's cache folder, on commits whose RunConfig has one."""
    return {"golden_cache": str(cache)} if "golden_cache" in RunConfig.model_fields else {}


def _phases(attempts: list[EvalAttempt]) -> dict[str, float]:
    """The workers' own timing of each job's phases, summed (commits that record them)."""
    sums: dict[str, float] = defaultdict(float)
    for attempt in attempts:
        for phase, ms in (getattr(attempt, "phases_ms", None) or {}).items():
            sums[phase] += ms / 1000
    return {k: round(v, 1) for k, v in sums.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", default="WebEval/*")
    parser.add_argument("--seeds", default="0-3")
    parser.add_argument("--agent", default="oracle")
    parser.add_argument("--second-agent", default="heuristic")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    base = RunConfig(agents=[args.agent], tasks=[args.tasks], seeds=parse_seeds(args.seeds))
    scratch = Path(tempfile.mkdtemp(prefix="bench-runner-"))
    load = os.getloadavg()
    results = []
    try:
        for workers in args.workers:
            config = base.model_copy(update={"workers": workers})
            run_dir, cache = scratch / f"run-{workers}", scratch / f"cache-{workers}"
            results.append(one_run(config, run_dir, cache, breakdown=workers == 1))
            print(json.dumps(results[-1]), file=sys.stderr)
        warm = base.model_copy(update={"agents": [args.second_agent], "workers": 1})
        cache = scratch / f"cache-{args.workers[0]}"
        results.append(one_run(warm, scratch / "run-warm", cache, breakdown=True))
        print(json.dumps(results[-1]), file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    one = next((r for r in results if r["workers"] == 1 and r["agent"] == args.agent), None)
    two = next((r for r in results if r["workers"] == 2), None)
    summary = {
        "grid": {"agent": args.agent, "tasks": args.tasks, "seeds": args.seeds},
        "load_at_start": load,
        "load_at_end": os.getloadavg(),
        "runs": results,
        "two_workers_speedup": round(one["wall_s"] / two["wall_s"], 2) if one and two else None,
    }
    text = json.dumps(summary, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

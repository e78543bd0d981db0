"""Episodes per minute of the oracle over the suite, with 1 and 2 worker processes.

Three ways of running episodes, in one run:
- the runner (``webharness.runner``: ``prepare_run`` + ``run_jobs``) over every
  ``WebEval/*`` task and the given seeds, ``obs_mode="text"``, no screenshots, with 1
  worker (in-process) and with 2 worker processes, each into a fresh temp folder. The
  golden traces the scorer needs are recorded once beforehand and copied into each run
  folder (``--cold`` leaves them out, so each worker records them as a new run does);
- ``gymnasium.make_vec("WebEval/form-v0", num_envs=2, vectorization_mode="async")``
  stepping the oracle's golden path in each sub-env (autoreset, next-step mode);
- the same single env stepped the same way, for reference.

Peak memory per worker: the worker process plus its descendants (Playwright's driver,
Chromium and its renderers), sampled from /proc: summed RSS (counts shared pages once per
process: an upper bound) and summed PSS (shared pages split: the real footprint).
Load averages are recorded with every figure: the machine is shared.

Run: python benchmarks/bench_throughput.py [--seeds 0 1 2 3] [--rounds 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "peers"))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from protocol import process_tree, pss_mb, rss_mb  # noqa: E402

import webharness  # noqa: E402,F401  (registers the envs)
from webharness.golden.oracle import OracleAgent  # noqa: E402
from webharness.runner import RunConfig, RunFolder, prepare_run, run_jobs  # noqa: E402

VEC_ENV = "WebEval/form-v0"


# --- memory per worker -----------------------------------------------------------------------
def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def worker_roots(in_process: bool) -> list[int]:
    """The processes that each hold one worker's env(s): ourselves, or our Python children."""
    me = os.getpid()
    if in_process:
        return [me]
    children = [p for p in process_tree(me) if p != me and _parent(p) == me]
    return [
        p
        for p in children
        if "python" in _cmdline(p).split(" ")[0] and "resource_tracker" not in _cmdline(p)
    ]


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().decode(errors="replace").rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


class WorkerMemory:
    """Peak RSS and PSS of each worker's process tree, sampled in a background thread."""

    def __init__(self, in_process: bool, every_s: float = 0.25, pss_every: int = 4) -> None:
        self.in_process, self.every_s, self.pss_every = in_process, every_s, pss_every
        self.peak_rss: dict[int, float] = {}
        self.peak_pss: dict[int, float] = {}
        self.peak_processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-memory", daemon=True)

    def __enter__(self) -> WorkerMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        tick = 0
        while not self._stop.wait(self.every_s):
            for root in worker_roots(self.in_process):
                pids = process_tree(root)
                self.peak_processes = max(self.peak_processes, len(pids))
                self.peak_rss[root] = max(
                    self.peak_rss.get(root, 0.0), sum(rss_mb(p) for p in pids)
                )
                if tick % self.pss_every == 0:
                    self.peak_pss[root] = max(
                        self.peak_pss.get(root, 0.0), sum(pss_mb(p) for p in pids)
                    )
            tick += 1

    def report(self) -> dict[str, Any]:
        return {
            "workers_seen": len(self.peak_rss),
            "peak_rss_mb_per_worker": round(max(self.peak_rss.values(), default=0.0), 1),
            "peak_pss_mb_per_worker": round(max(self.peak_pss.values(), default=0.0), 1),
            "peak_processes_per_worker": self.peak_processes,
        }


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# --- the runner --------------------------------------------------------------------------------
def config_for(seeds: list[int], workers: int) -> RunConfig:
    return RunConfig(
        agents=["oracle"],
        tasks=["WebEval/*"],
        seeds=seeds,
        obs_mode="text",
        screenshots=False,
        workers=workers,
    )


def record_goldens(seeds: list[int], into: Path) -> float:
    """Run the suite once (1 worker) so its golden traces exist; returns the seconds taken."""
    config = config_for(seeds, 1)
    started = time.perf_counter()
    run_jobs(prepare_run(config, into, resume=False), config, into)
    return time.perf_counter() - started


def runner_throughput(seeds: list[int], workers: int, goldens: Path | None) -> dict[str, Any]:
    config = config_for(seeds, workers)
    with tempfile.TemporaryDirectory(prefix=f"bench-throughput-{workers}w-") as tmp:
        run_dir = Path(tmp) / "run"
        run_dir.mkdir()
        if goldens is not None:
            shutil.copytree(RunFolder(goldens).golden_root, RunFolder(run_dir).golden_root)
        jobs = prepare_run(config, run_dir, resume=False)
        load_before = load()
        with WorkerMemory(in_process=workers == 1) as memory:
            started = time.perf_counter()
            attempts = run_jobs(jobs, config, run_dir)
            elapsed = time.perf_counter() - started
    passed = sum(a.passed for a in attempts)
    not_executable = sum(bool(getattr(a, "not_executable", False)) for a in attempts)
    return {
        "mode": f"runner, {workers} worker{'s' if workers > 1 else ''}",
        "workers": workers,
        "episodes": len(attempts),
        "passed": passed,
        "not_executable": not_executable,
        "seconds": round(elapsed, 1),
        "episodes_per_min": round(len(attempts) / elapsed * 60, 1),
        "median_episode_ms": round(statistics.median(a.duration_ms for a in attempts), 1)
        if attempts
        else None,
        "load_before": load_before,
        "load_after": load(),
        **memory.report(),
    }


# --- make_vec ----------------------------------------------------------------------------------
def _split(values: dict[str, Any], i: int) -> dict[str, Any]:
    return {k: v[i] for k, v in values.items() if not k.startswith("_")}


def short_error(exc: BaseException) -> str:
    """The error, without the few thousand characters of a Text space's charset."""
    message = str(exc)
    start, end = message.find("charset="), message.find(" has a dynamic shape")
    if start != -1 and end != -1:
        message = message[:start] + "charset=<...>)" + message[end:]
    return f"{type(exc).__name__}: {message}"[:600]


def make_vec(obs_mode: str, vector_kwargs: dict[str, Any] | None = None) -> gym.vector.VectorEnv:
    return gym.make_vec(
        VEC_ENV,
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs=vector_kwargs,
        obs_mode=obs_mode,
    )


def vec_throughput(episodes: int, obs_mode: str) -> dict[str, Any]:
    """The oracle's golden path in each sub-env of an async vector env, until ``episodes`` end.

    ``make_vec`` as a user first writes it (shared memory on, the default) is tried first;
    when that fails, the error is kept and the run goes on with ``shared_memory=False``.
    """
    load_before = load()
    result: dict[str, Any] = {
        "mode": f"make_vec async, 2 envs ({obs_mode})",
        "workers": 2,
        "load_before": load_before,
    }
    try:
        envs = make_vec(obs_mode)
        result["default_make_vec"] = "works"
    except Exception as exc:
        result["default_make_vec"] = short_error(exc)
        result["mode"] += ", shared_memory=False"
        try:
            envs = make_vec(obs_mode, {"shared_memory": False})
        except Exception as exc2:
            return {**result, "error": short_error(exc2)}
    agents = [OracleAgent(), OracleAgent()]
    done = passed = steps = 0
    try:
        with WorkerMemory(in_process=False) as memory:
            started = time.perf_counter()
            obs, infos = envs.reset(seed=[0, 1])
            for i, agent in enumerate(agents):
                agent.reset(_split(infos, i)["task"])
            ended = [False, False]
            while done < episodes:
                actions = []
                for i, agent in enumerate(agents):
                    info_i = _split(infos, i)
                    if ended[i]:  # this step autoresets the sub-env: its action is ignored
                        actions.append("noop()")
                    else:
                        actions.append(agent.act(_split(obs, i), info_i))
                was_ended = list(ended)
                obs, rewards, terminated, truncated, infos = envs.step(
                    np.array(actions, dtype=object)
                )
                steps += 1
                for i, agent in enumerate(agents):
                    if was_ended[i]:  # the sub-env was just reset: a new episode for its oracle
                        agent.reset(_split(infos, i)["task"])
                        ended[i] = False
                    elif terminated[i] or truncated[i]:
                        ended[i] = True
                        done += 1
                        passed += int(rewards[i] > 0)
            elapsed = time.perf_counter() - started
        result.update(memory.report())
    except Exception as exc:
        return {**result, "error": short_error(exc), "trace": traceback.format_exc()[-1500:]}
    finally:
        envs.close()
    return {
        **result,
        "episodes": done,
        "passed": passed,
        "vector_steps": steps,
        "seconds": round(elapsed, 1),
        "episodes_per_min": round(done / elapsed * 60, 1),
        "load_after": load(),
    }


def single_env_throughput(episodes: int, obs_mode: str) -> dict[str, Any]:
    """The same loop on one env in this process: the reference for make_vec."""
    load_before = load()
    env = gym.make(VEC_ENV, obs_mode=obs_mode)
    agent = OracleAgent()
    passed = 0
    try:
        env.reset(
            seed=99
        )  # launch the browser outside the timing, as the vector env's first reset is
        with WorkerMemory(in_process=True) as memory:
            started = time.perf_counter()
            for episode in range(episodes):
                obs, info = env.reset(seed=episode)
                agent.reset(info["task"])
                while True:
                    obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
                    if terminated or truncated:
                        passed += int(reward > 0)
                        break
            elapsed = time.perf_counter() - started
    finally:
        env.close()
    return {
        "mode": f"single env, 1 process ({obs_mode})",
        "workers": 1,
        "episodes": episodes,
        "passed": passed,
        "seconds": round(elapsed, 1),
        "episodes_per_min": round(episodes / elapsed * 60, 1),
        "load_before": load_before,
        "load_after": load(),
        **memory.report(),
    }


# --- main --------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="repeat the 1- and 2-worker runs (0: none, only make_vec)",
    )
    parser.add_argument("--vec-episodes", type=int, default=12)
    parser.add_argument("--cold", action="store_true", help="do not pre-record golden traces")
    parser.add_argument("--skip-vec", action="store_true")
    parser.add_argument(
        "--json", default=str(Path(__file__).resolve().parent / "peers" / "throughput.json")
    )
    args = parser.parse_args()
    if args.rounds < 0:
        parser.error(f"--rounds {args.rounds}: give 0 (make_vec only) or more")
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpus": os.cpu_count(),
        "load_start": load(),
        "seeds": args.seeds,
        "runs": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-throughput-goldens-") as goldens_tmp:
        goldens = None
        if not args.cold:
            goldens = Path(goldens_tmp) / "run"
            report["golden_recording_s"] = round(record_goldens(args.seeds, goldens), 1)
            print(
                f"goldens recorded in {report['golden_recording_s']} s (load {load()})",
                file=sys.stderr,
            )
        ratios = []
        for index in range(args.rounds):
            order = (1, 2) if index % 2 == 0 else (2, 1)
            figures = {}
            for workers in order:
                run = runner_throughput(args.seeds, workers, goldens)
                run["round"] = index + 1
                report["runs"].append(run)
                figures[workers] = run["episodes_per_min"]
                print(json.dumps(run), file=sys.stderr, flush=True)
            ratios.append(round(figures[2] / figures[1], 3))
    if ratios:
        report["ratio_2_vs_1_per_round"] = ratios
        report["ratio_2_vs_1_median"] = round(statistics.median(ratios), 3)
    if not args.skip_vec:
        for run in (
            vec_throughput(args.vec_episodes, "both"),
            single_env_throughput(args.vec_episodes, "both"),
        ):
            report["runs"].append(run)
            print(json.dumps(run), file=sys.stderr, flush=True)
    report["load_end"] = load()
    Path(args.json).write_text(json.dumps(report, indent=1))
    for run in report["runs"]:
        print(
            f"{run['mode']:36s} {run.get('episodes_per_min', '-'):>7} ep/min  "
            f"{run.get('peak_pss_mb_per_worker', '-'):>7} MB PSS/worker  "
            f"{run.get('peak_rss_mb_per_worker', '-'):>7} MB RSS  "
            f"load {run.get('load_before')} {run.get('error', '')}"
        )
    if ratios:
        print(f"2 vs 1 workers: {report['ratio_2_vs_1_median']} (per round {ratios})")


if __name__ == "__main__":
    main()

"""The evaluation runner: agents × tasks × seeds × perturbation stacks × trials.

Every finished episode is appended to ``results.jsonl`` at once, so an interrupted run
loses only the episodes in flight and ``resume=True`` skips what is done. Episodes run in
worker processes (one browser each) or as Ray tasks; see ``run_jobs``.
"""

from __future__ import annotations

import fnmatch
import json
import os
import platform
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
from pydantic import BaseModel, ConfigDict, Field

from webharness.browser.shared import keep_browser
from webharness.diagnosis.scoring import attempt_record, score_trace
from webharness.errors import AgentUnavailableError, WebHarnessError, did_you_mean
from webharness.golden.play import golden_traces, play_episode
from webharness.reporting.records import AttemptKey, EvalAttempt, append_attempt, read_attempts
from webharness.trace.io import TraceError, load_trace
from webharness.trace.models import EpisodeTrace
from webharness.trace.recorder import EpisodeRecorder

RESULTS = "results.jsonl"
MANIFEST = "manifest.json"


class RunError(WebHarnessError, RuntimeError):
    """A run that cannot start or go on (bad patterns, a run folder in use, ...)."""


class RunConfig(BaseModel):
    """What to evaluate; saved in the run's manifest."""

    model_config = ConfigDict(extra="forbid")

    agents: list[str] = Field(min_length=1)  # built-in names or module:Class
    tasks: list[str] = Field(default_factory=lambda: ["WebEval/*"])  # env ids or glob patterns
    seeds: list[int] = Field(default_factory=lambda: [0])
    perturbations: list[str] = Field(
        default_factory=lambda: [""]
    )  # "" = clean; "popup,latency@0.5"
    trials: int = Field(default=1, ge=1)
    workers: int = Field(default=1, ge=1)
    backend: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    obs_mode: str = "both"
    screenshots: bool = True  # PNGs in the traces (for the HTML timelines)
    agent_options: dict[str, Any] = Field(default_factory=dict)
    log_prompts: bool = False
    playwright_trace: bool = False  # Playwright's trace.zip in each agent episode's folder


class EpisodeJob(BaseModel):
    """One episode to run, self-contained so it can cross a process or a cluster."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    env_id: str
    seed: int
    trial: int = 0
    perturbations: str = ""
    obs_mode: str = "both"
    screenshots: bool = True
    playwright_trace: bool = False
    agent_options: dict[str, Any] = Field(default_factory=dict)
    run_dir: str

    def key(self) -> AttemptKey:
        return (self.agent, self.env_id, self.seed, self.trial, self.perturbations)

    @property
    def trace_dir(self) -> str:
        stack = self.perturbations.replace(",", "+").replace("@", "-") or "clean"
        name = self.env_id.removeprefix("WebEval/")
        return f"episodes/{_safe(self.agent)}/{name}/{stack}/seed-{self.seed}-t{self.trial}"


def expand_jobs(config: RunConfig, run_dir: Path) -> list[EpisodeJob]:
    """Every episode of the run, grouped so a worker keeps reusing the same env."""
    env_ids = match_tasks(config.tasks)
    jobs = [
        EpisodeJob(
            agent=agent,
            env_id=env_id,
            seed=seed,
            trial=trial,
            perturbations=stack,
            obs_mode=config.obs_mode,
            screenshots=config.screenshots,
            playwright_trace=config.playwright_trace,
            agent_options={
                **config.agent_options,
                **({"log_prompts": True} if config.log_prompts else {}),
            },
            run_dir=str(run_dir),
        )
        for agent in config.agents
        for env_id in env_ids
        for stack in config.perturbations
        for seed in config.seeds
        for trial in range(config.trials)
    ]
    return jobs


def match_tasks(patterns: list[str]) -> list[str]:
    """Registered env ids matching the patterns (``WebEval/*``, ``form``, ``WebEval/form-v0``)."""
    import webharness  # noqa: F401  (registers the built-in ids)
    from webharness.envs import registered_ids

    known = registered_ids()
    matched: list[str] = []
    for pattern in patterns:
        full = pattern if "/" in pattern else f"WebEval/{pattern}"
        hits = [i for i in known if fnmatch.fnmatch(i, full) or fnmatch.fnmatch(i, f"{full}-v0")]
        if not hits:
            raise RunError(
                f"no task matches {pattern!r}.{did_you_mean(full, known)} Known: {', '.join(known)}"
            )
        matched.extend(h for h in hits if h not in matched)
    return matched


# --- one episode, inside a worker ---------------------------------------------------------
class _WorkerEnvs:
    """The envs a worker keeps open between jobs: at most two, all of the task it is on
    (its agent env and the clean one for golden traces). Each holds a page and a ready
    next one, so another task's env is closed as soon as the worker moves on, and that
    task's golden traces (full page states, step by step) are let go with it."""

    def __init__(self, capacity: int = 2) -> None:
        self.capacity = capacity
        self.envs: dict[tuple[str, str, str], gym.Env] = {}
        self.goldens: dict[tuple[str, int], list[EpisodeTrace]] = {}
        # The browser outlives the envs, which come and go with the tasks.
        self._browser = ExitStack()
        self._browser.enter_context(keep_browser())

    def get(self, env_id: str, obs_mode: str, perturbations: str) -> gym.Env:
        key = (env_id, obs_mode, perturbations)
        if key in self.envs:
            self.envs[key] = self.envs.pop(key)  # most recently used last
            return self.envs[key]
        for other in [k for k in self.envs if k[0] != env_id]:
            self.envs.pop(other).close()
        self.goldens = {k: traces for k, traces in self.goldens.items() if k[0] == env_id}
        while len(self.envs) >= self.capacity:
            oldest = next(iter(self.envs))
            self.envs.pop(oldest).close()
        env = gym.make(env_id, obs_mode=obs_mode, render_mode="rgb_array")
        if perturbations:
            env = apply_perturbations(env, perturbations)
        self.envs[key] = env
        return env

    def close(self) -> None:
        for env in self.envs.values():
            env.close()
        self.envs.clear()
        self._browser.close()


def apply_perturbations(env: gym.Env, stack: str) -> gym.Env:
    """Wrap ``env`` in a perturbation stack written ``"popup,latency@0.5"`` (strength 0.5 default)."""
    from webharness.wrappers import perturb

    names, _, strength = stack.partition("@")
    return perturb(env, names, strength=float(strength) if strength else 0.5)


_WORKER: _WorkerEnvs | None = None


def run_job(job: EpisodeJob) -> EvalAttempt:
    """Play one episode, record its trace, score it against the golden traces."""
    global _WORKER
    _WORKER = _WORKER or _WorkerEnvs()
    from webharness.agents import load_agent

    run_dir = Path(job.run_dir)
    agent = load_agent(job.agent, **_options_for(job.agent, job.agent_options))
    env = _WORKER.get(job.env_id, job.obs_mode, job.perturbations)
    started = time.perf_counter()
    recorder = EpisodeRecorder(
        run_dir / job.trace_dir, agent=job.agent, playwright_trace=job.playwright_trace
    )
    try:
        trace = play_episode(env, agent, job.seed, recorder, screenshots=job.screenshots)
    except AgentUnavailableError:
        raise  # the run cannot go on without its model: stop, and count nothing
    except TraceError as exc:  # a short write: the disk is full (not the episode's fault)
        raise _storage_error(
            f"writing the trace of {job.env_id} seed {job.seed} to {run_dir / job.trace_dir}", exc
        ) from exc
    except WebHarnessError as exc:
        return _harness_fault(job, exc, started)
    except OSError as exc:  # the trace could not be written: disk full, read-only folder
        raise _storage_error(
            f"writing the trace of {job.env_id} seed {job.seed} to {run_dir / job.trace_dir}", exc
        ) from exc
    finally:
        if recorder.writer is not None:
            recorder.writer.close()  # an episode cut short leaves no open file behind
    duration_ms = (time.perf_counter() - started) * 1000
    try:
        _save_transcript(agent, run_dir / job.trace_dir)
        goldens = _goldens(job, run_dir)
    except OSError as exc:
        raise _storage_error(
            f"writing the golden traces or transcript of {job.env_id} seed {job.seed}", exc
        ) from exc
    usage = getattr(agent, "usage", None)
    return attempt_record(
        trace,
        score_trace(trace, goldens),
        runner=job.agent,
        model=getattr(agent, "model", None),
        trial=job.trial,
        perturbations=job.perturbations,
        duration_ms=duration_ms,
        prompt_tokens=getattr(usage, "prompt_tokens", 0),
        completion_tokens=getattr(usage, "completion_tokens", 0),
        trace_dir=job.trace_dir,
    )


def _options_for(agent: str, options: dict[str, Any]) -> dict[str, Any]:
    """The run's agent options this agent takes (``log_prompts`` means nothing to the oracle)."""
    from webharness.agents import accepted_options

    accepted = accepted_options(agent)
    return (
        dict(options) if accepted is None else {k: v for k, v in options.items() if k in accepted}
    )


def _save_transcript(agent: Any, trace_dir: Path) -> None:
    """Prompts and replies, kept only when the agent was asked to log them (--log-prompts)."""
    transcript = getattr(agent, "transcript", None)
    if transcript:
        tmp = trace_dir / "transcript.json.tmp"
        tmp.write_text(json.dumps(transcript, indent=1, default=str), encoding="utf-8")
        os.replace(tmp, trace_dir / "transcript.json")


def _storage_error(doing: str, exc: OSError | TraceError) -> RunError:
    """A run that cannot write its outputs stops, saying so; what it finished is kept."""
    cause = getattr(exc, "strerror", None) or exc
    return RunError(
        f"stopped: {doing} failed ({cause}). Every finished episode is kept in "
        f"{RESULTS}; fix the disk (space, permissions) and run again with --resume to do the rest."
    )


def _harness_fault(job: EpisodeJob, exc: Exception, started: float) -> EvalAttempt:
    import webharness

    return EvalAttempt(
        scenario_id=job.env_id,
        category=webharness.get_task(job.env_id).category,
        runner=job.agent,
        seed=job.seed,
        trial=job.trial,
        perturbations=job.perturbations,
        passed=False,
        not_executable=True,
        failure_code="runtime_error",
        root_cause="environment",
        error=f"{type(exc).__name__}: {exc}"[:500],
        duration_ms=round((time.perf_counter() - started) * 1000, 1),
        trace_dir=job.trace_dir,
    )


def _goldens(job: EpisodeJob, run_dir: Path) -> list[EpisodeTrace]:
    """The task's golden traces for this seed: from memory, from the run folder, or recorded now."""
    assert _WORKER is not None
    key = (job.env_id, job.seed)
    if key not in _WORKER.goldens:
        _WORKER.goldens[key] = _load_or_record_goldens(
            job, run_dir / golden_dir(job.env_id, job.seed)
        )
    return _WORKER.goldens[key]


def golden_dir(env_id: str, seed: int) -> str:
    return f"golden/{env_id.removeprefix('WebEval/')}/seed-{seed}"


def _load_or_record_goldens(job: EpisodeJob, folder: Path) -> list[EpisodeTrace]:
    if folder.is_dir():
        try:
            return load_golden_folder(folder)
        except TraceError:
            shutil.rmtree(folder, ignore_errors=True)  # half-made by a killed run: record again
    # Workers may record the same goldens at once: each writes its own folder and the
    # first rename wins; the others' copies are dropped.
    scratch = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    assert _WORKER is not None
    golden_traces(
        _WORKER.get(job.env_id, "both", ""), job.seed, scratch, screenshots=job.screenshots
    )
    try:
        os.rename(scratch, folder)
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)
    return load_golden_folder(folder)


def load_golden_folder(folder: Path) -> list[EpisodeTrace]:
    """The golden traces saved in a run folder for one task and seed, one per path."""
    return [load_trace(p) for p in sorted(folder.iterdir()) if p.is_dir()]


def close_worker() -> None:
    global _WORKER
    if _WORKER is not None:
        _WORKER.close()
        _WORKER = None


# --- the run ------------------------------------------------------------------------------
def prepare_run(config: RunConfig, run_dir: Path, resume: bool) -> list[EpisodeJob]:
    """Check the run folder, write the manifest, and list the jobs still to do."""
    results = run_dir / RESULTS
    if results.exists() and not resume:
        raise RunError(
            f"{run_dir} already holds results ({RESULTS}); pass --resume to continue that run "
            f"or choose another --out folder"
        )
    jobs = expand_jobs(config, run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        _drop_torn_line(results)
        _write_manifest(run_dir, config, len(jobs))
    except OSError as exc:
        raise _storage_error(f"preparing the run folder {run_dir}", exc) from exc
    done = {a.key() for a in read_attempts(results)}
    return [j for j in jobs if j.key() not in done]


def _drop_torn_line(results: Path) -> None:
    """Cut a last line a killed run left half-written, so the next append starts clean."""
    if not results.is_file():
        return
    with results.open("rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def run_jobs(
    jobs: list[EpisodeJob],
    config: RunConfig,
    run_dir: Path,
    on_result: Callable[[EvalAttempt], None] | None = None,
) -> list[EvalAttempt]:
    """Run the jobs on the configured backend, appending each result as it arrives."""
    results_path = run_dir / RESULTS
    finished: list[EvalAttempt] = []
    for attempt in _backend_results(jobs, config):
        try:
            append_attempt(results_path, attempt)
        except OSError as exc:
            raise _storage_error(f"appending to {results_path}", exc) from exc
        finished.append(attempt)
        if on_result is not None:
            on_result(attempt)
    return finished


def _backend_results(jobs: list[EpisodeJob], config: RunConfig) -> Iterator[EvalAttempt]:
    if not jobs:
        return iter(())
    if config.backend == "ray":
        from webharness.runner.ray_backend import ray_results

        return ray_results(jobs, config.ray_address, config.workers)
    if config.workers == 1:
        return _in_process(jobs)
    return _process_pool(jobs, config.workers)


def _in_process(jobs: list[EpisodeJob]) -> Iterator[EvalAttempt]:
    try:
        for job in jobs:
            yield run_job(job)
    finally:
        close_worker()


def _process_pool(jobs: list[EpisodeJob], workers: int) -> Iterator[EvalAttempt]:
    """Run the jobs in worker processes, a chunk of one env's jobs at a time.

    A worker plays a whole chunk, so it keeps one env (and its ready page) for it, and the
    workers play different tasks at once: one waiting on a slow page while another works
    uses the two cores better than both waiting on the same task (+15% episodes/min here).
    Each episode's result is sent back as soon as it ends, through ``finished``.
    """
    import concurrent.futures
    import multiprocessing
    import queue

    # spawn, not fork: a forked child would inherit a parent's browser thread mid-flight.
    context = multiprocessing.get_context("spawn")
    finished = context.Queue()
    with concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(finished,)
    ) as pool:
        futures = [pool.submit(_run_chunk, chunk) for chunk in job_chunks(jobs, workers)]
        received = 0
        try:
            while received < len(jobs):
                failure = _chunk_failure(futures)
                if failure is not None or all(f.done() for f in futures):
                    for attempt in _in_transit(finished):  # what the workers sent is kept
                        received += 1
                        yield attempt
                    if failure is not None:
                        raise failure
                    if received < len(jobs):
                        raise RunError(
                            f"stopped: the workers ended with {len(jobs) - received} of {len(jobs)} "
                            f"results not sent back; every result received is in {RESULTS}. "
                            f"Run again with --resume to do the rest."
                        )
                    return
                try:
                    attempt = finished.get(timeout=0.25)
                except queue.Empty:
                    continue
                received += 1
                yield attempt
        finally:
            for future in futures:
                future.cancel()


def job_chunks(jobs: list[EpisodeJob], workers: int) -> list[list[EpisodeJob]]:
    """The jobs split by env (task, observation mode, perturbation stack), in chunks of at
    most a share of the run so every worker gets work; largest chunks first."""
    by_env: dict[tuple[str, str, str], list[EpisodeJob]] = {}
    for job in jobs:
        by_env.setdefault((job.env_id, job.obs_mode, job.perturbations), []).append(job)
    size = max(1, -(-len(jobs) // (2 * workers)))  # ceil: two chunks per worker at least
    chunks = [group[i : i + size] for group in by_env.values() for i in range(0, len(group), size)]
    return sorted(chunks, key=len, reverse=True)  # stable: the run's order among equals


def _chunk_failure(futures: list[Any]) -> BaseException | None:
    """What stopped a chunk, if one stopped: a storage error, a missing model, a dead worker."""
    import concurrent.futures

    for future in futures:
        if not future.done() or future.cancelled():
            continue
        error = future.exception()
        if isinstance(error, concurrent.futures.process.BrokenProcessPool):
            return RunError(
                f"stopped: a worker process died ({error}); its episode and the ones not yet "
                f"run are not in {RESULTS}, every finished one is. Run again with --resume "
                f"to do the rest."
            )
        if error is not None:
            return error
    return None


def _in_transit(finished: Any) -> Iterator[EvalAttempt]:
    """The results already on their way: a worker's queue writes lag its chunk's end."""
    import queue

    deadline = time.monotonic() + _IN_TRANSIT_S
    while (left := deadline - time.monotonic()) > 0:
        try:
            yield finished.get(timeout=min(left, 0.25))
        except queue.Empty:
            return


_IN_TRANSIT_S = 5.0
_FINISHED: Any = None  # the queue a worker process sends its results on


def _start_worker(finished: Any) -> None:
    global _FINISHED
    _FINISHED = finished
    _worker_dies_with_parent()


def _run_chunk(chunk: list[EpisodeJob]) -> int:
    for job in chunk:
        _FINISHED.put(run_job(job))
    return len(chunk)


def _worker_dies_with_parent() -> None:
    """A worker outlives a killed run otherwise (orphaned, still playing its episode).

    Linux sends the worker SIGTERM when its parent dies; the handler closes the worker's
    browser and leaves at once (a SystemExit would be caught by the pool's worker loop
    and sent back as the job's result).
    """
    import ctypes
    import signal

    def leave(*_: Any) -> None:
        close_worker()
        os._exit(1)

    signal.signal(signal.SIGTERM, leave)
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass  # not Linux: workers end when they next read from the closed queue
    if os.getppid() == 1:  # the parent died before the line above took effect
        os._exit(1)


def _write_manifest(run_dir: Path, config: RunConfig, total: int) -> None:
    import playwright

    import webharness

    manifest = {
        "config": config.model_dump(),
        "episodes": total,
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": {
            "webharness": webharness.__version__,
            "python": platform.python_version(),
            "gymnasium": gym.__version__,
            "playwright": getattr(playwright, "__version__", "unknown"),
        },
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
    }
    history = run_dir / MANIFEST
    previous = json.loads(history.read_text()) if history.exists() else None
    if previous is not None:
        manifest["resumed_from"] = previous.get("started_at")
    tmp = history.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, default=str))
    os.replace(tmp, history)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)

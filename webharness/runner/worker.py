"""A worker: the envs and golden traces it keeps between jobs, and playing one job.

A worker process holds exactly one ``Worker``, made by ``start_worker`` when the process
starts (the local pool's initializer; a Ray worker process's first job) and closed by
``stop_worker``. The in-process path makes its own: ``with Worker() as worker:``.
"""

from __future__ import annotations

import functools
import importlib
import json
import logging
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

import gymnasium as gym

from webharness.browser.shared import keep_browser
from webharness.diagnosis.scoring import score_trace
from webharness.errors import AgentUnavailableError, RunError, WebHarnessError
from webharness.golden.cache import GoldenCache, golden_key, link_tree
from webharness.golden.play import golden_traces, play_episode, sound_entry, warn_if_spoiled
from webharness.reporting.records import EvalAttempt
from webharness.runner.attempts import harness_fault, played_attempt, telling_steps
from webharness.runner.jobs import EpisodeJob
from webharness.runner.run_folder import RunFolder
from webharness.trace.frames import FrameCodec
from webharness.trace.io import keep_frames_of
from webharness.trace.models import EpisodeTrace
from webharness.trace.recorder import EpisodeRecorder

EnvKey = tuple[str, str, str, bool]  # env id, observation mode, perturbation stack, cdp
_log = logging.getLogger("webharness.runner.worker")


class Worker:
    """Plays jobs one after another, keeping the envs of the task it is on.

    It keeps at most ``capacity`` envs open, all of one task (the agent's and the clean
    one for golden traces): each holds a page and a ready next one, so another task's
    envs are closed as soon as the worker moves on, and that task's golden traces (full
    page states, step by step) are let go with them. The process's Chromium is kept
    across the switch.

    Example:
        >>> job = EpisodeJob(agent="oracle", env_id="WebEval/form-v0", seed=0, run_dir="runs/x")
        >>> with Worker() as worker:  # doctest: +SKIP
        ...     attempt = worker.run(job)
    """

    def __init__(self, capacity: int = 2) -> None:
        self.capacity = capacity
        self.envs: dict[EnvKey, gym.Env] = {}  # least recently used first
        self.goldens: dict[tuple[str, int], list[EpisodeTrace]] = {}  # by env id and seed
        self._caches: dict[str, GoldenCache | None] = {}  # by folder; None: it failed here
        # The browser outlives the envs, which come and go with the tasks.
        self._browser = ExitStack()
        self._browser.enter_context(keep_browser())

    def env(self, env_id: str, obs_mode: str, perturbations: str, cdp: bool = False) -> gym.Env:
        """An env for this task, observation mode and perturbation stack, kept or made;
        with ``cdp``, one that serves its browser to an agent driving it itself.

        Moving to another task closes the previous task's envs and drops its golden traces.
        """
        key = (env_id, obs_mode, perturbations, cdp)
        if key in self.envs:
            self.envs[key] = self.envs.pop(key)  # most recently used last
            return self.envs[key]
        for other in [k for k in self.envs if k[0] != env_id]:
            self.envs.pop(other).close()
        self.goldens = {k: traces for k, traces in self.goldens.items() if k[0] == env_id}
        while len(self.envs) >= self.capacity:
            self.envs.pop(next(iter(self.envs))).close()
        served = {"cdp": True} if cdp else {}  # only envs that serve CDP take the option
        env = gym.make(env_id, obs_mode=obs_mode, render_mode="rgb_array", **served)
        if perturbations:
            env = apply_perturbations(env, perturbations)
        self.envs[key] = env
        return env

    def run(self, job: EpisodeJob) -> EvalAttempt:
        """Play one episode, record its trace, score it against the task's golden traces.

        An error of the harness (the browser, the page) is recorded as a not-executable
        attempt; the run goes on.

        Raises:
            AgentUnavailableError: the agent's model cannot be reached; the run stops.
            RunError: the trace or the golden traces cannot be written; the run stops.
        """
        folder = RunFolder(job.run_dir)
        trace_dir = folder.trace_dir(job)
        episode = folder.episode_dir(trace_dir)
        agent = _make_agent(job.agent, job.agent_options)
        _register_task(job)
        _register_perturbations(job)
        cdp = getattr(agent, "needs_cdp", False)
        env = self.env(job.env_id, job.obs_mode, job.perturbations, cdp)
        started = time.perf_counter()
        try:
            trace, writing_ms = _play(env, agent, job, folder, episode)
        except (AgentUnavailableError, RunError):
            raise  # no model, or no disk: the run cannot go on, and counts nothing of this
        except WebHarnessError as exc:  # the browser, the page: not the agent's fault
            return harness_fault(job, trace_dir, exc, started)
        phases = {"episode": _ms_since(started), "trace_writing": writing_ms}
        with folder.writing(f"writing the golden traces or transcript of {_of(job)}"):
            _save_transcript(agent, episode)
            with _timed(phases, "golden"):
                goldens = self._goldens(job, folder, env)
        spec = env.unwrapped.task_spec  # type: ignore[attr-defined]
        with _timed(phases, "scoring"):
            score = score_trace(trace, goldens, spec=spec)
        attempt = played_attempt(job, agent, trace, score, trace_dir, phases)
        if job.keep_frames == "around_failure":
            with folder.writing(f"dropping frames from {episode}"):
                keep_frames_of(episode, telling_steps(attempt))
        return attempt

    def _goldens(self, job: EpisodeJob, folder: RunFolder, env: gym.Env) -> list[EpisodeTrace]:
        """The task's golden traces for this seed: kept, saved in the run, or recorded now
        (``env`` is the job's, for the cache's key)."""
        key = (job.env_id, job.seed)
        if key not in self.goldens:
            record = functools.partial(self._record_goldens, job, env)
            self.goldens[key] = folder.goldens(job.env_id, job.seed, record)
        return self.goldens[key]

    def _record_goldens(self, job: EpisodeJob, env: gym.Env, into: Path) -> None:
        """Put the golden traces into ``into``: linked from the cache's entry (recorded into
        the cache first when it has none), or recorded there when the cache cannot serve or
        the recording failed (it is not cached, and this run records it again)."""

        def record(folder: Path) -> list[EpisodeTrace]:
            clean = self.env(job.env_id, "both", "")  # made only when recording
            return golden_traces(clean, job.seed, folder, screenshots=job.screenshots)

        cache = self._cache(job.golden_cache)
        unwrapped: Any = env.unwrapped
        key = golden_key(
            unwrapped.task_spec, job.seed, screenshots=job.screenshots, viewport=unwrapped.viewport
        )
        if cache is not None and key is not None:
            try:
                entry = sound_entry(cache, key, record, _log)
                if entry is not None:
                    link_tree(entry, into)
                    return
            except OSError as exc:  # read-only, full: go on without the cache
                shutil.rmtree(into, ignore_errors=True)  # what was linked before it failed
                into.mkdir(parents=True)
                self._caches[str(cache.root)] = None
                _log.warning(
                    "webharness: the golden-trace cache %s cannot be used (%s); this worker "
                    "records golden traces in the run folder instead (--no-golden-cache "
                    "stops using it, --golden-cache DIR names another folder)",
                    cache.root,
                    exc,
                )
        warn_if_spoiled(record(into), _log)

    def _cache(self, folder: str | None) -> GoldenCache | None:
        """The golden-trace cache in ``folder``; None when off, or when it failed here."""
        if folder is None:
            return None
        if folder not in self._caches:
            self._caches[folder] = GoldenCache(folder)
        return self._caches[folder]

    def close(self) -> None:
        """Close the envs, and the browser unless something else keeps it."""
        for env in self.envs.values():
            env.close()
        self.envs.clear()
        self._browser.close()

    def __enter__(self) -> Worker:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# --- the one Worker of a worker process ---------------------------------------------------
_PROCESS_WORKER: Worker | None = None  # set by start_worker, cleared by stop_worker only


def start_worker() -> Worker:
    """Make this worker process's one ``Worker``, when the process starts.

    Raises:
        RunError: the process has one already.
    """
    global _PROCESS_WORKER
    if _PROCESS_WORKER is not None:
        raise RunError(f"process {os.getpid()} has a Worker already; call stop_worker() first")
    _PROCESS_WORKER = Worker()
    return _PROCESS_WORKER


def current_worker() -> Worker | None:
    """This process's ``Worker``, or None when ``start_worker`` was not called."""
    return _PROCESS_WORKER


def stop_worker() -> None:
    """Close this process's ``Worker``, if it has one."""
    global _PROCESS_WORKER
    worker, _PROCESS_WORKER = _PROCESS_WORKER, None
    if worker is not None:
        worker.close()


def run_job(job: EpisodeJob) -> EvalAttempt:
    """Play one job on this process's ``Worker`` (see ``Worker.run``).

    Raises:
        RunError: the process has no Worker: call ``start_worker()`` first, or play the
            job with ``with Worker() as worker: worker.run(job)``.
    """
    worker = current_worker()
    if worker is None:
        raise RunError(
            "run_job plays on the process's Worker, and none was started: call "
            "start_worker() first, or use `with Worker() as worker: worker.run(job)`"
        )
    return worker.run(job)


def apply_perturbations(env: gym.Env, stack: str) -> gym.Env:
    """Wrap ``env`` in a perturbation stack, written ``"popup,latency@0.5"``.

    The strength after ``@`` applies to every perturbation of the stack; 0.5 when omitted.
    """
    from webharness.wrappers import perturb

    names, _, strength = stack.partition("@")
    return perturb(env, names, strength=float(strength) if strength else 0.5)


def _register_task(job: EpisodeJob) -> None:
    """Register the folder of the job's task in this process (a spawned worker, a Ray
    worker) unless it is known here already: a built-in, a pack, or registered before."""
    from webharness.envs.registration import register_folder
    from webharness.spec.catalogue import task_folder

    if job.task_folder is not None and task_folder(job.env_id) is None:
        register_folder(job.task_folder)


def _register_perturbations(job: EpisodeJob) -> None:
    """Import the modules that register the job's perturbations from outside webharness, in
    this process (a spawned worker, a Ray worker); where they are imported, nothing."""
    for module in job.perturbation_modules:
        importlib.import_module(module)


def _make_agent(label: str, run_options: dict[str, Any]) -> Any:
    """The agent of a job: its spec's options (``llm[model=a]``) over the run's options
    that it takes (``log_prompts`` means nothing to the oracle)."""
    from webharness.agents import load_agent
    from webharness.runner.agent_specs import made_with

    name, options = made_with(label, run_options)
    return load_agent(name, **options)


def _play(
    env: gym.Env, agent: Any, job: EpisodeJob, folder: RunFolder, episode: Path
) -> tuple[EpisodeTrace, float]:
    """Play the job's episode, its trace written into ``episode`` as it goes; returns the
    trace and how long the episode waited on the writer (ms)."""
    recorder = EpisodeRecorder(
        episode,
        agent=job.agent,
        playwright_trace=job.playwright_trace,
        frames=FrameCodec.parse(job.frames),
    )
    try:
        with folder.writing(f"writing the trace of {_of(job)} to {episode}"):
            if getattr(agent, "plays_itself", False):  # an external agent: its own process
                trace = agent.play(env, job.seed, recorder, episode, screenshots=job.screenshots)
            else:
                trace = play_episode(env, agent, job.seed, recorder, screenshots=job.screenshots)
    finally:
        if recorder.writer is not None:
            recorder.writer.close()  # an episode cut short leaves no open file behind
    return trace, recorder.writing_ms


@contextmanager
def _timed(phases: dict[str, float], phase: str) -> Iterator[None]:
    """Time the block as ``phases[phase]`` (ms)."""
    started = time.perf_counter()
    yield
    phases[phase] = _ms_since(started)


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _of(job: EpisodeJob) -> str:
    return f"{job.env_id} seed {job.seed}"


def _save_transcript(agent: Any, trace_dir: Path) -> None:
    """Prompts and replies, kept only when the agent was asked to log them (--log-prompts)."""
    transcript = getattr(agent, "transcript", None)
    if transcript:
        tmp = trace_dir / "transcript.json.tmp"
        tmp.write_text(json.dumps(transcript, indent=1, default=str), encoding="utf-8")
        os.replace(tmp, trace_dir / "transcript.json")

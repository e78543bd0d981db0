"""Playing an agent through one episode, and recording the golden traces of a task."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import gymnasium as gym
from pydantic import Field

from webharness.golden.cache import GoldenCache
from webharness.golden.oracle import OracleAgent, golden_paths
from webharness.spec.task_spec import TaskSpec
from webharness.trace.frames import GOLDEN_FRAMES
from webharness.trace.io import pack_steps
from webharness.trace.models import EndedBy, EpisodeTrace, TaskInstance
from webharness.trace.recorder import (
    EpisodeRecorder,
    episode_end,
)


class PlayingAgent(Protocol):
    def reset(self, instance: TaskInstance) -> None: ...

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> Any: ...


def play_episode(
    env: gym.Env,
    agent: PlayingAgent,
    seed: int | None,
    recorder: EpisodeRecorder | None = None,
    screenshots: bool = True,
) -> EpisodeTrace:
    """Reset, let the agent act until the episode ends, and return (and record) the trace."""
    recorder = recorder or EpisodeRecorder(None, agent=agent_name(agent))
    obs, info = env.reset(seed=seed)
    reset_agent(agent, info["task"], episode_spec(env))
    recorder.start(info["task"], env)
    try:
        recorder.add_step(0, env, obs, info, screenshots=screenshots)
        index = 0
        while True:
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            index += 1
            recorder.add_step(index, env, obs, info, float(reward), screenshots)
            if terminated or truncated:
                return recorder.finish(episode_end(info, terminated, truncated))
    finally:
        recorder.close()  # an episode cut short by an error keeps its Playwright trace


def agent_name(agent: object) -> str:
    """The name an agent's traces are recorded under: its ``name``, else its class's."""
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) and name else type(agent).__name__


def episode_spec(env: gym.Env) -> TaskSpec | None:
    """The spec the env's episode plays (``WebEvalEnv.played_spec``: bound to the task's
    own app instance), else its task's; None for an env without one."""
    unwrapped = env.unwrapped
    spec: TaskSpec | None = getattr(unwrapped, "played_spec", None)
    return spec if spec is not None else getattr(unwrapped, "task_spec", None)


def reset_agent(agent: PlayingAgent, instance: TaskInstance, spec: TaskSpec | None) -> None:
    """Start the agent's episode. An agent that plays from the task's spec (the oracle, from
    its golden paths) says so with ``reads_spec = True`` and is given the env's own spec, so
    a spec passed to ``WebEvalEnv`` or registered from a folder is never looked up by name.
    """
    if spec is not None and getattr(agent, "reads_spec", False):
        agent.reset(instance, spec)  # type: ignore[call-arg]
    else:
        agent.reset(instance)


def golden_traces(
    env: gym.Env, seed: int | None, folder: Path | None = None, screenshots: bool = True
) -> list[EpisodeTrace]:
    """Run the oracle over every golden path of the env's task for this seed.

    ``env`` should be unperturbed: golden traces describe the task, not the noise. Their
    screenshots are kept as previews (``trace.frames.GOLDEN_FRAMES``): only the report's
    timelines show them. In ``folder``, each trace's steps are packed (``pack_steps``).

    The traces come in the order of their path ids, the order in which a folder of them is
    read back (``trace.io.load_traces_in``): wherever a task's golden traces come from (a
    run folder, the cache, memory), ``align`` is given them in one order, and so names the
    same path on a tie.
    """
    _, info = env.reset(seed=seed)
    spec = env.unwrapped.task_spec  # type: ignore[attr-defined]
    traces: list[EpisodeTrace] = []
    for path in sorted(golden_paths(spec, info["task"]), key=lambda path: path.id):
        recorder = EpisodeRecorder(
            folder / path.id if folder else None,
            agent="oracle",
            golden_path=path.id,
            frames=GOLDEN_FRAMES,
        )
        oracle = OracleAgent.recording(path.id)
        trace = play_episode(env, oracle, seed, recorder, screenshots)
        fault = oracle.expectation_fault(trace)
        traces.append(GoldenRecording(**dict(trace), expect_fault=fault) if fault else trace)
        if folder:
            pack_steps(folder / path.id)  # read by every later run, never appended to
    return traces


class GoldenRecording(EpisodeTrace):
    """A golden trace as just recorded, with what it alone knows: the golden step whose
    ``expect`` did not hold (not saved with the trace: such a recording is never kept)."""

    expect_fault: str | None = Field(default=None, exclude=True)


class SpoiledRecording(Exception):
    """A golden recording with a failed step or an unfinished episode: not a golden trace.

    A golden path is actions that work, so each failure is the machine's (a browser that
    crashed, or a step that timed out on a starved host) or the spec's. Either way it must
    not be kept for later runs: ``golden.cache`` stores only sound recordings.
    """


def require_sound(traces: list[EpisodeTrace]) -> list[EpisodeTrace]:
    """``traces``, when each golden recording was played whole to success.

    Raises:
        SpoiledRecording: a step failed, or an episode did not end in success; it names
            the path, the step and the error.
    """
    faults = [f"{t.golden_path}: {fault}" for t in traces if (fault := recording_fault(t))]
    if faults:
        task = traces[0].task
        raise SpoiledRecording(
            f"the golden recording of {task.env_id} seed {task.seed} failed ({'; '.join(faults)})"
        )
    return traces


def sound_entry(
    cache: GoldenCache, key: str, record: Callable[[Path], list[EpisodeTrace]], log: logging.Logger
) -> Path | None:
    """The cache's entry for ``key``, which ``record`` fills first when there is none; None
    when that recording was spoiled (a warning names it; it is not cached, and the caller
    records again for itself).

    Raises:
        OSError: the cache cannot be used (read-only, full).
    """
    try:
        return cache.lookup(key) or cache.store(key, lambda folder: require_sound(record(folder)))
    except SpoiledRecording as spoiled:
        log.warning("webharness: %s; it is not cached, and is recorded again", spoiled)
        return None


def warn_if_spoiled(traces: list[EpisodeTrace], log: logging.Logger) -> list[EpisodeTrace]:
    """``traces``, used as they are: a recording that is not cached (made again after a
    spoiled one, or where there is no cache). A warning names what spoiled them, if
    anything did: the episodes are scored against a golden trace that is not one."""
    try:
        return require_sound(traces)
    except SpoiledRecording as spoiled:
        log.warning("webharness: %s; the episodes are scored against it as it is", spoiled)
        return traces


def recording_fault(trace: EpisodeTrace) -> str | None:
    """What spoiled a golden recording: its first failed step, else a golden step's
    ``expect`` that did not hold, else an end that is not a success; None when it was
    played whole."""
    for step in trace.steps:
        if step.action_result is not None and not step.action_result.ok:
            result = step.action_result
            return f"step {step.index} {step.action}: {result.message}"
    if isinstance(trace, GoldenRecording) and trace.expect_fault:
        return f"an expect did not hold: {trace.expect_fault}"
    end = trace.end
    if end is None:
        return "the episode never ended"
    if end.not_executable or end.ended_by is EndedBy.RUNTIME_ERROR:
        return f"the harness or browser failed: {end.error}"
    if not end.success:
        ended_by = end.ended_by.value if end.ended_by else "?"
        return f"the episode ended ({ended_by}) without success"
    return None

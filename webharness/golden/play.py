"""Playing an agent through one episode, and recording the golden traces of a task."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import gymnasium as gym

from webharness.golden.oracle import OracleAgent, golden_paths
from webharness.spec.task_spec import TaskSpec
from webharness.trace.frames import GOLDEN_FRAMES
from webharness.trace.io import pack_steps
from webharness.trace.models import EpisodeTrace, TaskInstance
from webharness.trace.recorder import (
    EpisodeRecorder,
    env_frame,
    env_timings,
    episode_end,
    step_record,
)


class PlayingAgent(Protocol):
    name: str

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
    recorder = recorder or EpisodeRecorder(None, agent=agent.name)
    obs, info = env.reset(seed=seed)
    reset_agent(agent, info["task"], getattr(env.unwrapped, "task_spec", None))
    recorder.start(info["task"], env)
    try:
        recorder.add(
            step_record(0, obs, info, 0.0, env_timings(env)), env_frame(env, obs, screenshots)
        )
        index = 0
        while True:
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            index += 1
            recorder.add(
                step_record(index, obs, info, float(reward), env_timings(env)),
                env_frame(env, obs, screenshots),
            )
            if terminated or truncated:
                return recorder.finish(episode_end(info, terminated, truncated))
    finally:
        recorder.close()  # an episode cut short by an error keeps its Playwright trace


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
    """
    _, info = env.reset(seed=seed)
    spec = env.unwrapped.task_spec  # type: ignore[attr-defined]
    traces = []
    for path in golden_paths(spec, info["task"]):
        recorder = EpisodeRecorder(
            folder / path.id if folder else None,
            agent="oracle",
            golden_path=path.id,
            frames=GOLDEN_FRAMES,
        )
        oracle = OracleAgent.recording(path.id)
        traces.append(play_episode(env, oracle, seed, recorder, screenshots))
        if folder:
            pack_steps(folder / path.id)  # read by every later run, never appended to
    return traces

"""``RecordTrace``: write every episode as a trace folder (JSONL + screenshots)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from webharness.recorder import EpisodeRecorder, env_frame, env_timings, step_record
from webharness.trace import EpisodeTrace


class RecordTrace(gym.Wrapper[dict[str, Any], Any, dict[str, Any], Any], RecordConstructorArgs):
    """Record each episode into ``folder/episode-NNNN`` (loadable with ``load_trace``).

    Args:
        env: a WebEval env (or a wrapper of one).
        folder: where the episode folders go; created when missing.
        screenshots: keep a PNG per step (from the observation, or ``render()`` when the
            observation has none and ``render_mode="rgb_array"``).
        agent: a name stored in the trace.

    Example:
        >>> env = RecordTrace(gym.make("WebEval/form-v0"), "runs/traces")  # doctest: +SKIP
    """

    def __init__(self, env: gym.Env, folder: str | Path, screenshots: bool = True, agent: str | None = None) -> None:
        if not str(folder):
            raise ValueError("RecordTrace needs a folder, got ''")
        RecordConstructorArgs.__init__(self, folder=str(folder), screenshots=screenshots, agent=agent)
        gym.Wrapper.__init__(self, env)
        self.folder = Path(folder)
        self.screenshots = screenshots
        self.agent = agent
        self.episodes = 0
        self._recorder: EpisodeRecorder | None = None
        self._index = 0
        self.last_trace: EpisodeTrace | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._recorder = EpisodeRecorder(self.folder / f"episode-{self.episodes:04d}", agent=self.agent)
        self.episodes += 1
        self._index = 0
        self._recorder.start(info["task"])
        self._recorder.add(step_record(0, obs, info, 0.0, env_timings(self.env)), env_frame(self.env, obs, self.screenshots))
        return obs, info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._recorder is not None:
            self._index += 1
            self._recorder.add(step_record(self._index, obs, info, float(reward), env_timings(self.env)), env_frame(self.env, obs, self.screenshots))
            if terminated or truncated:
                self.last_trace = self._recorder.finish(info["episode_end"])
                info["trace_dir"] = str(self._recorder.folder)
                self._recorder = None
        return obs, reward, terminated, truncated, info

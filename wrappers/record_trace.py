"""``RecordTrace``: write every episode as a trace folder.

A trace folder holds JSONL and screenshots, and optionally Playwright's trace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from webharness.trace.models import EpisodeTrace
from webharness.trace.recorder import (
    EpisodeRecorder,
    env_frame,
    env_timings,
    episode_end,
    step_record,
)


class RecordTrace(gym.Wrapper[dict[str, Any], Any, dict[str, Any], Any], RecordConstructorArgs):
    """Record each episode into ``folder/episode-NNNN`` (loadable with ``load_trace``).

    Args:
        env: a WebEval env (or a wrapper of one).
        folder: where the episode folders go; created when missing.
        screenshots: keep a PNG per step (from the observation, or ``render()`` when the
            observation has none and ``render_mode="rgb_array"``).
        agent: a name stored in the trace.
        playwright_trace: also record Playwright's own trace of each episode's browser
            context (actions, DOM snapshots, screencast, network) as ``trace.zip`` in its
            folder, saved when the episode ends or the next ``reset``/``close`` comes; open
            it with ``playwright show-trace trace.zip``.

    Example:
        >>> env = RecordTrace(gym.make("WebEval/form-v0"), "runs/traces")  # doctest: +SKIP
    """

    def __init__(
        self,
        env: gym.Env,
        folder: str | Path,
        screenshots: bool = True,
        agent: str | None = None,
        playwright_trace: bool = False,
    ) -> None:
        if not str(folder):
            raise ValueError("RecordTrace needs a folder, got ''")
        RecordConstructorArgs.__init__(
            self,
            folder=str(folder),
            screenshots=screenshots,
            agent=agent,
            playwright_trace=playwright_trace,
        )
        gym.Wrapper.__init__(self, env)
        self.folder = Path(folder)
        self.screenshots = screenshots
        self.agent = agent
        self.playwright_trace = playwright_trace
        self.episodes = 0
        self._recorder: EpisodeRecorder | None = None
        self._index = 0
        self.last_trace: EpisodeTrace | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the env and start a new ``episode-NNNN`` folder with the first observation.

        An episode left unfinished is closed first, as it stands.
        """
        self._end_unfinished()  # before the env closes that episode's browser context
        obs, info = self.env.reset(seed=seed, options=options)
        self._recorder = EpisodeRecorder(
            self.folder / f"episode-{self.episodes:04d}",
            agent=self.agent,
            playwright_trace=self.playwright_trace,
        )
        self.episodes += 1
        self._index = 0
        self._recorder.start(info["task"], self.env)
        self._recorder.add(
            step_record(0, obs, info, 0.0, env_timings(self.env)),
            env_frame(self.env, obs, self.screenshots),
        )
        return obs, info

    def step(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and record the step; at the end, ``info["trace_dir"]`` is the folder.

        The finished trace is also kept as ``last_trace``.
        """
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._recorder is not None:
            self._index += 1
            self._recorder.add(
                step_record(self._index, obs, info, float(reward), env_timings(self.env)),
                env_frame(self.env, obs, self.screenshots),
            )
            if terminated or truncated:
                end = episode_end(info, terminated, truncated)
                self.last_trace = self._recorder.finish(end)
                info["trace_dir"] = str(self._recorder.folder)
                self._recorder = None
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        """Close an unfinished episode's recording, then the env."""
        self._end_unfinished()
        super().close()

    def _end_unfinished(self) -> None:
        if self._recorder is not None:
            self._recorder.close()
            self._recorder = None

"""The episode an external agent plays: the runner's env, each step recorded as it is taken.

The MCP tools step it from the server's threads, one call at a time; every step goes
into the episode's trace exactly as ``play_episode`` records a Python agent's, so the
diagnosis cannot tell the doors apart.
"""

from __future__ import annotations

import threading

import gymnasium as gym
import numpy as np

from webharness.actions import Action, Performed
from webharness.errors import WebHarnessError
from webharness.mcp.episodes import EpisodeEndedError, StepResult
from webharness.trace.models import EpisodeEnd
from webharness.trace.recorder import (
    EpisodeRecorder,
    env_frame,
    episode_end,
)


class RecordedEpisode:
    """An env mid-episode (reset already, step 0 recorded), stepped through the MCP tools.

    Args:
        env: the runner's env.
        recorder: the episode's recorder, started.
        first: the reset's observation and info.
        vision: serve the coordinate tools.
        screenshots: keep each step's frame in the trace.
        ended: the event to set when the episode ends (a new one by default).
    """

    def __init__(
        self,
        env: gym.Env,
        recorder: EpisodeRecorder,
        first: StepResult,
        vision: bool = False,
        screenshots: bool = True,
        ended: threading.Event | None = None,
    ) -> None:
        self.env, self.recorder = env, recorder
        self.vision, self.screenshots = vision, screenshots
        self.ended = ended or threading.Event()  # set when the episode ends
        self.end: EpisodeEnd | None = None
        self._last = first
        self._index = 0
        self._lock = threading.Lock()

    @property
    def last(self) -> StepResult:
        """The latest observation and info."""
        return self._last

    @property
    def cdp(self) -> bool:
        """False: the runner's CDP agent gets its URL as ``{cdp_url}``, not as a tool."""
        return False

    def cdp_url(self) -> str:
        """Not offered (``cdp``)."""
        raise WebHarnessError("the runner gives a CDP agent its URL as {cdp_url}")

    @property
    def goal(self) -> str:
        """The episode's instruction."""
        return str(self._last.info["task"].instruction)

    def step(self, action: Action | Performed) -> StepResult:
        """One env step, recorded; after the episode's end, ``EpisodeEndedError``."""
        with self._lock:
            if self._last.ended:
                raise EpisodeEndedError("the episode has ended (see ### Episode)")
            obs, reward, terminated, truncated, info = self.env.step(action)
            self._index += 1
            self.recorder.add_step(
                self._index, self.env, obs, info, float(reward), self.screenshots
            )
            self._last = StepResult(obs, info, ended=bool(terminated or truncated))
            if self._last.ended:
                self.end = episode_end(info, terminated, truncated)
                self.ended.set()
            return self._last

    def finish(self, ending: EpisodeEnd) -> EpisodeEnd:
        """End the episode without a step (the agent's process ended it); returns the end.

        A step that ended it already keeps its own end.
        """
        with self._lock:
            if self.end is None:
                success = bool(self._last.info.get("success"))
                self.end = ending.model_copy(update={"success": success})
                self._last = StepResult(self._last.obs, self._last.info, ended=True)
                self.ended.set()
            return self.end

    def reset(self, env_id: str | None = None, seed: int | None = None) -> StepResult:
        """Not offered: the runner starts each episode."""
        raise WebHarnessError("the runner starts each episode; this one cannot be reset")

    def screenshot(self) -> np.ndarray:
        """The page as the agent would see it: the observation's pixels, else a render."""
        shot = env_frame(self.env, self._last.obs)
        if shot is None:
            raise WebHarnessError("the browser gave no screenshot of the page")
        return np.asarray(shot)

    def close(self) -> None:
        """Nothing: the runner owns the env."""

"""A saved episode played back as a Gymnasium env, with no browser.

Wrappers, agents' bookkeeping and the diagnosis can be tested on traces you already have
(a run folder's episodes, a ``RecordTrace`` folder, or traces built in a test) in
milliseconds. The replay knows only what happened: each ``step`` must be given the action
that was recorded next, and returns what the page did then.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym

from webharness.actions import MAX_ACTION_CHARS
from webharness.episode.observation import ObsMode, build_observation, observation_space
from webharness.episode.spaces import text_space
from webharness.errors import WebHarnessError
from webharness.spec.task_spec import TaskSpec
from webharness.trace.io import load_trace
from webharness.trace.models import EpisodeTrace, StepRecord

REPLAY_VIEWPORT = (1280, 720)  # the text observation has no frame; the space needs a size


class ReplayError(WebHarnessError, ValueError):
    """A replay was asked for something its trace does not hold."""


class TraceReplayEnv(gym.Env[dict[str, Any], str]):
    """Replays one saved ``EpisodeTrace`` step by step, as ``WebEvalEnv`` would have shown it.

    Observations are text-mode ones: ``axtree`` is empty (a trace keeps a digest of the
    tree, not its text); ``url``, ``goal``, ``last_action_error`` and ``user_messages``
    are the recorded ones. ``info`` carries ``task``, ``semantic_state``, ``action``,
    ``action_result``, ``success`` and ``step``, and the last step ``episode_end``.

    Args:
        trace: the trace, or the folder it was saved in.
        task_spec: the task's spec, for wrappers that ask the env for it (optional).

    Example:
        >>> from webharness.testing.replay import TraceReplayEnv
        >>> env = TraceReplayEnv("runs/traces/episode-0000")  # doctest: +SKIP
        >>> obs, info = env.reset()  # doctest: +SKIP
        >>> obs, reward, terminated, truncated, info = env.step(env.next_action)  # doctest: +SKIP
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, trace: EpisodeTrace | str | Path, task_spec: TaskSpec | None = None):
        self.trace = trace if isinstance(trace, EpisodeTrace) else load_trace(trace)
        if not self.trace.steps:
            raise ReplayError("the trace has no steps, not even the state after reset")
        self.task_spec = task_spec
        self.observation_space = observation_space(ObsMode.TEXT, REPLAY_VIEWPORT)
        self.action_space = text_space(MAX_ACTION_CHARS)
        self._position: int | None = None

    @property
    def next_action(self) -> str:
        """The action recorded next (what ``step`` must be given)."""
        return self._upcoming().action or ""

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Back to the recorded state after reset. ``seed`` must be the trace's, if given."""
        super().reset(seed=seed)
        if seed is not None and seed != self.trace.task.seed:
            raise ReplayError(
                f"the trace was recorded with seed {self.trace.task.seed}, not {seed}; "
                "reset() without a seed replays it"
            )
        self._position = 0
        return self._outputs(self.trace.steps[0])

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """The recorded outcome of ``action``, which must be the action recorded next."""
        record = self._upcoming()
        if str(action) != record.action:
            raise ReplayError(
                f"step {record.index} of the trace is {record.action!r}, not {str(action)!r}: "
                "a replay can only take the recorded actions (see next_action)"
            )
        self._position = record.index
        obs, info = self._outputs(record)
        ended = record is self.trace.steps[-1]
        end = self.trace.end
        if ended and end is not None:
            info["episode_end"] = end
        terminated = ended and end is not None and end.terminated
        truncated = ended and (end is None or end.truncated)
        return obs, record.reward, terminated, truncated, info

    def _upcoming(self) -> StepRecord:
        if self._position is None:
            raise ReplayError("call reset() before step()")
        if self._position + 1 >= len(self.trace.steps):
            raise ReplayError(
                f"the trace ends after step {self._position}; reset() to replay it again"
            )
        return self.trace.steps[self._position + 1]

    def _outputs(self, record: StepRecord) -> tuple[dict[str, Any], dict[str, Any]]:
        result = record.action_result
        obs = build_observation(
            ObsMode.TEXT,
            axtree="",
            screenshot=None,
            url=record.state.url,
            goal=self.trace.task.instruction,
            last_action_error="" if result is None or result.ok else result.message,
            user_messages=record.user_messages,
        )
        info: dict[str, Any] = {
            "task": self.trace.task,
            "semantic_state": record.state,
            "action": record.action,
            "action_result": result,
            "success": record.success,
            "step": record.index,
            "perturbations": [],
        }
        return obs, info

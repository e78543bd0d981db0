"""Wrappers that tell where and why a run went wrong, at the end of each episode.

``GoldenTraceAlignment`` adds ``info["alignment"]``, ``FailureAnnotation`` adds
``info["failure"]``. Both keep the episode's trace in memory and call the core.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.utils import RecordConstructorArgs

from webharness.diagnosis.alignment import Alignment, align
from webharness.diagnosis.app_origin import (
    APP_URL_PARAM,
    on_placeholder,
    state_on_placeholder,
    traces_on_placeholder,
)
from webharness.diagnosis.failures import annotate
from webharness.diagnosis.progress import ProgressTracker
from webharness.golden.cached import DEFAULT_CACHE, CacheChoice, CachedGoldens
from webharness.trace.models import EpisodeTrace
from webharness.trace.recorder import EpisodeRecorder, episode_end, step_record


class _TracksEpisode(gym.Wrapper[dict[str, Any], Any, dict[str, Any], Any]):
    """Keeps the current episode as an in-memory trace (no screenshots)."""

    def _start(self, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self._recorder = EpisodeRecorder(None)
        self._recorder.start(info["task"])
        self._recorder.add(step_record(0, obs, info, 0.0, {}), None)
        self._index = 0

    def _track(
        self,
        obs: dict[str, Any],
        reward: float,
        info: dict[str, Any],
        terminated: bool,
        truncated: bool,
    ) -> EpisodeTrace | None:
        self._index += 1
        self._recorder.add(step_record(self._index, obs, info, float(reward), {}), None)
        if not (terminated or truncated):
            return None
        return self._recorder.finish(episode_end(info, terminated, truncated))


class GoldenTraceAlignment(_TracksEpisode, RecordConstructorArgs):
    """Align each episode with the task's golden traces; ``info["alignment"]`` at the end.

    The golden traces are recorded by playing the oracle on a clean copy of the task with
    the same seed and viewport, once per seed, before the episode of that seed starts
    (a task's setup resets its app: run during the agent's episode, the golden's would undo
    the agent's start state), on an env of their own (a task with its own app runs its own
    instance there), and kept in the golden-trace cache the runner
    uses (``golden_cache``: its folder; by default the runner's, ``$WEBHARNESS_CACHE_DIR``
    or ``~/.cache/webharness/golden``; None records them each time, in memory). With
    ``progress_reward=True`` the reward of each step gains the increase in golden progress
    (a shaped reward for RL; off by default), and ``info["progress"]`` carries the progress
    so far.
    """

    def __init__(
        self,
        env: gym.Env,
        progress_reward: bool = False,
        golden_cache: CacheChoice = DEFAULT_CACHE,
    ) -> None:
        self._cached = CachedGoldens(golden_cache)
        folder = str(self._cached.cache.root) if self._cached.cache is not None else None
        RecordConstructorArgs.__init__(self, progress_reward=progress_reward, golden_cache=folder)
        gym.Wrapper.__init__(self, env)
        self.progress_reward = progress_reward
        self._golden_env: gym.Env | None = None
        self._goldens: dict[int | None, list[EpisodeTrace]] = {}
        self._tracker: ProgressTracker | None = None
        self._progress = 0.0
        self._app_url: object = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the env, load the seed's golden traces, and start tracking progress.

        The golden traces of a new seed are recorded (or read from the cache) before the
        agent's episode starts, so that their setup never runs inside it.
        """
        if seed is not None:  # before the agent's episode: the golden's setup never runs in it
            self._golden_traces(seed)
        obs, info = self.env.reset(seed=seed, options=options)
        goldens = self._golden_traces(info["task"].seed)
        ids = self._id_patterns()
        self._tracker = ProgressTracker(goldens, id_patterns=ids) if goldens else None
        self._app_url = info["task"].params.get(APP_URL_PARAM)  # compared as the placeholder
        self._progress = self._tracker.update(self._state(info)) if self._tracker else 0.0
        info["progress"] = self._progress
        self._start(obs, info)
        return obs, info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Step the env; ``info["progress"]`` each step, ``info["alignment"]`` at the end.

        The alignment is None for a task without golden paths; with ``progress_reward``
        the reward gains this step's increase in golden progress.
        """
        obs, env_reward, terminated, truncated, info = self.env.step(action)
        reward = float(env_reward)
        if self._tracker is not None:
            progress = self._tracker.update(self._state(info))
            if self.progress_reward:
                reward += progress - self._progress
            self._progress = progress
        info["progress"] = self._progress
        trace = self._track(obs, reward, info, terminated, truncated)
        if trace is not None:
            goldens = self._golden_traces(trace.task.seed)
            ids = self._id_patterns()
            info["alignment"] = (
                align(on_placeholder(trace), goldens, id_patterns=ids) if goldens else None
            )
        return obs, reward, terminated, truncated, info

    def _id_patterns(self) -> list[str]:
        """The task's own patterns of the ids its app generates (``generated_ids:``)."""
        return list(self.env.unwrapped.task_spec.generated_ids)  # type: ignore[attr-defined]

    def _state(self, info: dict[str, Any]) -> Any:
        """The step's state as the golden traces have theirs.

        Its app instance's origin is written as the placeholder (``diagnosis.app_origin``).
        """
        return state_on_placeholder(info["semantic_state"], self._app_url)

    def _golden_traces(self, seed: int | None) -> list[EpisodeTrace]:
        if seed not in self._goldens:
            spec = self.env.unwrapped.task_spec  # type: ignore[attr-defined]
            if not spec.golden_paths:
                return []
            viewport = self.env.unwrapped.viewport  # type: ignore[attr-defined]
            traces = self._cached.traces(spec, seed, viewport, self._clean_env)
            self._goldens[seed] = traces_on_placeholder(traces)
        return self._goldens[seed]

    def _clean_env(self) -> gym.Env:
        """The unperturbed copy of the task the golden traces are recorded on."""
        if self._golden_env is None:
            from webharness.envs import WebEvalEnv

            unwrapped: Any = self.env.unwrapped
            self._golden_env = WebEvalEnv(
                unwrapped.task_spec, obs_mode="text", viewport=unwrapped.viewport
            )
        return self._golden_env

    def close(self) -> None:
        """Close the env and the unperturbed copy the golden traces were recorded on."""
        if self._golden_env is not None:
            self._golden_env.close()
            self._golden_env = None
        super().close()


class FailureAnnotation(_TracksEpisode, RecordConstructorArgs):
    """Diagnose each episode at its end, in ``info["failure"]``.

    The diagnosis is a ``FailureReport`` model: code, step, root-cause stage, evidence,
    false success, step notes.

    Uses ``info["alignment"]`` when a ``GoldenTraceAlignment`` wrapper sits inside it.
    """

    def __init__(self, env: gym.Env, feasible: bool = True) -> None:
        RecordConstructorArgs.__init__(self, feasible=feasible)
        gym.Wrapper.__init__(self, env)
        self.feasible = feasible

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the env and start keeping the new episode's trace."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._start(obs, info)
        return obs, info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Step the env; at the episode's end, annotate its trace in ``info["failure"]``."""
        obs, env_reward, terminated, truncated, info = self.env.step(action)
        reward = float(env_reward)
        trace = self._track(obs, reward, info, terminated, truncated)
        if trace is not None:
            alignment: Alignment | None = info.get("alignment")
            info["failure"] = annotate(trace, alignment, feasible=self.feasible)
        return obs, reward, terminated, truncated, info

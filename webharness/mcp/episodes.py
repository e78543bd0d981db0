"""One MCP session's episode: the env under the diagnosis wrappers, stepped one action at a time.

``McpEpisode`` owns a ``WebEvalEnv`` wrapped as ``gym.make`` and ``webharness run`` would
wrap it (perturbations, then ``RecordTrace`` when a folder is given, ``GoldenTraceAlignment``
and ``FailureAnnotation``). Its methods are blocking; the server calls them from a worker
thread, one at a time.

With ``cdp`` (``webharness mcp --cdp``) each episode's browser is also served over CDP, as
``webharness.attach`` serves it (a ``CdpDoor``): opened when the episode starts, closed when
it ends. The steps the agent takes through it are env steps, in order with the tools'.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import gymnasium as gym
import numpy as np

from webharness.actions import Action
from webharness.errors import WebHarnessError, did_you_mean
from webharness.trace.recorder import env_frame

if TYPE_CHECKING:
    from webharness.actions import Performed
    from webharness.cdp.door import CdpDoor


class EpisodeEndedError(WebHarnessError):
    """A state-changing tool was called after the episode ended."""


@dataclass(frozen=True)
class EpisodeConfig:
    """What an MCP episode plays, with the options of ``gym.make`` and ``webharness run``.

    Args:
        env_id: the registered env id (a built-in task, a task folder's, a MiniWoB++ id).
        seed: the seed of the first episode; None draws one.
        perturbations: a perturbation stack as ``webharness run`` writes it,
            ``"popup,latency@0.5"``; ``""`` for a clean page.
        obs_mode: ``"both"``, ``"text"`` or ``"pixels"``, as ``gym.make``'s.
        viewport: the page's width and height in CSS pixels.
        max_steps: the step budget; None keeps the task's.
        trace_dir: where ``RecordTrace`` writes each episode; None records nothing to disk.
        tasks: the env ids ``webharness_reset`` may switch to (the first task's alone when empty).
        vision: also serve the coordinate tools (Playwright MCP's ``--caps vision``).
        upload_dir: the folder whose files ``browser_file_upload`` may give the page; None
            gives none.
        cdp: also serve each episode's browser over CDP (``webharness_cdp_url``).
    """

    env_id: str
    seed: int | None = None
    perturbations: str = ""
    obs_mode: str = "both"
    viewport: tuple[int, int] = (1280, 720)
    max_steps: int | None = None
    trace_dir: Path | None = None
    tasks: tuple[str, ...] = field(default_factory=tuple)
    vision: bool = False
    upload_dir: Path | None = None
    cdp: bool = False


@dataclass
class StepResult:
    """What one env step through MCP gave: the observation, the info, and whether it ended."""

    obs: dict[str, Any]
    info: dict[str, Any]
    ended: bool


class ServedEpisode(Protocol):
    """What the tools play on: an MCP session's episode (``McpEpisode``), or one that a
    runner plays and records itself (an external agent's, ``webharness.external``)."""

    @property
    def vision(self) -> bool:
        """Whether the coordinate tools are served."""

    @property
    def cdp(self) -> bool:
        """Whether the episode's browser is served over CDP (``webharness_cdp_url``)."""

    @property
    def last(self) -> StepResult:
        """The latest observation and info."""

    def cdp_url(self) -> str:
        """The running episode's CDP URL; after its end, ``EpisodeEndedError``."""

    @property
    def goal(self) -> str:
        """The episode's instruction."""

    def step(self, action: Action) -> StepResult:
        """One env step; after the episode's end, ``EpisodeEndedError``."""

    def reset(self, env_id: str | None = None, seed: int | None = None) -> StepResult:
        """Start the next episode, where the server offers that."""

    def screenshot(self) -> np.ndarray:
        """The page as the agent would see it."""

    def close(self) -> None:
        """Let the episode's env go."""


def make_env(config: EpisodeConfig) -> gym.Env:
    """The env of ``config``: perturbed, recorded and diagnosed."""
    from webharness.wrappers import (
        FailureAnnotation,
        GoldenTraceAlignment,
        RecordTrace,
        perturb,
    )

    env = gym.make(
        config.env_id,
        obs_mode=config.obs_mode,
        viewport=config.viewport,
        max_steps=config.max_steps,
        render_mode="rgb_array",
        upload_dir=config.upload_dir,
        **({"cdp": True} if config.cdp else {}),
    )
    if config.perturbations:
        names, _, strength = config.perturbations.partition("@")
        env = perturb(env, names, strength=float(strength) if strength else 0.5)
    if config.trace_dir is not None:
        env = RecordTrace(env, config.trace_dir, agent="mcp")
    return FailureAnnotation(GoldenTraceAlignment(env))


class McpEpisode:
    """The live episode an MCP session plays; ``reset`` starts the next one.

    Args:
        config: the task and options.
        on_door: called with each episode's CDP URL as its door opens (``config.cdp``).
    """

    def __init__(self, config: EpisodeConfig, on_door: Callable[[str], None] | None = None) -> None:
        self.config, self.on_door = config, on_door
        self._env: gym.Env | None = None
        self._last: StepResult | None = None
        self._door: CdpDoor | None = None
        self._stepping = threading.Lock()  # the tools' steps and the CDP agent's, in turn

    # --- the episode ----------------------------------------------------------------------
    def reset(self, env_id: str | None = None, seed: int | None = None) -> StepResult:
        """Start an episode: of ``env_id`` (one of the config's tasks) and ``seed`` if given."""
        if env_id is not None and env_id not in (
            self.config.env_id,
            _short_name(self.config.env_id),
        ):
            self._switch(env_id)
        self._shut_door()
        env = self._ensure_env()
        obs, info = env.reset(seed=self.config.seed if seed is None else seed)
        self._last = StepResult(obs, info, ended=False)
        if self.config.cdp:
            self._open_door(env)
        return self._last

    def step(self, action: Action) -> StepResult:
        """One env step; after the episode's end, ``EpisodeEndedError``.

        A step the CDP agent has done and that is not recorded yet is recorded first.
        """
        self.last  # noqa: B018 (starts the first episode when none has begun)
        door = self._door
        if door is not None:
            door.flush()
        result = self._step(action)
        if result.ended:
            self._shut_door()
        return result

    def cdp_url(self) -> str:
        """The running episode's CDP URL (``config.cdp``); after its end, ``EpisodeEndedError``.

        Raises:
            WebHarnessError: the server serves no CDP.
        """
        if not self.config.cdp:
            raise WebHarnessError(
                "this server serves no CDP: start it with webharness mcp --cdp (webharness[cdp])"
            )
        door = self._door if not self.last.ended else None
        if door is None or door.url is None:
            raise EpisodeEndedError(
                "the episode has ended, and its browser is no longer served over CDP: "
                "webharness_reset starts the next episode, with a URL of its own"
            )
        return door.url

    @property
    def last(self) -> StepResult:
        """The latest observation and info (starting the first episode when none has begun)."""
        return self._last if self._last is not None else self.reset()

    @property
    def vision(self) -> bool:
        """Whether the coordinate tools are served (``--caps vision``)."""
        return self.config.vision

    @property
    def cdp(self) -> bool:
        """Whether each episode's browser is served over CDP (``--cdp``)."""
        return self.config.cdp

    @property
    def goal(self) -> str:
        """The episode's instruction, as the agent is given it."""
        return str(self.last.info["task"].instruction)

    def screenshot(self) -> np.ndarray:
        """The page as the agent would see it: the observation's pixels, else a render."""
        shot = env_frame(self._ensure_env(), self.last.obs)
        if shot is None:
            raise WebHarnessError("the browser gave no screenshot of the page")
        return np.asarray(shot)

    def close(self) -> None:
        """Close the env and its browser."""
        self._shut_door()
        if self._env is not None:
            self._env.close()
        self._env, self._last = None, None

    # --- helpers --------------------------------------------------------------------------
    def _step(self, action: Action | Performed) -> StepResult:
        with self._stepping:
            if self._last is None or self._last.ended:
                raise EpisodeEndedError(
                    "the episode has ended (see ### Episode for what comes next)"
                )
            obs, _, terminated, truncated, info = self._ensure_env().step(action)
            self._last = StepResult(obs, info, ended=bool(terminated or truncated))
            return self._last

    def _open_door(self, env: gym.Env) -> None:
        from webharness.cdp.door import CdpDoor  # websockets: the cdp extra's, loaded if used

        door = CdpDoor(env, record=self._record)
        url = door.open()
        self._door = door
        if self.on_door is not None:
            self.on_door(url)

    def _record(self, action: Action | Performed) -> bool:
        """A step the CDP agent took, in turn with the tools'; whether the episode ended."""
        try:
            ended = self._step(action).ended
        except EpisodeEndedError:  # a tool ended it while the agent acted
            return True
        if ended:  # not from this thread: the door waits for this step to be recorded
            threading.Thread(target=self._shut_door, name="webharness-cdp-shut").start()
        return ended

    def _shut_door(self) -> None:
        """Record the CDP agent's last step and close its door, if one is open."""
        with self._stepping:
            door, self._door = self._door, None
        if door is not None:
            door.close()

    def _ensure_env(self) -> gym.Env:
        if self._env is None:
            self._env = make_env(self.config)
        return self._env

    def _switch(self, env_id: str) -> None:
        allowed = self.config.tasks or (self.config.env_id,)
        named = [a for a in allowed if env_id in (a, _short_name(a))]
        if len(named) != 1:
            raise WebHarnessError(
                f"task {env_id!r} is not one this server plays: {', '.join(allowed)}."
                f"{did_you_mean(env_id, list(allowed))}"
            )
        self.close()
        self.config = replace(self.config, env_id=named[0])


def _short_name(env_id: str) -> str:
    """A task's name in its env id: ``form`` in ``WebEval/form-v0``."""
    return env_id.split("/", 1)[-1].rsplit("-v", 1)[0]

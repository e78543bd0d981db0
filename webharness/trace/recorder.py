"""Turning env outputs into trace steps: one recorder for the RecordTrace wrapper and the runner."""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
from playwright.async_api import Error as PlaywrightError

from webharness.trace.frames import AGENT_FRAMES, FrameCodec
from webharness.trace.io import PLAYWRIGHT_TRACE, TraceWriter
from webharness.trace.models import EndedBy, EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

PLAYWRIGHT_TRACE_TIMEOUT_S = (
    60.0  # bound on starting, and on stopping and saving, a Playwright trace
)
_log = logging.getLogger("webharness.trace.recorder")


def obs_digest(obs: dict[str, Any]) -> str:
    """A short hash of what the agent was shown in text (the screenshot is a file)."""
    text = "\x1f".join(
        str(obs.get(k, "")) for k in ("url", "goal", "axtree", "last_action_error", "user_messages")
    )
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:16]


def step_record(
    index: int,
    obs: dict[str, Any],
    info: dict[str, Any],
    reward: float,
    timings_ms: dict[str, float],
) -> StepRecord:
    """A trace step from one ``reset`` (index 0) or ``step`` output."""
    return StepRecord(
        index=index,
        action=info.get("action") if index else None,
        action_result=info.get("action_result"),
        state=info["semantic_state"],
        obs_digest=obs_digest(obs),
        reward=reward,
        success=bool(info.get("success")),
        user_messages=list(obs.get("user_messages", ())),
        timings_ms=timings_ms,
    )


def episode_end(info: dict[str, Any], terminated: bool, truncated: bool) -> EpisodeEnd:
    """How the episode that just ended ended: the env's own record, or, when a wrapper
    outside the env cut it (Gymnasium's ``TimeLimit``, ``max_episode_steps``), a truncation
    at the step budget. It is put into ``info``, so every wrapper further out reads the same.
    """
    end = info.get("episode_end")
    if not isinstance(end, EpisodeEnd):
        end = EpisodeEnd(
            terminated=terminated,
            truncated=truncated,
            success=bool(info.get("success")),
            ended_by=EndedBy.MAX_STEPS if truncated and not terminated else None,
        )
        info["episode_end"] = end
    return end


def env_timings(env: Any) -> dict[str, float]:
    """Where the env's last reset or step spent its time."""
    return dict(getattr(env.unwrapped, "last_timings_ms", {}))


def env_frame(env: Any, obs: dict[str, Any], screenshots: bool = True) -> np.ndarray | None:
    """The screenshot to keep for this step: the observation's, else ``render()``'s."""
    if not screenshots:
        return None
    frame = obs.get("screenshot")
    if frame is None and env.render_mode == "rgb_array":
        frame = env.render()
    return frame


class BrowserTracing:
    """Playwright's own trace of the live episode's browser context.

    It starts once ``reset`` has returned, so it opens on step 0's page (the start page's
    load is not in it), and holds every action, DOM snapshot and screencast frame after.
    Each env step is one group in it, named after the agent's action, holding the harness's
    calls of that step (the action's input, the settle, the snapshot, the screenshot).
    """

    def __init__(self, env: Any) -> None:
        self.env = env.unwrapped
        self.episode = self.env.episode
        self.tracing = self.episode.session.context.tracing
        self.episode.session.traced = True  # a traced context serves no later episode
        self._run(self.tracing.start(screenshots=True, snapshots=True))
        self.episode.step_group = self.group

    @contextlib.asynccontextmanager
    async def group(self, name: str) -> AsyncIterator[None]:
        """One step's calls as a group of the trace (on the browser thread). A group that
        cannot be opened or closed (the context went with the browser) is left out: the
        step's own error is the one to report."""
        try:
            await self.tracing.group(name)
            opened = True
        except PlaywrightError:
            opened = False
        try:
            yield
        finally:
            if opened:
                with contextlib.suppress(PlaywrightError):
                    await self.tracing.group_end()

    @property
    def alive(self) -> bool:
        """Whether the episode's context is still the env's (a failed browser took it)."""
        return self.env.episode is self.episode and self.env.runtime is not None

    def stop(self, path: Path) -> None:
        """Stop tracing and write the archive to ``path``."""
        self.episode.step_group = None
        self._run(self.tracing.stop(path=path))

    def _run(self, coro: Any) -> None:
        self.env.runtime.run(coro, PLAYWRIGHT_TRACE_TIMEOUT_S)


class EpisodeRecorder:
    """Keeps the episode in memory and, given a folder, writes it as it goes.

    ``frames`` says how screenshots are kept (``trace.frames``). With
    ``playwright_trace=True`` it also keeps Playwright's trace of the episode's
    browser context as ``trace.zip`` in the folder; ``start`` then needs the env.
    """

    def __init__(
        self,
        folder: Path | None,
        agent: str | None = None,
        golden_path: str | None = None,
        playwright_trace: bool = False,
        frames: FrameCodec = AGENT_FRAMES,
    ) -> None:
        if playwright_trace and folder is None:
            raise ValueError("playwright_trace=True needs a folder to save trace.zip in; pass one")
        self.folder = folder
        self.agent, self.golden_path = agent, golden_path
        self.playwright_trace = playwright_trace
        self.writer = TraceWriter(folder, frames) if folder is not None else None
        self.trace: EpisodeTrace | None = None
        self.writing_ms = 0.0  # what the episode waited on the writer (handing over, the end)
        self._tracing: BrowserTracing | None = None

    def start(self, task: TaskInstance, env: Any = None) -> None:
        """Begin the episode ``env`` has just reset to (``env`` is needed for the Playwright
        trace)."""
        self.trace = EpisodeTrace(task=task, agent=self.agent, golden_path=self.golden_path)
        if self.writer is not None:
            self.writer.start(task, agent=self.agent, golden_path=self.golden_path)
        if self.playwright_trace:
            if env is None:
                raise ValueError(
                    "EpisodeRecorder(playwright_trace=True).start() needs the env whose browser "
                    "to trace"
                )
            self._start_tracing(env)

    def add(self, step: StepRecord, screenshot: np.ndarray | None) -> None:
        if self.trace is None:
            raise RuntimeError("EpisodeRecorder.add() before start()")
        if self.writer is not None:
            started = time.perf_counter()
            step = self.writer.add_step(step, screenshot)
            self.writing_ms += (time.perf_counter() - started) * 1000
        self.trace.steps.append(step)

    def add_step(
        self,
        index: int,
        env: Any,
        obs: dict[str, Any],
        info: dict[str, Any],
        reward: float = 0.0,
        screenshots: bool = True,
    ) -> None:
        """Record what ``env`` gave for step ``index`` (0: its reset), with its timings and,
        when ``screenshots``, its frame."""
        self.add(
            step_record(index, obs, info, float(reward), env_timings(env)),
            env_frame(env, obs, screenshots),
        )

    def finish(self, end: EpisodeEnd) -> EpisodeTrace:
        if self.trace is None:
            raise RuntimeError("EpisodeRecorder.finish() before start()")
        self.trace.end = end
        self._save_tracing()
        if self.writer is not None:
            started = time.perf_counter()
            self.writer.finish(end)
            self.writing_ms += (time.perf_counter() - started) * 1000
        return self.trace

    def close(self) -> None:
        """End an episode cut short (a reset or close before it ended, an error): the
        Playwright trace so far is saved, the steps file closed. Nothing after ``finish``."""
        self._save_tracing()
        if self.writer is not None:
            self.writer.close()

    def _start_tracing(self, env: Any) -> None:
        try:
            self._tracing = BrowserTracing(env)
        except (PlaywrightError, concurrent.futures.TimeoutError) as exc:
            _log.warning("no Playwright trace for %s: tracing did not start (%s)", self.folder, exc)

    def _save_tracing(self) -> None:
        tracing, self._tracing = self._tracing, None
        if tracing is None or self.writer is None:
            return
        if not tracing.alive:
            _log.warning(
                "no Playwright trace for %s: the browser failed and took the episode's context",
                self.folder,
            )
            return
        try:
            self.writer.add_file(PLAYWRIGHT_TRACE, tracing.stop)
        except (PlaywrightError, concurrent.futures.TimeoutError) as exc:
            _log.warning("no Playwright trace for %s: saving it failed (%s)", self.folder, exc)

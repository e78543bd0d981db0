"""Turning env outputs into trace steps: one recorder for the RecordTrace wrapper and the runner."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from webharness.trace import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance
from webharness.trace_io import TraceWriter


def obs_digest(obs: dict[str, Any]) -> str:
    """A short hash of what the agent was shown in text (the screenshot is a file)."""
    text = "\x1f".join(str(obs.get(k, "")) for k in ("url", "goal", "axtree", "last_action_error", "user_messages"))
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:16]


def step_record(index: int, obs: dict[str, Any], info: dict[str, Any], reward: float, timings_ms: dict[str, float]) -> StepRecord:
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


class EpisodeRecorder:
    """Keeps the episode in memory and, given a folder, writes it as it goes."""

    def __init__(self, folder: Path | None, agent: str | None = None, golden_path: str | None = None) -> None:
        self.folder = folder
        self.agent, self.golden_path = agent, golden_path
        self.writer = TraceWriter(folder) if folder is not None else None
        self.trace: EpisodeTrace | None = None

    def start(self, task: TaskInstance) -> None:
        self.trace = EpisodeTrace(task=task, agent=self.agent, golden_path=self.golden_path)
        if self.writer is not None:
            self.writer.start(task, agent=self.agent, golden_path=self.golden_path)

    def add(self, step: StepRecord, screenshot: np.ndarray | None) -> None:
        if self.trace is None:
            raise RuntimeError("EpisodeRecorder.add() before start()")
        if self.writer is not None:
            step = self.writer.add_step(step, screenshot)
        self.trace.steps.append(step)

    def finish(self, end: EpisodeEnd) -> EpisodeTrace:
        if self.trace is None:
            raise RuntimeError("EpisodeRecorder.finish() before start()")
        self.trace.end = end
        if self.writer is not None:
            self.writer.finish(end)
        return self.trace

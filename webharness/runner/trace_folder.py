"""Scoring the episodes a ``RecordTrace`` wrapper wrote (``episode-NNNN/``), as
``webharness score`` does for a folder that is not a run's.

Each episode is scored against its task's golden traces for its seed, with the task's
spec found from the env id the trace stores (built-in, from an installed pack, or
registered: ``--tasks <folder>``). The golden traces are played by the oracle the first
time, which takes Chromium, and kept in the folder as a run keeps them
(``golden/<task>/seed-N/``), so scoring it again needs no browser.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from webharness.diagnosis.scoring import attempt_record, score_trace
from webharness.errors import RunError, UnknownTaskError
from webharness.reporting.records import EvalAttempt
from webharness.runner.run_folder import RunFolder
from webharness.spec.catalogue import get_task
from webharness.spec.task_spec import TaskSpec
from webharness.trace.io import load_trace
from webharness.trace.models import EpisodeTrace

if TYPE_CHECKING:
    from webharness.envs import WebEvalEnv

EPISODES = "episode-*"  # the folders RecordTrace writes, one an episode
UNNAMED_AGENT = "recorded"  # the runner of an episode recorded without an agent name


def episode_folders(root: Path) -> list[Path]:
    """The episode folders of a RecordTrace folder, in the order they were written."""
    return sorted(p for p in root.glob(EPISODES) if (p / "meta.json").is_file())


def is_trace_folder(root: Path) -> bool:
    """Whether ``root`` holds episodes that RecordTrace wrote."""
    return bool(episode_folders(root))


def score_trace_folder(root: Path) -> list[EvalAttempt]:
    """Score every episode of a RecordTrace folder (see the module's docstring).

    Returns:
        One attempt per episode; its ``runner`` is the agent the trace names, its
        ``trace_dir`` the episode's folder name.

    Raises:
        RunError: an episode's task is not in the catalogue (register its folder).
        TraceError: an episode cannot be read.
    """
    folder = RunFolder(root)
    attempts = []
    with _Goldens(folder) as goldens:
        for episode in episode_folders(folder.root):
            trace = load_trace(episode)
            spec = _spec(trace, episode)
            score = score_trace(trace, goldens.of(spec, trace.task.seed), spec=spec)
            runner = trace.agent or UNNAMED_AGENT
            attempts.append(attempt_record(trace, score, runner=runner, trace_dir=episode.name))
    return attempts


def _spec(trace: EpisodeTrace, episode: Path) -> TaskSpec:
    try:
        return get_task(trace.task.env_id)
    except UnknownTaskError:
        raise RunError(
            f"{episode} is an episode of {trace.task.env_id}, which is not registered here: "
            f"pass the folder of its task.yaml, e.g. webharness score {episode.parent} "
            f"--tasks <task folder> (or {trace.task.env_id.partition('/')[0]}=<task folder> "
            "for its namespace)"
        ) from None


class _Goldens:
    """The golden traces of each task and seed: saved in the folder, or played now on a
    clean env of the spec (the last task's env kept, one browser for all of them)."""

    def __init__(self, folder: RunFolder) -> None:
        self.folder = folder
        self.env: WebEvalEnv | None = None
        self._browser: ExitStack | None = None

    def of(self, spec: TaskSpec, seed: int | None) -> list[EpisodeTrace]:
        if seed is None or not spec.golden_paths:  # no seed: its parameters are unknown
            return []

        def record(into: Path) -> None:
            from webharness.golden.play import golden_traces

            golden_traces(self._env(spec), seed, into, screenshots=False)

        return self.folder.goldens(spec.env_id, seed, record)

    def _env(self, spec: TaskSpec) -> WebEvalEnv:
        from webharness.browser.shared import keep_browser
        from webharness.envs import WebEvalEnv

        if self.env is not None and self.env.task_spec != spec:
            self.env.close()
            self.env = None
        if self._browser is None:
            self._browser = ExitStack()
            self._browser.enter_context(keep_browser())
        if self.env is None:
            self.env = WebEvalEnv(spec, obs_mode="text")
        return self.env

    def __enter__(self) -> _Goldens:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.env is not None:
            self.env.close()
        if self._browser is not None:
            self._browser.close()

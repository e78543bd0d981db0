"""A run folder on disk: where each of a run's files lives, and how it is written.

::

    <run>/results.jsonl                                  one line per finished episode
    <run>/manifest.json                                  the config, versions, machine
    <run>/episodes/<agent>/<task>/<stack>/seed-N-tT/     each agent episode's trace
    <run>/golden/<task>/seed-N/<path>/                   the task's golden traces
    <run>/summary.json, report.md, report.html           the report (``report_run``)
    <run>/rescored.jsonl                                 ``webharness score``
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webharness.agents.specs import identity_changes
from webharness.errors import RunError, WebHarnessError
from webharness.reporting.costs import PriceTable
from webharness.reporting.records import AttemptKey, EvalAttempt, append_attempt, read_attempts
from webharness.reporting.splits import Split
from webharness.runner.config import RunConfig
from webharness.runner.jobs import EpisodeJob
from webharness.trace.io import TraceError, load_traces_in
from webharness.trace.models import EpisodeTrace

if TYPE_CHECKING:
    from webharness.reporting.summary import Summary
    from webharness.reporting.timelines import EpisodeView


class RunFolder:
    """The one place that knows a run folder's layout.

    The runner appends to it, workers write traces and golden traces into it, and
    ``rescore``, ``report_run`` and the ``webharness`` command read it back.

    Example:
        >>> folder = RunFolder("runs/latest")
        >>> folder.results
        PosixPath('runs/latest/results.jsonl')
        >>> folder.golden_dir("WebEval/form-v0", 3)
        PosixPath('runs/latest/golden/form-v0/seed-3')
    """

    RESULTS = "results.jsonl"
    MANIFEST = "manifest.json"
    RESCORED = "rescored.jsonl"

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def __fspath__(self) -> str:  # a RunFolder goes wherever a run folder's path does
        return str(self.root)

    def __repr__(self) -> str:
        return f"RunFolder({str(self.root)!r})"

    @classmethod
    def existing(cls, root: str | os.PathLike[str]) -> RunFolder:
        """The run folder at ``root``, which a run must have made.

        Raises:
            RunError: ``root`` holds no ``results.jsonl``.
        """
        folder = cls(root)
        if not folder.results.is_file():
            raise RunError(
                f"{folder.root} is not a run folder: it has no {cls.RESULTS} "
                f"(made by `webharness run`)"
            )
        return folder

    @property
    def results(self) -> Path:
        """``results.jsonl``: one line per finished episode, appended as each ends."""
        return self.root / self.RESULTS

    @property
    def manifest(self) -> Path:
        """``manifest.json``: the run's config, package versions and machine."""
        return self.root / self.MANIFEST

    @property
    def rescored(self) -> Path:
        """``rescored.jsonl``: the attempts re-scored offline by ``webharness score``."""
        return self.root / self.RESCORED

    # --- episodes ---------------------------------------------------------------------------
    @staticmethod
    def trace_dir(job: EpisodeJob) -> str:
        """The job's episode folder relative to the run (``EvalAttempt.trace_dir``)."""
        stack = job.perturbations.replace(",", "+").replace("@", "-") or "clean"
        name = job.env_id.removeprefix("WebEval/")
        return f"episodes/{_safe(job.agent)}/{name}/{stack}/seed-{job.seed}-t{job.trial}"

    def episode_dir(self, trace_dir: str) -> Path:
        """The folder of an episode recorded with this ``trace_dir``."""
        return self.root / trace_dir

    # --- golden traces ----------------------------------------------------------------------
    @property
    def golden_root(self) -> Path:
        """``golden/``: every task's golden traces (another run on the same tasks can reuse it)."""
        return self.root / "golden"

    def golden_dir(self, env_id: str, seed: int) -> Path:
        """The folder of a task's golden traces for one seed, a subfolder per golden path."""
        return self.golden_root / env_id.removeprefix("WebEval/") / f"seed-{seed}"

    def load_goldens(self, env_id: str, seed: int) -> list[EpisodeTrace]:
        """The golden traces saved for this task and seed; none when there are none.

        Raises:
            TraceError: a saved golden trace cannot be read.
        """
        folder = self.golden_dir(env_id, seed)
        return load_traces_in(folder) if folder.is_dir() else []

    def goldens(
        self, env_id: str, seed: int, record: Callable[[Path], object]
    ) -> list[EpisodeTrace]:
        """The saved golden traces for this task and seed, recorded first when missing.

        Args:
            env_id: the task's env id.
            seed: the episode seed.
            record: writes the golden traces into the folder it is given.
        """
        folder = self.golden_dir(env_id, seed)
        if folder.is_dir():
            try:
                return load_traces_in(folder)
            except TraceError:
                shutil.rmtree(folder, ignore_errors=True)  # half-made by a killed run: redo
        # Workers may record the same goldens at once: each writes its own folder and the
        # first rename wins; the others' copies are dropped.
        scratch = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
        shutil.rmtree(scratch, ignore_errors=True)
        record(scratch)
        scratch.mkdir(parents=True, exist_ok=True)  # a task without golden paths: none, kept
        try:
            os.rename(scratch, folder)
        except OSError:
            shutil.rmtree(scratch, ignore_errors=True)
        return load_traces_in(folder)

    # --- results ----------------------------------------------------------------------------
    def read_attempts(self) -> list[EvalAttempt]:
        """Every attempt in ``results.jsonl`` (none before the first episode ends)."""
        return read_attempts(self.results)

    def done_keys(self) -> set[AttemptKey]:
        """The keys of the episodes already recorded, which a resumed run skips."""
        return {attempt.key() for attempt in self.read_attempts()}

    def append(self, attempt: EvalAttempt) -> None:
        """Append one finished episode to ``results.jsonl``.

        Raises:
            RunError: the line cannot be written (a full disk, a read-only folder).
        """
        with self.writing(f"appending to {self.results}"):
            append_attempt(self.results, attempt)

    def prepare(self, config: RunConfig, episodes: int) -> None:
        """Make each agent once (to try its options), check that the agents which already
        have episodes here are the same (a resumed run), make the folder, drop a torn last
        result line, and write the manifest.

        Raises:
            RunError: an agent with episodes here has changed (another model, other
                options), or the folder cannot be written.
            ConfigError: an agent refuses its options.
            AgentUnavailableError: an agent cannot act at all (an LLM without a key).
        """
        from webharness.runner.agent_specs import agent_identities

        agents = agent_identities(config.agents, config.agent_options)
        before = self._read_manifest()
        self._check_same_agents(before.get("agents", {}), agents)
        with self.writing(f"preparing the run folder {self.root}"):
            self.root.mkdir(parents=True, exist_ok=True)
            self._drop_torn_line()
            self._write_manifest(config, episodes, before, agents)

    def price_table(self) -> PriceTable:
        """The prices the run was given (none when its manifest names none)."""
        return PriceTable.model_validate(self._read_manifest().get("prices", {}))

    def splits(self) -> list[Split]:
        """The splits of the run's config (none for a run made without ``--split``)."""
        config = self._read_manifest().get("config", {})
        return [Split.model_validate(split) for split in config.get("splits", [])]

    def _read_manifest(self) -> dict[str, Any]:
        try:
            manifest = json.loads(self.manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, or torn: nothing to compare with
            return {}
        return manifest if isinstance(manifest, dict) else {}

    def _check_same_agents(
        self, before: dict[str, dict[str, Any]], now: dict[str, dict[str, Any]]
    ) -> None:
        """Refuse to add episodes to a row whose agent changed since they were played."""
        models: dict[str, set[str | None]] = {}
        for attempt in self.read_attempts():
            models.setdefault(attempt.runner, set()).add(attempt.model)
        changed = []
        for label, identity in now.items():
            if label not in models:
                continue  # no episode yet: nothing to mix with
            # A manifest from before identities were kept: the results' models tell.
            was = before.get(label) or {**identity, "model": _only(models[label])}
            changes = identity_changes(was, identity)
            if changes:
                changed.append((label, identity, changes))
        if changed:
            raise RunError(_changed_agents(self.root, changed))

    def _drop_torn_line(self) -> None:
        """Cut a last line a killed run left half-written, so the next append starts clean."""
        if not self.results.is_file():
            return
        with self.results.open("rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)

    def _write_manifest(
        self,
        config: RunConfig,
        episodes: int,
        before: dict[str, Any],
        agents: dict[str, dict[str, Any]],
    ) -> None:
        import gymnasium as gym
        import playwright

        import webharness

        manifest = {
            "config": config.model_dump(),
            "episodes": episodes,
            "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "versions": {
                "webharness": webharness.__version__,
                "python": platform.python_version(),
                "gymnasium": gym.__version__,
                "playwright": getattr(playwright, "__version__", "unknown"),
            },
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
            # Every agent that played here, as made: what a resumed run must match.
            "agents": {**before.get("agents", {}), **agents},
            "prices": _merged_prices(before.get("prices", {}), config.price_table()),
        }
        if self.manifest.exists():  # a resumed run says which start it continues
            manifest["resumed_from"] = before.get("started_at")
        tmp = self.manifest.with_suffix(".tmp")
        tmp.write_text(json.dumps(manifest, indent=2, default=str))
        os.replace(tmp, self.manifest)

    @contextmanager
    def writing(self, doing: str) -> Iterator[None]:
        """Where the run writes its outputs: a write that fails there (a full disk, a
        read-only folder) stops the run with the RunError of ``storage_error``.

        A short write of a trace is a TraceError. The harness's own errors pass unchanged,
        though some are OSErrors as well (BrowserNotFoundError): they are not the disk's.
        """
        try:
            yield
        except TraceError as exc:
            raise self.storage_error(doing, exc) from exc
        except WebHarnessError:
            raise
        except OSError as exc:
            raise self.storage_error(doing, exc) from exc

    @staticmethod
    def storage_error(doing: str, exc: OSError | TraceError) -> RunError:
        """The error that stops a run which cannot write its outputs; what it finished is kept."""
        cause = getattr(exc, "strerror", None) or exc
        return RunError(
            f"stopped: {doing} failed ({cause}). Every finished episode is kept in "
            f"{RunFolder.RESULTS}; fix the disk (space, permissions) and run again with "
            f"--resume to do the rest."
        )

    # --- what is made from the results ------------------------------------------------------
    def write_rescored(self, attempts: list[EvalAttempt]) -> Path:
        """Write re-scored attempts to ``rescored.jsonl`` (``results.jsonl`` stays as it is)."""
        self.rescored.write_text(
            "".join(a.model_dump_json() + "\n" for a in attempts), encoding="utf-8"
        )
        return self.rescored

    def write_report(
        self,
        attempts: list[EvalAttempt],
        summary: Summary,
        episodes: dict[AttemptKey, EpisodeView],
        max_episodes: int,
    ) -> dict[str, Path]:
        """Write ``summary.json``, ``report.md`` and ``report.html`` into the folder.

        Returns:
            ``{"json": ..., "markdown": ..., "html": ...}`` paths of the written files.
        """
        from webharness.reporting.render import write_report

        return write_report(self.root, attempts, summary, episodes, max_episodes=max_episodes)


def _only(models: set[str | None]) -> str | None:
    """The one model a row's episodes ran with (the first named, if they disagree)."""
    named = sorted(m for m in models if m)
    return named[0] if named else None


def _changed_agents(root: Path, changed: list[tuple[str, dict[str, Any], list[str]]]) -> str:
    """One line: which agents changed and how, and the two ways on."""
    from webharness.agents.specs import AgentSpec, parse_agent_spec

    said = "; ".join(f"agent {label!r} changed: {', '.join(c)}" for label, _, c in changed)
    label, identity, _ = changed[0]
    spec = parse_agent_spec(label)
    options = {**spec.options, **identity["options"]}
    if identity.get("model"):
        options["model"] = identity["model"]
    own_row = AgentSpec(name=spec.name, options=options).label
    return (
        f"--resume: {root} holds episodes of an agent that has changed since ({said}). "
        f"Resume with the agent as it was, or run the new one as its own row, e.g. "
        f"--agents '{own_row}'"
    )


def _merged_prices(before: dict[str, Any], now: PriceTable) -> dict[str, Any]:
    """A resumed run's prices: the earlier ones, with this run's on top."""
    earlier = PriceTable.model_validate(before) if before else PriceTable()
    return PriceTable(
        models={**earlier.models, **now.models}, agents={**earlier.agents, **now.agents}
    ).model_dump()


def _safe(name: str) -> str:
    """An agent label as a folder name (``module:Class`` has a colon); a label with options
    ends with a hash of it, so two labels never share a folder."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    if "[" not in name:
        return safe
    return f"{safe[:80]}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"

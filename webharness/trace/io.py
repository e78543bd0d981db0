"""Episode folders on disk: written so that a killed process never leaves a broken trace.

Layout of one episode folder::

    meta.json        task, agent, golden_path        (atomic: temp file + os.replace)
    steps.jsonl      one StepRecord per line          (each line one write + fsync)
    step_0003.png    screenshot of step 3             (atomic)
    end.json         how the episode ended            (atomic; absent if it never ended)
    trace.zip        Playwright's trace, when asked   (atomic; ``playwright show-trace trace.zip``)

>>> writer = TraceWriter(Path("runs/ep0"))                       # doctest: +SKIP
>>> writer.start(task, agent="my-agent")                         # doctest: +SKIP
>>> writer.add_step(step, screenshot=obs["screenshot"])          # doctest: +SKIP
>>> writer.finish(EpisodeEnd(terminated=True, success=True))     # doctest: +SKIP
>>> load_trace(Path("runs/ep0")).steps[0].state.url              # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import numpy as np
from PIL import Image
from pydantic import ValidationError

from webharness.errors import WebHarnessError
from webharness.trace.models import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

__all__ = ["TraceError", "TraceWriter", "load_screenshot", "load_trace"]

META, STEPS, END, PLAYWRIGHT_TRACE = "meta.json", "steps.jsonl", "end.json", "trace.zip"


class TraceError(WebHarnessError, ValueError):
    """A trace folder that cannot be written or read as asked."""


class TraceWriter:
    """Writes one episode folder step by step; usable as a context manager."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self._steps: BinaryIO | None = None

    def start(
        self, task: TaskInstance, agent: str | None = None, golden_path: str | None = None
    ) -> None:
        """Begin a fresh episode: write ``meta.json``, clear what an earlier run left."""
        self.close()
        self.folder.mkdir(parents=True, exist_ok=True)
        for stale in [
            self.folder / STEPS,
            self.folder / END,
            self.folder / PLAYWRIGHT_TRACE,
            *self.folder.glob("step_*.png"),
        ]:
            stale.unlink(missing_ok=True)
        meta = {"task": task.model_dump(mode="json"), "agent": agent, "golden_path": golden_path}
        _write_atomic(self.folder / META, json.dumps(meta, indent=1).encode())
        self._steps = open(self.folder / STEPS, "ab", buffering=0)  # raw: one write() = one syscall

    def add_step(self, step: StepRecord, screenshot: np.ndarray | None = None) -> StepRecord:
        """Append a step (and its screenshot); returns the step as recorded.

        The PNG is in place before the line that names it, and the line goes out in one
        write followed by fsync, so a crash leaves at most a truncated last line.
        """
        if self._steps is None:
            raise TraceError(
                f"add_step() outside start()..finish() on trace folder {self.folder}: "
                "call start() first"
            )
        if screenshot is not None:
            name = f"step_{step.index:04d}.png"
            _write_png_atomic(self.folder / name, screenshot)
            step = step.model_copy(update={"screenshot": name})
        line = (step.model_dump_json() + "\n").encode()
        if self._steps.write(line) != len(line):
            raise TraceError(f"short write to {self.folder / STEPS} (disk full?)")
        os.fsync(self._steps.fileno())
        return step

    def add_file(self, name: str, write: Callable[[Path], None]) -> Path:
        """Put a file into the episode folder atomically: ``write`` fills the temp path given."""
        path = self.folder / name
        _write_with(path, write)
        return path

    def finish(self, end: EpisodeEnd) -> None:
        """Record how the episode ended (``end.json``) and close the steps file."""
        self.close()
        _write_atomic(self.folder / END, end.model_dump_json(indent=1).encode())

    def close(self) -> None:
        if self._steps is not None:
            self._steps.close()
            self._steps = None

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()


def load_trace(folder: Path | str) -> EpisodeTrace:
    """Read an episode folder back into an ``EpisodeTrace``.

    A truncated last line of ``steps.jsonl`` (a process killed mid-write) is dropped;
    ``end`` is None when the episode never finished.

    Raises:
        TraceError: no ``meta.json``, or a complete line that is not a valid step.
    """
    folder = Path(folder)
    meta_path = folder / META
    if not meta_path.is_file():
        raise TraceError(f"{folder} is not a trace folder: it has no {META}")
    meta = _parse(meta_path, lambda: json.loads(meta_path.read_bytes()))
    end_path = folder / END
    return EpisodeTrace(
        task=_parse(meta_path, lambda: TaskInstance.model_validate(meta["task"])),
        steps=_read_steps(folder / STEPS),
        end=_parse(end_path, lambda: EpisodeEnd.model_validate_json(end_path.read_bytes()))
        if end_path.is_file()
        else None,
        golden_path=meta.get("golden_path"),
        agent=meta.get("agent"),
    )


def load_screenshot(folder: Path | str, step: StepRecord) -> np.ndarray | None:
    """The step's screenshot as uint8 H×W×3, or None when it has none."""
    if step.screenshot is None:
        return None
    with Image.open(Path(folder) / step.screenshot) as image:
        return np.asarray(image.convert("RGB"))


def _read_steps(path: Path) -> list[StepRecord]:
    if not path.is_file():
        return []
    lines = path.read_bytes().split(b"\n")
    lines.pop()  # b"" after the final newline, or a line cut short by a crash: drop it
    steps = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            steps.append(_parse(path, partial(StepRecord.model_validate_json, line), number))
    return steps


def _parse(path: Path, read: Any, line: int | None = None) -> Any:
    try:
        return read()
    except (ValidationError, ValueError, KeyError) as exc:
        where = f"{path}:{line}" if line else str(path)
        raise TraceError(f"{where}: not a valid trace record: {exc}") from exc


def _write_atomic(path: Path, data: bytes) -> None:
    """Write to a temp file in the same folder, fsync, then rename over ``path``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_png_atomic(path: Path, pixels: np.ndarray) -> None:
    if not (
        isinstance(pixels, np.ndarray)
        and pixels.dtype == np.uint8
        and pixels.ndim == 3
        and pixels.shape[2] == 3
    ):
        shape = getattr(pixels, "shape", None)
        raise TraceError(
            f"a screenshot must be a uint8 H×W×3 numpy array, got {type(pixels).__name__} "
            f"{getattr(pixels, 'dtype', '')} {shape}"
        )
    # compress_level=1: speed over size
    _write_with(
        path,
        lambda tmp: Image.fromarray(np.ascontiguousarray(pixels)).save(
            tmp, format="PNG", compress_level=1
        ),
    )


def _write_with(path: Path, write: Callable[[Path], None]) -> None:
    """Have ``write`` fill a temp file beside ``path``, fsync it, then rename it over ``path``."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise

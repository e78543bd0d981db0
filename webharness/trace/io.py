"""Episode folders on disk: written so that a killed process never leaves a broken trace.

Layout of one episode folder::

    meta.json        task, agent, golden_path, trace_format (atomic: temp file + os.replace)
    steps.jsonl      one StepRecord per line          (each line one write + fsync); from
                     the second step on, the state may be kept as ``state_delta``, its
                     change from the step before (``trace.deltas``), where that is smaller
    steps.jsonl.gz   in place of steps.jsonl once a golden trace is recorded (``pack_steps``:
                     gzip, 8x smaller; such a trace is never appended to again)
    step_0003.webp   screenshot of step 3             (atomic; format: ``trace.frames``)
    end.json         how the episode ended            (atomic; absent if it never ended)
    trace.zip        Playwright's trace, when asked   (atomic; ``playwright show-trace trace.zip``)

>>> writer = TraceWriter(Path("runs/ep0"))                       # doctest: +SKIP
>>> writer.start(task, agent="my-agent")                         # doctest: +SKIP
>>> writer.add_step(step, screenshot=obs["screenshot"])          # doctest: +SKIP
>>> writer.finish(EpisodeEnd(terminated=True, success=True))     # doctest: +SKIP
>>> load_trace(Path("runs/ep0")).steps[0].state.url              # doctest: +SKIP

Formats 1 (before 0.3: PNG frames, every state whole) and 2 (no packed steps) are read
the same way.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import numpy as np
from PIL import Image
from pydantic import ValidationError

from webharness.errors import WebHarnessError
from webharness.trace.atomic import write_atomic, write_with
from webharness.trace.deltas import apply_delta, json_delta
from webharness.trace.frames import AGENT_FRAMES, FrameCodec
from webharness.trace.models import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

__all__ = [
    "TraceError",
    "TraceWriter",
    "keep_frames_of",
    "load_screenshot",
    "load_trace",
    "load_traces_in",
    "pack_steps",
]

META, STEPS, END, PLAYWRIGHT_TRACE = "meta.json", "steps.jsonl", "end.json", "trace.zip"
PACKED_STEPS = STEPS + ".gz"
# 1: PNG frames and whole states (no ``trace_format`` in meta.json); 2: steps never packed
TRACE_FORMAT = 3


class TraceError(WebHarnessError, ValueError):
    """A trace folder that cannot be written or read as asked."""


class TraceWriter:
    """Writes one episode folder step by step; usable as a context manager.

    Frames are encoded and lines written on a thread of the writer's own, in the order
    given, so the step path only hands them over. An error there (a full disk) is raised
    by the next ``add_step`` or by ``finish``. A frame equal to the step before's is not
    written again: the step names the earlier file.
    """

    def __init__(self, folder: Path | str, frames: FrameCodec = AGENT_FRAMES) -> None:
        self.folder = Path(folder)
        self.frames = frames
        self._steps: BinaryIO | None = None
        self._background: ThreadPoolExecutor | None = None
        self._last_work: Future[None] | None = None
        self._error: BaseException | None = None
        self._last_frame: tuple[np.ndarray, str] | None = None  # pixels, file name
        self._last_state: dict[str, Any] | None = None  # as JSON, for the next step's delta

    def start(
        self, task: TaskInstance, agent: str | None = None, golden_path: str | None = None
    ) -> None:
        """Begin a fresh episode: write ``meta.json``, clear what an earlier run left."""
        self.close()
        self.folder.mkdir(parents=True, exist_ok=True)
        for stale in [
            self.folder / STEPS,
            self.folder / PACKED_STEPS,
            self.folder / END,
            self.folder / PLAYWRIGHT_TRACE,
            *self.folder.glob("step_*.*"),
        ]:
            stale.unlink(missing_ok=True)
        meta = {
            "task": task.model_dump(mode="json"),
            "agent": agent,
            "golden_path": golden_path,
            "trace_format": TRACE_FORMAT,
        }
        write_atomic(self.folder / META, json.dumps(meta, indent=1).encode())
        self._steps = open(self.folder / STEPS, "ab", buffering=0)  # raw: one write() = one syscall
        self._background = ThreadPoolExecutor(1, thread_name_prefix="trace-writer")
        self._error, self._last_frame, self._last_state = None, None, None

    def add_step(self, step: StepRecord, screenshot: np.ndarray | None = None) -> StepRecord:
        """Append a step (and its screenshot); returns the step as recorded.

        The frame is in place before the line that names it, and the line goes out in one
        write followed by fsync, so a crash leaves at most a truncated last line.
        """
        if self._steps is None or self._background is None:
            raise TraceError(
                f"add_step() outside start()..finish() on trace folder {self.folder}: "
                "call start() first"
            )
        self._raise_error()
        if screenshot is not None:
            step = step.model_copy(update={"screenshot": self._frame(step.index, screenshot)})
        self._submit(self._write_line, step)
        return step

    def flush(self) -> None:
        """Wait until every step handed over is on disk (raising what went wrong there)."""
        if self._last_work is not None:
            self._last_work.result()
        self._raise_error()

    def add_file(self, name: str, write: Callable[[Path], None]) -> Path:
        """Put a file into the episode folder atomically: ``write`` fills the temp path given."""
        path = self.folder / name
        write_with(path, write)
        return path

    def finish(self, end: EpisodeEnd) -> None:
        """Wait for the steps to be written, record how the episode ended, close the file.

        How it ended goes to ``end.json``.
        """
        self.close()
        self._raise_error()
        write_atomic(self.folder / END, end.model_dump_json(indent=1).encode())

    def close(self) -> None:
        """Wait for what is handed over to be written, and close the steps file."""
        if self._background is not None:
            self._background.shutdown(wait=True)
            self._background, self._last_work = None, None
        if self._steps is not None:
            self._steps.close()
            self._steps = None

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def _frame(self, index: int, pixels: np.ndarray) -> str:
        """The file name of this step's frame.

        The step before's when the pixels are the same, else a new file, written in the
        background.
        """
        _check_frame(pixels)
        last = self._last_frame
        if last is not None and last[0].shape == pixels.shape and np.array_equal(last[0], pixels):
            return last[1]
        name = self.frames.file_name(index)
        self._last_frame = (pixels, name)
        self._submit(self.frames.write, pixels, self.folder, index)
        return name

    def _write_line(self, step: StepRecord) -> None:
        record = step.model_dump(mode="json", exclude={"state"})
        state = step.state.model_dump(mode="json")
        key, text = "state", _compact(state)
        if self._last_state is not None:
            delta = _compact(json_delta(self._last_state, state))
            if len(delta) < len(text):
                key, text = "state_delta", delta
        self._last_state = state
        # Each serialised once: the record's own fields, then the state or its change last.
        line = f'{_compact(record)[:-1]},"{key}":{text}}}\n'.encode()
        assert self._steps is not None  # open until the background is shut down
        if self._steps.write(line) != len(line):
            raise TraceError(f"short write to {self.folder / STEPS} (disk full?)")
        os.fsync(self._steps.fileno())

    def _submit(self, work: Callable[..., Any], *args: Any) -> None:
        assert self._background is not None  # add_step checked it
        self._last_work = self._background.submit(self._in_order, work, *args)

    def _in_order(self, work: Callable[..., Any], *args: Any) -> None:
        """Run one piece of background work, unless an earlier one failed.

        After a failure the folder would hold a line naming a frame that is not there.
        """
        if self._error is not None:
            return
        try:
            work(*args)
        except BaseException as exc:  # kept for the step path to raise
            self._error = exc

    def _raise_error(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            raise error


def load_traces_in(folder: Path) -> list[EpisodeTrace]:
    """The traces in ``folder``'s subfolders, by name (a task's golden traces, one per path).

    Raises:
        TraceError: a subfolder is not a trace that can be read.
    """
    return [load_trace(p) for p in sorted(folder.iterdir()) if p.is_dir()]


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
        steps=_read_steps(folder),
        end=_parse(end_path, lambda: EpisodeEnd.model_validate_json(end_path.read_bytes()))
        if end_path.is_file()
        else None,
        golden_path=meta.get("golden_path"),
        agent=meta.get("agent"),
    )


def keep_frames_of(folder: Path | str, steps: set[int]) -> int:
    """Drop the frames of every step but ``steps`` from a finished episode folder.

    The steps' lines then say they have none. Returns how many files were removed.
    """
    folder = Path(folder)
    path, text = _steps_text(folder)
    lines = [json.loads(line) for line in text.splitlines() if line]
    for record in lines:
        if record["index"] not in steps:
            record["screenshot"] = None
    kept_lines = "".join(_compact(record) + "\n" for record in lines).encode()
    write_atomic(path, _gzip(kept_lines) if path.name == PACKED_STEPS else kept_lines)
    kept = {record["screenshot"] for record in lines}
    dropped = [p for p in folder.glob("step_*.*") if p.name not in kept]
    for path in dropped:
        path.unlink()
    return len(dropped)


def load_screenshot(folder: Path | str, step: StepRecord) -> np.ndarray | None:
    """The step's screenshot as uint8 H×W×3, or None when it has none."""
    if step.screenshot is None:
        return None
    with Image.open(Path(folder) / step.screenshot) as image:
        return np.asarray(image.convert("RGB"))


def pack_steps(folder: Path | str) -> None:
    """Replace a finished trace's ``steps.jsonl`` with ``steps.jsonl.gz``.

    The same lines: a golden trace's 19 kB of states on a form page becomes 2.4 kB. A crash
    between the two leaves both, and the packed one is read.
    """
    folder = Path(folder)
    if (folder / STEPS).is_file():
        write_atomic(folder / PACKED_STEPS, _gzip((folder / STEPS).read_bytes()))
        (folder / STEPS).unlink()


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)  # no time stamp: equal steps give equal bytes


def _steps_text(folder: Path) -> tuple[Path, bytes]:
    """The steps file of an episode folder (packed or not) and its lines; b"" for none."""
    packed = folder / PACKED_STEPS
    if packed.is_file():
        try:
            return packed, gzip.decompress(packed.read_bytes())
        except (gzip.BadGzipFile, EOFError) as exc:
            raise TraceError(f"{packed}: not a valid gzip file of steps: {exc}") from exc
    path = folder / STEPS
    return path, path.read_bytes() if path.is_file() else b""


def _read_steps(folder: Path) -> list[StepRecord]:
    path, text = _steps_text(folder)
    lines = text.split(b"\n")
    lines.pop()  # b"" after the final newline, or a line cut short by a crash: drop it
    steps: list[StepRecord] = []
    state: Any = None  # the step before's, as JSON: a line may hold only its change
    for number, line in enumerate(lines, start=1):
        if line.strip():
            record = _parse(path, partial(json.loads, line), number)
            if "state_delta" in record:
                if state is None:
                    raise TraceError(f"{path}:{number}: a state change with no state before it")
                record["state"] = _parse(
                    path, partial(apply_delta, state, record.pop("state_delta")), number
                )
            state = record.get("state")
            steps.append(_parse(path, partial(StepRecord.model_validate, record), number))
    return steps


def _parse(path: Path, read: Any, line: int | None = None) -> Any:
    try:
        return read()
    except (ValidationError, ValueError, KeyError) as exc:
        where = f"{path}:{line}" if line else str(path)
        raise TraceError(f"{where}: not a valid trace record: {exc}") from exc


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _check_frame(pixels: Any) -> None:
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

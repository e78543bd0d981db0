"""Episode folders: write, crash, load back, align."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from webharness.action_result import ActionResult
from webharness.diagnosis.alignment import align
from webharness.semantic import Element, SemanticState
from webharness.trace.frames import FrameCodec
from webharness.trace.io import (
    END,
    META,
    PACKED_STEPS,
    STEPS,
    TraceError,
    TraceWriter,
    keep_frames_of,
    load_screenshot,
    load_trace,
    pack_steps,
)
from webharness.trace.models import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

TASK = TaskInstance(
    task_id="form",
    env_id="WebEval/form-v0",
    category="form",
    seed=3,
    instruction="Save Ada",
    params={"name": "Ada"},
)
FIELDS = ["Full name", "Email", "Phone"]


def form_trace(
    values: list[str], ref_base: int = 0, golden_path: str | None = None
) -> EpisodeTrace:
    """Fill the form field by field with ``values``; refs numbered from ``ref_base``."""

    def state(filled: list[str]) -> SemanticState:
        elements = [
            Element(
                ref=f"e{ref_base + i}",
                role="textbox",
                name=name,
                value=filled[i] if i < len(filled) else "",
            )
            for i, name in enumerate(FIELDS)
        ]
        return SemanticState(url="http://webeval.test/form.html", title="Form", elements=elements)

    steps = [StepRecord(index=0, state=state([]))]
    for i, value in enumerate(values):
        steps.append(
            StepRecord(
                index=i + 1,
                action=f"fill('e{ref_base + i}', {value!r})",
                action_result=ActionResult(state_changed=True),
                state=state(values[: i + 1]),
                reward=0.1 * i,
                timings_ms={"step": 40.0 + i},
            )
        )
    return EpisodeTrace(task=TASK, steps=steps, golden_path=golden_path, agent="scripted")


LOSSLESS = FrameCodec("png")


def write(
    folder: Path,
    trace: EpisodeTrace,
    end: EpisodeEnd | None,
    shots: bool = True,
    frames: FrameCodec = LOSSLESS,
) -> list[np.ndarray]:
    pixels = [np.full((6, 8, 3), 40 * i, dtype=np.uint8) for i in range(len(trace.steps))]
    writer = TraceWriter(folder, frames)
    writer.start(trace.task, agent=trace.agent, golden_path=trace.golden_path)
    for step, image in zip(trace.steps, pixels):
        writer.add_step(step, image if shots else None)
    if end is not None:
        writer.finish(end)
    writer.close()
    return pixels


def test_written_trace_loads_back_into_equal_models(tmp_path: Path) -> None:
    trace = form_trace(["Ada", "ada@example.org", "123"], golden_path="main")
    end = EpisodeEnd(terminated=True, success=True, ended_by="done")
    pixels = write(tmp_path, trace, end)
    loaded = load_trace(tmp_path)
    named = [s.model_copy(update={"screenshot": f"step_{s.index:04d}.png"}) for s in trace.steps]
    assert loaded == trace.model_copy(update={"steps": named, "end": end})
    for step, image in zip(loaded.steps, pixels):
        assert np.array_equal(load_screenshot(tmp_path, step), image)


def test_unfinished_episode_loads_with_no_end(tmp_path: Path) -> None:
    write(tmp_path, form_trace(["Ada"]), end=None, shots=False)
    loaded = load_trace(tmp_path)
    assert loaded.end is None
    assert [s.screenshot for s in loaded.steps] == [None, None]
    assert load_screenshot(tmp_path, loaded.steps[0]) is None


@pytest.mark.parametrize("cut", [1, 7, 40])
def test_truncated_last_line_is_dropped_and_earlier_lines_load(tmp_path: Path, cut: int) -> None:
    trace = form_trace(["Ada", "ada@example.org", "123"])
    write(tmp_path, trace, end=None, shots=False)
    steps = tmp_path / STEPS
    data = steps.read_bytes()
    steps.write_bytes(data[: len(data) - cut])  # a kill in the middle of the last write
    assert load_trace(tmp_path).steps == trace.steps[:-1]


def test_corrupt_line_in_the_middle_is_an_error_naming_the_line(tmp_path: Path) -> None:
    write(tmp_path, form_trace(["Ada", "ada@example.org"]), end=None, shots=False)
    lines = (tmp_path / STEPS).read_bytes().split(b"\n")
    lines[1] = b'{"index": "not a step"'
    (tmp_path / STEPS).write_bytes(b"\n".join(lines))
    with pytest.raises(TraceError, match=r"steps\.jsonl:2"):
        load_trace(tmp_path)


CHILD = """
import sys
from pathlib import Path
from webharness.semantic import SemanticState
from webharness.trace.models import StepRecord, TaskInstance
from webharness.trace.io import TraceWriter
writer = TraceWriter(Path(sys.argv[1]))
writer.start(TaskInstance.model_validate_json(sys.argv[2]))
for i in range(100_000):
    writer.add_step(StepRecord(index=i, state=SemanticState(url="http://x/", text=str(i) * 5000)))
    writer.flush()
    print(i, flush=True)
"""


def test_killed_writer_leaves_a_loadable_trace(tmp_path: Path) -> None:
    """A writer process SIGKILLed mid-episode: every line on disk is whole (or dropped)."""
    repo = Path(__file__).resolve().parents[2]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path), TASK.model_dump_json()],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for line in proc.stdout:  # wait on the writer's own progress reports, no sleeping
            if int(line) >= 20:
                break
    finally:
        proc.send_signal(signal.SIGKILL)  # while it keeps writing
        proc.communicate()
    steps = load_trace(tmp_path).steps
    assert len(steps) >= 21
    assert [s.index for s in steps] == list(range(len(steps)))


def test_written_loaded_and_aligned_equals_aligned_in_memory(tmp_path: Path) -> None:
    golden = form_trace(["Ada", "ada@example.org", "123"], golden_path="main")
    agent = form_trace(["Ada", "ada@example", "ada@example.org", "123"], ref_base=50)
    write(tmp_path / "golden", golden, EpisodeEnd(terminated=True, success=True))
    write(tmp_path / "agent", agent, EpisodeEnd(truncated=True, ended_by="max_steps"))
    on_disk = align(load_trace(tmp_path / "agent"), load_trace(tmp_path / "golden"))
    in_memory = align(agent, golden)
    assert on_disk == in_memory
    assert on_disk.first_divergence_step is not None  # a non-trivial alignment


def test_metadata_and_end_are_written_atomically_without_leftovers(tmp_path: Path) -> None:
    write(tmp_path, form_trace(["Ada"]), EpisodeEnd(terminated=True))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted([META, STEPS, END, "step_0000.png", "step_0001.png"])
    assert json.loads((tmp_path / META).read_text())["task"]["task_id"] == "form"


def test_each_step_line_is_complete_once_flushed(tmp_path: Path) -> None:
    trace = form_trace(["Ada", "ada@example.org"])
    writer = TraceWriter(tmp_path)
    writer.start(TASK)
    for n, step in enumerate(trace.steps, start=1):
        writer.add_step(step)
        writer.flush()
        data = (tmp_path / STEPS).read_bytes()
        assert data.endswith(b"\n") and data.count(b"\n") == n
    writer.close()


def test_start_clears_what_an_earlier_run_left_in_the_folder(tmp_path: Path) -> None:
    write(tmp_path, form_trace(["Ada", "ada@example.org"]), EpisodeEnd(terminated=True))
    fresh = form_trace(["Bob"])
    write(tmp_path, fresh, end=None, shots=False)
    loaded = load_trace(tmp_path)
    assert (loaded.steps, loaded.end) == (fresh.steps, None)
    assert not list(tmp_path.glob("step_*.png"))


def test_add_step_before_start_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="outside start"):
        TraceWriter(tmp_path).add_step(form_trace([]).steps[0])


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((4, 4), np.uint8),
        np.zeros((4, 4, 4), np.uint8),
        np.zeros((4, 4, 3), np.float32),
        [[0, 0, 0]],
    ],
)
def test_screenshot_must_be_uint8_rgb(tmp_path: Path, bad: object) -> None:
    writer = TraceWriter(tmp_path)
    writer.start(TASK)
    with pytest.raises(TraceError, match="uint8"):
        writer.add_step(form_trace([]).steps[0], bad)  # type: ignore[arg-type]
    writer.close()
    assert not list(tmp_path.glob("*.png")) and not list(tmp_path.glob(".*.tmp"))


def test_folder_without_meta_is_not_a_trace(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="not a trace folder"):
        load_trace(tmp_path)


def test_writer_closes_its_file_as_a_context_manager(tmp_path: Path) -> None:
    with TraceWriter(tmp_path) as writer:
        writer.start(TASK)
        writer.add_step(form_trace([]).steps[0])
    with pytest.raises(TraceError, match="outside start"):
        writer.add_step(form_trace([]).steps[0])


def test_states_after_the_first_are_kept_as_changes_and_load_back_equal(tmp_path: Path) -> None:
    trace = form_trace(["Ada", "ada@example.org", "123"])
    write(tmp_path, trace, EpisodeEnd(terminated=True), shots=False)
    lines = [json.loads(line) for line in (tmp_path / STEPS).read_text().splitlines()]
    assert "state" in lines[0] and all("state_delta" in line for line in lines[1:])
    whole = len(trace.steps[1].state.model_dump_json())
    assert len(json.dumps(lines[1]["state_delta"])) < whole / 3
    assert load_trace(tmp_path).steps == trace.steps


def test_a_frame_equal_to_the_one_before_is_stored_once(tmp_path: Path) -> None:
    trace = form_trace(["Ada", "ada@example.org"])
    same = np.full((6, 8, 3), 90, np.uint8)
    writer = TraceWriter(tmp_path, LOSSLESS)
    writer.start(trace.task)
    for step in trace.steps:
        writer.add_step(step, same.copy())
    writer.finish(EpisodeEnd(terminated=True))
    loaded = load_trace(tmp_path)
    assert [s.screenshot for s in loaded.steps] == ["step_0000.png"] * 3
    assert sorted(p.name for p in tmp_path.glob("step_*")) == ["step_0000.png"]
    assert all(np.array_equal(load_screenshot(tmp_path, s), same) for s in loaded.steps)


def test_frames_are_webp_by_default_and_close_to_what_the_agent_saw(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    page = np.repeat(np.repeat(rng.integers(0, 256, (18, 32, 3), np.uint8), 40, 0), 40, 1)
    writer = TraceWriter(tmp_path)
    writer.start(TASK)
    step = writer.add_step(form_trace([]).steps[0], page)
    writer.finish(EpisodeEnd(terminated=True))
    assert step.screenshot == "step_0000.webp"
    shown = load_screenshot(tmp_path, load_trace(tmp_path).steps[0]).astype(int)
    assert shown.shape == page.shape and np.abs(shown - page).mean() < 4


def test_keeping_some_steps_frames_drops_the_others_and_the_trace_still_loads(
    tmp_path: Path,
) -> None:
    trace = form_trace(["Ada", "ada@example.org", "123"])
    write(tmp_path, trace, EpisodeEnd(terminated=True))
    assert keep_frames_of(tmp_path, {0, 3}) == 2
    loaded = load_trace(tmp_path)
    assert [s.screenshot for s in loaded.steps] == ["step_0000.png", None, None, "step_0003.png"]
    assert sorted(p.name for p in tmp_path.glob("step_*")) == ["step_0000.png", "step_0003.png"]
    assert [s.state for s in loaded.steps] == [s.state for s in trace.steps]


def test_a_full_disk_under_the_writer_is_raised_on_the_step_path(tmp_path: Path) -> None:
    """The frame is encoded on the writer's thread; its error reaches the episode."""
    writer = TraceWriter(tmp_path, LOSSLESS)
    writer.start(TASK)
    steps = form_trace(["Ada", "ada@example.org"]).steps
    writer.add_step(steps[0], np.zeros((6, 8, 3), np.uint8))
    (tmp_path / "step_0001.png").mkdir()  # where the next frame must go: its rename fails
    writer.add_step(steps[1], np.ones((6, 8, 3), np.uint8))
    with pytest.raises(OSError):
        writer.finish(EpisodeEnd(terminated=True))
    assert [s.index for s in load_trace(tmp_path).steps] == [0]  # no line names a lost frame


def test_packed_steps_load_back_equal_and_keep_their_frames_dropped(tmp_path: Path) -> None:
    trace = form_trace(["Ada", "ada@example.org", "123"], golden_path="main")
    write(tmp_path, trace, EpisodeEnd(terminated=True, success=True))
    plain = load_trace(tmp_path)
    size = (tmp_path / STEPS).stat().st_size
    pack_steps(tmp_path)
    assert not (tmp_path / STEPS).exists() and (tmp_path / PACKED_STEPS).stat().st_size < size
    assert load_trace(tmp_path) == plain
    assert keep_frames_of(tmp_path, {0}) == 3
    assert [s.screenshot for s in load_trace(tmp_path).steps] == ["step_0000.png", None, None, None]
    assert [s.state for s in load_trace(tmp_path).steps] == [s.state for s in trace.steps]


def test_packed_steps_win_over_plain_ones_left_by_a_crash_and_a_new_start_clears_them(
    tmp_path: Path,
) -> None:
    write(tmp_path, form_trace(["Ada", "ada@example.org"]), EpisodeEnd(terminated=True))
    plain = (tmp_path / STEPS).read_bytes()
    pack_steps(tmp_path)
    (tmp_path / STEPS).write_bytes(plain[: len(plain) // 2])  # killed before the unlink
    assert len(load_trace(tmp_path).steps) == 3
    fresh = form_trace(["Bob"])
    write(tmp_path, fresh, end=None, shots=False)
    assert not (tmp_path / PACKED_STEPS).exists() and load_trace(tmp_path).steps == fresh.steps


def test_a_damaged_packed_steps_file_is_an_error_naming_it(tmp_path: Path) -> None:
    write(tmp_path, form_trace(["Ada"]), EpisodeEnd(terminated=True))
    pack_steps(tmp_path)
    (tmp_path / PACKED_STEPS).write_bytes(b"{not gzip")
    with pytest.raises(TraceError, match=r"steps\.jsonl\.gz: not a valid gzip file of steps"):
        load_trace(tmp_path)

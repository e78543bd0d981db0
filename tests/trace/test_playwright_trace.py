"""Playwright's own trace (trace.zip) beside an episode's trace: RecordTrace, the runner, the
CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.episodes import oracle_policy, play
from webharness.trace.io import load_trace
from webharness.trace.recorder import EpisodeRecorder
from webharness.wrappers import RecordTrace


def trace_events(archive: Path) -> list[dict]:
    """The events of a Playwright trace archive, in order; fails on a file that is not one
    (no zip, no ``trace.trace``, lines that are not trace events)."""
    assert archive.stat().st_size > 0
    with zipfile.ZipFile(archive) as zipped:
        assert zipped.testzip() is None
        events = [
            json.loads(line) for line in zipped.read("trace.trace").splitlines() if line.strip()
        ]
    assert events[0]["type"] == "context-options"
    return events


def trace_calls(archive: Path) -> list[str]:
    """The API calls a Playwright trace archive holds, as ``Class.method``."""
    return [f"{e['class']}.{e['method']}" for e in trace_events(archive) if e["type"] == "before"]


def step_groups(archive: Path) -> list[tuple[str, list[str]]]:
    """Each group of the trace with the calls inside it: (group name, [``Class.method``]).

    Checks on the way that the harness's calls all sit in a group and that each group
    closes after the last of its calls and before the next group opens. A ``before`` event
    of ``Tracing.tracingGroup`` opens a group (its ``title`` is the name), its ``after``
    closes it, and a call inside has the group's ``callId`` as its ``parentId``. Requests
    the page makes are answered by the route handler (``Route.*``), apart from any step.
    """
    events = trace_events(archive)
    where = {(e["type"], e["callId"]): i for i, e in enumerate(events) if "callId" in e}
    groups = [e for e in events if e["type"] == "before" and e["method"] == "tracingGroup"]
    calls = [e for e in events if e["type"] == "before" and e["class"] not in ("Tracing", "Route")]
    ids = {g["callId"] for g in groups}
    assert calls and all(c.get("parentId") in ids for c in calls), "a call outside any group"
    found = []
    for group, following in zip(groups, [*groups[1:], None], strict=True):
        inside = [c for c in calls if c["parentId"] == group["callId"]]
        closed = where[("after", group["callId"])]
        assert all(where[("after", c["callId"])] < closed for c in inside)
        assert following is None or closed < where[("before", following["callId"])]
        found.append((group["title"], [f"{c['class']}.{c['method']}" for c in inside]))
    return found


def test_record_trace_keeps_playwrights_trace_of_each_episode(make_env, tmp_path):
    env = RecordTrace(make_env("WebEval/form-v0", obs_mode="text"), tmp_path, playwright_trace=True)
    run = play(env, oracle_policy(env), seed=0)
    folder = tmp_path / "episode-0000"
    assert run.success and run.last["trace_dir"] == str(folder)
    assert len(load_trace(folder).steps) == len(run.actions) + 1  # steps.jsonl as usual
    calls = trace_calls(folder / "trace.zip")
    assert (
        "Page.mouseClick" in calls and "Page.keyboardInsertText" in calls
    )  # the oracle's clicks and typing
    assert not list(folder.glob(".*.tmp"))


def test_each_step_is_one_group_named_after_the_action_holding_its_calls(make_env, tmp_path):
    env = RecordTrace(make_env("WebEval/form-v0", obs_mode="text"), tmp_path, playwright_trace=True)
    run = play(env, oracle_policy(env), seed=0)
    groups = step_groups(tmp_path / "episode-0000" / "trace.zip")
    assert [name for name, _ in groups] == run.actions  # one per step, in order
    assert run.actions[0].startswith("click(") and run.actions[1].startswith("fill(")
    click, fill = groups[0][1], groups[1][1]
    assert "Page.mouseClick" in click and "Page.keyboardInsertText" in fill
    # The observations are calls into the page agent's own world over CDP, which
    # Playwright's trace does not show: a group holds the input the action sent.
    assert not any("Frame.evaluateExpression" in calls for _, calls in groups)


def test_a_group_is_named_after_the_agents_own_string_even_unparsed(make_env, tmp_path):
    env = RecordTrace(make_env("WebEval/form-v0", obs_mode="text"), tmp_path, playwright_trace=True)
    env.reset(seed=0)
    actions = ["not an action", "mouse_click(5,  5)", "noop()"]
    for action in actions:
        env.step(action)
    env.close()
    groups = step_groups(tmp_path / "episode-0000" / "trace.zip")
    assert [name for name, _ in groups] == actions
    assert "Page.mouseClick" in groups[1][1] and "Page.mouseClick" not in groups[0][1]


def test_without_the_option_there_is_no_playwright_trace(make_env, tmp_path):
    env = RecordTrace(make_env("WebEval/form-v0", obs_mode="text"), tmp_path)
    run = play(env, oracle_policy(env), seed=0)
    folder = tmp_path / "episode-0000"
    assert run.success and len(load_trace(folder).steps) == len(run.actions) + 1
    assert not (folder / "trace.zip").exists()


def test_an_episode_cut_short_by_a_reset_or_close_keeps_its_trace(make_env, tmp_path):
    env = RecordTrace(make_env("WebEval/form-v0", obs_mode="text"), tmp_path, playwright_trace=True)
    env.reset(seed=0)
    env.step("mouse_click(5, 5)")
    env.reset(seed=1)  # episode 0 never ended
    env.close()  # nor episode 1
    assert "Page.mouseClick" in trace_calls(tmp_path / "episode-0000" / "trace.zip")
    assert "Page.mouseClick" not in trace_calls(tmp_path / "episode-0001" / "trace.zip")


def test_a_recorder_without_a_folder_cannot_keep_a_playwright_trace():
    with pytest.raises(ValueError, match="needs a folder"):
        EpisodeRecorder(None, playwright_trace=True)


def test_the_run_command_keeps_playwrights_trace_in_the_episode_folder(browser, tmp_path):
    out = tmp_path / "cli"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "webharness.cli",
            "run",
            "--agents",
            "oracle",
            "--tasks",
            "form",
            "--seeds",
            "0",
            "--obs-mode",
            "text",
            "--workers",
            "1",
            "--playwright-trace",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    episode = out / "episodes" / "oracle" / "form-v0" / "clean" / "seed-0-t0"
    assert (episode / "steps.jsonl").is_file()
    assert "Page.mouseClick" in trace_calls(episode / "trace.zip")
    actions = [s.action for s in load_trace(episode).steps[1:]]
    assert [name for name, _ in step_groups(episode / "trace.zip")] == actions
    assert json.loads((out / "manifest.json").read_text())["config"]["playwright_trace"] is True
    assert not list((out / "golden").rglob("trace.zip"))  # golden traces describe the task: none

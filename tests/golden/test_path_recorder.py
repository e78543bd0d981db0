"""Recording a golden path from real input events, headless from a script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.support.episodes import play
from webharness.errors import WebHarnessError
from webharness.golden.oracle import golden_paths
from webharness.golden.path_recorder import (
    parameterize,
    record_golden_path,
    require_display,
    scripted_driver,
    tidy,
    to_yaml,
)
from webharness.spec.catalogue import get_task
from webharness.spec.task_spec import GoldenPath, instantiate


def filled_steps(task: str, path_id: str, seed: int) -> tuple[list[dict], GoldenPath]:
    """A golden path's steps with this seed's values filled in, and the template path."""
    spec = get_task(task)
    instance = instantiate(spec, seed, np.random.default_rng(seed)).instance
    filled = next(p for p in golden_paths(spec, instance) if p.id == path_id)
    template = next(p for p in spec.golden_paths if p.id == path_id)
    steps = [
        s.model_dump(mode="json", exclude_defaults=True, exclude={"expect"})
        for s in filled.steps
        if s.action != "done"
    ]
    return steps, template


def vip_seed() -> int:
    """A seed whose contact is a VIP, so the checkbox step is a real click to record
    (for a standard contact the golden "uncheck" changes nothing, and nothing is recorded)."""
    spec = get_task("form")
    return next(
        s
        for s in range(50)
        if instantiate(spec, s, np.random.default_rng(s)).instance.params["vip"]
    )


@pytest.mark.parametrize("path_id", ["save-button", "enter-key"])
def test_a_scripted_session_is_recorded_as_the_golden_path_it_played(make_env, path_id):
    seed = vip_seed()
    steps, template = filled_steps("form", path_id, seed=seed)
    env = make_env("WebEval/form-v0", obs_mode="text")
    recorded = record_golden_path(env, seed, scripted_driver(steps), path_id=path_id)

    def strip(path):
        return [
            (s.action, s.target and (s.target.role, s.target.name), s.value) for s in path.steps
        ]

    expected = [(a, t, v) for a, t, v in strip(template)]
    assert strip(recorded) == expected


def test_a_recorded_path_replays_to_success_on_other_seeds(make_env):
    seed = vip_seed()
    steps, _ = filled_steps("form", "save-button", seed=seed)
    env = make_env("WebEval/form-v0", obs_mode="text")
    recorded = record_golden_path(env, seed, scripted_driver(steps))
    spec = get_task("form").model_copy(update={"golden_paths": [recorded]})
    from webharness.envs import WebEvalEnv
    from webharness.golden.oracle import OracleAgent

    replay = WebEvalEnv(spec, obs_mode="text")
    try:
        agent = OracleAgent("recorded")
        for seed in (5, 8):

            def policy(obs, info, agent=agent):
                if info["step"] == 0:
                    agent.reset(info["task"], spec)
                return agent.act(obs, info)

            assert play(replay, policy, seed).success
    finally:
        replay.close()


def test_typing_is_merged_into_one_fill_and_values_become_placeholders():
    events = [
        {"action": "fill", "target": {"role": "textbox", "name": "Name"}, "value": "A"},
        {"action": "fill", "target": {"role": "textbox", "name": "Name"}, "value": "Ada Lovelace"},
        {
            "action": "fill",
            "target": {"role": "textbox", "name": "Note"},
            "value": "Call Ada Lovelace today",
        },
        {"action": "check", "target": {"role": "checkbox", "name": "VIP"}, "value": True},
    ]
    params = {"first": "Ada", "name": "Ada Lovelace", "vip": True}
    steps = [parameterize(s, params) for s in tidy(events)]
    assert [s["value"] for s in steps] == ["{{name}}", "Call {{name}} today", "{{vip}}"]


def test_the_record_command_prints_task_yaml(browser, tmp_path):
    steps, _ = filled_steps("form", "save-button", seed=1)
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump(steps))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "webharness.cli",
            "record",
            "form",
            "--seed",
            "1",
            "--script",
            str(script),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    ).stdout
    recorded = GoldenPath.model_validate(yaml.safe_load(out)[0])
    assert recorded.steps[1].value == "{{name}}" and recorded.steps[-1].action == "done"
    assert to_yaml(recorded) == out


def record_command(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``webharness record`` in a subprocess, no one at the keyboard, bounded in time (a
    headed browser that opened would wait for Enter: the timeout fails the test)."""
    return subprocess.run(
        [sys.executable, "-m", "webharness.cli", "record", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def without_display() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a display is a Linux question")
def test_recording_by_hand_without_a_display_says_so_in_one_line_before_any_launch():
    # No ``browser`` fixture: a launch would fail on the unmarked-test Chromium path with
    # another message, so this also shows that nothing was launched.
    done = record_command("form", "--seed", "3", env=without_display())
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("webharness: there is no display")
    assert "`xvfb-run webharness record form --seed 3`" in done.stderr
    assert "--script" in done.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X servers are a Linux question")
def test_a_headed_launch_with_no_x_server_behind_display_says_so_in_one_line(browser):
    free = next(n for n in range(4242, 4342) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    done = record_command("form", env={**without_display(), "DISPLAY": f":{free}"})
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("webharness: could not open the browser window (")
    assert "`xvfb-run webharness record form`" in done.stderr and "--script" in done.stderr


@pytest.mark.parametrize(
    ("environ", "platform", "refused"),
    [
        ({}, "linux", True),
        ({"DISPLAY": ""}, "linux", True),
        ({"DISPLAY": ":0"}, "linux", False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
        ({}, "darwin", False),
    ],
)
def test_only_a_linux_without_display_or_wayland_is_refused(environ, platform, refused):
    if refused:
        with pytest.raises(WebHarnessError, match="xvfb-run webharness record form"):
            require_display("webharness record form", environ, platform)
    else:
        require_display("webharness record form", environ, platform)


def test_an_empty_scripted_recording_is_an_error_not_a_done_only_path(browser, tmp_path):
    script, out = tmp_path / "empty.yaml", tmp_path / "path.yaml"
    script.write_text("[]\n")
    done = record_command("form", "--script", str(script), "--out", str(out))
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("webharness: nothing was recorded: ")
    assert not out.exists()


def test_a_window_closed_before_saving_is_an_error_that_says_so(make_env):
    env = make_env("WebEval/form-v0", obs_mode="text")
    steps, _ = filled_steps("form", "save-button", seed=1)

    def close_after_acting(env, info):
        scripted_driver(steps[:1])(env, info)  # a step was recorded, then the window went
        unwrapped = env.unwrapped
        unwrapped.runtime.run(unwrapped.episode.session.page.close(), 10)

    with pytest.raises(WebHarnessError, match="window was closed before the recording was saved"):
        record_golden_path(env, 1, close_after_acting)

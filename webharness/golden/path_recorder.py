"""Recording a golden path from a person's clicks and typing (``webharness record``).

The page records trusted events as semantic steps (role + name, ``js/recorder.js``); here
they are tidied (one fill per field, focus clicks dropped) and their values turned back
into the task's ``{{param}}`` placeholders. Headed, a person drives the browser; headless,
a script of steps drives it through the env's real input events, which is how it is tested.
A headed recording needs a display: without one it stops before launching, with a line
that names ``xvfb-run`` and ``--script``; a recording with no step in it is an error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

import numpy as np
import yaml
from playwright.async_api import Error as PlaywrightError

from webharness.episode.hooks import EpisodeHooks
from webharness.errors import BrowserError, WebHarnessError
from webharness.golden.oracle import resolve_step
from webharness.spec.task_spec import GoldenPath, GoldenStep
from webharness.trace.models import TaskInstance

_READ_RECORDING = "() => sessionStorage.getItem('__webharness_recording__') || '[]'"

# Drives the open episode; gets the env and the first info.
Driver = Callable[[Any, dict[str, Any]], None]


def _install_recorder(
    hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance
) -> None:
    hooks.agent_world_scripts.append(
        resources.files("webharness.browser")
        .joinpath("js/path_recorder.js")
        .read_text(encoding="utf-8")
    )


def record_golden_path(
    env: Any, seed: int | None, drive: Driver, path_id: str = "recorded"
) -> GoldenPath:
    """Open the task, let ``drive`` act in it, and return what was done as a golden path."""
    unwrapped = env.unwrapped
    unwrapped.hook_factories.append(_install_recorder)
    try:
        _, info = env.reset(seed=seed)
        drive(env, info)
        steps = tidy(json.loads(_read_recording(unwrapped)))
    finally:
        unwrapped.hook_factories.remove(_install_recorder)
    if not steps:
        raise WebHarnessError(
            "nothing was recorded: no click, typing or choice reached the page before the "
            "recording was saved, and a golden path of just `done` would prove nothing; do the "
            "task's steps in the browser window (or list them in the --script file), then save"
        )
    params = {k: v for k, v in info["task"].params.items() if not k.startswith("_")}
    templated = [parameterize(step, params) for step in steps]
    return GoldenPath(
        id=path_id, steps=[GoldenStep.model_validate(s) for s in [*templated, {"action": "done"}]]
    )


def _read_recording(unwrapped: Any) -> str:
    """The steps the page has recorded, as JSON; the window must still be open."""
    page = unwrapped.episode.session.page
    try:
        raw: str = unwrapped.runtime.run(page.evaluate(_READ_RECORDING), 10)
    except PlaywrightError:
        browser = page.context.browser
        if not page.is_closed() and (browser is None or browser.is_connected()):
            raise
        raise WebHarnessError(
            "nothing was recorded: the browser window was closed before the recording was "
            "saved, and its steps went with it; keep the window open until you press Enter"
        ) from None
    return raw


def require_display(command: str, environ: Mapping[str, str], platform: str = sys.platform) -> None:
    """Stop a headed recording on a Linux without a display before it launches a browser.

    Raises:
        WebHarnessError: neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` is set.
    """
    if platform.startswith("linux") and not (
        environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")
    ):
        raise WebHarnessError(
            f"there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set): "
            f"{_display_hint(command)}"
        )


def window_failed(exc: BrowserError, command: str) -> WebHarnessError | None:
    """The one-line error for a headed launch that Playwright refused (no X server behind
    ``DISPLAY``, most often), or ``None`` when ``exc`` has another cause."""
    cause = exc.__cause__
    while cause is not None and not isinstance(cause, PlaywrightError):
        cause = cause.__cause__
    if cause is None:
        return None
    first_line = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    return WebHarnessError(
        f"could not open the browser window ({first_line}); is there a display? "
        f"{_display_hint(command)}"
    )


def _display_hint(command: str) -> str:
    return (
        "recording by hand opens a browser window, so run it under a virtual display, "
        f"`xvfb-run {command}`, or record a scripted path headless with `--script STEPS.yaml`"
    )


def scripted_driver(steps: list[dict[str, Any]]) -> Driver:
    """A driver that plays golden-step dicts with real input, as a person would."""

    def drive(env: Any, info: dict[str, Any]) -> None:
        for raw in steps:
            step = GoldenStep.model_validate(raw)
            action = resolve_step(step, info["semantic_state"])
            if action is None:
                raise ValueError(f"script step {raw} names an element that is not on the page")
            _, _, _, _, info = env.step(action.dsl())

    return drive


def tidy(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep one fill per field in a row (its last value) and drop repeats of a check."""
    steps: list[dict[str, Any]] = []
    for event in events:
        previous = steps[-1] if steps else None
        same_field = (
            previous is not None
            and previous["action"] == event["action"]
            and previous["target"] == event["target"]
        )
        if same_field and event["action"] in ("fill", "check", "select_option"):
            steps[-1] = event
        else:
            steps.append(event)
    return steps


def parameterize(step: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Turn values that are the instance's parameters back into ``{{param}}``.

    A value equal to a parameter becomes that placeholder (the longest parameter first,
    so "Ada Lovelace" is ``{{name}}`` rather than ``{{first}} Lovelace``); a longer text
    has the parameters it contains replaced; a checkbox state is a boolean parameter's
    when exactly one boolean parameter has that value.
    """
    value = step.get("value")
    if isinstance(value, bool):
        same = [
            name for name, param in params.items() if isinstance(param, bool) and param == value
        ]
        return {**step, "value": _placeholder(same[0])} if len(same) == 1 else step
    if not isinstance(value, str) or not value:
        return step
    texts = sorted(
        ((name, str(p)) for name, p in params.items() if not isinstance(p, (bool, list, dict))),
        key=lambda item: -len(item[1]),
    )
    exact = next((name for name, text in texts if text == value), None)
    if exact is not None:
        return {**step, "value": _placeholder(exact)}
    for name, text in texts:
        if len(text) > 3 and text in value:
            value = value.replace(text, _placeholder(name))
    return {**step, "value": value}


def _placeholder(name: str) -> str:
    return "{{" + name + "}}"


def to_yaml(path: GoldenPath) -> str:
    """The golden path as it is written in ``task.yaml`` (under ``golden_paths:``)."""
    data = path.model_dump(mode="json", exclude_defaults=True)
    for step in data["steps"]:
        if isinstance(step.get("target"), dict):
            step["target"] = {k: v for k, v in step["target"].items() if k in ("role", "name")}
    return yaml.safe_dump([data], sort_keys=False, allow_unicode=True)

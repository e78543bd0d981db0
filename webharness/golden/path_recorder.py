"""Recording a golden path from a person's clicks and typing (``webharness record``).

The page records trusted events as semantic steps (role + name, ``js/recorder.js``); here
they are tidied (one fill per field, focus clicks dropped) and their values turned back
into the task's ``{{param}}`` placeholders. Headed, a person drives the browser; headless,
a script of steps drives it through the env's real input events, which is how it is tested.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Any

import numpy as np
import yaml

from webharness.episode.hooks import EpisodeHooks
from webharness.golden.oracle import resolve_step
from webharness.spec.task_spec import GoldenPath, GoldenStep
from webharness.trace.models import TaskInstance

_READ_RECORDING = "() => sessionStorage.getItem('__webharness_recording__') || '[]'"

# Drives the open episode; gets the env and the first info.
Driver = Callable[[Any, dict[str, Any]], None]


def _install_recorder(
    hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance
) -> None:
    hooks.init_scripts.append(
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
        raw = unwrapped.runtime.run(unwrapped.episode.session.page.evaluate(_READ_RECORDING), 10)
    finally:
        unwrapped.hook_factories.remove(_install_recorder)
    steps = tidy(json.loads(raw))
    params = {k: v for k, v in info["task"].params.items() if not k.startswith("_")}
    templated = [parameterize(step, params) for step in steps]
    return GoldenPath(
        id=path_id, steps=[GoldenStep.model_validate(s) for s in [*templated, {"action": "done"}]]
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

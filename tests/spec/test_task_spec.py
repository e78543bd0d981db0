"""Task specs: every built-in one loads; a malformed one names file, field and value."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml
from pydantic import ValidationError

from webharness import TaskSpecError, load_task, task_names
from webharness.spec.catalogue import get_task, task_dir
from webharness.spec.steps import GoldenStep, step_action
from webharness.spec.task_spec import instantiate

FORM = yaml.safe_load((task_dir("form") / "task.yaml").read_text())


def write(tmp_path, data):
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False) if not isinstance(data, str) else data)
    return path


@pytest.mark.parametrize("name", task_names())
def test_every_built_in_task_loads(name):
    spec = load_task(task_dir(name) / "task.yaml")
    assert spec.id == name and spec.golden_paths


@pytest.mark.parametrize(
    "edit, field, value",
    [
        (lambda d: d.update(colour="blue"), "colour", "blue"),
        (lambda d: d.update(max_steps="many"), "max_steps", "many"),
        (lambda d: d["success"].update(collection="customers"), "success", "customers"),
        (
            lambda d: d["golden_paths"][0]["steps"][0].update(action="teleport"),
            "golden_paths.0.steps.0.action",
            "teleport",
        ),
        (lambda d: d["golden_paths"][0]["steps"][1].pop("target"), "golden_paths.0.steps.1", None),
        (lambda d: d["params"]["first"].update(kind="dice"), "params.first", None),
        (lambda d: d.update(instruction="Add {{nobody}}"), "instruction", "Add {{nobody}}"),
    ],
)
def test_a_malformed_spec_names_file_field_and_value(tmp_path, edit, field, value):
    data = copy.deepcopy(FORM)
    edit(data)
    path = write(tmp_path, data)
    with pytest.raises(TaskSpecError) as caught:
        load_task(path)
    error = caught.value
    assert error.file == str(path) and str(path) in str(error)
    assert error.field.startswith(field), error
    if value is not None:
        assert repr(value) in str(error)


def test_yaml_that_is_not_a_mapping_is_a_task_spec_error(tmp_path):
    with pytest.raises(TaskSpecError, match="mapping"):
        load_task(write(tmp_path, "- just\n- a list\n"))
    with pytest.raises(TaskSpecError, match="not valid YAML"):
        load_task(write(tmp_path, "id: [unclosed\n"))


def test_the_same_seed_gives_the_same_instance():
    spec = get_task("form")
    one = instantiate(spec, 5, np.random.default_rng(5)).instance
    two = instantiate(spec, 5, np.random.default_rng(5)).instance
    assert one == two and "{{" not in one.instruction


def test_a_template_parameter_must_come_after_the_ones_it_uses(tmp_path):
    data = copy.deepcopy(FORM)
    params = list(data["params"].items())
    data["params"] = dict([params[2], *params[:2], *params[3:]])  # "name" before "first"/"last"
    with pytest.raises(TaskSpecError, match="must be declared before 'name'"):
        load_task(write(tmp_path, data))


def test_a_task_loaded_from_elsewhere_serves_the_site_next_to_its_file(tmp_path, browser):
    from webharness.envs import WebEvalEnv

    folder = tmp_path / "elsewhere"
    (folder / "site").mkdir(parents=True)
    (folder / "site" / "index.html").write_text("<title>Mine</title><h1>Next to the file</h1>")
    spec = {
        "id": "form",  # the id of a built-in task: its folder must not be the one served
        "category": "test",
        "instruction": "Look at the page.",
        "success": {"kind": "heading", "text": "Next to the file"},
    }
    path = write(folder, spec)
    env = WebEvalEnv(load_task(path), obs_mode="text")
    try:
        _, info = env.reset(seed=0)
    finally:
        env.close()
    assert info["semantic_state"].title == "Mine" and info["success"]


@pytest.mark.parametrize("action", ["drag", "drag_and_drop", "hold_key"])
def test_a_step_refuses_an_action_one_target_and_value_cannot_write(action):
    with pytest.raises(ValidationError, match=f"action '{action}' cannot be a step yet"):
        GoldenStep.model_validate({"action": action, "target": {"role": "button", "name": "x"}})


@pytest.mark.parametrize(
    "fields, dsl",
    [
        ({"action": "key_down", "value": "shift"}, "key_down('Shift')"),
        ({"action": "mouse_up", "value": "right"}, "mouse_up(button='right')"),
        ({"action": "mouse_move", "value": "10,20"}, "mouse_move(10.0, 20.0)"),
    ],
)
def test_a_step_writes_the_value_of_a_pointer_or_key_action(fields, dsl):
    assert step_action(GoldenStep.model_validate(fields), None).dsl() == dsl

"""A task's app declaration (``app:`` in ``task.yaml``, or an ``app.yaml`` shared by a pack
of task folders): read with the task, its instance variables left for the instance, its
paths made absolute from the declaring file; a bad one is a TaskSpecError naming the file,
the field and the value. The task loads without an instance (``${APP_URL}`` is the
placeholder origin), must start on its app, and is bound to a running one with
``bound_to``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from webharness import TaskSpecError, load_task
from webharness.spec.app_spec import (
    APP_FILE,
    APP_PLACEHOLDER,
    AppSpec,
    CommandReset,
    HttpReset,
    load_app,
)
from webharness.spec.task_spec import instantiate

TASK: dict[str, Any] = {
    "id": "shelf",
    "category": "forms",
    "instruction": "Add a book.",
    "start_url": "${APP_URL}/books",
    "success": {"kind": "text", "text": "Added"},
}
APP: dict[str, Any] = {
    "command": ["${PYTHON}", "app.py", "--port", "${PORT}", "--data-dir", "${DATA_DIR}"],
    "data": "seed.sqlite3",
    "ready": {"url": "/__ready", "timeout_s": 5},
    "reset": {"method": "POST", "url": "${APP_URL}/__reset", "status": [200, 204]},
    "env": {"SHELF_MODE": "${SHELF_MODE:-test}"},
    "version": "shelf-2",
}


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _pack(tmp_path: Path, app: Any = APP, own: Any = None) -> Path:
    """A pack with a shared app.yaml (``app``) and one task folder (its own ``app:``)."""
    _write(tmp_path / APP_FILE, app)
    task_file = _write(tmp_path / "shelf" / "task.yaml", {**TASK, **({"app": own} if own else {})})
    for folder in (tmp_path, task_file.parent):  # the data beside either declaration
        (folder / "seed.sqlite3").write_text("")
    return task_file


def test_a_pack_app_yaml_is_read_with_each_task_of_the_pack(tmp_path):
    task_file = _pack(tmp_path)
    spec = load_task(task_file)
    app = spec.app
    assert app is not None and app.version == "shelf-2" and app.per_worker
    assert spec.start_url == f"{APP_PLACEHOLDER}/books"  # until an instance runs
    # instance variables wait for the instance; the others are filled at load
    assert app.argv == APP["command"] and app.env == {"SHELF_MODE": "test"}
    assert isinstance(app.reset, HttpReset) and app.reset.url == "${APP_URL}/__reset"
    # paths are the declaring file's folder's (the pack's), absolute
    assert (app.cwd, app.data) == (str(tmp_path), str(tmp_path / "seed.sqlite3"))
    assert (app.stop.signal, app.stop.grace_s) == ("SIGTERM", 5.0)  # the defaults


def test_the_app_can_be_read_before_its_url_exists_and_survives_instantiation(tmp_path):
    task_file = _pack(tmp_path)
    assert load_app(task_file) == load_task(task_file).app
    spec = load_task(task_file)
    filled = instantiate(spec, 3, np.random.default_rng(3)).spec
    assert filled.app == spec.app


def test_a_task_s_own_app_wins_over_its_pack_s(tmp_path):
    own = {"command": "./serve --port ${PORT}", "reset": {"command": "./reseed ${DATA_DIR}"}}
    task_file = _pack(tmp_path, own=own)
    app = load_app(task_file)
    assert app is not None and app.argv == ["./serve", "--port", "${PORT}"]
    assert isinstance(app.reset, CommandReset) and app.reset.argv == ["./reseed", "${DATA_DIR}"]
    assert app.cwd == str(task_file.parent) and app.version is None
    assert load_task(task_file).app == app  # ${PORT} kept


def test_a_task_without_an_app_has_none(tmp_path):
    task_file = _write(tmp_path / "shelf" / "task.yaml", {**TASK, "start_url": "http://a.test/"})
    assert load_app(task_file) is None and load_task(task_file).app is None


@pytest.mark.parametrize(
    ("edit", "field", "value"),
    [
        ({"ready": {"timeout_s": -1}}, "ready.timeout_s", -1),
        ({"reset": {"url": "ftp://x/reset"}}, "reset.url", "ftp://x/reset"),
        ({"reset": {"command": "./r", "timeout_s": "ten"}}, "reset.timeout_s", "ten"),
        ({"stop": {"signal": "SIGSTOP"}}, "stop.signal", "SIGSTOP"),
        ({"per_worker": "yes"}, "per_worker", "yes"),
        ({"command": ""}, "command", ""),
        ({"data": "missing.sqlite3"}, "data", "missing.sqlite3"),
        ({"comand": "x"}, "comand", "x"),
        ({"command": "serve ${NOT_SET_ANYWHERE}"}, "command", "serve ${NOT_SET_ANYWHERE}"),
    ],
)
def test_a_bad_declaration_names_the_file_the_field_and_the_value(tmp_path, edit, field, value):
    # in a pack's app.yaml: the field as written there
    task_file = _pack(tmp_path, app={**APP, **edit})
    with pytest.raises(TaskSpecError) as caught:
        load_task(task_file)
    error = caught.value
    assert (error.file, error.field, error.value) == (str(tmp_path / APP_FILE), field, value)
    # in a task's own app:, under app.
    with pytest.raises(TaskSpecError) as caught:
        load_app(_pack(tmp_path / "own", own={**APP, **edit}))
    error = caught.value
    assert (error.file, error.field, error.value) == (
        str(tmp_path / "own" / "shelf" / "task.yaml"), f"app.{field}", value,
    )  # fmt: skip


def test_an_app_yaml_that_is_not_a_mapping_says_what_it_should_be(tmp_path):
    task_file = _pack(tmp_path, app=["serve"])
    with pytest.raises(TaskSpecError, match="an app declaration is a mapping"):
        load_app(task_file)


def test_a_spec_from_data_resolves_paths_from_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = AppSpec.model_validate({"command": [sys.executable, "-V"], "cwd": "."})
    assert app.cwd == str(tmp_path)


def test_a_task_with_an_app_is_bound_to_an_instance_everywhere(tmp_path):
    task = {**TASK, "setup": [{"http": {"url": "${APP_URL}/__reset"}}]}
    task_file = _write(tmp_path / "shelf" / "task.yaml", {**task, "app": APP})
    (task_file.parent / "seed.sqlite3").write_text("")
    spec = load_task(task_file)
    assert spec.app_url is None and spec.setup[0].http.url == f"{APP_PLACEHOLDER}/__reset"
    bound = spec.bound_to("http://127.0.0.1:8123/")
    assert bound.app_url == "http://127.0.0.1:8123" and bound.source == str(task_file)
    assert bound.start_url == "http://127.0.0.1:8123/books" and bound.origin == bound.app_url
    assert bound.setup[0].http.url == "http://127.0.0.1:8123/__reset"
    assert bound.app == spec.app and APP_PLACEHOLDER not in bound.model_dump_json()
    assert instantiate(bound, 0, np.random.default_rng(0)).spec.app_url == bound.app_url
    with pytest.raises(ValueError, match="bound to http://127.0.0.1:8123"):
        bound.bound_to("http://127.0.0.1:9000")


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        ({"start_url": None}, "start_url"),
        ({"start_url": "http://127.0.0.1:8000/books"}, "start_url"),
        ({"app_version": "2"}, "app_version"),
    ],
    ids=["no start_url", "start_url elsewhere", "a second version"],
)
def test_a_task_that_declares_an_app_must_start_on_it(tmp_path, edit, field):
    task = {k: v for k, v in {**TASK, **edit}.items() if v is not None}
    task_file = _pack(tmp_path)
    _write(task_file, task)
    with pytest.raises(TaskSpecError) as caught:
        load_task(task_file)
    assert (caught.value.file, caught.value.field) == (str(task_file), field)


def test_app_url_is_the_instance_s_to_fill_not_the_caller_s(tmp_path):
    task_file = _pack(tmp_path)
    with pytest.raises(TaskSpecError, match="leave APP_URL out") as caught:
        load_task(task_file, {"APP_URL": "http://127.0.0.1:8123"})
    assert caught.value.file == str(task_file)
    assert load_task(task_file).start_url == f"{APP_PLACEHOLDER}/books"  # the environment's: no


def test_a_spec_without_an_app_is_never_bound(tmp_path):
    task_file = _write(tmp_path / "shelf" / "task.yaml", {**TASK, "start_url": "http://a.test/"})
    with pytest.raises(ValueError, match="declares no app"):
        load_task(task_file).bound_to("http://127.0.0.1:8123")

"""``${NAME}`` variables in task files: filled at load from the caller's values, then the
environment, then the default; an unset one is a TaskSpecError naming file, field and name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.registry import registrations_undone
from webharness import TaskSpecError, get_task, load_task, register_tasks
from webharness.spec.catalogue import task_folder
from webharness.spec.variables import expand_variables

SPEC = """\
id: ping
category: external
instruction: Open the app.
start_url: ${PING_URL}/start
allowed_origins: ["${PING_API:-http://127.0.0.1:9}"]
success: {kind: js, expression: "`${count} items` && '$${PING_URL}' !== ''"}
"""


def _task(tmp_path: Path) -> Path:
    folder = tmp_path / "ping"
    folder.mkdir()
    (folder / "task.yaml").write_text(SPEC)
    return folder


def test_variables_come_from_the_caller_then_the_environment_then_the_default(
    tmp_path, monkeypatch
):
    path = _task(tmp_path) / "task.yaml"
    monkeypatch.setenv("PING_URL", "http://127.0.0.1:8001")
    spec = load_task(path)
    assert spec.start_url == "http://127.0.0.1:8001/start"
    assert spec.allowed_origins == ["http://127.0.0.1:9"]
    # a JS template literal and an escaped ${ are left as written (less the escape)
    assert spec.success.expression == "`${count} items` && '${PING_URL}' !== ''"  # type: ignore[union-attr]
    given = load_task(path, {"PING_URL": "http://localhost:5173", "PING_API": "http://a.test"})
    assert given.start_url == "http://localhost:5173/start"
    assert given.allowed_origins == ["http://a.test"]


def test_an_unset_variable_names_the_file_the_field_and_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("PING_URL", raising=False)
    path = _task(tmp_path) / "task.yaml"
    with pytest.raises(TaskSpecError) as caught:
        load_task(path)
    error = caught.value
    assert (error.file, error.field, error.value) == (str(path), "start_url", "${PING_URL}/start")
    assert "the variable PING_URL is not set" in str(error) and "${PING_URL:-" in str(error)


def test_register_tasks_keeps_the_variables_with_the_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("PING_URL", raising=False)
    folder = _task(tmp_path)
    with registrations_undone():
        (env_id,) = register_tasks(folder, "Ping", variables={"PING_URL": "http://127.0.0.1:8002"})
        assert get_task(env_id).start_url == "http://127.0.0.1:8002/start"
        recorded = task_folder(env_id)
        assert recorded is not None and dict(recorded.variables) == {
            "PING_URL": "http://127.0.0.1:8002"
        }
        # a folder without variables is recorded as before (a run's manifest)
        assert "variables" not in recorded.model_copy(update={"variables": ()}).model_dump()


def test_expansion_walks_lists_and_mappings():
    raw = {"a": ["${X}", {"b": "${Y:-y}"}], "c": 3}
    assert expand_variables(raw, "f", {"X": "x"}) == {"a": ["x", {"b": "y"}], "c": 3}
    with pytest.raises(TaskSpecError, match="field 'a.1.b'"):
        expand_variables({"a": [1, {"b": "${UNSET_ANYWHERE_42}"}]}, "f", {})

"""``--tasks`` names folders as well as ids and patterns: a folder is registered in the
parent, its ids take its place, and the run keeps the folder (in its config, its manifest
and each job) so worker processes can register it again."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

import webharness
from tests.support.registry import NOTES_TASK, registrations_undone
from webharness.cli import main
from webharness.errors import ConfigError
from webharness.runner import RunConfig, RunFolder, expand_jobs, prepare_run
from webharness.runner.task_selection import is_folder_entry, one_task, select_tasks
from webharness.spec.task_folders import TaskFolder

NOTES = TaskFolder(path=str(NOTES_TASK), namespace="Local")


@pytest.fixture(autouse=True)
def _forget_registrations() -> Iterator[None]:
    with registrations_undone():
        yield


def test_a_folder_among_the_tasks_becomes_its_ids_and_the_run_keeps_the_folder(tmp_path):
    config = RunConfig(agents=["oracle"], tasks=[str(NOTES_TASK), "form"], seeds=[0, 1])
    assert config.tasks == ["Local/notes-v0", "form"]
    assert config.task_folders == [NOTES]
    jobs = expand_jobs(config, tmp_path)
    assert {(j.env_id, j.task_folder) for j in jobs} == {
        ("Local/notes-v0", NOTES),
        ("WebEval/form-v0", None),
    }
    prepare_run(config, tmp_path, resume=False)
    manifest = json.loads(RunFolder(tmp_path).manifest.read_text())
    assert manifest["config"]["task_folders"] == [NOTES.model_dump()]


def test_a_config_read_back_registers_its_folders_again(tmp_path):
    with registrations_undone():
        saved = RunConfig(agents=["oracle"], tasks=[f"MyApp={NOTES_TASK}"]).model_dump()
    assert saved["tasks"] == ["MyApp/notes-v0"]
    with pytest.raises(webharness.UnknownTaskError):
        webharness.get_task("MyApp/notes-v0")  # forgotten, as in a new process
    again = RunConfig.model_validate(saved)  # the config as the manifest keeps it
    assert [j.env_id for j in expand_jobs(again, tmp_path)] == ["MyApp/notes-v0"]


@pytest.mark.parametrize(
    "entry, folder",
    [("./myapp", True), ("/abs/tasks", True), ("~/tasks", True), ("MyApp=tasks", True)]
    + [("form", False), ("WebEval/*", False), ("MyApp/login-v0", False)],
)
def test_what_counts_as_a_folder(entry, folder):
    assert is_folder_entry(entry) is folder


def test_one_task_is_picked_by_name_among_a_folders_tasks():
    assert one_task(None, str(NOTES_TASK)) == "Local/notes-v0"
    assert one_task("notes", str(NOTES_TASK.parent)) == "Local/notes-v0"
    assert one_task(None, None, default="form") == "WebEval/form-v0"
    assert one_task(str(NOTES_TASK), None) == "Local/notes-v0"
    with pytest.raises(ConfigError, match="name one task to play; this names 2"):
        one_task(None, f"form,{NOTES_TASK}")
    with pytest.raises(ConfigError, match="not one of --tasks .*Known: 'Local/notes-v0'"):
        one_task("form", str(NOTES_TASK))


def test_select_tasks_mixes_folders_and_patterns():
    assert select_tasks(f"{NOTES_TASK}, WebEval/form*") == ["Local/notes-v0", "WebEval/form-v0"]


def test_a_folder_that_cannot_be_registered_is_one_usage_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    out = tmp_path / "run"
    code = main(["run", "--out", str(out), "--tasks", str(tmp_path / "empty")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "holds no task.yaml" in err, err
    assert err.startswith(f"webharness: --tasks '{tmp_path / 'empty'}': ")
    assert not out.exists()
    assert main(["list", "--tasks", "Bad Name=" + str(NOTES_TASK)]) == 2
    assert "namespace 'Bad Name' is not a name" in capsys.readouterr().err


def test_list_shows_a_folders_tasks(capsys):
    assert main(["list", "--tasks", str(NOTES_TASK)]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("Local/notes-v0") and "notes" in listed and "WebEval" not in listed

"""Task folders from anywhere: ``register_tasks(path, namespace)`` registers every
``task.yaml`` under a folder as ``<namespace>/<id>-v0`` for ``gym.make``, ``get_task`` and
the runner, and refuses, naming the file, the folder or the namespace, what cannot work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest

import webharness
from tests.support.registry import NOTES_TASK, registrations_undone
from webharness import TaskFolderError, TaskSpecError, UnknownTaskError, register_tasks
from webharness.envs import registered_ids
from webharness.envs.registration import ENTRY_POINT

TASK_YAML = """\
id: {id}
category: demo
instruction: Press the button.
success: {{kind: text, text: Pressed}}
"""


@pytest.fixture(autouse=True)
def _forget_registrations() -> Iterator[None]:
    with registrations_undone():
        yield


def make_task(folder: Path, task_id: str, text: str | None = None) -> Path:
    """A task folder: its task.yaml (``text``, or a valid one with this id) and a site."""
    (folder / "site").mkdir(parents=True)
    (folder / "site" / "index.html").write_text("<button>Press</button>")
    file = folder / "task.yaml"
    file.write_text(text if text is not None else TASK_YAML.format(id=task_id))
    return file


def test_a_task_folder_registers_as_its_namespace_and_id() -> None:
    assert register_tasks(NOTES_TASK, namespace="MyApp") == ["MyApp/notes-v0"]
    spec = webharness.get_task("MyApp/notes-v0")
    assert spec.env_id == "MyApp/notes-v0" and spec.namespace == "MyApp"
    assert spec.site == str(NOTES_TASK / "site")  # a relative site: next to its task.yaml
    assert webharness.get_task("MyApp/notes") is spec
    made = gym.spec("MyApp/notes-v0")
    assert made.entry_point == ENTRY_POINT and made.kwargs["task"].env_id == "MyApp/notes-v0"
    assert "MyApp/notes-v0" in registered_ids()


def test_a_folder_of_task_folders_registers_each_one_and_nothing_below_a_task(tmp_path) -> None:
    make_task(tmp_path / "alpha", "alpha")
    make_task(tmp_path / "group" / "beta", "beta")
    make_task(tmp_path / "alpha" / "site" / "old", "old")  # inside a task: its own files
    make_task(tmp_path / ".git" / "hidden", "hidden")
    assert register_tasks(tmp_path, namespace="Shop") == ["Shop/alpha-v0", "Shop/beta-v0"]


def test_without_a_namespace_the_folder_is_local(tmp_path) -> None:
    make_task(tmp_path / "alpha", "alpha")
    assert register_tasks(tmp_path) == ["Local/alpha-v0"]


def test_registering_the_same_folder_again_changes_nothing() -> None:
    first = register_tasks(NOTES_TASK, namespace="MyApp")
    spec = webharness.get_task(first[0])
    # Gymnasium warns when an id is registered twice; warnings are errors in the suite.
    assert register_tasks(str(NOTES_TASK) + "/", namespace="MyApp") == first
    assert first[0] in register_tasks(NOTES_TASK.parent, namespace="MyApp")  # its parent too
    assert webharness.get_task(first[0]) is spec


def test_a_bad_file_is_an_error_naming_it_and_registers_none_of_the_folder(tmp_path) -> None:
    make_task(tmp_path / "alpha", "alpha")
    bad = make_task(tmp_path / "broken", "broken", "id: broken\ncategory: [unclosed\n")
    with pytest.raises(TaskSpecError, match="not valid YAML") as caught:
        register_tasks(tmp_path, namespace="Shop")
    assert caught.value.file == str(bad)
    with pytest.raises(UnknownTaskError):
        webharness.get_task("Shop/alpha-v0")
    assert "Shop/alpha-v0" not in gym.registry


def test_an_invalid_spec_names_its_file_and_field(tmp_path) -> None:
    bad = make_task(tmp_path, "t", TASK_YAML.format(id="t") + "max_steps: 0\n")
    with pytest.raises(TaskSpecError, match="max_steps") as caught:
        register_tasks(tmp_path, namespace="Shop")
    assert caught.value.file == str(bad)


def test_the_same_id_from_another_folder_is_an_error_naming_both_files(tmp_path) -> None:
    first = make_task(tmp_path / "one" / "notes", "notes")
    second = make_task(tmp_path / "two" / "notes", "notes")
    register_tasks(tmp_path / "one", namespace="Shop")
    with pytest.raises(TaskSpecError) as caught:
        register_tasks(tmp_path / "two", namespace="Shop")
    assert str(first) in str(caught.value) and str(second) in str(caught.value)
    assert "Shop/notes-v0 is registered from" in str(caught.value)
    register_tasks(tmp_path / "two", namespace="Other")  # another namespace: no clash


def test_the_same_id_twice_in_one_folder_is_an_error_naming_both_files(tmp_path) -> None:
    first = make_task(tmp_path / "a", "same")
    second = make_task(tmp_path / "b", "same")
    with pytest.raises(TaskSpecError, match="has the same id") as caught:
        register_tasks(tmp_path, namespace="Shop")
    assert str(first) in str(caught.value) and str(second) in str(caught.value)


def test_the_built_in_namespace_and_names_that_are_not_names_are_refused() -> None:
    with pytest.raises(TaskFolderError, match="'WebEval' is the built-in tasks'"):
        register_tasks(NOTES_TASK, namespace="WebEval")
    for namespace in ("My App", "", "1st", "a/b"):
        with pytest.raises(TaskFolderError, match="is not a name"):
            register_tasks(NOTES_TASK, namespace=namespace)
    assert [i for i in registered_ids() if not i.startswith("WebEval/")] == []


def test_an_id_another_library_holds_is_refused(tmp_path) -> None:
    gym.register(id="Other/notes-v0", entry_point="gymnasium.envs.classic_control:CartPoleEnv")
    with pytest.raises(TaskFolderError, match="registered by another library"):
        register_tasks(NOTES_TASK, namespace="Other")


def test_a_folder_without_a_task_file_is_an_error_naming_the_folder(tmp_path) -> None:
    (tmp_path / "empty" / "site").mkdir(parents=True)
    with pytest.raises(TaskFolderError, match="holds no task.yaml") as caught:
        register_tasks(tmp_path / "empty", namespace="Shop")
    assert str(tmp_path / "empty") in str(caught.value)
    with pytest.raises(TaskFolderError, match="no such folder"):
        register_tasks(tmp_path / "missing", namespace="Shop")


def test_an_unknown_registered_id_suggests_the_closest() -> None:
    register_tasks(NOTES_TASK, namespace="MyApp")
    with pytest.raises(UnknownTaskError, match="Closest: 'MyApp/notes-v0'"):
        webharness.get_task("MyApp/note-v0")


def test_a_built_in_name_still_means_the_built_in() -> None:
    register_tasks(NOTES_TASK, namespace="MyApp")
    assert webharness.get_task("form").env_id == "WebEval/form-v0"
    with pytest.raises(UnknownTaskError):
        webharness.get_task("notes")  # a registered task is named with its namespace

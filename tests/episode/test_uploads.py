"""``upload(paths)`` answers the file chooser a click opened, with files of the env's
``upload_dir``; each mistake (no folder, no chooser, a path outside the folder or naming no
file, two files for a one-file input) is the agent's ``invalid_argument`` naming it, and
leaves the chooser open for the next try."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.sites import site_spec
from webharness.action_result import ActionErrorKind, ActionResult
from webharness.envs import WebEvalEnv

SPEC = site_spec("widgets_site", start_page="/file_input.html", max_steps=100)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("uploads")
    for name in ("a.txt", "b.txt"):
        (folder / name).write_text(f"the file {name}\n")
    (tmp_path_factory.getbasetemp() / "secret.txt").write_text("not for the page\n")
    return folder


@pytest.fixture(scope="module")
def env(browser, files):
    env = WebEvalEnv(SPEC, obs_mode="text", upload_dir=files)
    yield env
    env.close()


def step(env: WebEvalEnv, action: str) -> tuple[ActionResult, str]:
    """The step's result and the page's line of chosen files."""
    *_, info = env.step(action)
    chosen = re.search(r"Chosen: [^\n]*?\.(?= |$)", info["semantic_state"].text)
    assert chosen, info["semantic_state"].text
    return info["action_result"], chosen.group(0)


def open_chooser(env: WebEvalEnv, label: str) -> None:
    """Reset, and click the file input ``label`` (its chooser opens)."""
    _, info = env.reset(seed=0)
    x, y, width, height = info["semantic_state"].find("button", label)[0].bbox
    result, _ = step(env, f"mouse_click({x + width / 2}, {y + height / 2})")
    assert result.ok, result.message


def failed(result: ActionResult, *words: str) -> bool:
    return result.error is ActionErrorKind.INVALID_ARGUMENT and all(
        word in result.message for word in words
    )


def test_the_chosen_file_reaches_the_input_as_a_persons_would(env):
    open_chooser(env, "One document")
    result, chosen = step(env, "upload(['a.txt'])")
    assert result.ok and result.state_changed and chosen == "Chosen: one=a.txt."


def test_a_multiple_input_takes_several_files_by_relative_or_absolute_path(env, files):
    open_chooser(env, "Attachments")
    result, chosen = step(env, f"upload(['a.txt', {str(files / 'b.txt')!r}])")
    assert result.ok and chosen == "Chosen: many=a.txt,b.txt."


def test_without_a_chooser_the_agent_is_told_to_open_one(env):
    env.reset(seed=0)
    result, chosen = step(env, "upload(['a.txt'])")
    assert failed(result, "no file chooser is open", "click the file input or drop area first")
    assert chosen == "Chosen: none."


def test_an_answered_or_dismissed_chooser_is_closed(env):
    open_chooser(env, "One document")
    assert step(env, "upload([])") == (ActionResult(ok=True), "Chosen: none.")
    result, _ = step(env, "upload(['a.txt'])")
    assert failed(result, "no file chooser is open")


@pytest.mark.parametrize(
    "path, words",
    [
        ("../secret.txt", ["'../secret.txt' is outside the folder"]),
        ("/etc/hostname", ["'/etc/hostname' is outside the folder"]),
        ("c.txt", ["no file 'c.txt'", "files there: a.txt, b.txt"]),
        ("a\x00.txt", ["no file 'a\\x00.txt'"]),
    ],
)
def test_a_path_outside_the_folder_or_naming_no_file_is_named_and_the_chooser_stays(
    env, path, words
):
    open_chooser(env, "One document")
    result, chosen = step(env, f"upload([{path!r}])")
    assert failed(result, *words) and chosen == "Chosen: none."
    result, chosen = step(env, "upload(['a.txt'])")  # the chooser is still open
    assert result.ok and chosen == "Chosen: one=a.txt."


def test_two_files_for_a_one_file_input_are_refused(env):
    open_chooser(env, "One document")
    result, chosen = step(env, "upload(['a.txt', 'b.txt'])")
    assert failed(result, "takes one file, not 2") and chosen == "Chosen: none."


def test_without_an_upload_dir_upload_names_the_option(browser):
    env = WebEvalEnv(SPEC, obs_mode="text")
    try:
        env.reset(seed=0)
        result, _ = step(env, "upload(['a.txt'])")
    finally:
        env.close()
    assert failed(result, "upload_dir=")

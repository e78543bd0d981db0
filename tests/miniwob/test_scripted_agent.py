"""A scripted agent solves MiniWoB++ tasks of different kinds through our actions (click,
check, pick a radio, fill, type, select, several fields, several steps), reading the goal
and the semantic state as any agent would; an agent that ends at once fails each of them.
Success is the page's own reward (``page_reward``): nothing here reads the page's answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.episodes import play

Obs = dict[str, Any]
Policy = Callable[[Obs, Obs], str]


def _elements(info: Obs, role: str) -> list[Any]:
    return [e for e in info["semantic_state"].elements if e.role == role]


def _ref(info: Obs, role: str, name: str | None = None, prefix: str = "") -> str:
    for element in _elements(info, role):
        if (name is None or element.name == name) and element.name.startswith(prefix):
            return str(element.ref)
    raise AssertionError(f"no {role} {name or prefix!r} on the page: {info['semantic_state']}")


def _quoted(goal: str) -> list[str]:
    return re.findall(r'"([^"]*)"', goal)


def _submit(info: Obs, name: str = "Submit") -> str:
    return f"click({_ref(info, 'button', name)!r})"


def _steps(*steps: Callable[[Obs, Obs], str]) -> Policy:
    """One step after another (a form: fill, fill, submit), by the steps taken so far."""
    return lambda obs, info: steps[min(info["step"], len(steps) - 1)](obs, info)


def click_button(obs: Obs, info: Obs) -> str:
    return f"click({_ref(info, 'button', _quoted(obs['goal'])[0])!r})"


def click_dialog(obs: Obs, info: Obs) -> str:  # "Close the dialog box by clicking the "x"."
    return f"click({_ref(info, 'button', 'Close')!r})"


def click_tab(obs: Obs, info: Obs) -> str:  # "Click on Tab #2."
    tab = re.search(r"(Tab #\d+)", obs["goal"])
    assert tab is not None, obs["goal"]
    return f"click({_ref(info, 'tab', tab.group(1))!r})"


def focus_text(obs: Obs, info: Obs) -> str:
    return f"click({_ref(info, 'textbox')!r})"


def _wanted(goal: str) -> list[str]:
    """ "Select A, B and click Submit." / "Select nothing and click Submit." """
    found = re.search(r"^Select (.*) and click Submit\.$", goal)
    assert found is not None, goal
    return [] if found.group(1) == "nothing" else found.group(1).split(", ")


def click_checkboxes(obs: Obs, info: Obs) -> str:
    for box in _elements(info, "checkbox"):
        if (box.name in _wanted(obs["goal"])) != bool(box.checked):
            return f"click({box.ref!r})"
    return _submit(info)


def click_option(obs: Obs, info: Obs) -> str:
    (wanted,) = _wanted(obs["goal"])
    radio = next(e for e in _elements(info, "radio") if e.name == wanted)
    return _submit(info) if radio.checked else f"click({radio.ref!r})"


def enter_text(obs: Obs, info: Obs) -> str:  # Enter "X" into the text field and press Submit.
    box = _elements(info, "textbox")[0]
    text = _quoted(obs["goal"])[0]
    return _submit(info) if box.value == text else f"fill({box.ref!r}, {text!r})"


def enter_password(obs: Obs, info: Obs) -> str:  # the password "X" into both text fields
    # A password field's value is not shown: the agent fills each once.
    return _steps(
        lambda o, i: f"fill({_elements(i, 'textbox')[0].ref!r}, {_quoted(o['goal'])[0]!r})",
        lambda o, i: f"fill({_elements(i, 'textbox')[1].ref!r}, {_quoted(o['goal'])[0]!r})",
        lambda o, i: _submit(i),
    )(obs, info)


def login_user(obs: Obs, info: Obs) -> str:  # the username "u" and the password "p"
    return _steps(
        lambda o, i: f"fill({_elements(i, 'textbox')[0].ref!r}, {_quoted(o['goal'])[0]!r})",
        lambda o, i: f"fill({_elements(i, 'textbox')[1].ref!r}, {_quoted(o['goal'])[1]!r})",
        lambda o, i: _submit(i, "Login"),
    )(obs, info)


def choose_list(obs: Obs, info: Obs) -> str:  # "Select X from the list and click Submit."
    found = re.search(r"^Select (.*) from the list", obs["goal"])
    assert found is not None, obs["goal"]
    box = _elements(info, "combobox")[0]
    if box.value == found.group(1):
        return _submit(info)
    return f"select_option({box.ref!r}, {found.group(1)!r})"


def click_collapsible(obs: Obs, info: Obs) -> str:  # open the section, then its Submit
    section = next(e for e in _elements(info, "tab") if e.name.startswith("Section"))
    if not section.expanded:
        return f"click({section.ref!r})"
    return f"click({_ref(info, 'tab', 'Submit')!r})"


def _month_part(info: Obs) -> str:
    """A click on the date field's first part (the month), near its left edge by its box."""
    x, y, _, height = _elements(info, "textbox")[0].bbox
    return f"mouse_click({x + 8:.0f}, {y + height / 2:.0f})"


def enter_date(obs: Obs, info: Obs) -> str:  # "Enter 10/11/2011 as the date and hit submit."
    date = re.search(r"(\d\d)/(\d\d)/(\d{4})", obs["goal"])
    assert date is not None, obs["goal"]
    return _steps(
        lambda o, i: _month_part(i),
        lambda o, i: f"keyboard_type({''.join(date.groups())!r})",
        lambda o, i: _submit(i),
    )(obs, info)


SOLVERS: dict[str, Policy] = {
    "click-button": click_button,
    "click-dialog": click_dialog,
    "click-tab": click_tab,
    "focus-text": focus_text,
    "click-checkboxes": click_checkboxes,
    "click-option": click_option,
    "enter-text": enter_text,
    "enter-password": enter_password,
    "login-user": login_user,
    "choose-list": choose_list,
    "click-collapsible": click_collapsible,
    "enter-date": enter_date,
}
SEEDS = (0, 1)


@pytest.mark.parametrize("task", SOLVERS)
def test_a_scripted_agent_solves_the_task(make_env, task: str) -> None:
    env = make_env(f"WebEval/miniwob.{task}-v0", obs_mode="text")
    for seed in SEEDS:
        run = play(env, SOLVERS[task], seed=seed)
        end = run.last["episode_end"]
        assert (run.success, end.ended_by.value, run.terminated) == (True, "task", True), (
            seed,
            run.actions,
            run.last["task"].instruction,
        )


@pytest.mark.parametrize("task", SOLVERS)
def test_an_agent_that_ends_at_once_fails_the_task(make_env, task: str) -> None:
    run = play(make_env(f"WebEval/miniwob.{task}-v0", obs_mode="text"), lambda o, i: "done()", 0)
    assert run.terminated and not run.success and run.reward == -1.0
    assert run.last["episode_end"].ended_by.value == "done"

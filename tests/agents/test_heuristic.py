"""HeuristicAgent: never crashes, solves the plain form, fails where weak agents fail."""

from __future__ import annotations

import json
from collections.abc import Iterator

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webharness
from tests.support.episodes import EpisodeRun, agent_policy, play
from webharness.action_result import ActionErrorKind
from webharness.actions import parse_action
from webharness.agents import HeuristicAgent
from webharness.agents.heuristic import answer_from_tree
from webharness.trace.models import TaskInstance

SEEDS = (0, 1, 2)  # scenario i of the catalogue is played with seed SEEDS[i % 3]


@pytest.fixture(scope="module")
def form_env(browser) -> Iterator[gym.Env]:
    env = gym.make("WebEval/form-v0", obs_mode="text")
    yield env
    env.close()


@pytest.fixture(scope="module")
def suite_runs(form_env) -> dict[str, EpisodeRun]:
    """The heuristic agent played once on every registered scenario (at most 15 steps)."""
    runs = {}
    for i, name in enumerate(webharness.task_names()):
        env = form_env if name == "form" else gym.make(f"WebEval/{name}-v0", obs_mode="text")
        try:
            runs[name] = play(
                env, agent_policy(HeuristicAgent()), SEEDS[i % len(SEEDS)], max_steps=15
            )
        finally:
            if env is not form_env:
                env.close()
    return runs


@pytest.mark.slow  # one browser per scenario
def test_heuristic_never_raises_and_always_sends_valid_actions(suite_runs):
    assert set(suite_runs) == set(webharness.task_names())
    for name, run in suite_runs.items():
        assert run.actions, name
        for action, info in zip(run.actions, run.infos[1:]):
            parse_action(action)
            assert info["action_result"].error is not ActionErrorKind.UNPARSEABLE, (name, action)


@pytest.mark.slow  # one browser per scenario
def test_heuristic_success_rate_over_the_suite_is_strictly_between_0_and_1(suite_runs):
    rate = sum(run.success for run in suite_runs.values()) / len(suite_runs)
    assert 0 < rate < 1, {name: run.success for name, run in suite_runs.items()}


@pytest.mark.slow  # one browser per scenario
def test_heuristic_types_into_the_custom_dropdown_and_fails(suite_runs):
    run = suite_runs["combobox"]
    errors = [info["action_result"].error for info in run.infos[1:]]
    assert ActionErrorKind.UNSUPPORTED_CONTROL in errors and not run.success, run.actions


def test_heuristic_succeeds_on_form_for_most_seeds(form_env):
    wins = sum(
        play(form_env, agent_policy(HeuristicAgent()), seed, max_steps=15).success
        for seed in range(3, 8)
    )
    assert wins >= 4


def test_heuristic_is_deterministic(form_env):
    first = play(form_env, agent_policy(HeuristicAgent()), 9, max_steps=15).actions
    assert play(form_env, agent_policy(HeuristicAgent()), 9, max_steps=15).actions == first


# --- reading the goal, without a browser ------------------------------------------------------
GOAL = (
    'In Relay CRM, add a new contact: full name "Ada Lovelace", email ada@analytical.example, '
    "company Analytical Engines, country France, as a standard (not VIP) customer. Save it."
)


@pytest.mark.parametrize(
    ("label", "value"),
    [
        ("Full name", "Ada Lovelace"),
        ("Email", "ada@analytical.example"),
        ("Company", "Analytical Engines"),
        ("Country", "France"),
        ("Phone", None),
    ],
)
def test_values_are_read_from_label_value_pairs(label, value):
    assert HeuristicAgent().value_for(label, GOAL) == value


def _instance(goal: str) -> TaskInstance:
    return TaskInstance(task_id="t", env_id="WebEval/t-v0", category="c", seed=0, instruction=goal)


def test_negated_checkbox_is_left_unchecked_and_positive_one_is_checked():
    tree = '- checkbox "VIP customer" [ref=e3]\n- button "Save" [ref=e4]'
    agent = HeuristicAgent()
    agent.reset(_instance(GOAL))
    assert agent.act({"axtree": tree, "goal": GOAL}, {}) != 'check("e3")'
    positive = GOAL.replace("as a standard (not VIP) customer", "marked as a VIP customer")
    agent.reset(_instance(positive))
    assert agent.act({"axtree": tree, "goal": positive}, {}) == "check('e3')"


def test_question_is_answered_from_the_matching_table_cell():
    tree = "\n".join(
        [
            '- table "Sales" [ref=e1]:',
            '  - row "Region Orders Revenue" [ref=e2]:',
            '    - columnheader "Region" [ref=e3]',
            '    - columnheader "Orders" [ref=e4]',
            '    - columnheader "Revenue" [ref=e5]',
            '  - row "North America 1,204 $482,105" [ref=e6]:',
            '    - rowheader "North America" [ref=e7]',
            '    - cell "1,204" [ref=e8]',
            '    - cell "$482,105" [ref=e9]',
        ]
    )
    assert (
        answer_from_tree(tree, "What was the revenue for the North America region?") == "$482,105"
    )


def test_nothing_to_do_ends_at_once():
    agent = HeuristicAgent()
    agent.reset(_instance("Archive the newest message."))
    assert (
        agent.act({"axtree": "- text: Loading…", "goal": "Archive the newest message."}, {})
        == "done()"
    )


_LINE = st.builds(
    lambda indent, role, name, flags, value: f"{'  ' * indent}- {role}{name}{flags}{value}",
    st.integers(0, 4),
    st.sampled_from(
        [
            "textbox",
            "combobox",
            "option",
            "checkbox",
            "radio",
            "button",
            "link",
            "row",
            "cell",
            "columnheader",
            "table",
            "text",
            "heading",
            "searchbox",
        ]
    ),
    st.one_of(st.just(""), st.text(max_size=30).map(lambda t: " " + json.dumps(t))),
    st.sampled_from(
        [
            "",
            " [checked]",
            " [disabled]",
            " [ref=e1]",
            " [checked] [ref=e2]",
            " [ref=e3] [selected]",
        ]
    ),
    st.one_of(st.just(""), st.text(max_size=20).map(lambda t: ": " + t)),
)


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(st.one_of(_LINE, st.text(max_size=40)), max_size=12), goal=st.text(max_size=120)
)
def test_any_tree_and_goal_give_a_valid_action(lines, goal):
    agent = HeuristicAgent()
    agent.reset(_instance(goal))
    for _ in range(3):
        parse_action(agent.act({"axtree": "\n".join(lines), "goal": goal}, {}))

"""RandomAgent on a real env: valid actions over current refs, reproducible, (almost) never wins."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.episodes import agent_policy, play
from webharness.action_result import ActionErrorKind
from webharness.actions import parse_action
from webharness.agents import RandomAgent


@pytest.fixture(scope="module")
def form_env(browser) -> Iterator[gym.Env]:
    env = gym.make("WebEval/form-v0", obs_mode="text")
    yield env
    env.close()


def test_random_actions_all_parse_and_use_refs_on_the_page(form_env):
    for seed in range(2):
        run = play(
            form_env, agent_policy(RandomAgent(seed=seed, done_prob=0.0)), seed=seed, max_steps=12
        )
        for action, info in zip(run.actions, run.infos[1:]):
            parse_action(action)  # raises if not
            error = info["action_result"].error
            assert error not in (ActionErrorKind.UNPARSEABLE, ActionErrorKind.UNKNOWN_REF), (
                action,
                info["action_result"],
            )


def test_random_agent_is_reproducible_for_the_same_seed(form_env):
    first = play(
        form_env, agent_policy(RandomAgent(seed=5, done_prob=0.0)), seed=2, max_steps=8
    ).actions
    again = play(
        form_env, agent_policy(RandomAgent(seed=5, done_prob=0.0)), seed=2, max_steps=8
    ).actions
    other = play(
        form_env, agent_policy(RandomAgent(seed=6, done_prob=0.0)), seed=2, max_steps=8
    ).actions
    assert first == again
    assert first != other


def test_random_agent_almost_never_succeeds_on_form(form_env):
    wins = sum(
        play(form_env, agent_policy(RandomAgent(seed=s)), seed=s, max_steps=15).success
        for s in range(10, 15)
    )
    assert wins <= 1


@settings(max_examples=100, deadline=None)
@given(
    tree=st.text(max_size=300),
    refs=st.lists(
        st.sampled_from(
            [
                '- button "Go" [ref=e1]',
                '- textbox "Name" [ref=e2]: x',
                '- combobox "C" [ref=e3]:',
                '  - option "A" [ref=e4]',
                '  - option "" [ref=e5]',
                '- checkbox "V" [checked] [ref=e6]',
                '- link "L" [disabled] [ref=e7]',
            ]
        ),
        max_size=8,
    ),
)
def test_any_tree_gives_a_valid_action_over_its_refs(tree, refs):
    agent = RandomAgent(seed=0)
    text = "\n".join([tree, *refs])
    for _ in range(5):
        action = parse_action(agent.act({"axtree": text}, {}))
        ref = getattr(action, "ref", None)
        assert ref is None or f"[ref={ref}]" in text

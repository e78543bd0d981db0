"""``gym.make_vec(..., vectorization_mode="async")`` with its defaults (shared memory):
the text fields and the user's replies cross the process boundary unchanged."""

from __future__ import annotations

import copy
import multiprocessing

import gymnasium as gym
from gymnasium.vector.utils import shared_memory

from webharness.episode.observation import MAX_SHORT_TEXT, ObsMode, observation_space


def test_an_observation_round_trips_through_shared_memory() -> None:
    space = observation_space(ObsMode.TEXT, (1280, 720))
    memory = shared_memory.create_shared_memory(space, n=2, ctx=multiprocessing)
    first = {
        "axtree": '- button "Save" [ref=e1]\n- text: héllo ✓',
        "url": "http://webeval.test/",
        "goal": "Save",
        "last_action_error": "",
        "user_messages": ("+44 7700 900123", "x" * MAX_SHORT_TEXT),
    }
    second = {**first, "axtree": "", "user_messages": ()}
    # Gymnasium reads the buffer once, then hands out (a deep copy of) it after each step.
    read = shared_memory.read_from_shared_memory(space, memory, n=2)
    shared_memory.write_to_shared_memory(space, 0, first, memory)
    shared_memory.write_to_shared_memory(space, 1, second, memory)
    copied = copy.deepcopy(read)
    assert copied["axtree"] == (first["axtree"], "") and type(copied["axtree"]) is tuple
    assert copied["user_messages"] == (first["user_messages"], ())
    assert copied["goal"] == ("Save", "Save")
    shared_memory.write_to_shared_memory(space, 0, second, memory)
    assert copy.deepcopy(read)["user_messages"] == ((), ())  # the read stays a live view
    assert copied["user_messages"] == (first["user_messages"], ())  # the copy does not
    assert all(space[key].contains(value) for key, value in first.items())


def test_make_vec_async_runs_with_its_default_arguments(browser) -> None:
    envs = gym.make_vec("WebEval/clarify-v0", num_envs=2, vectorization_mode="async")
    try:
        obs, infos = envs.reset(seed=[3, 4])
        assert len(obs["axtree"]) == 2 and all("[ref=" in tree for tree in obs["axtree"])
        assert obs["screenshot"].shape == (2, 720, 1280, 3) and obs["screenshot"].any()
        obs, *_ = envs.step(['ask_user("What phone number should I use?")'] * 2)
        replies = obs["user_messages"]
        assert [len(r) for r in replies] == [1, 1] and replies[0] != replies[1]
        assert infos["task"][0].seed == 3 and infos["task"][1].seed == 4
    finally:
        envs.close()

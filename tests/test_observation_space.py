"""The text spaces: the same characters as Gymnasium's Text over the charset, without its tables."""

from __future__ import annotations

import pickle
import sys

import gymnasium as gym
import numpy as np
from gymnasium.spaces import utils

from webharness.observation import PrintableText, _charset_tables, clean_text, text_space


def _printable(ch: str) -> bool:
    return ch == "\n" or (0x20 <= ord(ch) < 0x10000 and ch.isprintable())


def test_membership_is_newline_and_the_printable_characters_of_the_basic_plane():
    space = text_space(1)
    wrong = [i for i in range(sys.maxunicode + 1) if space.contains(chr(i)) != _printable(chr(i))]
    assert wrong == []


def test_contains_checks_type_length_and_every_character():
    space = text_space(8)
    assert space.contains("") and space.contains("héllo\n") and space.contains("表格 ok")
    assert not space.contains("a" * 9)
    assert not space.contains("tab\there")  # a control character
    assert not space.contains("emoji 🙂")  # outside the Basic Multilingual Plane
    assert not space.contains(b"bytes")


def test_clean_text_makes_any_string_a_member():
    space = text_space(6)
    cleaned = clean_text("a\tb\x00🙂cdef", 6)
    assert cleaned == "a\ufffdb\ufffd\ufffdc" and space.contains(cleaned)


def test_samples_are_members_and_flattening_round_trips():
    space = text_space(40)
    space.seed(3)
    samples = [space.sample() for _ in range(20)]
    assert all(space.contains(s) for s in samples)
    again = text_space(40)
    again.seed(3)
    assert [again.sample() for _ in range(20)] == samples  # seeded like any space
    flat = utils.flatten(space, "ab\n表")
    assert flat.dtype == np.int32 and utils.unflatten(space, flat) == "ab\n表"


def test_spaces_compare_by_length_and_pickle_small():
    assert text_space(10) == text_space(10) and text_space(10) != text_space(11)
    assert len(pickle.dumps(text_space(10))) < 2_000  # no per-character tables inside
    assert isinstance(text_space(10), gym.spaces.Text)


def test_an_env_builds_no_character_tables_when_it_runs(make_env):
    _charset_tables.cache_clear()
    env = make_env("WebEval/form-v0", obs_mode="text")
    obs, _ = env.reset(seed=0)
    env.step("noop()")
    assert env.observation_space.contains(obs)
    assert _charset_tables.cache_info().currsize == 0, "the ~10 MB tables are for sampling and flattening only"
    assert isinstance(env.observation_space["axtree"], PrintableText)

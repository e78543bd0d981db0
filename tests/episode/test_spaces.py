"""The observation's spaces: text spaces with the same characters as Gymnasium's Text over the
charset but without its tables, and a frame space that behaves like Gymnasium's Box without
its full-size bound arrays."""

from __future__ import annotations

import pickle
import sys

import gymnasium as gym
import numpy as np
from gymnasium.spaces import utils

from webharness.episode.spaces import (
    FrameSpace,
    PrintableText,
    _charset_tables,
    clean_text,
    text_space,
)


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
    assert _charset_tables.cache_info().currsize == 0, (
        "the ~10 MB tables are for sampling and flattening only"
    )
    assert isinstance(env.observation_space["axtree"], PrintableText)


def test_a_frame_space_is_a_uint8_box_of_the_viewport():
    frame, box = FrameSpace(72, 128), gym.spaces.Box(0, 255, (72, 128, 3), np.uint8)
    assert frame == box and box == frame and frame.shape == (72, 128, 3) and frame.dtype == np.uint8
    assert frame.is_bounded() and repr(frame) == repr(box)
    pixels = np.full((72, 128, 3), 255, np.uint8)
    assert frame.contains(pixels) and frame.contains(pixels.astype(bool))
    assert not frame.contains(pixels[:, :64]) and not frame.contains(pixels.astype(np.int64))
    assert not frame.contains(pixels.astype(np.float32))  # as Box: a float frame is not a member


def test_a_frame_space_samples_flattens_and_pickles_like_a_box():
    frame = FrameSpace(72, 128)
    frame.seed(5)
    sample = frame.sample()
    assert (
        frame.contains(sample) and sample.min() < 20 and sample.max() > 235
    )  # spread over [0, 255]
    flat = utils.flatten(frame, sample)
    assert flat.shape == (72 * 128 * 3,) and (utils.unflatten(frame, flat) == sample).all()
    copy = pickle.loads(pickle.dumps(frame))
    assert copy == frame and (copy.sample() == frame.sample()).all()  # the generator travels too


def test_a_full_size_frame_space_holds_and_pickles_no_full_size_arrays():
    frame = FrameSpace(720, 1280)
    held = sum(
        a.base.nbytes if a.base is not None else a.nbytes
        for a in (frame.low, frame.high, frame.bounded_below, frame.bounded_above)
    )
    assert held < 100  # Box holds 4 arrays of 2.7 MB at this size
    assert len(pickle.dumps(frame)) < 2_000  # Box: 11 MB, sent to every make_vec worker


def test_an_env_declares_its_screenshots_in_a_frame_space(make_env):
    env = make_env("WebEval/form-v0", obs_mode="both", viewport=(640, 360))
    obs, _ = env.reset(seed=0)
    space = env.observation_space["screenshot"]
    assert isinstance(space, FrameSpace) and space.shape == (360, 640, 3)
    assert env.observation_space.contains(obs)

"""The observation space, declared in one place, and the observation built from a pass."""

from __future__ import annotations

import copy
import functools
import re
import sys
from enum import Enum
from typing import Any

import numpy as np
from gymnasium import spaces

MAX_AXTREE_CHARS = 200_000
MAX_SHORT_TEXT = 4_096
MAX_USER_MESSAGES = 32


class ObsMode(str, Enum):
    BOTH = "both"  # screenshot + accessibility tree (default)
    TEXT = "text"  # accessibility tree only: no screenshot is taken, fastest
    PIXELS = "pixels"  # screenshot only, no accessibility tree


@functools.lru_cache(maxsize=1)
def _charset() -> str:
    """Printable characters of the Basic Multilingual Plane, plus newline."""
    return "\n" + "".join(chr(i) for i in range(0x20, 0x10000) if chr(i).isprintable())


@functools.lru_cache(maxsize=1)
def _outside_charset() -> re.Pattern[str]:
    allowed = set(_charset())
    ranges, start = [], None
    for i in range(sys.maxunicode + 2):
        inside = i <= sys.maxunicode and chr(i) in allowed
        if inside and start is None:
            start = i
        elif not inside and start is not None:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(i - 1))}")
            start = None
    return re.compile(f"[^{''.join(ranges)}]")


@functools.lru_cache(maxsize=1)
def _text_template() -> spaces.Text:
    return spaces.Text(max_length=1, min_length=0, charset=_charset())


def text_space(max_length: int) -> spaces.Text:
    """A text space over the charset. Gymnasium builds a set, a list and an index of the
    charset per space (~10 MB for these ~60,000 characters, five spaces an env), so every
    space is a shallow copy of one template that shares those tables, with its own RNG."""
    space = copy.copy(_text_template())
    space.max_length = max_length
    space._np_random = None  # seeded and drawn per space, as a space built afresh would be
    return space


def clean_text(text: str, max_length: int) -> str:
    """Fit a string to a text space: unprintable characters replaced, length capped."""
    return _outside_charset().sub("\ufffd", text)[:max_length]


def observation_space(mode: ObsMode, viewport: tuple[int, int]) -> spaces.Dict:
    """Every field of an observation, bounded and sampleable."""
    width, height = viewport
    fields: dict[str, spaces.Space[Any]] = {}
    if mode in (ObsMode.BOTH, ObsMode.PIXELS):
        # The viewport as RGB pixels.
        fields["screenshot"] = spaces.Box(0, 255, (height, width, 3), np.uint8)
    if mode in (ObsMode.BOTH, ObsMode.TEXT):
        # Accessibility tree, one node a line: `- button "Save" [ref=e12]`.
        fields["axtree"] = text_space(MAX_AXTREE_CHARS)
    fields["url"] = text_space(MAX_SHORT_TEXT)  # the page's current URL
    fields["goal"] = text_space(MAX_SHORT_TEXT)  # the task instruction for this instance
    fields["last_action_error"] = text_space(MAX_SHORT_TEXT)  # "" when the last action was fine
    # Replies of the simulated user to ask_user(), oldest first.
    fields["user_messages"] = spaces.Sequence(text_space(MAX_SHORT_TEXT), stack=False)
    return spaces.Dict(fields)


def build_observation(
    mode: ObsMode, *, axtree: str, screenshot: np.ndarray | None, url: str, goal: str,
    last_action_error: str, user_messages: list[str],
) -> dict[str, Any]:
    obs: dict[str, Any] = {}
    if mode in (ObsMode.BOTH, ObsMode.PIXELS):
        obs["screenshot"] = screenshot
    if mode in (ObsMode.BOTH, ObsMode.TEXT):
        obs["axtree"] = clean_text(axtree, MAX_AXTREE_CHARS)
    obs["url"] = clean_text(url, MAX_SHORT_TEXT)
    obs["goal"] = clean_text(goal, MAX_SHORT_TEXT)
    obs["last_action_error"] = clean_text(last_action_error, MAX_SHORT_TEXT)
    obs["user_messages"] = tuple(clean_text(m, MAX_SHORT_TEXT) for m in user_messages[-MAX_USER_MESSAGES:])
    return obs

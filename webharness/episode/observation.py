"""The observation space, declared in one place, and the observation built from a pass."""

from __future__ import annotations

from enum import Enum
from typing import Any

import numpy as np
from gymnasium import spaces

# Imported for its effect: the codecs of the text and message-list spaces for make_vec's
# shared memory are registered with Gymnasium wherever an observation space is made.
from webharness.episode import shared_memory as _shared_memory  # noqa: F401
from webharness.episode.spaces import FrameSpace, MessageList, clean_text, text_space

MAX_AXTREE_CHARS = 200_000
MAX_SHORT_TEXT = 4_096
MAX_USER_MESSAGES = 32


class ObsMode(str, Enum):
    BOTH = "both"  # screenshot + accessibility tree (default)
    TEXT = "text"  # accessibility tree only: no screenshot is taken, fastest
    PIXELS = "pixels"  # screenshot only, no accessibility tree


def _whole_lines(tree: str, max_length: int) -> str:
    """The tree cut at a line's end to fit the text space, saying so in its last line."""
    if len(tree) <= max_length:
        return tree
    kept = tree[: max_length - 200].rsplit("\n", 1)[0]
    left = tree.count("\n", len(kept))
    return (
        kept
        + f"\n- note: the tree is longer than {max_length:,} characters: {left} lines are left"
        + " out; scroll to bring them in"
    )


def observation_space(mode: ObsMode, viewport: tuple[int, int]) -> spaces.Dict:
    """Every field of an observation, bounded and sampleable."""
    width, height = viewport
    fields: dict[str, spaces.Space[Any]] = {}
    if mode in (ObsMode.BOTH, ObsMode.PIXELS):
        # The viewport as RGB pixels.
        fields["screenshot"] = FrameSpace(height, width)
    if mode in (ObsMode.BOTH, ObsMode.TEXT):
        # Accessibility tree, one node a line: `- button "Save" [ref=e12]`.
        fields["axtree"] = text_space(MAX_AXTREE_CHARS)
    fields["url"] = text_space(MAX_SHORT_TEXT)  # the page's current URL
    fields["goal"] = text_space(MAX_SHORT_TEXT)  # the task instruction for this instance
    fields["last_action_error"] = text_space(MAX_SHORT_TEXT)  # "" when the last action was fine
    # Replies of the simulated user to ask_user(), oldest first.
    fields["user_messages"] = MessageList(text_space(MAX_SHORT_TEXT), MAX_USER_MESSAGES)
    return spaces.Dict(fields)


def build_observation(
    mode: ObsMode,
    *,
    axtree: str,
    screenshot: np.ndarray | None,
    url: str,
    goal: str,
    last_action_error: str,
    user_messages: list[str],
) -> dict[str, Any]:
    obs: dict[str, Any] = {}
    if mode in (ObsMode.BOTH, ObsMode.PIXELS):
        obs["screenshot"] = screenshot
    if mode in (ObsMode.BOTH, ObsMode.TEXT):
        obs["axtree"] = _whole_lines(clean_text(axtree, len(axtree)), MAX_AXTREE_CHARS)
    obs["url"] = clean_text(url, MAX_SHORT_TEXT)
    obs["goal"] = clean_text(goal, MAX_SHORT_TEXT)
    obs["last_action_error"] = clean_text(last_action_error, MAX_SHORT_TEXT)
    obs["user_messages"] = tuple(
        clean_text(m, MAX_SHORT_TEXT) for m in user_messages[-MAX_USER_MESSAGES:]
    )
    return obs

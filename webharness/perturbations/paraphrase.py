"""Paraphrase: the goal is worded differently; every parameter value stays verbatim.

Parameter values in the instruction are masked first, so no rewrite can touch them.
Then each phrase rule of :data:`PHRASES` that applies fires with probability
``strength`` (one of its wordings, seeded), and with probability ``strength`` the
instruction is framed by one of :data:`FRAMES`. If a value were ever lost the original
instruction is kept. Logged at step 0: the rules and the frame used, and the new goal.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.perturbations.base import PerturbationContext, record
from webharness.trace.models import TaskInstance

# A phrase (a regex over whole words) and the wordings it may take instead.
PHRASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"^In ", ("Inside ", "Over in ", "Using ")),
    (r"^On the ", ("Using the ", "Looking at the ")),
    (r"\badd a new\b", ("create a new", "enter a new")),
    (r"\bSave it\.", ("Then save it.", "Make sure you save it.")),
    (r"\bthen\b", ("and after that", "and then")),
    (r"\bLeave (every|its|all)\b", (r"Keep \1", r"Don't touch \1")),
    (r"\bopen the page\b", ("go to the page", "navigate to the page")),
    (r"\bIt is filed under\b", ("You'll find it under", "It lives under")),
    (r"\bReply with\b", ("Answer with", "Respond with")),
    (r"\bthe exact figure\b", ("the precise figure", "the figure exactly")),
    (
        r"\bas the dashboard shows it\b",
        ("as shown on the dashboard", "as it appears on the dashboard"),
    ),
    (r"\bSign in to\b", ("Log in to", "Log into")),
    (r"\bYou can use\b", ("You may use", "Either use")),
    (r"\bis waiting in\b", ("sits in", "is waiting for you in")),
    (r"\bAssign it to\b", ("Set its assignee to", "Give it to")),
    (r"\bwith the subject\b", ("titled", "whose subject is")),
    (r"\bthe message from\b", ("the email from", "the mail from")),
    (r"\bsort your inbox by\b", ("order your inbox by", "change the inbox sort order to")),
    (r"\bwhat was\b", ("what is the value of", "can you tell me what was")),
    (r"\band save\b", ("and then save", "and store")),
    (r"\bClick\b", ("Press", "Select")),
    (r"\bFind\b", ("Look up", "Locate")),
)
FRAMES: tuple[str, ...] = (
    "Here is what I need: {}",
    "Task for you: {}",
    "{} Thanks!",
    "Could you help me with this? {}",
    "Hi! {} Let me know when you're done.",
)
_MASK_BASE = 0xE000  # private-use code points: never in an instruction, no digits in them


def paraphrase(strength: float, ctx: PerturbationContext) -> HookFactory:
    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return

        # Applied to the instruction as the episode starts with it: a page that states its
        # own goal (MiniWoB++) has replaced the spec's by then.
        def transform(instruction: str) -> str:
            text, rules, frame = reword(instruction, instance.params, rng, strength)
            if text != instruction:
                record(hooks, 0, "paraphrase", rules=rules, frame=frame, instruction=text)
            return text

        hooks.instruction_transforms.append(transform)

    return factory


def reword(
    instruction: str, params: dict[str, Any], rng: np.random.Generator, strength: float
) -> tuple[str, list[str], str | None]:
    """The instruction reworded, the rules applied and the frame used (None: no frame)."""
    masked, values = _mask(instruction, params)
    rules: list[str] = []
    for pattern, wordings in PHRASES:
        fires = rng.random() < strength
        wording = wordings[int(rng.integers(len(wordings)))]
        if fires and re.search(pattern, masked):
            masked = re.sub(pattern, wording, masked, count=1)
            rules.append(pattern)
    framed = rng.random() < strength
    frame = FRAMES[int(rng.integers(len(FRAMES)))] if framed else None
    if frame is not None:
        masked = frame.format(masked)
    text = _unmask(masked, values)
    if not all(v in text for v in values):
        return instruction, [], None  # never lose a value the agent needs
    return text, rules, frame


def param_values(instruction: str, params: dict[str, Any]) -> list[str]:
    """The parameter values (as text) that appear in the instruction."""
    shown = {
        str(v)
        for k, v in params.items()
        if not k.startswith("_") and isinstance(v, (str, int, float)) and not isinstance(v, bool)
    }
    return sorted((v for v in shown if v and v in instruction), key=len, reverse=True)


def _mask(instruction: str, params: dict[str, Any]) -> tuple[str, list[str]]:
    values = param_values(instruction, params)
    masked = instruction
    for i, value in enumerate(values):
        masked = masked.replace(value, _mask_token(i))
    return masked, values


def _unmask(masked: str, values: list[str]) -> str:
    for i, value in enumerate(values):
        masked = masked.replace(_mask_token(i), value)
    return masked


def _mask_token(i: int) -> str:
    return chr(_MASK_BASE) + chr(_MASK_BASE + 1 + i) + chr(_MASK_BASE)

"""Argument types and help shared by the commands."""

from __future__ import annotations

import argparse

TASKS_HELP = "comma-separated env ids, patterns ('WebEval/*') or task folders (./myapp)"


def csv(text: str) -> list[str]:
    """The non-empty comma-separated parts of ``text``, stripped."""
    return [part.strip() for part in text.split(",") if part.strip()]


def seed(text: str) -> int:
    """One seed: a whole number of 0 or more (argparse's ``type``)."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed: use a whole number of 0 or more")
    return int(text)

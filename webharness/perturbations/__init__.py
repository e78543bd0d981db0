"""Perturbations of an episode: seeded, with a strength in [0, 1], logged step by step.

Each perturbation is a function ``(strength, context, **options) -> HookFactory``; the
Gymnasium wrappers in ``webharness.wrappers`` register them on an env. This module
names them, checks their arguments and parses ``"popup,latency:0.3"`` stacks.

``PERTURBATIONS`` is the one list of them: ``perturb``, the wrappers' table, the runner's
and the CLI's stacks and the report all read it. A new perturbation is a module holding
its function plus one entry here, or, from outside the package, one call to
:func:`register_perturbation`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Any

from webharness.episode.hooks import HookFactory
from webharness.errors import WebHarnessError, did_you_mean
from webharness.perturbations.base import PerturbationContext, StepClock
from webharness.perturbations.dom_replacement import dom_replacement
from webharness.perturbations.id_randomization import id_randomization
from webharness.perturbations.label_drift import label_drift
from webharness.perturbations.latency import latency
from webharness.perturbations.layout_shift import layout_shift
from webharness.perturbations.paraphrase import paraphrase
from webharness.perturbations.popup import POPUPS, popup
from webharness.perturbations.slow_rendering import slow_rendering
from webharness.perturbations.theme import theme

Perturbation = Callable[..., HookFactory]

PERTURBATIONS: dict[str, Perturbation] = {
    "latency": latency,
    "popup": popup,
    "layout_shift": layout_shift,
    "id_randomization": id_randomization,
    "dom_replacement": dom_replacement,
    "slow_rendering": slow_rendering,
    "label_drift": label_drift,
    "paraphrase": paraphrase,
    "theme": theme,
}


_NAME = re.compile(r"[a-z][a-z0-9_]*")  # no ",", ":" or "@": they write a stack


def register_perturbation(name: str, function: Perturbation) -> None:
    """Make ``function`` the perturbation called ``name``, in this process.

    ``perturb``, the runner and the CLI (``--perturbations``) then know it by that name.

    Args:
        name: lowercase letters, digits and ``_``, starting with a letter.
        function: ``(strength, context, **options) -> HookFactory``, as the built-ins.

    Raises:
        ValueError: the name is not of that form, or names another perturbation already.

    Example:
        >>> from webharness.perturbations import PERTURBATIONS, register_perturbation
        >>> def nothing(strength, context):
        ...     return lambda hooks, rng, instance: None
        >>> register_perturbation("nothing", nothing)
        >>> PERTURBATIONS["nothing"] is nothing
        True
        >>> del PERTURBATIONS["nothing"]
    """
    if not _NAME.fullmatch(name):
        raise ValueError(
            f"perturbation name {name!r} must be lowercase letters, digits and '_', "
            "starting with a letter (e.g. 'slow_fonts')"
        )
    known = PERTURBATIONS.get(name)
    if known is not None and known is not function:
        raise ValueError(
            f"perturbation {name!r} is {known.__module__}.{known.__qualname__} already; "
            "register yours under another name"
        )
    PERTURBATIONS[name] = function


def outside_modules(names: Iterable[str]) -> list[str]:
    """The modules outside webharness that define the perturbations called ``names``.

    Another process (a run's worker) imports them so that they register there too.
    """
    modules = (perturbation(name).__module__ for name in names)
    return sorted({m for m in modules if m != __name__ and not m.startswith(f"{__name__}.")})


class UnknownPerturbationError(WebHarnessError, ValueError):
    """A perturbation name that does not exist."""

    def __init__(self, name: str, message: str | None = None) -> None:
        self.name = name
        super().__init__(
            message
            or f"unknown perturbation {name!r}.{did_you_mean(name, PERTURBATIONS)} "
            f"Known: {', '.join(PERTURBATIONS)}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as it reads: a worker process's error reaches the run as it was raised."""
        return type(self), (self.name, str(self))


def check_strength(strength: Any) -> float:
    """``strength`` as a float in [0, 1]; ValueError naming the value otherwise."""
    if (
        isinstance(strength, bool)
        or not isinstance(strength, (int, float))
        or not math.isfinite(strength)
        or not 0 <= strength <= 1
    ):
        raise ValueError(
            f"strength={strength!r} is not a number in [0, 1] (0: no change, 1: the strongest)"
        )
    return float(strength)


def perturbation(name: str) -> Perturbation:
    """The perturbation called ``name``; UnknownPerturbationError with a suggestion otherwise."""
    try:
        return PERTURBATIONS[name]
    except KeyError:
        raise UnknownPerturbationError(name) from None


def parse_stack(text: str, strength: float = 0.5) -> list[tuple[str, float]]:
    """``"popup, latency:0.3"`` → ``[("popup", strength), ("latency", 0.3)]``.

    Raises:
        UnknownPerturbationError: for a name that does not exist.
        ValueError: for a bad strength, an empty item or a name listed twice.
    """
    default = check_strength(strength)
    stack: list[tuple[str, float]] = []
    for item in text.split(","):
        name, _, value = (part.strip() for part in item.partition(":"))
        if not name:
            raise ValueError(
                f"empty perturbation name in {text!r}; write names separated by commas, "
                "e.g. 'popup,latency'"
            )
        perturbation(name)
        if any(name == seen for seen, _ in stack):
            raise ValueError(f"perturbation {name!r} is listed twice in {text!r}")
        stack.append((name, _parse_strength(value, item) if value else default))
    return stack


def _parse_strength(value: str, item: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(
            f"strength {value!r} in {item.strip()!r} is not a number in [0, 1]"
        ) from None
    return check_strength(number)


__all__ = [
    "PERTURBATIONS",
    "POPUPS",
    "Perturbation",
    "PerturbationContext",
    "StepClock",
    "UnknownPerturbationError",
    "check_strength",
    "dom_replacement",
    "id_randomization",
    "label_drift",
    "latency",
    "layout_shift",
    "outside_modules",
    "paraphrase",
    "parse_stack",
    "perturbation",
    "popup",
    "register_perturbation",
    "slow_rendering",
    "theme",
]

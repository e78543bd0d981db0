"""Perturbation wrappers: each changes the page (or the goal) of any WebEval env, seeded.

Every wrapper takes a ``strength`` in [0, 1] (0 changes nothing at all), draws all its
randomness from the env's seeded generator, logs what it did and when in
``info["perturbations"]``, and composes with the others in any order. The work lives in
``webharness.perturbations``; a wrapper registers it on the env and keeps the step count.

``WRAPPERS`` is read from the registry (``PERTURBATIONS``): each registered perturbation
has the wrapper class declared for it here, or one made for it on first use.

Example:
    >>> import gymnasium as gym, webharness
    >>> from webharness.wrappers import perturb
    >>> env = perturb(gym.make("WebEval/form-v0"), "popup,latency", strength=0.5)
    >>> obs, info = env.reset(seed=3)
    >>> [e["kind"] for e in info["perturbations"]]  # doctest: +SKIP
    ['latency', 'popup']
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym

from webharness.envs.web_eval_env import WebEvalEnv
from webharness.perturbations import (
    PERTURBATIONS,
    PerturbationContext,
    StepClock,
    check_strength,
    parse_stack,
    perturbation,
)
from webharness.perturbations.popup import check_kinds


class PerturbationWrapper(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Base of the perturbation wrappers: registers the perturbation, counts steps."""

    perturbation: ClassVar[str]
    _declared: ClassVar[dict[str, type[PerturbationWrapper]]] = {}  # by perturbation name

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass that names its perturbation is that perturbation's wrapper."""
        super().__init_subclass__(**kwargs)
        if "perturbation" in vars(cls):
            PerturbationWrapper._declared.setdefault(cls.perturbation, cls)

    def __init__(self, env: gym.Env, strength: float = 0.5, **options: Any) -> None:
        strength = check_strength(strength)
        base = env.unwrapped
        if not isinstance(base, WebEvalEnv):
            raise TypeError(
                f"{type(self).__name__} perturbs WebEval envs; got {type(base).__name__}"
            )
        gym.utils.RecordConstructorArgs.__init__(self, strength=strength, **options)
        gym.Wrapper.__init__(self, env)
        self.strength = strength
        self.clock = StepClock()
        context = PerturbationContext(
            spec=base.task_spec,
            clock=self.clock,
            max_steps=base.max_steps,
            settle_cap_ms=base.options.settle_cap_ms,
        )
        base.hook_factories.append(perturbation(self.perturbation)(strength, context, **options))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env with the step clock at 0, so the perturbation's schedule starts over."""
        self.clock.step, self.clock.action = 0, None
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env, counting the step first so that the perturbation sees which it is."""
        self.clock.step += 1  # before the env acts: requests of this step belong to it
        self.clock.action = action
        return super().step(action)


class LatencyPerturbation(PerturbationWrapper):
    """The site's documents and API calls answer late (up to 2.5 s × strength each)."""

    perturbation = "latency"

    def __init__(self, env: gym.Env, strength: float = 0.5) -> None:
        super().__init__(env, strength)


class PopupPerturbation(PerturbationWrapper):
    """A cookie banner, newsletter modal or chat window covers the page until dismissed.

    Args:
        kinds: the popups to draw from (default all: "cookie", "chat", "newsletter").
    """

    perturbation = "popup"

    def __init__(
        self, env: gym.Env, strength: float = 0.5, kinds: Sequence[str] | None = None
    ) -> None:
        kinds = list(check_kinds(kinds)) if kinds is not None else None
        super().__init__(env, strength, kinds=kinds)


class LayoutShiftPerturbation(PerturbationWrapper):
    """A late banner pushes the page down under the pointer, so aimed clicks land elsewhere."""

    perturbation = "layout_shift"

    def __init__(self, env: gym.Env, strength: float = 0.5) -> None:
        super().__init__(env, strength)


class IdRandomizationPerturbation(PerturbationWrapper):
    """Ids, classes and test hooks get random values per episode; roles and labels stay."""

    perturbation = "id_randomization"

    def __init__(self, env: gym.Env, strength: float = 0.5) -> None:
        super().__init__(env, strength)


class DomReplacementPerturbation(PerturbationWrapper):
    """After actions, parts of the page are rebuilt with equal content: old refs go stale."""

    perturbation = "dom_replacement"

    def __init__(self, env: gym.Env, strength: float = 0.5) -> None:
        super().__init__(env, strength)


class SlowRenderingPerturbation(PerturbationWrapper):
    """The main content appears only after a seeded delay, even on a fast page."""

    perturbation = "slow_rendering"

    def __init__(self, env: gym.Env, strength: float = 0.5) -> None:
        super().__init__(env, strength)


class LabelDriftPerturbation(PerturbationWrapper):
    """Button and link words change to synonyms ("Save" → "Store", "Sign in" → "Log in")."""

    perturbation = "label_drift"

    def __init__(self, env: gym.Env, strength: float = 0.5) -> None:
        super().__init__(env, strength)


class ParaphrasePerturbation(PerturbationWrapper):
    """The goal is worded differently; every parameter value stays verbatim."""

    perturbation = "paraphrase"

    def __init__(self, env: gym.Env, strength: float = 0.5) -> None:
        super().__init__(env, strength)


class ThemePerturbation(PerturbationWrapper):
    """The same site in another skin: colours, layout, section order, icon buttons."""

    perturbation = "theme"

    def __init__(self, env: gym.Env, strength: float = 0.5) -> None:
        super().__init__(env, strength)


class _WrapperTable(Mapping[str, type[PerturbationWrapper]]):
    """The wrapper class of every registered perturbation, by name, read from the registry."""

    def __getitem__(self, name: str) -> type[PerturbationWrapper]:
        if name not in PERTURBATIONS:
            raise KeyError(name)
        return PerturbationWrapper._declared.get(name) or _make_wrapper(name)

    def __iter__(self) -> Iterator[str]:
        return iter(PERTURBATIONS)

    def __len__(self) -> int:
        return len(PERTURBATIONS)


def _make_wrapper(name: str) -> type[PerturbationWrapper]:
    """A wrapper for a perturbation that no class declares.

    ``slow_fonts`` gets a ``SlowFontsPerturbation(env, strength, **options)``, documented
    by the perturbation's own docstring (and kept as its declared wrapper from then on).
    """
    doc = inspect.getdoc(PERTURBATIONS[name]) or f"The registered perturbation {name!r}."
    attributes = {"perturbation": name, "__doc__": doc, "__module__": __name__}
    return type(_class_name(name), (PerturbationWrapper,), attributes)


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) + "Perturbation"


WRAPPERS: Mapping[str, type[PerturbationWrapper]] = _WrapperTable()


def __getattr__(name: str) -> type[PerturbationWrapper]:
    """A made wrapper by its class name, made here when its perturbation is registered.

    Gymnasium finds a wrapper of an env's spec (``module:Class``), and pickle finds a
    class, this way; the perturbation must be registered in this process.
    """
    for perturbation_name in PERTURBATIONS:
        if _class_name(perturbation_name) == name:
            return WRAPPERS[perturbation_name]
    raise AttributeError(
        f"module {__name__!r} has no attribute {name!r}: no registered perturbation has a "
        "wrapper of that name (register_perturbation it in this process first)"
    )


def perturb(env: gym.Env, perturbations: str, strength: float = 0.5) -> gym.Env:
    """Wrap ``env`` in a stack of perturbations named in a string, innermost first.

    Args:
        env: a WebEval env (``gym.make("WebEval/<task>-v0")``), possibly already wrapped.
        perturbations: names separated by commas, each with an optional own strength:
            ``"popup,latency"``, ``"theme:1, label_drift:0.3"``.
        strength: the strength of the names that do not give one.

    Raises:
        UnknownPerturbationError: a name that does not exist (the message suggests one).
        ValueError: a strength outside [0, 1], an empty name, a name listed twice.

    Example:
        >>> env = perturb(gym.make("WebEval/form-v0"), "popup, latency:0.2")  # doctest: +SKIP
    """
    for name, own_strength in parse_stack(perturbations, strength):
        env = WRAPPERS[name](env, own_strength)
    return env

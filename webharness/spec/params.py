"""Seeded task parameters: each spec declares generators, each seed gives one instance."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Annotated, Any, Literal

import numpy as np
import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from webharness.errors import did_you_mean
from webharness.spec.checks import SPEC_CONFIG
from webharness.spec.templating import fill


@functools.lru_cache(maxsize=1)
def pools() -> dict[str, list[str]]:
    """Built-in value pools (names, companies, cities, ...), shipped as package data."""
    text = resources.files("webharness.spec").joinpath("pools.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def check_pool(name: str) -> str:
    """``name`` if it is a built-in pool; ValueError naming the pools otherwise."""
    if name not in pools():
        raise ValueError(
            f"no pool named {name!r}.{did_you_mean(name, pools())} Pools: {', '.join(pools())}"
        )
    return name


# A page sees parameters as JavaScript numbers, exact up to 2**53 - 1.
JS_SAFE_INT = 2**53 - 1

PoolName = Annotated[str, AfterValidator(check_pool)]


class _Param(BaseModel):
    model_config = SPEC_CONFIG


class ChoiceParam(_Param):
    """One value drawn from a list."""

    kind: Literal["choice"] = "choice"
    values: list[Any] = Field(min_length=1)

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> Any:
        return self.values[int(rng.integers(len(self.values)))]


class PoolParam(_Param):
    """One value from a built-in pool, optionally excluding values drawn earlier."""

    kind: Literal["pool"] = "pool"
    pool: PoolName
    distinct_from: list[str] = Field(default_factory=list)  # parameters declared earlier

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> Any:
        taken = {params[name] for name in self.distinct_from}
        options = [v for v in pools()[self.pool] if v not in taken]
        return options[int(rng.integers(len(options)))]


class SampleParam(_Param):
    """``k`` distinct values from a list or a pool, in drawn order."""

    kind: Literal["sample"] = "sample"
    values: list[Any] | None = None
    pool: PoolName | None = None
    k: int = Field(ge=1)

    @model_validator(mode="after")
    def _one_source(self) -> SampleParam:
        if (self.values is None) == (self.pool is None):
            raise ValueError("give either values (a list) or pool (a pool's name), not both")
        return self

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> Any:
        source = self.values if self.values is not None else pools()[self.pool or ""]
        picks = rng.choice(len(source), size=min(self.k, len(source)), replace=False)
        return [source[int(i)] for i in picks]


class IntParam(_Param):
    """An integer in [min, max], optionally a multiple of ``step``."""

    kind: Literal["int"] = "int"
    min: int = Field(ge=-JS_SAFE_INT, le=JS_SAFE_INT)
    max: int = Field(ge=-JS_SAFE_INT, le=JS_SAFE_INT)
    step: int = Field(default=1, ge=1)

    @field_validator("max")
    @classmethod
    def _not_below_min(cls, value: int, info: ValidationInfo) -> int:
        low = info.data.get("min")
        if low is not None and value < low:
            raise ValueError(f"max {value} is below min {low}: no integer lies in between")
        return value

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> Any:
        count = (self.max - self.min) // self.step + 1
        return self.min + self.step * int(rng.integers(count))


class BoolParam(_Param):
    """True with probability ``p``."""

    kind: Literal["bool"] = "bool"
    p: float = Field(default=0.5, ge=0, le=1)

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> Any:
        return bool(rng.random() < self.p)


class TemplateParam(_Param):
    """A string built from earlier parameters: ``"{{first}}.{{last}}@example.com"``."""

    kind: Literal["template"] = "template"
    template: str
    transform: Literal["none", "lower", "upper", "slug"] = "none"
    map: dict[str, str] = Field(default_factory=dict)  # filled text -> replacement

    def draw(self, rng: np.random.Generator, params: dict[str, Any]) -> Any:
        text = str(fill(self.template, params))
        text = self.map.get(text, text)
        if self.transform == "lower":
            return text.lower()
        if self.transform == "upper":
            return text.upper()
        if self.transform == "slug":
            return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())
        return text


class SeedParam(_Param):
    """The episode's seed itself (``reset(seed=N)`` gives N), for a page that seeds its own
    randomness (MiniWoB++'s ``Math.seedrandom``), as its own library seeds it. Without a
    seed, one is drawn from the env's generator."""

    kind: Literal["seed"] = "seed"

    def draw_seed(self, seed: int | None, rng: np.random.Generator) -> int:
        return int(seed) if seed is not None else int(rng.integers(2**31))


ParamSpec = Annotated[
    ChoiceParam | PoolParam | SampleParam | IntParam | BoolParam | TemplateParam | SeedParam,
    Field(discriminator="kind"),
]


def draw_params(
    specs: dict[str, Any], rng: np.random.Generator, seed: int | None = None
) -> dict[str, Any]:
    """Draw every parameter in declared order (templates may use earlier ones); a ``seed``
    parameter is the episode's ``seed``."""
    params: dict[str, Any] = {}
    for name, spec in specs.items():
        if isinstance(spec, SeedParam):
            params[name] = spec.draw_seed(seed, rng)
        else:
            params[name] = spec.draw(rng, params)
    return params

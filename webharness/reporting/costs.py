"""Tokens and what they cost: a price table the user passes, and usage summed over episodes.

Prices are in USD per million tokens, prompt and completion apart. An episode's price is
its agent's own (the ``price_prompt``/``price_completion`` options of its spec), else its
model's in the table. An episode that spent tokens with no price has no cost, and neither
has any total it is part of: the reports say "no price" instead of making one up.

A prices file (YAML or JSON) maps model names to prices::

    gpt-4o-mini: {prompt: 0.15, completion: 0.60}
    my-local-model: {prompt: 0, completion: 0}

Example:
    >>> from webharness.reporting.records import EvalAttempt
    >>> table = PriceTable(models={"m": Price(prompt=1.0, completion=4.0)})
    >>> a = EvalAttempt(scenario_id="WebEval/form-v0", category="form", runner="llm",
    ...                 model="m", seed=0, passed=True, prompt_tokens=1000,
    ...                 completion_tokens=100)
    >>> episode_cost(a, table)
    0.0014
    >>> usage([a], PriceTable()).cost_usd is None  # no price for "m": no cost
    True
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from webharness.errors import WebHarnessError
from webharness.reporting.records import EvalAttempt

PER = 1_000_000  # prices are per million tokens


class PriceError(WebHarnessError, ValueError):
    """A prices file that cannot be read, or a price that is not a number of 0 or more."""


class Price(BaseModel):
    """USD per million prompt tokens and per million completion tokens."""

    model_config = ConfigDict(extra="forbid")

    prompt: float = Field(ge=0, allow_inf_nan=False)
    completion: float = Field(ge=0, allow_inf_nan=False)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """The cost in USD of these tokens."""
        return (prompt_tokens * self.prompt + completion_tokens * self.completion) / PER


class PriceTable(BaseModel):
    """The prices a run's costs are computed with."""

    model_config = ConfigDict(extra="forbid")

    models: dict[str, Price] = Field(default_factory=dict)  # by model name (--prices)
    agents: dict[str, Price] = Field(default_factory=dict)  # by agent label (its options)

    def price_for(self, attempt: EvalAttempt) -> Price | None:
        """The agent's own price, else its model's; None when neither is known."""
        own = self.agents.get(attempt.runner)
        if own is not None:
            return own
        return self.models.get(attempt.model) if attempt.model else None


class Usage(BaseModel):
    """Tokens and cost of a set of episodes."""

    model_config = ConfigDict(extra="forbid")

    episodes: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # None: some of these tokens have no price
    cost_per_episode_usd: float | None
    unpriced: list[str] = Field(default_factory=list)  # models (else agents) with no price

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def episode_cost(attempt: EvalAttempt, prices: PriceTable) -> float | None:
    """The episode's cost in USD: 0 when it spent no tokens, None when they have no price."""
    if attempt.prompt_tokens == 0 and attempt.completion_tokens == 0:
        return 0.0
    price = prices.price_for(attempt)
    return None if price is None else price.cost(attempt.prompt_tokens, attempt.completion_tokens)


def usage(attempts: Iterable[EvalAttempt], prices: PriceTable) -> Usage:
    """Tokens and cost summed over ``attempts`` (harness faults included: tokens spent are
    spent)."""
    attempts = list(attempts)
    costs = [episode_cost(a, prices) for a in attempts]
    unpriced = sorted({a.model or a.runner for a, c in zip(attempts, costs) if c is None})
    total = None if unpriced else sum(c for c in costs if c is not None)
    return Usage(
        episodes=len(attempts),
        prompt_tokens=sum(a.prompt_tokens for a in attempts),
        completion_tokens=sum(a.completion_tokens for a in attempts),
        cost_usd=total,
        cost_per_episode_usd=total / len(attempts) if total is not None and attempts else None,
        unpriced=unpriced,
    )


def load_prices(path: str | Path) -> dict[str, Price]:
    """Read a prices file: a YAML or JSON mapping of model name to ``{prompt, completion}``.

    Raises:
        PriceError: the file cannot be read or parsed, is not such a mapping, or a price
            is missing, unknown, negative or not a number (named with the model).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
        raise PriceError(f"cannot be read: {exc}") from None
    if not isinstance(data, dict) or not data:
        raise PriceError(f"must map model names to prices, e.g. {_EXAMPLE}")
    prices = {}
    for model, price in data.items():
        try:
            prices[str(model)] = Price.model_validate(price)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            at = f"{model}.{where}" if where else str(model)
            raise PriceError(
                f"{at}: {first['msg'].lower()} (each model has prompt and completion, USD "
                f"per million tokens, e.g. {_EXAMPLE})"
            ) from None
    return prices


_EXAMPLE = "'gpt-4o-mini: {prompt: 0.15, completion: 0.6}'"

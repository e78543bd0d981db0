"""Checking a run's agent specs and options before anything runs, and what each agent is.

``check_agent`` reads one spec (``llm[model=gpt-x]``, see ``webharness.agents.specs``);
``check_run_options`` the options given to the whole run (``--agent-option``);
``price_table`` the prices of a run; ``agent_identities`` makes each agent once, so its
options are tried and its model as resolved is known (a resumed run compares them).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from webharness.agents.base import BUILTIN_AGENTS, accepted_options, load_agent
from webharness.agents.specs import (
    PRICE_OPTIONS,
    AgentSpecError,
    agent_identity,
    parse_agent_spec,
)
from webharness.errors import AgentUnavailableError, ConfigError, WebHarnessError, did_you_mean
from webharness.reporting.costs import Price, PriceTable

AGENT_HELP = "oracle, heuristic, random, llm, or 'package.module:ClassName'"


def check_agent(spec: str) -> str:
    """``spec`` as the run keeps it, if it names a built-in agent or an importable class
    with ``reset`` and ``act``, and every option it gives is one the agent takes; the
    agent is not made (``agent_identities`` does).

    Raises:
        ConfigError: a malformed spec, an unknown name, a module that cannot be imported,
            an object that is not an agent class, or an option the agent does not take.
    """
    try:
        parsed = parse_agent_spec(spec)
    except AgentSpecError as exc:
        raise ConfigError("agents", spec, str(exc)) from None
    accepted = _check_name(parsed.name)
    for key in parsed.agent_options:
        _check_key(spec, parsed.name, key, accepted)
    _price_of(spec, parsed.options)
    return parsed.text


def check_run_options(agents: list[str], options: dict[str, Any]) -> None:
    """Each of the run's options must be taken by at least one of its agents (or be a price).

    Raises:
        ConfigError: ``agent_options`` with a key no agent of the run takes.
    """
    _price_of("agent options", options)
    names = [parse_agent_spec(a).name for a in agents]
    takes = {name: accepted_options(name) for name in names}
    if any(accepted is None for accepted in takes.values()):
        return  # an agent that takes **options takes them all
    everything = set(PRICE_OPTIONS).union(*(t or () for t in takes.values()))
    for key, value in options.items():
        if key in everything or key == "log_prompts":
            continue
        known = sorted(everything)
        listed = "; ".join(f"{n} takes {', '.join(_shown(t)) or 'none'}" for n, t in takes.items())
        raise ConfigError(
            "agent_options",
            f"{key}={value}",
            f"no agent of the run takes {key!r}.{did_you_mean(key, known)} {listed}",
        )


def price_table(agents: list[str], options: dict[str, Any], models: dict[str, Price]) -> PriceTable:
    """The run's prices: ``models`` (``--prices``), and each agent's own, from its spec's
    price options or else the run's."""
    table = PriceTable(models=models)
    for spec in agents:
        parsed = parse_agent_spec(spec)
        price = _price_of(spec, {**options, **parsed.options})
        if price is not None:
            table.agents[parsed.label] = price
    return table


def agent_identities(agents: list[str], options: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Make each agent once, with the options its episodes get, and describe it
    (``webharness.agents.specs.agent_identity``), by label.

    Raises:
        ConfigError: an option value the agent refuses (out of range, the wrong type).
        AgentUnavailableError: the agent cannot act at all (an LLM without a key).
    """
    identities = {}
    for spec in agents:
        label = parse_agent_spec(spec).label
        name, given = made_with(label, options)
        try:
            agent = load_agent(name, **given)
        except AgentUnavailableError:
            raise
        except (WebHarnessError, ValueError, TypeError) as exc:
            raise ConfigError("agents", label, f"cannot be made: {exc}") from None
        identities[label] = agent_identity(name, given, agent)
    return identities


def made_with(spec: str, run_options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The agent's name and the options it is made with: its spec's own over the run's
    options that it takes (``log_prompts`` means nothing to the oracle)."""
    parsed = parse_agent_spec(spec)
    return parsed.name, parsed.options_for_run(run_options, accepted_options(parsed.name))


def _check_name(name: str) -> frozenset[str] | None:
    """The options the agent takes (None: any), if ``name`` is an agent."""
    if name not in BUILTIN_AGENTS and ":" not in name:
        hint = did_you_mean(name, BUILTIN_AGENTS)
        raise ConfigError("agents", name, f"no agent called {name!r}.{hint} Use {AGENT_HELP}")
    try:
        accepted = accepted_options(name)  # imports it; the errors name what is wrong
    except WebHarnessError as exc:
        raise ConfigError("agents", name, str(exc)) from None
    except Exception as exc:  # the module itself fails to import (a syntax error, ...)
        raise ConfigError("agents", name, f"importing {name!r} failed: {exc!r}") from None
    if name in BUILTIN_AGENTS:
        return accepted
    module, _, attr = name.partition(":")
    target = getattr(importlib.import_module(module), attr)
    if inspect.isclass(target):
        missing = [m for m in ("reset", "act") if not callable(getattr(target, m, None))]
        if not missing:
            return accepted
        problem = f"{name!r} has no {' or '.join(missing)} method: not an agent class"
    elif inspect.isfunction(target):
        return accepted  # a factory: what it makes is checked when the run loads it
    else:
        problem = f"{name!r} names a {type(target).__name__}, not an agent class"
    raise ConfigError("agents", name, f"{problem}; name a class such as {AGENT_HELP}")


def _check_key(spec: str, name: str, key: str, accepted: frozenset[str] | None) -> None:
    if accepted is None or key in accepted:
        return
    takes = _shown(accepted | set(PRICE_OPTIONS))
    raise ConfigError(
        "agents",
        spec,
        f"agent {name!r} has no option {key!r}.{did_you_mean(key, takes)} "
        f"It takes: {', '.join(takes)}",
    )


def _price_of(where: str, options: dict[str, Any]) -> Price | None:
    """The price the options give (both price options), None when they give none."""
    given = [k for k in PRICE_OPTIONS if k in options]
    if not given:
        return None
    values = [options.get(k) for k in PRICE_OPTIONS]
    if len(given) == 1 or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < float("inf")
        for v in values
    ):
        raise ConfigError(
            "agents" if where != "agent options" else "agent_options",
            where,
            "give price_prompt and price_completion together, each a number of 0 or more "
            "(USD per million tokens)",
        )
    return Price(prompt=float(values[0]), completion=float(values[1]))  # type: ignore[arg-type]


def _shown(accepted: frozenset[str] | set[str] | None) -> list[str]:
    """The options worth listing to a user (not the test hooks ``rng``, ``sleep``, ``clock``)."""
    return sorted(set(accepted or ()) - {"rng", "sleep", "clock"})

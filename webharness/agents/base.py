"""The agent interface, and loading an agent by name or by ``module:Class``.

An agent is any object with ``reset(instance)`` and ``act(obs, info) -> str`` (a DSL action
string), and optionally a ``name`` (its traces' agent; the class name when it has none).
Agents that call a model may expose ``usage`` (tokens so far).

Example:
    >>> from webharness.agents import load_agent
    >>> agent = load_agent("random", seed=7)
    >>> agent.name
    'random'
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import sys
from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from webharness.agents.specs import parse_agent_spec
from webharness.errors import WebHarnessError, did_you_mean
from webharness.trace.models import TaskInstance

# Built-in agents, imported only when asked for (the LLM agent must not load otherwise).
BUILTIN_AGENTS: dict[str, str] = {
    "oracle": "webharness.golden.oracle:OracleAgent",
    "random": "webharness.agents.random_agent:RandomAgent",
    "heuristic": "webharness.agents.heuristic:HeuristicAgent",
    "llm": "webharness.agents.llm:LLMAgent",
    "mcp": "webharness.external.mcp_agent:McpAgent",  # a command speaking MCP, per episode
    "cdp": "webharness.external.cdp_agent:CdpAgent",  # a command driving its own browser
}


class TokenUsage(BaseModel):
    """Tokens an agent has spent so far (zero for agents that call no model)."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt and completion tokens together."""
        return self.prompt_tokens + self.completion_tokens


@runtime_checkable
class Agent(Protocol):
    """What the runner drives: one instance plays episodes one after another.

    A ``name`` is optional: its traces name the agent by it, else by its class.
    """

    def reset(self, instance: TaskInstance) -> None:
        """Start a new episode of ``instance`` (forget the previous one)."""

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        """The next action, as a DSL string such as ``'click("e12")'``."""


class AgentLoadError(WebHarnessError, ValueError):
    """An agent spec that names no built-in agent and no importable ``module:Class``."""


def agent_usage(agent: Any) -> TokenUsage:
    """The agent's token usage, or zeros when it does not report any."""
    usage = getattr(agent, "usage", None)
    return usage if isinstance(usage, TokenUsage) else TokenUsage()


def load_agent(spec: str, **options: Any) -> Agent:
    """Make an agent from a built-in name or a ``package.module:ClassName`` path.

    The built-in names are ``oracle``, ``random``, ``heuristic`` and ``llm``; ``options``
    go to the agent's constructor. A spec with options, ``llm[model=gpt-x]``, adds its own
    (``options`` win over them). A module is looked for on ``sys.path`` and then in the
    current folder, as ``python -m`` does.

    Raises:
        AgentLoadError: the name is unknown, the import fails, the options don't fit the
            constructor, or the object made is not an agent.
    """
    if "[" in spec:  # name[key=value,...]: the spec's options, under the ones passed here
        parsed = parse_agent_spec(spec)
        spec, options = parsed.name, {**parsed.agent_options, **options}
    target = BUILTIN_AGENTS.get(spec, spec)
    if ":" not in target:
        raise AgentLoadError(
            f"unknown agent {spec!r}.{did_you_mean(spec, BUILTIN_AGENTS)} "
            f"Use a built-in ({', '.join(BUILTIN_AGENTS)}) or 'package.module:ClassName'."
        )
    factory = _import(spec, target)
    _check_options(spec, factory, options)
    agent = factory(**options)
    missing = [a for a in ("reset", "act") if not callable(getattr(agent, a, None))]
    if missing:
        raise AgentLoadError(
            f"{spec!r} made a {type(agent).__name__}, which lacks {', '.join(missing)}: "
            "not an Agent"
        )
    return agent


def accepted_options(spec: str) -> frozenset[str] | None:
    """The option names the agent's constructor takes (None: it takes any).

    A runner uses it to pass ``log_prompts``, say, only to agents that know it.
    """
    name = parse_agent_spec(spec).name if "[" in spec else spec
    factory = _import(name, BUILTIN_AGENTS.get(name, name))
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return None
    if any(v.kind is v.VAR_KEYWORD for v in params.values()):
        return None
    return frozenset(p for p, v in params.items() if v.kind is not v.VAR_POSITIONAL)


def _import(spec: str, target: str) -> Any:
    module_name, _, attr = target.partition(":")
    try:
        with _current_folder_on_path():
            module = importlib.import_module(module_name)
    except ImportError as exc:
        where = (
            f" It is looked for on sys.path and in the current folder ({os.getcwd()}): run "
            "from the folder that holds it, or set PYTHONPATH to that folder."
            if isinstance(exc, ModuleNotFoundError) and exc.name == module_name.split(".")[0]
            else ""
        )
        raise AgentLoadError(
            f"cannot import agent {spec!r}: {exc}.{where}{did_you_mean(spec, BUILTIN_AGENTS)} "
            f"Built-ins: {', '.join(BUILTIN_AGENTS)}."
        ) from exc
    if not attr or not hasattr(module, attr):
        public = [n for n in dir(module) if not n.startswith("_")]
        raise AgentLoadError(
            f"module {module_name!r} has no {attr!r} for agent {spec!r}."
            f"{did_you_mean(attr, public)}"
        )
    return getattr(module, attr)


@contextlib.contextmanager
def _current_folder_on_path() -> Iterator[None]:
    """The current folder on ``sys.path`` while an agent's module is imported.

    A console script, unlike ``python -m``, does not put it there.
    """
    folder = os.getcwd()
    added = folder not in sys.path and "" not in sys.path
    if added:
        sys.path.append(folder)
    try:
        yield
    finally:
        if added:
            sys.path.remove(folder)


def _check_options(spec: str, factory: Any, options: dict[str, Any]) -> None:
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin or C callable: let the call decide
        return
    params = signature.parameters
    accepted = [p for p, v in params.items() if v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)]
    takes_any = any(v.kind is v.VAR_KEYWORD for v in params.values())
    accepts = ", ".join(accepted) or "none"
    for key in options:
        if key not in params and not takes_any:
            raise AgentLoadError(
                f"agent {spec!r} has no option {key!r}.{did_you_mean(key, accepted)} "
                f"It accepts: {accepts}"
            )
    try:
        signature.bind(**options)
    except TypeError as exc:
        raise AgentLoadError(
            f"agent {spec!r} cannot be made with these options ({exc}); it accepts: {accepts}"
        ) from None

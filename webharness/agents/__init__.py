"""Built-in agents and the agent interface.

``load_agent("heuristic")`` (or ``"oracle"``, ``"random"``, ``"llm"``, or
``"package.module:ClassName"``) makes an agent; each has ``name``, ``reset(instance)`` and
``act(obs, info) -> str``.
"""

from webharness.agents.base import (
    BUILTIN_AGENTS,
    Agent,
    AgentLoadError,
    TokenUsage,
    accepted_options,
    agent_usage,
    load_agent,
)
from webharness.agents.heuristic import HeuristicAgent
from webharness.agents.llm import (
    LLMAgent,
    LLMStats,
    LLMUnavailableError,
    build_messages,
    parse_reply,
)
from webharness.agents.random_agent import RandomAgent
from webharness.golden.oracle import OracleAgent

__all__ = [
    "BUILTIN_AGENTS",
    "Agent",
    "AgentLoadError",
    "HeuristicAgent",
    "LLMAgent",
    "LLMStats",
    "LLMUnavailableError",
    "OracleAgent",
    "RandomAgent",
    "TokenUsage",
    "accepted_options",
    "agent_usage",
    "build_messages",
    "load_agent",
    "parse_reply",
]

"""Agents that run as their own processes: started per episode, bounded in time, and counted.

An external agent is a command the runner starts for each episode, with the episode's door
filled in (``{mcp_url}``, ``{goal}``). It plays through that door, and the harness ends the
episode when the agent ends it, exits, times out or disconnects. Its LLM tokens can be
counted at a local OpenAI-compatible proxy.
"""

from webharness.external.command import AgentCommand
from webharness.external.llm_proxy import LlmProxy, Meter
from webharness.external.mcp_agent import McpAgent
from webharness.external.process import AgentProcess, Exit, ProcessEnd
from webharness.external.recorded_episode import RecordedEpisode

__all__ = [
    "AgentCommand",
    "AgentProcess",
    "Exit",
    "LlmProxy",
    "McpAgent",
    "Meter",
    "ProcessEnd",
    "RecordedEpisode",
]

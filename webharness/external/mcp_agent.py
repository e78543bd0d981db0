"""An MCP agent run as its own process: ``webharness run --agents 'mcp[command="..."]'``.

Its door is a fresh MCP endpoint on 127.0.0.1 per episode (Playwright MCP's tools, one
recorded env step per state-changing call, no ``webharness_reset``), given to the command
as ``{mcp_url}``, and as ``{mcp_config}``: an ``mcpServers`` config file in the episode's
folder. Its client closing the MCP session is leaving the door. The rest is
``ExternalAgent``'s.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path

from webharness.external.external_agent import ExternalAgent
from webharness.external.recorded_episode import RecordedEpisode
from webharness.mcp.http import EpisodeEndpoints, ServingThread


class McpAgent(ExternalAgent):
    """An agent that is a command speaking MCP.

    Args:
        command: the command template, e.g. ``my-agent --goal {goal} --mcp {mcp_url}``.
        command_file: a file holding the template, instead of ``command``.
        timeout_s: the wall-time budget of one episode's process.
        answer: ``"stdout"`` or ``"none"`` (``ExternalAgent``).
        vision: also serve the coordinate tools (Playwright MCP's ``--caps vision``).
        exit_grace_s: how long the process has to exit by itself once the episode has
            ended or its client has closed the session, before it is ended.
        model: the model behind the agent, for the reports.
        cwd: the process's working folder (default: the runner's).
        llm_proxy: an OpenAI-compatible upstream URL whose tokens are counted.

    Raises:
        ConfigError: as ``ExternalAgent``.
    """

    name = kind = "mcp"

    def __init__(
        self,
        command: str | None = None,
        command_file: str | None = None,
        timeout_s: float = 600.0,
        answer: str = "stdout",
        vision: bool = False,
        exit_grace_s: float = 5.0,
        model: str | None = None,
        cwd: str | None = None,
        llm_proxy: str | None = None,
    ) -> None:
        super().__init__(
            command, command_file, timeout_s, answer, exit_grace_s, model, cwd, llm_proxy
        )
        self.vision = bool(vision)

    @contextlib.contextmanager
    def door(
        self, episode: RecordedEpisode, folder: Path, wake: threading.Event
    ) -> Iterator[dict[str, str]]:
        """The episode's MCP endpoint, and ``mcp.json`` in the episode's folder."""
        endpoints = EpisodeEndpoints()
        endpoint = endpoints.add_episode(episode, on_session_end=lambda session: wake.set())
        serving = ServingThread(endpoints)
        url = f"http://127.0.0.1:{serving.start()}{endpoint.path}"
        config = folder / "mcp.json"
        servers = {"mcpServers": {"webharness": {"type": "http", "url": url}}}
        config.write_text(json.dumps(servers, indent=2) + "\n", encoding="utf-8")
        try:
            yield {"mcp_url": url, "mcp_config": str(config.resolve())}
        finally:
            serving.stop()

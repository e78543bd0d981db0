"""An agent that drives its own browser, run as its own process:
``webharness run --agents 'cdp[command="python my_agent.py --cdp {cdp_url} --goal {goal}"]'``.

Its door is the episode's browser over CDP (``webharness.cdp.door``), given to the command as
``{cdp_url}``, a WebSocket URL; browser-use's ``cdp_url`` and Playwright's
``connect_over_cdp`` take it. The simulated user answers at ``{ask_url}``
(``ask_endpoint``). Its env serves CDP (the runner makes it with ``cdp=True``).
The steps it takes are read from its commands (``webharness.cdp.steps``); its last one is recorded
when its process ends. The rest is ``ExternalAgent``'s.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from webharness import actions as A
from webharness.cdp.door import CdpDoor
from webharness.external.ask_endpoint import AskEndpoint
from webharness.external.external_agent import ExternalAgent
from webharness.external.recorded_episode import RecordedEpisode


class CdpAgent(ExternalAgent):
    """An agent that is a command driving the episode's browser over CDP.

    Its options are ``ExternalAgent``'s: ``command`` (or ``command_file``), ``timeout_s``,
    ``answer``, ``exit_grace_s``, ``model``, ``cwd``, ``llm_proxy``.
    """

    name = kind = "cdp"
    needs_cdp = True

    @contextlib.contextmanager
    def door(
        self, episode: RecordedEpisode, folder: Path, wake: threading.Event
    ) -> Iterator[dict[str, str]]:
        """The episode's browser over CDP, its steps recorded into the episode, and the
        simulated user at ``{ask_url}``."""
        door = CdpDoor(episode.env, record=lambda step: episode.step(step).ended)

        def ask(question: str) -> str:
            door.flush()  # the step before the question comes first
            replies = episode.step(A.AskUser(question=question)).obs.get("user_messages") or []
            return str(replies[-1]) if replies else ""

        asking = AskEndpoint(ask)
        try:
            yield {"cdp_url": door.open(), "ask_url": asking.start()}
        finally:
            asking.stop()
            door.close()

"""An episode's browser handed to an agent that drives it itself, over CDP.

``attach(env)`` and ``play_attached(env, agent)`` (on a ``CdpDoor``) serve the episode
running in an env made with ``cdp=True`` to one agent; ``StepReader`` reads the agent's CDP
commands into steps, each an env step of its own. Its users: the Python API, ``webharness
mcp --cdp`` and the runner's ``cdp`` agent.
"""

from webharness.cdp.door import CdpAgentFn, CdpDoor, attach, play_attached
from webharness.cdp.steps import StepReader

__all__ = ["CdpAgentFn", "CdpDoor", "StepReader", "attach", "play_attached"]

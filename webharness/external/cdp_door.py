"""An episode's browser handed to an agent that drives it itself, over CDP.

``attach(env)`` (or ``CdpDoor``) opens a door for the episode running in an env made with
``cdp=True``: a WebSocket URL on 127.0.0.1 with an unguessable path, which
``playwright.chromium.connect_over_cdp`` and browser-use's ``cdp_url`` take. Through it the
agent sees the episode's page (and the pages it opens beside it), nothing else
(``webharness.browser.cdp_view``). Each step it takes (``cdp_steps``) is an env step of
its own: ``env.step(actions.Performed(action))``, so the trace, the wrappers' alignment
and diagnosis, ``webharness score`` and the report read it as any agent's.

Example:
    >>> env = gym.make("WebEval/form-v0", cdp=True)  # doctest: +SKIP
    >>> env.reset(seed=0)  # doctest: +SKIP
    >>> async with webharness.attach(env) as cdp_url:  # doctest: +SKIP
    ...     answer = await my_agent.run(cdp_url, goal)
    >>> env.step(f"send_msg_to_user({answer!r})")  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import gymnasium as gym

from webharness import actions as A
from webharness.browser.cdp_view import EpisodeView
from webharness.browser.page_scripts import page_digest_script
from webharness.errors import WebHarnessError
from webharness.external.cdp_steps import StepReader
from webharness.origins import origin_of

StepOutput = tuple[Any, Any, bool, bool, dict[str, Any]]  # what env.step returns
OPEN_TIMEOUT_S = 30.0


class CdpDoor:
    """The episode now running in ``env``, served to one agent over CDP.

    Args:
        env: an env made with ``cdp=True``, reset (wrappers and all: its ``step`` records).
        record: how a step the agent took is recorded (``Performed``, or a refused
            navigation's ``Goto`` for the env to play and refuse), saying whether it ended
            the episode; by default ``env.step`` of it.

    Raises:
        WebHarnessError: the env serves no CDP, or has no episode running.
    """

    def __init__(
        self, env: gym.Env, record: Callable[[A.Action | A.Performed], bool] | None = None
    ) -> None:
        unwrapped: Any = env.unwrapped
        if not getattr(unwrapped, "cdp", False):
            raise WebHarnessError(
                "this env serves no CDP: make it with gym.make(env_id, cdp=True) (webharness[cdp])"
            )
        if unwrapped.episode is None or unwrapped.runtime is None:
            raise WebHarnessError("no episode is running: call env.reset() before attaching")
        self.env, self.unwrapped = env, unwrapped
        self.record = record or (lambda step: _ended(env.step(step)))
        self.ended = False  # a step the agent took ended the episode
        self.url: str | None = None
        self.reader = StepReader(self._record, self._digest)

    def open(self) -> str:
        """Open the door; its WebSocket URL."""
        self.url = self.unwrapped.runtime.run(self._open(), OPEN_TIMEOUT_S)
        return self.url

    def flush(self) -> None:
        """Record the step the agent has done and that is not recorded yet, if any."""
        runtime = self.unwrapped.runtime
        if self.url is not None and runtime is not None:
            runtime.run(self.reader.flush(), None)

    def close(self) -> None:
        """Record the agent's last step, if it is not yet, and close the door (the agent's
        connections with it)."""
        runtime = self.unwrapped.runtime
        if self.url is None or runtime is None:
            return
        mux = runtime.host.mux
        self.flush()
        if mux is not None:
            runtime.run(mux.shut(self.url), OPEN_TIMEOUT_S)
        self.url = None

    async def _open(self) -> str:
        episode = self.unwrapped.episode
        page = episode.session.page
        session = await page.context.new_cdp_session(page)
        try:
            info = await session.send("Target.getTargetInfo")
        finally:
            await session.detach()
        allowed = set(episode.allowed_origins)
        view = EpisodeView(
            info["targetInfo"]["browserContextId"], lambda url: origin_of(url) in allowed
        )
        mux = self.unwrapped.runtime.host.mux
        if mux is None:
            raise WebHarnessError("the env's browser serves no CDP (it was not launched yet)")
        return str(mux.open(view, self.reader.on_command))

    async def _digest(self) -> int:
        """The page's digest (``js/page_digest.js``); -1 while it cannot be read (it is
        between documents)."""
        try:
            page = self.unwrapped.episode.session.page
            return int(await page.evaluate(page_digest_script()))
        except Exception:  # Playwright's Error: a navigation destroyed the context
            return -1

    async def _record(self, action: A.Action | A.Performed) -> None:
        if not self.ended:
            await asyncio.to_thread(self._step, action)

    def _step(self, action: A.Action | A.Performed) -> None:
        self.ended = self.record(action)


def _ended(output: StepOutput) -> bool:
    return bool(output[2] or output[3])


@contextlib.asynccontextmanager
async def attach(env: gym.Env) -> AsyncIterator[str]:
    """Hand the episode running in ``env`` (made with ``cdp=True``) to an agent over CDP.

    Yields the WebSocket URL; each step the agent takes inside the block is an env step.
    At the block's end its last step is recorded and its connections are closed; end the
    episode then with its answer (``env.step("send_msg_to_user('...')")``) or ``done()``.
    """
    door = CdpDoor(env)
    url = await asyncio.to_thread(door.open)
    try:
        yield url
    finally:
        await asyncio.to_thread(door.close)

"""An episode's browser handed to an agent that drives it itself, over CDP.

``attach(env)`` (or ``CdpDoor``) opens a door for the episode running in an env made with
``cdp=True``: a WebSocket URL on 127.0.0.1 with an unguessable path, which
``playwright.chromium.connect_over_cdp`` and browser-use's ``cdp_url`` take. Through it the
agent sees the episode's page (and the pages it opens beside it), nothing else
(``webharness.browser.cdp_view``). Each step it takes (``webharness.cdp.steps``) is an env step of
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
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import gymnasium as gym

from webharness import actions as A
from webharness.browser.cdp_mux import CdpMux
from webharness.browser.cdp_view import EpisodeView
from webharness.browser.page_scripts import page_digest_script
from webharness.cdp.steps import StepReader
from webharness.errors import BrowserError, WebHarnessError
from webharness.origins import origin_of

StepOutput = tuple[Any, Any, bool, bool, dict[str, Any]]  # what env.step returns
# an agent that drives its own browser: given the CDP URL, it returns its final answer
# (None: it ends with done())
CdpAgentFn = Callable[[str], Awaitable[str | None]]
OPEN_TIMEOUT_S = 30.0
logger = logging.getLogger(__name__)


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
        self.record = record or self._env_step
        self.ended = False  # a step the agent took ended the episode
        self.last: StepOutput | None = None  # env.step's output of the last step recorded
        self.url: str | None = None
        self._probe: str | None = None  # the door's own session on the page, for its digest
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
            runtime.run(self._shut(mux, self.url), OPEN_TIMEOUT_S)
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
        target = {"targetId": info["targetInfo"]["targetId"], "flatten": True}
        self._probe = (await mux.request("Target.attachToTarget", target))["sessionId"]
        return str(mux.open(view, self.reader.on_command))

    async def _shut(self, mux: CdpMux, url: str) -> None:
        await mux.shut(url)
        probe, self._probe = self._probe, None
        if probe is not None:
            with contextlib.suppress(BrowserError):  # the page is gone already
                await mux.request("Target.detachFromTarget", {"sessionId": probe})

    async def _digest(self) -> int:
        """The page's digest (``js/page_digest.js``), read over the door's own session on
        the page (a pipe's round trip: each script of the agent's costs two); -1 while it
        cannot be read (the page is between documents)."""
        mux = self.unwrapped.runtime.host.mux
        expression = {"expression": f"({page_digest_script()})()", "returnByValue": True}
        try:
            answer = await mux.request("Runtime.evaluate", expression, session=self._probe)
        except BrowserError:  # no document to run in: a navigation destroyed the context
            return -1
        value = answer.get("result", {}).get("value")
        return value if isinstance(value, int) else -1

    async def _record(self, action: A.Action | A.Performed) -> None:
        if not self.ended:
            await asyncio.to_thread(self._step, action)

    def _step(self, action: A.Action | A.Performed) -> None:
        self.ended = self.record(action)

    def _env_step(self, action: A.Action | A.Performed) -> bool:
        self.last = self.env.step(action)
        return bool(self.last[2] or self.last[3])


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


async def play_attached(env: gym.Env, agent: CdpAgentFn) -> StepOutput:
    """Let ``agent`` play the episode running in ``env`` over CDP; end it with its answer.

    ``agent`` is an async callable given the episode's CDP URL (as ``attach`` yields it).
    Each step it takes is an env step; once it returns, its last step is recorded, its
    connections are closed, and the episode ends with its answer: a str is the final
    answer (``send_msg_to_user``), None is ``done()``. A step of its that ended the episode
    already (the step budget) stays the end.

    An agent that raises (or returns anything but a str or None) is ended as the runner
    ends an agent process that fails: its door is closed, its last step recorded, and one
    more step observes the page as it left it and truncates the episode, ``agent_error``,
    with the exception named in ``info["episode_end"].error`` (and logged). Cancelling the
    coroutine closes the door and leaves the episode as it is.

    Returns:
        The last step's ``(obs, reward, terminated, truncated, info)``.

    Example:
        >>> async def agent(cdp_url: str) -> str:  # doctest: +SKIP
        ...     async with async_playwright() as playwright:
        ...         browser = await playwright.chromium.connect_over_cdp(cdp_url)
        ...         ...  # each action: one env step
        ...         return "Added Thea Olsen."
        >>> env.reset(seed=0)  # doctest: +SKIP
        >>> obs, reward, terminated, truncated, info = asyncio.run(
        ...     webharness.play_attached(env, agent))  # doctest: +SKIP
    """
    door = CdpDoor(env)
    url = await asyncio.to_thread(door.open)
    try:
        answer = await agent(url)
        if answer is not None and not isinstance(answer, str):
            raise TypeError(
                f"the agent returned {answer!r} ({type(answer).__name__}): return its final "
                "answer as a str, or None to end with done()"
            )
        done = answer is None
        ending: A.Action | A.Performed = A.Done() if done else A.SendMsgToUser(text=answer)
    except Exception as exc:  # the agent's failure, never the harness's
        logger.warning("the CDP agent failed; its episode ends as agent_error", exc_info=True)
        failed = f"the agent raised {type(exc).__name__}: {str(exc)[:300]}"
        ending = A.Performed(A.Noop(), failed=failed)
    finally:
        await asyncio.to_thread(door.close)
    if door.ended and door.last is not None:
        return door.last
    return await asyncio.to_thread(env.step, ending)

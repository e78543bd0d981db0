"""The page agent's own JavaScript world, and calls into it and into the page's world.

The agent (``js/page_agent/``) runs in an isolated world of the page's frame: it shares the
page's DOM but not its JavaScript globals, so a page that replaces ``Array``, ``JSON``,
``Map`` or DOM prototypes cannot break the observation or the actions. Only what must see
the page's own world stays there (``js/page_hooks.js``: requests and scheduled work
counted, refusals noted, the task's JS criteria). Calls go over CDP (``Runtime.evaluate``
with the world's context id, values returned by CDP itself), not through Playwright's
``page.evaluate``, whose helper script runs in the page's world.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

WORLD_NAME = "webharness"
AGENT = "window[Symbol.for('webharness.agent')]"
HOOKS = "window.__webharness_hooks__"  # js/page_hooks.js, in the page's world


_ABSENT = "webharness: no agent in this document"
_CRASHED = "webharness: the page crashed"
_RAISE = object()


async def counter_changed(
    read: Callable[[], int],
    before: int,
    moved: asyncio.Event,
    deadline: float,
    stopped: Callable[[], bool],
) -> bool:
    """Wait, up to ``deadline`` (``time.monotonic()``), for the counter ``read`` (woken by
    its event ``moved``) to leave ``before``, or for ``stopped``; whether it left."""
    while read() == before and not stopped():
        moved.clear()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(moved.wait(), remaining)
    return read() != before


class PageScriptError(PlaywrightError):
    """A call into the page that threw; its message is the exception's description."""


class AgentWorld:
    """The agent's world in one frame (a page's main frame, or a frame of another origin:
    ``frame_worlds.py``), over a CDP session that reaches that frame."""

    _of_page: ClassVar[weakref.WeakKeyDictionary[Page, AgentWorld]] = weakref.WeakKeyDictionary()

    def __init__(self, cdp: CDPSession, frame_id: str) -> None:
        self._cdp, self._frame_id = cdp, frame_id
        self._context_id: int | None = None
        self.crashed = False  # set by crash(): a crashed page never answers a CDP call
        self._waiting: set[asyncio.Task[Any]] = set()  # the tasks awaiting an answer
        self._episode_scripts: list[str] = []  # identifiers of add_script's scripts
        self.documents = 0  # documents the frame has committed since the world was installed
        self._new_document = asyncio.Event()

    @classmethod
    async def install(cls, page: Page, cdp: CDPSession, agent_source: str) -> AgentWorld:
        """Have ``agent_source`` run in the agent's world of every new document of ``page``
        (before the page's own scripts)."""
        await cdp.send("Page.enable")  # scripts for new documents run only with it on
        frame_id = (await cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
        await cdp.send(
            "Page.addScriptToEvaluateOnNewDocument",
            {"source": agent_source, "worldName": WORLD_NAME, "runImmediately": True},
        )
        world = cls(cdp, frame_id)
        AgentWorld._of_page[page] = world
        return world

    async def add_script(self, source: str) -> None:
        """Run ``source`` in the agent's world of every new document, after the agent, for
        this episode (``remove_episode_scripts`` ends it)."""
        added = await self._cdp.send(
            "Page.addScriptToEvaluateOnNewDocument", {"source": source, "worldName": WORLD_NAME}
        )
        self._episode_scripts.append(added["identifier"])

    async def remove_episode_scripts(self) -> None:
        """The scripts ``add_script`` added run in no later document."""
        added, self._episode_scripts = self._episode_scripts, []
        for identifier in added:
            await self._cdp.send(
                "Page.removeScriptToEvaluateOnNewDocument", {"identifier": identifier}
            )

    @property
    def frame_id(self) -> str:
        """The frame this world is in (its id in CDP)."""
        return self._frame_id

    @property
    def cdp(self) -> CDPSession:
        """The CDP session that reaches the frame."""
        return self._cdp

    @classmethod
    def of(cls, page: Page) -> AgentWorld:
        """The agent's world of a page opened by ``PageSession`` (for the perturbations)."""
        return cls._of_page[page]

    async def call(self, method: str, *args: Any, absent: Any = _RAISE) -> Any:
        """``agent.method(...args)`` in the agent's world (awaited when it returns a
        promise); its JSON-able value. In a document without the agent yet (one that is
        being replaced) it is ``absent`` if given, else a ``PageScriptError``."""
        expression = (
            f"{AGENT} ? {AGENT}.{method}(...{json.dumps(list(args))}) : {json.dumps(_ABSENT)}"
        )
        value = await self.run(expression)
        if value == _ABSENT:
            if absent is _RAISE:
                raise PageScriptError(f"the page agent is not in this document yet ({method})")
            return absent
        return value

    async def run(self, expression: str) -> Any:
        """Evaluate ``expression`` in the agent's world (where ``AGENT`` is the agent); its
        JSON-able value. For tests and tools that drive the agent directly."""
        context_id = await self._context()
        try:
            return await self._evaluate(expression, {"contextId": context_id})
        except PlaywrightError:
            self._context_id = None  # its document may have gone: ask again next time
            raise

    async def frame_id_of(self, ref: str) -> str | None:
        """The frame that the ``<iframe>`` with ``ref`` holds (its id in CDP); None when
        there is no such element or it holds none."""
        params = {"expression": f"{AGENT}.element({json.dumps(ref)})", "returnByValue": False}
        answer = await self._send(
            "Runtime.evaluate", {**params, "contextId": await self._context()}
        )
        handle = answer["result"].get("objectId")
        if handle is None:
            return None
        try:
            node = (await self._send("DOM.describeNode", {"objectId": handle}))["node"]
        finally:
            await self._send("Runtime.releaseObject", {"objectId": handle})
        frame_id = node.get("frameId")
        return str(frame_id) if frame_id else None

    async def criteria(self, expressions: list[str]) -> dict[str, Any]:
        """The task's JS criteria, evaluated in the page's own world:
        ``{"values": {expr: bool | number}, "errors": {expr: message}}``."""
        answer = await self._evaluate(
            f"{HOOKS} ? {HOOKS}.criteria({json.dumps(expressions)}) : null", {}
        )
        return answer or {"values": dict.fromkeys(expressions, False), "errors": {}}

    async def _evaluate(self, expression: str, where: dict[str, Any]) -> Any:
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True, **where}
        answer = await self._send("Runtime.evaluate", params)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            thrown = details.get("exception", {}).get("description") or details.get("text")
            raise PageScriptError(str(thrown)[:500])
        return answer["result"].get("value")

    def crash(self) -> None:
        """The page crashed: end every call waiting on it, and refuse the next ones."""
        self.crashed = True
        self._new_document.set()  # wake the waits for a document that will not come
        for task in list(self._waiting):
            task.cancel(_CRASHED)

    async def _send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A CDP call, ended with a ``PageScriptError`` if the page crashes meanwhile (the
        waiting task is cancelled by ``crash``: no task of its own per call, which cost
        half a millisecond)."""
        if self.crashed:
            raise PageScriptError("the page has crashed")
        task = asyncio.current_task()
        assert task is not None  # always called from a coroutine on the host's loop
        self._waiting.add(task)
        try:
            return await self._cdp.send(method, params)
        except asyncio.CancelledError as cancelled:
            if self.crashed and cancelled.args == (_CRASHED,):
                task.uncancel()
                raise PageScriptError("the page crashed during the call") from None
            raise
        finally:
            self._waiting.discard(task)

    def new_document(self) -> None:
        """The main frame committed a new document (PageSession): its world is a new one."""
        self._context_id = None
        self.documents += 1
        self._new_document.set()

    async def next_document(self, since: int, deadline: float) -> bool:
        """Wait, up to ``deadline`` (``time.monotonic()``), for a document after the
        ``since``-th (``documents``), or for a crash; whether one came."""
        return await counter_changed(
            lambda: self.documents, since, self._new_document, deadline, lambda: self.crashed
        )

    async def context_id(self) -> int:
        """The world's execution context in the current document (for CDP calls made in
        it, such as resolving a DOM node there)."""
        return await self._context()

    async def _context(self) -> int:
        """The world's execution context in the current document (one per document)."""
        if self._context_id is None:
            params = {"frameId": self._frame_id, "worldName": WORLD_NAME}
            created = await self._send("Page.createIsolatedWorld", params)
            self._context_id = created["executionContextId"]
        return self._context_id

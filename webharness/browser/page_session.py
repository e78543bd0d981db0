"""One browser context and page, with the in-page agent installed: settle and observe.

All methods are coroutines run on the ``BrowserHost`` thread.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from playwright.async_api import (
    Browser,
    BrowserContext,
    CDPSession,
    ConsoleMessage,
    Download,
    Frame,
    Page,
)
from playwright.async_api import Error as PlaywrightError

from webharness.browser.agent_world import AgentWorld, counter_changed
from webharness.browser.capture import capture_viewport
from webharness.browser.egress import EgressProxy
from webharness.browser.file_choosers import FileChoosers
from webharness.browser.frame_worlds import FrameWorlds
from webharness.browser.observe_pass import ObserveRequest, Snapshot
from webharness.browser.page_reuse import Leftovers
from webharness.browser.page_scripts import page_agent_script, page_hooks_script
from webharness.browser.ready import ReadyCondition, ready_payload, wait_until_ready
from webharness.browser.script_loads import ScriptLoads
from webharness.browser.site import SiteRouter

# Chromium refuses a page's navigations to file://, chrome:// and data: URLs before any
# request exists (routes never see them); its console message is the only trace left.
_REFUSED_NAVIGATION = re.compile(
    r"^Not allowed to (?:load local resource|navigate top frame to data URL): (\S+)"
)

# A document the agent has not been installed in yet is navigating.
NAVIGATING = {"navigating": True}

# The main frame's navigation event can reach us just after the error of the page call
# that the navigation cut short: how long to wait for it before calling the error the
# browser's.
NAVIGATION_EVENT_GRACE_S = 0.5


def _answered(raw: dict[str, Any]) -> bool:
    """A ``settleAndObserve`` answer that says more than "navigating": a snapshot, or the
    ready condition not met yet."""
    return "snap" in raw or bool(raw.get("notReady"))


class PageSession:
    """A fresh, isolated context and page for one episode."""

    def __init__(
        self,
        context: BrowserContext,
        page: Page,
        router: SiteRouter,
        cdp: CDPSession,
        egress: EgressProxy,
        world: AgentWorld,
    ) -> None:
        self.context, self.page, self.router, self._egress = context, page, router, egress
        self.world = world  # the page agent's own world: every call into the agent
        self.frames = FrameWorlds(page, cdp, world, page_agent_script())  # other origins'
        self._cdp = cdp  # for screenshots; opened with the page, ahead of the episode
        self._loads = 0  # documents that reached DOMContentLoaded, to wait for navigations
        self._loaded = asyncio.Event()
        self.crashed = False  # the renderer died: nothing more can be observed
        self.hung = False  # its document stopped answering (a script of its own spins)
        self._scripts = ScriptLoads(page)  # lazily loaded code, for the settle
        self.episodes = 0  # episodes started on this page (it is reused: ``recycle``)
        self.traced = False  # Playwright's tracing ran on the context: it is not reused
        self.leftovers = Leftovers()  # what an episode leaves for the next: ``recycle``
        # Where the pointer actions left the mouse (viewport CSS px), None until one moved it
        self.mouse_at: tuple[float, float] | None = None
        self.choosers = FileChoosers(page)  # the file chooser the page opened, for upload()
        page.on("domcontentloaded", self._on_load)
        page.on("framenavigated", self._on_navigated)
        page.on("crash", self._on_crash)
        page.on("download", self._on_download)
        page.on("console", self._on_console)
        context.on("page", self._on_new_page)
        # The proxy goes with its context, however the context ends (a closed or killed
        # browser too, where nobody calls close()).
        context.on("close", lambda _context: egress.close())

    @classmethod
    async def open(
        cls, browser: Browser, viewport: tuple[int, int], proxies: set[EgressProxy]
    ) -> PageSession:
        """A new context with the agent script and the router installed, and its page."""
        router = SiteRouter()
        egress = EgressProxy(router.reaches, router.record, proxies)
        context = await browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]},
            service_workers="block",
            accept_downloads=False,
            reduced_motion="reduce",
            proxy={"server": await egress.start()},
        )
        await context.add_init_script(page_hooks_script())
        await context.route("**/*", router.handle)
        await context.route_web_socket(re.compile(".*"), router.handle_websocket)
        page = await context.new_page()
        cdp = await context.new_cdp_session(page)
        world = await AgentWorld.install(page, cdp, page_agent_script())
        return cls(context, page, router, cdp, egress, world)

    def _on_load(self, _page: Page) -> None:
        self._loads += 1
        self._loaded.set()

    def _on_navigated(self, frame: Frame) -> None:
        self.leftovers.opened(frame.url)
        if frame is not self.page.main_frame:
            self.frames.navigated()
        else:
            self.world.new_document()
            self.frames.forget()
            self._scripts.forget()

    async def navigated_since(self, count: int, timeout_s: float) -> bool:
        """Whether the main frame committed a new document since ``navigations`` was
        ``count``, waiting up to ``timeout_s`` for its event (which may come just after the
        error of a call that the navigation cut short)."""
        return await self.world.next_document(count, time.monotonic() + timeout_s)

    @property
    def navigations(self) -> int:
        """Documents committed in the main frame (a page may navigate itself)."""
        return self.world.documents

    async def _count_changed(
        self, read: Callable[[], int], before: int, moved: asyncio.Event, deadline: float
    ) -> bool:
        """Wait, up to ``deadline``, for the counter ``read`` (woken by its event ``moved``)
        to leave ``before``, or for the page to crash; whether it left."""
        return await counter_changed(read, before, moved, deadline, lambda: self.crashed)

    def _on_crash(self, _page: Page) -> None:
        self.crashed = True
        self.world.crash()
        self.frames.crash()
        self._loaded.set()  # wake the waits for a document that will not come (world.crash
        # wakes those for a committed one)

    # --- containment: what the page tried that the harness refused ------------------------
    async def _on_new_page(self, page: Page) -> None:
        """A window the page opened (window.open, target=_blank): recorded and closed."""
        if page is self.page:
            return
        self.router.record(f"{page.url} [new window]")
        try:
            await page.close()
        except PlaywrightError:
            pass  # already closed

    def _on_download(self, download: Download) -> None:
        self.router.record(f"{download.url} [download]")  # refused: accept_downloads=False

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            refused = _REFUSED_NAVIGATION.match(message.text)
            if refused:
                self.router.record(f"{refused.group(1)} [navigation]")

    async def goto(self, url: str, timeout_ms: float) -> None:
        await self.page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)

    async def settle(self, quiet_ms: float, cap_ms: float) -> bool:
        """Wait until requests are done and the DOM is quiet, following navigations.

        Returns False when the cap was reached before the page settled.
        """
        deadline = time.monotonic() + cap_ms / 1000
        settled, _ = await self._settle(quiet_ms, cap_ms, None)
        frames = await self.frames.to_settle(self.router.reaches, ObserveRequest().payload())
        again = await self._settle_frames_then_page(frames, quiet_ms, deadline, None)
        return settled and (again is None or again[0])

    async def settle_and_snapshot(
        self,
        quiet_ms: float,
        cap_ms: float,
        request: ObserveRequest,
        ready: ReadyCondition | None = None,
    ) -> tuple[bool, Snapshot, float]:
        """``settle``, the task's ``ready`` condition, then ``snapshot``: in one round trip
        when no navigation intervenes and the condition holds once the page has settled.

        Returns whether the page settled, the snapshot, and the snapshot's own time (ms).
        """
        deadline = time.monotonic() + cap_ms / 1000
        payload = request.payload() | ({} if ready is None else {"ready": ready_payload(ready)})
        settled, raw = await self._settle(quiet_ms, cap_ms, payload)
        if raw is not None and "snap" in raw:
            allowed = self.frames.allowed_in(raw["snap"], self.router.reaches)
            again = await self._settle_frames_then_page(allowed, quiet_ms, deadline, payload)
            if again is not None and again[1] is not None and _answered(again[1]):
                settled, raw = settled and again[0], again[1]
        if raw is not None and "snap" in raw:
            return settled, await self._snapshot_of(raw["snap"], request), raw["snapshotMs"]
        if raw is not None and ready is not None and raw.get("notReady"):
            # as when observing apart: the frames settled too, then the wait
            remaining_ms = max(0.0, (deadline - time.monotonic()) * 1000)
            settled = await self.settle(quiet_ms, remaining_ms) and settled
            await wait_until_ready(self.world, ready)
        # no new document in time, a snapshot that threw, or a page not ready at once
        started = time.perf_counter()
        return settled, await self.snapshot(request), (time.perf_counter() - started) * 1000

    async def _settle_frames_then_page(
        self,
        iframe_refs: list[str],
        quiet_ms: float,
        deadline: float,
        observe_request: dict[str, Any] | None,
    ) -> tuple[bool, dict[str, Any] | None] | None:
        """Settle these frames of other origins, then the page again until ``deadline``
        (what a frame did may reach the page only then); ``_settle``'s answer, or None
        when there was no frame to settle."""
        if not await self.frames.settle(iframe_refs, quiet_ms, deadline):
            return None
        remaining_ms = max(0.0, (deadline - time.monotonic()) * 1000)
        return await self._settle(quiet_ms, remaining_ms, observe_request)

    async def _settle(
        self, quiet_ms: float, cap_ms: float, observe_request: dict[str, Any] | None
    ) -> tuple[bool, dict[str, Any] | None]:
        """The settle loop; with ``observe_request``, each settle call also takes the
        snapshot, returned as the call's raw result (None when the loop gave up)."""
        deadline = time.monotonic() + cap_ms / 1000
        while not self.crashed:
            remaining_ms = max(0.0, (deadline - time.monotonic()) * 1000)
            loads_before, scripts_before = self._loads, self._scripts.started
            settle_request = {"quietMs": quiet_ms, "capMs": remaining_ms}
            raw: dict[str, Any] | None = None
            try:
                if observe_request is None:
                    result = await self.world.call("settle", settle_request, absent=NAVIGATING)
                else:
                    both = {"settle": settle_request, "observe": observe_request}
                    answer = await self.world.call("settleAndObserve", both, absent=None)
                    raw = json.loads(answer) if answer is not None else {"settled": NAVIGATING}
                    result = raw["settled"]
            except PlaywrightError:
                result = {"navigating": True}  # the document went away mid-call
            if not result.get("navigating"):
                if (
                    self._scripts.since(scripts_before)
                    and time.monotonic() < deadline
                    and await self._scripts.arrived(deadline)
                ):
                    continue  # scripts arrived meanwhile (lazy components): settle on them
                return not result.get("timedOut", False), raw
            if not await self._wait_for_new_document(loads_before, deadline):
                return False, None
        return False, None

    async def _wait_for_new_document(self, loads_before: int, deadline: float) -> bool:
        if await self._count_changed(lambda: self._loads, loads_before, self._loaded, deadline):
            return True
        if not self.crashed:
            # The navigation may have been cancelled (e.g. a blocked origin): carry on with
            # whatever document is current.
            await self._clear_navigating()
        return self.crashed  # the settle loop ends on a crash

    async def _clear_navigating(self) -> None:
        try:
            await self.world.call("markSettled", absent=None)
        except PlaywrightError:
            pass

    async def snapshot(self, request: ObserveRequest) -> Snapshot:
        """One round trip: the snapshot pass, then each JS predicate (one that throws is
        false, and its error is kept in ``js_errors``).

        The result crosses Playwright's protocol as one JSON string, far faster than the
        same object, which it would walk and re-encode value by value.
        """
        raw = json.loads(await self.world.call("observe", request.payload()))
        return await self._snapshot_of(raw, request)

    async def _snapshot_of(self, raw: dict[str, Any], request: ObserveRequest) -> Snapshot:
        """The snapshot, with the allowed frames of other origins joined in (``frame_worlds``),
        and the task's JS criteria, which the page's world evaluated right after the pass,
        in the same call (a call of their own when the page broke its hooks)."""
        raw = await self.frames.observe(raw, request.payload(), self.router.reaches)
        for entry in raw.get("contained", ()):
            self.router.record(str(entry))  # what the page agent and the page's hooks refused
        criteria: dict[str, Any] = raw.get("criteria") or {"values": {}, "errors": {}}
        if request.expressions and not raw.get("criteria"):  # the page broke its hooks
            criteria = await self.world.criteria(list(request.expressions))
        return Snapshot(
            axtree=raw["axtree"],
            state=raw["state"],
            max_ref=raw["maxRef"],
            js=criteria["values"],
            js_errors={e: str(message)[:300] for e, message in criteria["errors"].items()},
        )

    async def screenshot(self) -> np.ndarray:
        """The viewport as uint8 H×W×3 (``capture.py``; a frame is waited for in the agent's
        world, where the page cannot have replaced ``requestAnimationFrame``)."""
        return await capture_viewport(self._cdp, self.world.run)

    @property
    def cdp(self) -> CDPSession:
        """The page's CDP session (the one the agent's world is called over)."""
        return self._cdp

    async def call_agent(self, method: str, *args: Any) -> Any:
        """Call a method of the in-page agent with JSON arguments; one given a ref shown
        in a frame of another origin goes to that frame's agent."""
        frame = self.frames.owner(args[0]) if args and isinstance(args[0], str) else None
        if frame is None:
            return await self.world.call(method, *args)
        if method == "locate":
            return await self.frames.locate(frame, args[0])
        return await frame.world.call(method, *args)  # a gone document: PageScriptError

    async def add_episode_script(self, source: str) -> None:
        """An init script for this episode's documents only (``recycle`` removes it)."""
        await self.leftovers.add_script(self.context, source)

    @property
    def reusable(self) -> bool:
        """Whether ``recycle`` may make this page ready for another episode."""
        return not (self.crashed or self.hung or self.traced or self.context.is_closed())

    async def recycle(self) -> None:
        """Make the page ready for the next episode as a new context's would be
        (``page_reuse.py``). Raises ``PlaywrightError`` when the page will not leave its
        document (the caller opens a new context instead)."""
        self.mouse_at = None
        self.choosers.closed()
        # The old document's requests are served until it has gone: refused, a navigation
        # of its own became an error page that held up about:blank's.
        await self.leftovers.wipe(self.page, self._cdp, self.world, self.episodes)
        self.router.episode = None
        self.frames.forget()

    async def restart_document(self, start_url: str) -> str:
        """Make the page's document ready for the next episode of a page that restarts its
        own task in it (an in-place reset), as ``recycle`` makes a page ready after a new
        load. Returns why the document does not qualify ("" when it was made ready): it
        left ``start_url``, made history, or registered a service worker."""
        refused = str(await self.world.call("restartInPlace", start_url))
        if not refused:
            moved, self.mouse_at = self.mouse_at is not None, None
            self.choosers.closed()
            await self.leftovers.clear_in_document(self.page, self._cdp, moved)
        return refused

    async def close(self) -> None:
        try:
            await self.context.close()
        except PlaywrightError:
            pass  # the browser is already gone
        self._egress.close()

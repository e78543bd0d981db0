"""The page agent in the frames of other origins that a task allows: their content
observed under their ``<iframe>``, their refs acted on in them.

The agent of the page's document cannot read another origin's document, so each such
frame gets an agent of its own, in the same named world of the frame's document: reached
over the page's CDP session when Chromium renders the frame in the page's process (another
origin of the same site), over the frame's own session when the frame is out of process
(another site). After the page settles, each allowed frame's agent settles, and the page
settles again (what a frame did may reach the page only then: a message posted across
processes). After the page's pass, each frame's agent observes its document, handing out
refs after the page's: its lines go under the ``<iframe>``'s line, its elements (in the
page's coordinates), alerts, dialogs and text into the semantic state. An action on one of
its refs is located by that frame's agent, and the page's agent hit-tests the point, so a
popup of the page's over the frame is still a cover.

One level: a frame of another origin inside such a frame is marked, not entered. A frame
whose origin the task does not allow is marked blocked (its document was refused).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from webharness.browser.agent_world import AgentWorld
from webharness.origins import origin_of

AllowsOrigin = Callable[[str], bool]
_ABSENT = object()
# How long an out-of-process frame, then the page, may take to draw before a pointer
# event goes into the frame (two animation frames: a few tens of ms; a hidden one never).
# Without the wait, 14 of 30 clicks on a frame scrolled to from below the fold were lost.
DRAWN_WAIT_MS = 500
_REF = re.compile(r"\[ref=([^\]]+)\]")  # the first on a line is the line's own element's


@dataclass(frozen=True)
class Below:
    """What goes on and under an ``<iframe>``'s line: the note that replaces the page
    agent's mark (``[cross-origin: <origin>]``), and the frame's own lines."""

    origin: str
    note: str
    lines: list[str] = field(default_factory=list)


@dataclass
class OtherOriginFrame:
    """A frame of another origin: the ``<iframe>``'s ref in the page, the agent within."""

    iframe_ref: str
    world: AgentWorld


class FrameWorlds:
    """The agents of one page's frames of other origins, and which refs are theirs."""

    def __init__(self, page: Page, cdp: CDPSession, page_world: AgentWorld, agent: str) -> None:
        self._page, self._cdp, self._page_world, self._agent = page, cdp, page_world, agent
        self._frames: dict[str, OtherOriginFrame] = {}  # by the <iframe>'s ref
        self._owners: dict[str, OtherOriginFrame] = {}  # a ref shown in a frame -> that frame
        self._navigations = 0  # documents committed in the page's frames (not its own)
        self._navigated = asyncio.Event()

    def owner(self, ref: str) -> OtherOriginFrame | None:
        """The frame whose agent gave ``ref``, if one did."""
        return self._owners.get(ref)

    def worlds(self) -> list[AgentWorld]:
        """The agents' worlds in the frames observed so far in this document."""
        return [frame.world for frame in self._frames.values()]

    def forget(self) -> None:
        """A new document in the page (or a new episode): its frames are other frames."""
        self._frames.clear()
        self._owners.clear()

    def navigated(self) -> None:
        """A frame of the page committed a new document (``PageSession``)."""
        self._navigations += 1
        self._navigated.set()

    def crash(self) -> None:
        """The page crashed: end the calls waiting on its frames too."""
        for frame in self._frames.values():
            frame.world.crash()

    async def observe(
        self,
        raw: dict[str, Any],
        payload: dict[str, Any],
        reaches: AllowsOrigin,
    ) -> dict[str, Any]:
        """The page agent's snapshot ``raw`` with the allowed frames' own snapshots joined
        in (``payload`` is what the page's pass was asked)."""
        if not raw.get("frames"):
            return raw  # the common page: nothing to join, nothing to pay
        lines = raw["axtree"].split("\n") if raw["axtree"] else []
        budget = payload["maxLines"] - len(lines)
        below: dict[str, Below] = {}  # by the <iframe>'s ref
        next_ref = raw["maxRef"] + 1
        for entry in raw["frames"]:
            origin, iframe_ref = entry["origin"], entry["ref"]
            snap = None
            if reaches(origin) and budget > 0:
                request = {**payload, "minRef": next_ref, "maxLines": budget, "expressions": []}
                snap = await self._frame_snapshot(iframe_ref, request)
            if snap is None:
                below[iframe_ref] = Below(origin, _note(origin, reaches(origin)))
                continue
            frame = self._frames[iframe_ref]
            self._owners.update(dict.fromkeys(_REF.findall(snap["axtree"]), frame))
            _to_page(snap["state"], entry["offset"], self._viewport(), iframe_ref)
            nested = {  # one level: the frames in it are marked, not entered
                n["ref"]: Below(n["origin"], _note(n["origin"], reaches(n["origin"])))
                for n in snap.get("frames", ())
            }
            inner = _joined([line for line in snap["axtree"].split("\n") if line], nested)
            below[iframe_ref] = Below(origin, "", ["  " * entry["depth"] + line for line in inner])
            budget -= len(inner)
            _merge_state(raw, snap, entry["focused"])
            next_ref = max(next_ref, snap["maxRef"] + 1)
        raw["axtree"] = "\n".join(_joined(lines, below))
        raw["maxRef"] = next_ref - 1
        return raw

    def _viewport(self) -> tuple[int, int]:
        size = self._page.viewport_size
        return (size["width"], size["height"]) if size else (0, 0)

    def allowed_in(self, raw: dict[str, Any], reaches: AllowsOrigin) -> list[str]:
        """The ``<iframe>`` refs of the allowed frames the page agent's snapshot ``raw``
        lists (without a snapshot: ``to_settle``)."""
        return [entry["ref"] for entry in raw.get("frames", ()) if reaches(entry["origin"])]

    async def to_settle(self, reaches: AllowsOrigin, payload: dict[str, Any]) -> list[str]:
        """The ``<iframe>`` refs of the frames a settle without a snapshot is to settle:
        those observed so far in this document; before its first observation, those the
        page agent's pass (asked ``payload``) lists, a pass made only when the browser
        has a frame of an allowed other origin in the page at all."""
        if self._frames:
            return list(self._frames)
        top = origin_of(self._page.url)
        origins = {origin_of(frame.url) for frame in self._page.frames[1:]}
        if not any(origin != top and reaches(origin) for origin in origins):
            return []
        try:
            raw = json.loads(await self._page_world.call("observe", payload))
        except PlaywrightError:
            return []  # the document is going: the settle that follows a navigation will do
        return self.allowed_in(raw, reaches)

    async def settle(self, iframe_refs: list[str], quiet_ms: float, deadline: float) -> bool:
        """Settle the frames of these ``<iframe>`` refs, until ``deadline``
        (``time.monotonic()``) at most; whether there was one. What a frame did may reach
        the page only now (a message posted to it from another process), so the caller
        settles the page again after this."""
        for iframe_ref in iframe_refs:
            while time.monotonic() < deadline:
                navigations = self._navigations
                cap_ms = max(0.0, (deadline - time.monotonic()) * 1000)
                result = await self._frame_call(
                    iframe_ref, "settle", {"quietMs": quiet_ms, "capMs": cap_ms}
                )
                if not (isinstance(result, dict) and result.get("navigating")):
                    break
                await self._navigation_since(navigations, deadline)  # then settle the new one
        return bool(iframe_refs)

    async def _navigation_since(self, navigations: int, deadline: float) -> None:
        """Wait, until ``deadline`` at most, for a frame to commit a document after the
        page's frames had committed ``navigations``."""
        while self._navigations == navigations and time.monotonic() < deadline:
            self._navigated.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._navigated.wait(), deadline - time.monotonic())

    async def _frame_snapshot(
        self, iframe_ref: str, request: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The frame's agent's snapshot (raw), or None when the frame cannot be observed
        (gone, not loaded, or its document changing under the call)."""
        answer = await self._frame_call(iframe_ref, "observe", request)
        return json.loads(answer) if isinstance(answer, str) else None

    async def _frame_call(self, iframe_ref: str, method: str, *args: Any) -> Any:
        """``method(*args)`` of the agent in the frame of ``<iframe>`` ``iframe_ref``; None
        when the frame cannot be reached."""
        for _ in range(2):  # a frame that changed its document since: found again, once
            frame = await self._frame(iframe_ref)
            if frame is None:
                return None
            try:
                return await self._call(frame.world, method, *args)
            except PlaywrightError:
                self._frames.pop(iframe_ref, None)
        return None

    async def _call(self, world: AgentWorld, method: str, *args: Any) -> Any:
        """A call into a frame's agent to observe or settle it, the agent put there first
        if the frame's document does not have it (an out-of-process frame: the page's
        scripts for new documents run only in the page's own process); None if it
        cannot be."""
        value = await world.call(method, *args, absent=_ABSENT)
        if value is _ABSENT:
            await world.run(self._agent)
            value = await world.call(method, *args, absent=None)
        return value

    async def _frame(self, iframe_ref: str) -> OtherOriginFrame | None:
        """The agent's world in the frame that ``<iframe>`` ``iframe_ref`` holds."""
        if iframe_ref in self._frames:
            return self._frames[iframe_ref]
        try:
            frame_id = await self._page_world.frame_id_of(iframe_ref)
        except PlaywrightError:
            return None
        if frame_id is None:
            return None
        for cdp in (self._cdp, await self._session_of(frame_id)):
            if cdp is None:
                continue
            world = AgentWorld(cdp, frame_id)
            try:
                await world.context_id()  # fails where this session does not reach the frame
            except PlaywrightError:
                continue
            self._frames[iframe_ref] = OtherOriginFrame(iframe_ref, world)
            return self._frames[iframe_ref]
        return None

    async def _session_of(self, frame_id: str) -> CDPSession | None:
        """A CDP session of the out-of-process frame ``frame_id``, or None. (It ends with
        the frame's process: a frame that leaves it is found again, with a new one.)"""
        for frame in self._page.frames[1:]:
            try:
                session = await self._page.context.new_cdp_session(frame)
            except PlaywrightError:
                continue  # rendered in its parent's process: the page's session reaches it
            tree = await session.send("Page.getFrameTree")
            if tree["frameTree"]["frame"]["id"] == frame_id:
                return session
            await session.detach()
        return None

    async def locate(self, frame: OtherOriginFrame, ref: str) -> dict[str, Any]:
        """``locate`` of a frame's ref: its centre in the page's viewport, and whether
        something covers it there (in the frame, or in the page over the frame)."""
        status = await self._page_world.call("revealFrame", frame.iframe_ref)
        if status not in ("ok", "moved"):
            return {"status": "stale" if status == "unknown" else status}
        # The frame's document has gone since (its agent with it): so has the element.
        found: dict[str, Any] = await frame.world.call("locate", ref, absent={"status": "stale"})
        if found["status"] != "ok":
            return found
        hit = await self._page_world.call("frameHit", frame.iframe_ref, found["x"], found["y"])
        if hit["status"] not in ("ok", "covered"):
            return {"status": hit["status"]}
        if hit["status"] == "covered":
            found.update(status="covered", coveredBy=hit["coveredBy"])
        elif frame.world.cdp is not self._cdp and (status == "moved" or not found["presented"]):
            await self._drawn(frame)
        found.update(x=hit["x"], y=hit["y"])
        return found

    async def _drawn(self, frame: OtherOriginFrame) -> None:
        """Wait, bounded, until what an out-of-process frame shows now has been drawn, and
        the page drawn after it: Chromium sends a mouse event into such a frame only where
        the compositor last drew it, and to the page's ``<iframe>`` element (lost) before
        its first drawing or where it was before a scroll. (A frame presented and not
        scrolled since needs no wait: ``locate`` tells, in the call it makes anyway.)"""
        await frame.world.call("drawn", DRAWN_WAIT_MS, absent=None)
        await self._page_world.call("drawn", DRAWN_WAIT_MS)


def _note(origin: str, allowed: bool) -> str:
    if allowed:
        return f" [cross-origin: {origin}, content not observed]"
    return f" [blocked: {origin} is not allowed for this task]"


def _joined(lines: list[str], below: dict[str, Below]) -> list[str]:
    """``lines`` with each frame's ``<iframe>`` line marked as ``below`` says, and the
    frame's lines after it (the line, a container's now, ends in a colon)."""
    out: list[str] = []
    for line in lines:
        found = _REF.search(line)
        frame = below.get(found.group(1)) if found else None
        if frame is not None:
            line = line.replace(f" [cross-origin: {frame.origin}]", frame.note)
            if frame.lines and not line.endswith(":"):
                line += ":"
        out.append(line)
        out.extend(frame.lines if frame is not None else ())
    return out


def _to_page(
    state: dict[str, Any], offset: list[float], viewport: tuple[int, int], iframe_ref: str
) -> None:
    """Move a frame's elements into the page's coordinates (in the viewport only if the
    page's viewport shows them too), their scope the ``<iframe>`` where they had none."""
    for element in state["elements"]:
        x, y, width, height = element["bbox"]
        x, y = x + offset[0], y + offset[1]
        element["bbox"] = [x, y, width, height]
        shown = x + width > 0 and y + height > 0 and x < viewport[0] and y < viewport[1]
        element["in_viewport"] = bool(element["in_viewport"]) and shown
    for item in [*state["elements"], *state.get("nodes", ())]:
        if "scope" in item and item["scope"] is None:
            item["scope"] = iframe_ref


def _merge_state(raw: dict[str, Any], snap: dict[str, Any], focused: bool) -> None:
    """The frame's semantic state joined into the page's (its focused element is the
    page's when the page's focus is in the frame)."""
    state, inner = raw["state"], snap["state"]
    for key in ("elements", "headings", "alerts", "dialogs", "nodes"):
        if key in state and key in inner:
            state[key].extend(inner[key])
    state["text"] = (state["text"] + " " + inner["text"]).strip()
    if focused:
        state["focused"] = inner["focused"]
    raw.setdefault("contained", []).extend(snap.get("contained", ()))

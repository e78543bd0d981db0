"""One episode's live state: the served site, the page, refs shown, messages, the answer.

Its coroutines run on the browser thread; the env calls ``start`` once and ``step`` per
action, one thread hop each.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from playwright.async_api import Error as PlaywrightError

from webharness import actions as A
from webharness.action_result import ActionErrorKind, ActionResult
from webharness.browser.backend import Backend
from webharness.browser.observe_pass import DEFAULT_TREE_LINES, ObserveRequest, Snapshot
from webharness.browser.page_session import NAVIGATION_EVENT_GRACE_S, PageSession
from webharness.browser.ready import wait_until_ready
from webharness.browser.site import SiteEpisode
from webharness.episode.executor import ExecContext, execute
from webharness.episode.hooks import EpisodeHooks
from webharness.episode.setup import (
    open_episode_page,
    restart_in_place,
    start_page_episode,
)
from webharness.semantic import SemanticState
from webharness.spec.catalogue import shared_assets_dir, task_dir
from webharness.spec.criteria import CriteriaContext
from webharness.spec.criteria_tree import criteria_errors, js_expressions
from webharness.spec.task_spec import InstantiatedTask, TaskSpec

# Wraps one step's browser work, given the agent's action (Playwright's trace groups).
StepGroup = Callable[[str], AbstractAsyncContextManager[None]]
# While waiting for an ``eventually`` criterion: look again at every change of the page,
# and at least this often (an app may save to storage without touching the DOM).
EVENTUALLY_LOOK_MS = 100


@dataclass(frozen=True)
class EpisodeOptions:
    screenshots: bool = True  # capture a screenshot with every observation
    action_timeout_ms: float = 5_000
    settle_quiet_ms: float = 10
    settle_cap_ms: float = 3_000
    max_tree_lines: int = DEFAULT_TREE_LINES  # the observation's budget (page_session.py)
    upload_dir: Path | None = None  # the folder whose files upload() may hand to the page


# After the settle cap, a page that keeps navigating is looked at this long without waiting
# for it to settle first (it may hold still only for a moment at a time).
_LAST_LOOKS_S = 1.0


class PageUnsettled(Exception):
    """Internal: the page kept committing new documents for the whole settle cap."""

    def __init__(self, cap_ms: float) -> None:
        super().__init__(
            f"the page kept navigating for the whole settle cap ({cap_ms:.0f} ms): this "
            "observation is the last one it held still for"
        )


@dataclass
class Observed:
    """What one observation pass saw."""

    axtree: str
    state: SemanticState
    screenshot: np.ndarray | None
    js: dict[str, Any]
    timings_ms: dict[str, float] = field(default_factory=dict)
    fingerprint: str = ""  # of the state, computed once
    js_errors: dict[str, str] = field(default_factory=dict)  # JS criteria that threw

    def __post_init__(self) -> None:
        self.fingerprint = self.state.fingerprint()


class Episode:
    def __init__(
        self,
        task: InstantiatedTask,
        session: PageSession,
        options: EpisodeOptions,
        hooks: EpisodeHooks | None = None,
    ) -> None:
        self.task, self.session, self.options = task, session, options
        self.hooks = hooks or EpisodeHooks()
        self.steps_taken = 0
        spec = task.spec
        self.backend = Backend(spec.backend) if spec.backend else None
        self.site = SiteEpisode(
            origin=spec.origin,
            site_dir=_site_dir(spec),
            shared_dir=shared_assets_dir(),
            backend=self.backend,
            allowed_origins=tuple(spec.allowed_origins),
            asset_origins=tuple(spec.asset_origins),
            runtime={"seed": task.instance.seed or 0, "params": _public(task.instance.params)},
            request_hooks=list(self.hooks.request_hooks),
            html_transforms=list(self.hooks.html_transforms),
        )
        self.max_ref = 0  # every ref up to this one has been shown to the agent
        self.user_messages: list[str] = []
        self.asked_user = False
        self.final_answer: str | None = None
        self.last: Observed | None = None
        self.step_group: StepGroup | None = None  # set while Playwright's trace is on
        self._js = tuple(js_expressions(spec.success))
        self._scopes = spec.uses_scopes  # the state lists the page's nodes only when needed

    @property
    def start_url(self) -> str:
        spec = self.task.spec
        return spec.start_url or f"{spec.origin}{spec.start_page}"

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        return (self.site.origin, *self.site.allowed_origins)

    async def start(self, in_place: bool = False) -> Observed:
        """Serve the site into the page, run the task's setup (with the wrappers' hooks off:
        it brings the app to its start state, unperturbed), then open the start page with
        the hooks on and wait until it is ready.

        ``in_place``: the page restarts in the last episode's document instead
        (``restart_in_place`` or ``page_start.in_place``; the timing is ``restart``, not
        ``load``).

        Raises:
            SetupError: a setup item failed (the episode is not executable).
            NotRestartable: ``in_place``, and the document does not qualify (the message
                says why); the page is as the last episode left it.
        """
        self.session.router.episode = self.site
        started, setup_ms = time.perf_counter(), 0.0
        if in_place:
            await restart_in_place(self.session, self.site, self.task.spec, self.start_url)
        else:
            opened = (self.session, self.site, self.task.spec, self.hooks, self.start_url)
            started, setup_ms = await open_episode_page(*opened, self.options.action_timeout_ms)
        start = self.task.spec.page_start
        if start is not None:  # a page that runs its own task: its goal is the instruction
            goal = await start_page_episode(self.session, start, self.options.action_timeout_ms)
            self.task.instance.instruction = goal or self.task.instance.instruction
        observed = await self._settle_and_observe(started, "restart" if in_place else "load")
        if self.task.spec.setup and not in_place:
            observed.timings_ms["setup"] = setup_ms
        return observed

    async def step(
        self, action: Any, label: str | None = None, performed: bool = False
    ) -> tuple[ActionResult, Observed]:
        """Run the action, let the page settle, observe; report whether anything changed.

        With a ``step_group``, all of it runs inside the group named ``label`` (the agent's
        action as it was given; the parsed action's DSL by default). ``performed``: the
        agent did it itself (through CDP), so only the settle and the observation run.
        """
        if self.step_group is None:
            return await self._step(action, performed)
        async with self.step_group(label if label is not None else action.dsl()):
            return await self._step(action, performed)

    async def _step(self, action: Any, performed: bool) -> tuple[ActionResult, Observed]:
        try:
            return await self._act_and_observe(action, performed)
        except PageUnsettled as unsettled:
            if self.last is None:
                raise
            # The page's doing: the step ends with the last observation it held still for.
            result = ActionResult.failed(ActionErrorKind.PAGE_UNSETTLED, str(unsettled))
            return result, self.last

    async def _act_and_observe(self, action: Any, performed: bool) -> tuple[ActionResult, Observed]:
        before = self.last.fingerprint if self.last else ""
        started = time.perf_counter()
        options = self.options
        ctx = ExecContext(
            self.max_ref, self.allowed_origins, options.action_timeout_ms, options.upload_dir
        )
        result = ActionResult() if performed else await execute(self.session, action, ctx)
        self.steps_taken += 1
        for hook in self.hooks.after_action:
            await hook(self.session.page, self.steps_taken)
        acted = _ms(started)
        self._after_message_actions(action)
        if action.kind not in A.PAGE_FREE_ACTIONS or action.kind == A.ActionKind.WAIT:
            observed = await self._settle_and_observe(
                time.perf_counter(), "settle", {"action": acted}
            )
        else:
            observed = await self.observe({"action": acted, "settle": 0.0})
        result.state_changed = observed.fingerprint != before
        observed.timings_ms["step"] = _ms(started)
        return result, observed

    async def _settle_and_observe(
        self, started: float, waited: str, timings: dict[str, float] | None = None
    ) -> Observed:
        """Let the page settle, then observe; the time since ``started`` up to the
        observation goes in ``timings[waited]``.

        With no screenshot to take, the settle, the ready condition's check and the
        snapshot are one call into the page: a text-mode step is one round trip shorter.
        """
        timings = dict(timings or {})
        if self.options.screenshots:
            await self._settle()
            timings[waited] = _ms(started)
            return await self.observe(timings)
        options, ready = self.options, self.task.spec.ready
        args = (options.settle_quiet_ms, options.settle_cap_ms, self._request(), ready)
        deadline, navigations = self._unsettled_deadline(), self.session.navigations
        try:
            _, snap, snapshot_ms = await self.session.settle_and_snapshot(*args)
        except PlaywrightError as error:
            # A navigation began after the page looked settled: follow it, look again.
            await self._still_navigating(navigations, deadline, error)
            return await self.observe(timings, deadline)
        timings[waited] = round(_ms(started) - snapshot_ms, 2)
        timings["snapshot"] = round(snapshot_ms, 2)
        return self._observed(snap, None, timings)

    def _unsettled_deadline(self) -> float:
        return time.monotonic() + self.options.settle_cap_ms / 1000 + _LAST_LOOKS_S

    async def _still_navigating(
        self, navigations: int, deadline: float, error: PlaywrightError
    ) -> None:
        """After a page read that failed: return (to read again) if the page committed a
        new document meanwhile and the settle cap is not over. A page still navigating at
        the cap is ``PageUnsettled``; no new document at all means the browser failed, and
        ``error`` goes on."""
        if not await self.session.navigated_since(navigations, NAVIGATION_EVENT_GRACE_S):
            raise error
        if time.monotonic() >= deadline:
            raise PageUnsettled(self.options.settle_cap_ms) from error

    async def _settle(self) -> None:
        await self.session.settle(self.options.settle_quiet_ms, self.options.settle_cap_ms)
        ready = self.task.spec.ready
        if ready is not None:  # not ready within the bound: observe it, the agent decides
            await wait_until_ready(self.session.world, ready)

    def _after_message_actions(self, action: Any) -> None:
        if isinstance(action, A.AskUser):
            self.asked_user = True
            self.user_messages.append(self._reply_to(action.question))
        elif isinstance(action, A.SendMsgToUser):
            self.final_answer = action.text

    def _reply_to(self, question: str) -> str:
        user = self.task.spec.user
        if user is None:
            return "I have nothing to add: everything you need is in the instruction."
        words = question.lower()
        for reply in user.replies:
            if not reply.keywords or any(k.lower() in words for k in reply.keywords):
                return reply.text
        return user.fallback

    async def observe(
        self, timings: dict[str, float] | None = None, deadline: float | None = None
    ) -> Observed:
        """One in-page pass (tree + state), the app data, and a screenshot when asked.

        A page that navigates meanwhile is followed and looked at again, up to ``deadline``
        (the settle cap from now, and a second of quick looks): then ``PageUnsettled``.
        """
        timings = dict(timings or {})
        # The frame capture runs in the browser while the page runs the snapshot script:
        # nothing changes the page between the two, so together they are one observation.
        started = time.perf_counter()
        deadline = deadline or self._unsettled_deadline()
        while True:
            shot = self._capture(timings)
            navigations = self.session.navigations
            try:
                snap = await self.session.snapshot(self._request())
                break
            except PlaywrightError as error:
                # A navigation began after the page looked settled (a native form GET can
                # start late): the document went away mid-pass. Follow it, look again.
                await _discard(shot)
                await self._still_navigating(navigations, deadline, error)
                if time.monotonic() < deadline - _LAST_LOOKS_S:
                    await self._settle()  # else look at once: the page holds still so briefly
        timings["snapshot"] = _ms(started)
        return self._observed(snap, await shot if shot is not None else None, timings)

    def _observed(
        self, snap: Snapshot, screenshot: np.ndarray | None, timings: dict[str, float]
    ) -> Observed:
        """The observation of a snapshot (and its frame), with the app's data and the
        requests refused so far; it becomes ``last``."""
        self.max_ref = max(self.max_ref, snap.max_ref)
        state = SemanticState.model_validate(
            {
                **snap.state,
                "app": self.backend.dump() if self.backend else {},
                "blocked_requests": list(self.site.blocked),
            }
        )
        self.last = Observed(
            snap.axtree, state, screenshot, snap.js, timings, js_errors=snap.js_errors
        )
        return self.last

    def _request(self) -> ObserveRequest:
        return ObserveRequest(
            self.max_ref + 1, self._js, self.options.max_tree_lines, scopes=self._scopes
        )

    async def await_criteria(self, bound_ms: float) -> Observed:
        """Look at the page again, at each change and at least every ``EVENTUALLY_LOOK_MS``,
        until the criteria hold or ``bound_ms`` has passed (``eventually`` criteria)."""
        started = time.perf_counter()
        deadline = started + bound_ms / 1000
        while not self.success() and time.perf_counter() < deadline:
            left_ms = (deadline - time.perf_counter()) * 1000
            try:
                await self.session.call_agent("waitForChange", min(left_ms, EVENTUALLY_LOOK_MS))
            except PlaywrightError:
                pass  # a new document: the settle below follows it
            await self._settle_and_observe(time.perf_counter(), "settle")
        assert self.last is not None, "start() observed before any criteria check"
        self.last.timings_ms["eventually"] = _ms(started)
        return self.last

    def _capture(self, timings: dict[str, float]) -> asyncio.Task[np.ndarray] | None:
        """Start the screenshot, when the options ask for one; its time goes in ``timings``."""
        if not self.options.screenshots:
            return None

        async def timed() -> np.ndarray:
            started = time.perf_counter()
            image = await self.session.screenshot()
            timings["screenshot"] = _ms(started)
            return image

        return asyncio.ensure_future(timed())

    def criteria_context(self) -> CriteriaContext:
        assert self.last is not None, "observe() runs in start(), before any criteria check"
        last = self.last
        return CriteriaContext(
            last.state, self.final_answer, self.asked_user, last.js, last.js_errors
        )

    def success(self) -> bool:
        return bool(self.task.spec.success.holds(self.criteria_context()))

    def criteria_error(self) -> str | None:
        """What the task's JS criteria threw on the page now (None: nothing threw)."""
        errors = criteria_errors(self.task.spec.success, self.criteria_context())
        return "; ".join(errors) or None


def _site_dir(spec: TaskSpec) -> Path | None:
    """The folder the site is served from: relative to the task's folder, or absolute."""
    if spec.start_url or not spec.site:
        return None
    site = Path(spec.site)
    return site if site.is_absolute() else task_dir(spec.id) / site


def _public(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters the page may see: internal keys (leading underscore) and the ones the
    task withholds from the agent (which could otherwise read them off the page) left out."""
    withheld = set(params.get("_withheld", ()))
    return {k: v for k, v in params.items() if not k.startswith("_") and k not in withheld}


async def _discard(task: asyncio.Task[Any] | None) -> None:
    """Wait out a capture whose document went away; its result or error is not wanted."""
    if task is not None:
        try:
            await task
        except PlaywrightError:
            pass


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)


__all__ = ["ActionErrorKind", "Episode", "EpisodeOptions", "Observed"]

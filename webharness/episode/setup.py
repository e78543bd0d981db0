"""Opening the start page (or restarting the last episode's document in place), and
running a task's setup on reset before the first observation: HTTP calls to the app
(their answers checked), cookies, storage, init scripts and steps, in the order written.

Every item goes only to the task's own origins (checked again here: a templated URL is
known only now). A failing item is a ``SetupError`` naming it: the episode is not
executable, never a silent start in the wrong state. A task without setup pays nothing.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from webharness import actions as A
from webharness.browser.observe_pass import ObserveRequest
from webharness.browser.page_session import PageSession
from webharness.browser.site import SETUP_PATH, SiteEpisode, runtime_script
from webharness.episode.executor import ExecContext, execute
from webharness.episode.hooks import EpisodeHooks
from webharness.errors import SetupError
from webharness.origins import origin_of
from webharness.semantic import SemanticState
from webharness.spec.setup_spec import (
    HttpCall,
    PageStart,
    SetupItem,
    reachable_origins,
)
from webharness.spec.steps import GoldenStep, find_target, step_action
from webharness.spec.task_spec import TaskSpec


class _Failed(Exception):
    """Internal: an item failed, with what to say."""


class SetupRun:
    """One episode's setup: the page, the site it serves, the spec as instantiated."""

    def __init__(
        self, session: PageSession, site: SiteEpisode, spec: TaskSpec, timeout_ms: float
    ) -> None:
        self.session, self.site, self.spec, self.timeout_ms = session, site, spec, timeout_ms
        self.network = reachable_origins(spec.origin, spec.external, spec.allowed_origins)
        self.pages = [spec.origin, *spec.allowed_origins]
        self.on_app = False  # a page of the app has been opened (for steps)

    async def run(self, start_url: str) -> None:
        """Every item in order; raises ``SetupError`` at the first that fails."""
        self.start_url = start_url
        self.site.setting_up = True
        try:
            for index, item in enumerate(self.spec.setup):
                try:
                    await _RUNNERS[item.kind](self, item)
                except _Failed as exc:
                    raise SetupError(self.spec.env_id, index, item.describe(), str(exc)) from None
                except PlaywrightError as exc:
                    problem = f"the browser refused it: {exc.message.splitlines()[0][:300]}"
                    raise SetupError(self.spec.env_id, index, item.describe(), problem) from exc
        finally:
            self.site.setting_up = False
            # The episode's record of refused requests starts at its start page: what the
            # app's pages tried while being set up is not the agent's doing.
            self.site.blocked.clear()

    def _check(self, url: str, allowed: list[str]) -> None:
        if origin_of(url) not in allowed:
            raise _Failed(
                f"{origin_of(url)} is not an origin this task may reach "
                f"(it may reach: {', '.join(allowed) or 'none'})"
            )

    async def http(self, item: SetupItem) -> None:
        call = item.http
        assert call is not None
        self._check(call.url, self.network)
        headers = dict(call.headers)
        body = None
        if call.json_ is not None:
            body = json.dumps(call.json_)
            headers.setdefault("Content-Type", "application/json")
        answer = await self.session.context.request.fetch(
            call.url, method=call.method, headers=headers, data=body, timeout=call.timeout_ms
        )
        text = await answer.text()
        _check_answer(call, answer.status, text)

    async def cookies(self, item: SetupItem) -> None:
        cookies = []
        for cookie in item.cookies or ():
            url = cookie.url or f"{self.spec.origin}/"
            self._check(url, self.pages)
            cookies.append({"name": cookie.name, "value": _text(cookie.value), "url": url})
        await self.session.context.add_cookies(cookies)  # type: ignore[arg-type]

    async def storage(self, item: SetupItem) -> None:
        seed = item.storage
        assert seed is not None
        origin = seed.origin or self.spec.origin
        self._check(origin, self.pages)
        await self.session.goto(origin_of(origin) + SETUP_PATH, self.timeout_ms)
        self.on_app = False
        values = [{k: _text(v) for k, v in part.items()} for part in (seed.local, seed.session)]
        await self.session.page.evaluate(
            "([local, session]) => {"
            " for (const [k, v] of Object.entries(local)) localStorage.setItem(k, v);"
            " for (const [k, v] of Object.entries(session)) sessionStorage.setItem(k, v); }",
            values,
        )

    async def init_script(self, item: SetupItem) -> None:
        script = item.init_script
        assert script is not None
        source = script.js or ""
        if script.url is not None:
            self._check(script.url, self.network)
            answer = await self.session.context.request.get(script.url, timeout=self.timeout_ms)
            if not answer.ok:
                raise _Failed(f"{script.url} answered {answer.status}")
            source = await answer.text()
        await self.session.add_episode_script(source)

    async def step(self, item: SetupItem) -> None:
        if not self.on_app:
            await self.session.goto(self.start_url, self.timeout_ms)
            self.on_app = True
        await self.session.settle(10, self.timeout_ms)
        snap = await self.session.snapshot(ObserveRequest(scopes=True))
        action = _action(item.step, SemanticState.model_validate(snap.state))
        context = ExecContext(snap.max_ref, tuple(self.pages), self.timeout_ms)
        result = await execute(self.session, action, context)
        if not result.ok:
            raise _Failed(f"{action.dsl()} failed: {result.message}")
        await self.session.settle(10, self.timeout_ms)


_RUNNERS: dict[str, Callable[[SetupRun, SetupItem], Awaitable[None]]] = {
    "http": SetupRun.http,
    "cookies": SetupRun.cookies,
    "storage": SetupRun.storage,
    "init_script": SetupRun.init_script,
    "step": SetupRun.step,
}


async def open_episode_page(
    session: PageSession,
    site: SiteEpisode,
    spec: TaskSpec,
    hooks: EpisodeHooks,
    start_url: str,
    timeout_ms: float,
) -> tuple[float, float]:
    """The task's setup (with the wrappers' hooks off), the episode's scripts, then the
    start page's load: when the load began (``perf_counter``), and the setup's ms."""
    started = time.perf_counter()
    if spec.setup:
        await SetupRun(session, site, spec, timeout_ms).run(start_url)
    setup_ms = (time.perf_counter() - started) * 1000
    for script in hooks.init_scripts:
        await session.add_episode_script(script)
    for script in hooks.agent_world_scripts:
        await session.world.add_script(script)
    started = time.perf_counter()
    await open_start_page(session, start_url, timeout_ms)
    return started, setup_ms


async def open_start_page(session: PageSession, url: str, timeout_ms: float) -> None:
    """Open the episode's first page; one that is not loaded in time names the bound."""
    try:
        await session.goto(url, timeout_ms)
    except PlaywrightTimeoutError:
        raise TimeoutError(
            f"the start page {url} was not loaded (DOMContentLoaded) within "
            f"action_timeout_ms={timeout_ms:g}: a heavy page, or a machine busy with other "
            "work, may need a larger action_timeout_ms"
        ) from None


async def start_page_episode(
    session: PageSession, start: PageStart, timeout_ms: float
) -> str | None:
    """Start the episode of a page that runs its own task, once it has loaded; returns the
    goal it states (None when the spec reads none)."""
    await session.page.wait_for_load_state("load", timeout=timeout_ms)
    goal = start.goal if start.goal is not None else "null"
    stated = await session.page.evaluate(f"() => {{ {start.script}\n; return ({goal}); }}")
    return None if stated is None else " ".join(str(stated).split())


class NotRestartable(Exception):
    """The last episode's document cannot serve the next one in place: the reason."""


# The document's part of an in-place reset takes milliseconds; a page that has not done it
# within this is hung (a script of its own spins): it is closed, and a new context serves.
RESTART_TIMEOUT_S = 2.0


async def restart_in_place(
    session: PageSession, site: SiteEpisode, spec: TaskSpec, start_url: str
) -> None:
    """Make the last episode's document the next episode's start page (an in-place reset):
    what the episode left cleared, then a ``restart_in_place`` script run after the
    episode's runtime (its seed, params and seeded ``Math.random``), as a new load runs it
    before the page's own scripts. A ``page_start`` script runs next, as after a load.

    Raises:
        NotRestartable: the document does not qualify (the message says why; the page is
            as the last episode left it), or did not answer within ``RESTART_TIMEOUT_S``
            (the page is then marked ``hung``, not to be reused).
    """
    try:
        await asyncio.wait_for(_restart(session, site, spec, start_url), RESTART_TIMEOUT_S)
    except TimeoutError:
        session.hung = True
        waited = f"{RESTART_TIMEOUT_S:g} s"
        raise NotRestartable(f"the page did not answer within {waited} (a script spins?)") from None


async def _restart(session: PageSession, site: SiteEpisode, spec: TaskSpec, url: str) -> None:
    if refused := await session.restart_document(url):
        raise NotRestartable(refused)
    if spec.restart_in_place is not None:
        runtime = runtime_script(site.runtime)
        await session.page.evaluate(f"() => {{ {runtime}\n{spec.restart_in_place}\n; }}")


def _action(step: GoldenStep | str | None, state: SemanticState) -> Any:
    """The step's action on the page as it is: a DSL string as written, a golden step with
    its target resolved."""
    if isinstance(step, str):
        return A.parse_action(step)
    assert step is not None
    ref = None
    if step.target is not None:
        found = find_target(step.target, state)
        if found.element is None:
            target = step.target
            where = f" within {target.within.role} {target.within.name!r}" if target.within else ""
            missing = "its scope is" if not found.scope_found else "it is"
            raise _Failed(
                f"the target {target.role} {target.name!r}{where}: {missing} not on the page"
            )
        ref = found.element.ref
    return step_action(step, ref)


def _check_answer(call: HttpCall, status: int, text: str) -> None:
    """The answer is what the item expects: the status, and these JSON keys' values."""
    expect = call.expect
    wanted = expect.status if isinstance(expect.status, list) else [expect.status]
    if status not in wanted:
        raise _Failed(
            f"answered {status} (expected {' or '.join(map(str, wanted))}): {text[:200]!r}"
        )
    if expect.json_:
        try:
            body = json.loads(text)
        except ValueError:
            raise _Failed(f"answered {text[:200]!r}, which is not JSON") from None
        wrong = {
            k: v for k, v in expect.json_.items() if not isinstance(body, dict) or body.get(k) != v
        }
        if wrong:
            raise _Failed(f"answered {text[:200]!r}, expected {wrong} in its JSON")


def _text(value: Any) -> str:
    """A cookie or storage value as stored: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)

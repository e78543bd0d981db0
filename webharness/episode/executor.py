"""Executing typed actions on a page: a dispatch table, bounded, never raising.

Clicks are trusted mouse events at the element's centre after an in-page hit-test, so a
popup covering the element takes the click (as it would for a person) and the agent is
told what covered it. Agent mistakes come back as an ``ActionResult`` with an error kind.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from webharness import actions as A
from webharness.action_result import ActionErrorKind as K
from webharness.action_result import ActionResult
from webharness.actions.keys import is_valid_key
from webharness.browser.page_session import NAVIGATION_EVENT_GRACE_S, PageSession
from webharness.episode.input_actions import INPUT_HANDLERS, MAX_TYPED_CHARS, held_keys
from webharness.episode.targets import ActionFailed, ExecContext, locate, require_enabled
from webharness.episode.uploads import upload
from webharness.origins import origin_of

__all__ = ["ActionFailed", "ExecContext", "Handler", "execute", "is_valid_key"]
Handler = Callable[[PageSession, Any, ExecContext], Awaitable[None]]


async def execute(session: PageSession, action: Any, ctx: ExecContext) -> ActionResult:
    """Run one action; every failure is reported, none raised."""
    result = await _run(session, action, ctx)
    if ctx.pointer is not None:  # what the pointer hit, whatever became of the action
        result.pointer, result.pointer_end = ctx.pointer, ctx.pointer_end
    return result


async def _run(session: PageSession, action: Any, ctx: ExecContext) -> ActionResult:
    handler = _HANDLERS[A.ActionKind(action.kind)]
    navigations = session.navigations
    try:
        await asyncio.wait_for(handler(session, action, ctx), ctx.timeout_ms / 1000)
    except ActionFailed as failed:
        return ActionResult.failed(failed.kind, failed.message)
    except (asyncio.TimeoutError, PlaywrightTimeoutError):
        return ActionResult.failed(
            K.TIMEOUT, f"{action.dsl()} did not finish within {ctx.timeout_ms:.0f} ms"
        )
    except PlaywrightError as exc:
        if await session.navigated_since(navigations, NAVIGATION_EVENT_GRACE_S):
            return _cut_short_by_the_page(action)
        return ActionResult.failed(
            K.BROWSER_ERROR, f"{action.dsl()} failed in the browser: {exc.message[:300]}"
        )
    return ActionResult(ok=True)


def _cut_short_by_the_page(action: Any) -> ActionResult:
    """A call that a navigation of the page's own cut short: the page's doing, not the
    browser's. A wait was waiting for a change, and a new document is one."""
    if A.ActionKind(action.kind) is A.ActionKind.WAIT:
        return ActionResult(ok=True, state_changed=True)
    return ActionResult.failed(
        K.PAGE_UNSETTLED,
        f"{action.dsl()} was cut short: the page navigated while it ran. Look at the new "
        "page and act again",
    )


# --- handlers -------------------------------------------------------------------------
async def _click(session: PageSession, action: A.Click, ctx: ExecContext) -> None:
    found = await locate(session, action.ref, ctx)
    # A disabled control is still clicked, as a person would: the page decides what
    # happens, and "no effect" shows in state_changed rather than as an error here.
    session.mouse_at = (found["x"], found["y"])
    async with held_keys(session, action.modifiers):
        await session.page.mouse.click(
            found["x"], found["y"], button=action.button, click_count=action.count
        )


async def _hover(session: PageSession, action: A.Hover, ctx: ExecContext) -> None:
    found = await locate(session, action.ref, ctx)
    session.mouse_at = (found["x"], found["y"])
    await session.page.mouse.move(found["x"], found["y"])


async def _fill(session: PageSession, action: A.Fill, ctx: ExecContext) -> None:
    found = await locate(session, action.ref, ctx)
    if not found["editable"]:
        raise ActionFailed(
            K.UNSUPPORTED_CONTROL,
            f"element {action.ref} ({found['label']}) does not take text; "
            "fill() works on text fields and editors",
        )
    require_enabled(action.ref, found)
    if len(action.text) > MAX_TYPED_CHARS:
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"text is {len(action.text)} characters; the limit is {MAX_TYPED_CHARS}",
        )
    await session.page.mouse.click(found["x"], found["y"])
    await session.call_agent("selectAll", action.ref)
    if action.text:
        await session.page.keyboard.insert_text(action.text)
    else:
        await session.page.keyboard.press("Delete")


async def _select_option(session: PageSession, action: A.SelectOption, ctx: ExecContext) -> None:
    found = await locate(session, action.ref, ctx)
    require_enabled(action.ref, found)
    result = await session.call_agent("selectOption", action.ref, action.option)
    if result["status"] == "unsupported":
        raise ActionFailed(
            K.UNSUPPORTED_CONTROL,
            f"element {action.ref} ({found['label']}) is not a native <select>; "
            "open it with click() and pick the option",
        )
    if result["status"] == "no_option":
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"{found['label']} has no option {action.option!r}; "
            f"options: {', '.join(result['options'][:30])}",
        )
    if result["status"] == "disabled_option":
        raise ActionFailed(
            K.NOT_INTERACTABLE, f"option {action.option!r} of {found['label']} is disabled"
        )


async def _set_checked(session: PageSession, ref: str, want: bool, ctx: ExecContext) -> None:
    found = await locate(session, ref, ctx)
    if found["checked"] is None:
        raise ActionFailed(
            K.UNSUPPORTED_CONTROL,
            f"element {ref} ({found['label']}) is not a checkbox, radio or switch",
        )
    require_enabled(ref, found)
    if found["checked"] != want:
        await session.page.mouse.click(found["x"], found["y"])


async def _check(session: PageSession, action: A.Check, ctx: ExecContext) -> None:
    await _set_checked(session, action.ref, True, ctx)


async def _uncheck(session: PageSession, action: A.Uncheck, ctx: ExecContext) -> None:
    await _set_checked(session, action.ref, False, ctx)


async def _goto(session: PageSession, action: A.Goto, ctx: ExecContext) -> None:
    url = urljoin(session.page.url, action.url)
    web = urlsplit(url).scheme in ("http", "https")
    if not web or origin_of(url) not in ctx.allowed_origins:
        session.router.record(f"{url} [goto]")
        raise ActionFailed(
            K.NAVIGATION_BLOCKED,
            f"{action.url!r} is outside this task; "
            f"allowed origins: {', '.join(ctx.allowed_origins)}",
        )
    try:
        await session.goto(url, ctx.timeout_ms)
    except PlaywrightError as exc:
        if isinstance(exc, PlaywrightTimeoutError):
            raise
        raise ActionFailed(
            K.NAVIGATION_BLOCKED, f"could not open {url}: {exc.message.splitlines()[0][:200]}"
        ) from None


async def _go_back(session: PageSession, action: A.GoBack, ctx: ExecContext) -> None:
    """Back one entry in the tab's history, unless that entry is outside the task: the page
    before the task's first page is ``about:blank``, and a page may have been reached from
    an origin the task does not allow. Read from the browser's own history, which the page
    cannot rewrite."""
    previous = await _previous_history_url(session)
    if previous is not None:
        web = urlsplit(previous).scheme in ("http", "https")
        if not web or origin_of(previous) not in ctx.allowed_origins:
            session.router.record(f"{previous} [go_back]")
            where = "another origin" if web else "the page before the task's first page"
            raise ActionFailed(
                K.NAVIGATION_BLOCKED,
                f"go_back() would leave this task for {previous[:200]!r} ({where}); "
                f"allowed origins: {', '.join(ctx.allowed_origins)}",
            )
    await session.page.go_back(wait_until="domcontentloaded", timeout=ctx.timeout_ms)


async def _previous_history_url(session: PageSession) -> str | None:
    """The URL of the history entry before the current one; None at the first entry."""
    cdp = await session.context.new_cdp_session(session.page)
    try:
        history = await cdp.send("Page.getNavigationHistory")
    finally:
        await cdp.detach()
    index = int(history["currentIndex"])
    return str(history["entries"][index - 1]["url"]) if index > 0 else None


async def _wait(session: PageSession, action: A.Wait, ctx: ExecContext) -> None:
    # Waits for the page to change, bounded by the asked time: an explicit agent request.
    await session.call_agent("waitForChange", action.ms)


async def _script(session: PageSession, action: Any, ctx: ExecContext) -> None:
    raise ActionFailed(
        K.INVALID_ARGUMENT,
        "script() records a script an agent ran in its own browser (CDP); it cannot be sent",
    )


async def _nothing(session: PageSession, action: Any, ctx: ExecContext) -> None:
    """Actions with no page effect: the episode handles them."""


_HANDLERS: dict[A.ActionKind, Handler] = {
    A.ActionKind.CLICK: _click,
    A.ActionKind.FILL: _fill,
    A.ActionKind.SELECT_OPTION: _select_option,
    A.ActionKind.CHECK: _check,
    A.ActionKind.UNCHECK: _uncheck,
    A.ActionKind.HOVER: _hover,
    **INPUT_HANDLERS,
    A.ActionKind.UPLOAD: upload,
    A.ActionKind.GOTO: _goto,
    A.ActionKind.GO_BACK: _go_back,
    A.ActionKind.WAIT: _wait,
    A.ActionKind.NOOP: _nothing,
    A.ActionKind.SCRIPT: _script,
    A.ActionKind.SEND_MSG_TO_USER: _nothing,
    A.ActionKind.ASK_USER: _nothing,
    A.ActionKind.REPORT_INFEASIBLE: _nothing,
    A.ActionKind.DONE: _nothing,
}

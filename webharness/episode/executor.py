"""Executing typed actions on a page: a dispatch table, bounded, never raising.

Clicks are trusted mouse events at the element's centre after an in-page hit-test, so a
popup covering the element takes the click (as it would for a person) and the agent is
told what covered it. Agent mistakes come back as an ``ActionResult`` with an error kind.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from webharness import actions as A
from webharness.action_result import ActionErrorKind as K
from webharness.action_result import ActionResult
from webharness.browser.page_session import NAVIGATION_EVENT_GRACE_S, PageSession
from webharness.origins import origin_of

MAX_TYPED_CHARS = 5_000
_NAMED_KEYS = frozenset(
    [
        "Enter",
        "Tab",
        "Escape",
        "Backspace",
        "Delete",
        "Insert",
        "Home",
        "End",
        "PageUp",
        "PageDown",
        "ArrowUp",
        "ArrowDown",
        "ArrowLeft",
        "ArrowRight",
        "Space",
        "Shift",
        "Control",
        "Alt",
        "Meta",
        "ControlOrMeta",
        *(f"F{i}" for i in range(1, 13)),
    ]
)


def is_valid_key(combo: str) -> bool:
    """A key or combination Playwright can press: "Enter", "a", "Control+Shift+K".

    A single character must be on Playwright's US layout: printable ASCII, or a newline
    (Enter). It knows no other ("é", a control character): ``keyboard_type`` types them.
    """
    parts = combo.split("+") if combo != "+" else ["+"]
    return bool(parts) and all(p in _NAMED_KEYS or _on_the_layout(p) for p in parts)


def _on_the_layout(char: str) -> bool:
    return len(char) == 1 and (" " <= char <= "~" or char in "\n\r")


@dataclass
class ExecContext:
    """What the executor needs to know about the episode."""

    max_ref: int  # refs e1..e<max_ref> have all been shown to the agent this episode
    allowed_origins: tuple[str, ...]  # origins a goto may reach
    timeout_ms: float = 5_000


class ActionFailed(Exception):
    """Internal: ends an action with an error kind; turned into an ActionResult."""

    def __init__(self, kind: K, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


Handler = Callable[[PageSession, Any, ExecContext], Awaitable[None]]


async def execute(session: PageSession, action: Any, ctx: ExecContext) -> ActionResult:
    """Run one action; every failure is reported, none raised."""
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


# --- locating elements ----------------------------------------------------------------
async def _locate(session: PageSession, ref: str, ctx: ExecContext) -> dict[str, Any]:
    try:
        found = await session.call_agent("locate", ref)
    except PlaywrightError:
        found = {"status": "stale"}  # the document changed under us
    status = found["status"]
    if status == "unknown":
        if _was_shown(ref, ctx):
            raise ActionFailed(
                K.STALE_REF,
                f"element {ref} is gone: it was in an earlier observation but the page has "
                "changed since. Use a ref from the current observation.",
            )
        raise ActionFailed(
            K.UNKNOWN_REF,
            f"no element has ref {ref!r}; use a ref shown in the current accessibility tree",
        )
    if status == "stale":
        raise ActionFailed(
            K.STALE_REF,
            f"element {ref} is gone: it was replaced since the observation it came from. "
            "Use a ref from the current observation.",
        )
    if status == "hidden":
        raise ActionFailed(K.NOT_VISIBLE, f"element {ref} is not visible on the page")
    if status == "covered":
        raise ActionFailed(
            K.NOT_INTERACTABLE,
            f"element {ref} ({found['label']}) is covered by {found['coveredBy']}, "
            "which would receive the click",
        )
    return found


def _was_shown(ref: str, ctx: ExecContext) -> bool:
    number = ref[1:] if ref.startswith("e") else ""
    return number.isdigit() and 0 < int(number) <= ctx.max_ref


def _require_enabled(ref: str, found: dict[str, Any]) -> None:
    if found["disabled"]:
        raise ActionFailed(K.NOT_INTERACTABLE, f"element {ref} ({found['label']}) is disabled")


# --- handlers -------------------------------------------------------------------------
async def _click(session: PageSession, action: A.Click, ctx: ExecContext) -> None:
    found = await _locate(session, action.ref, ctx)
    # A disabled control is still clicked, as a person would: the page decides what
    # happens, and "no effect" shows in state_changed rather than as an error here.
    await session.page.mouse.click(found["x"], found["y"])


async def _hover(session: PageSession, action: A.Hover, ctx: ExecContext) -> None:
    found = await _locate(session, action.ref, ctx)
    await session.page.mouse.move(found["x"], found["y"])


async def _fill(session: PageSession, action: A.Fill, ctx: ExecContext) -> None:
    found = await _locate(session, action.ref, ctx)
    if not found["editable"]:
        raise ActionFailed(
            K.UNSUPPORTED_CONTROL,
            f"element {action.ref} ({found['label']}) does not take text; "
            "fill() works on text fields and editors",
        )
    _require_enabled(action.ref, found)
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
    found = await _locate(session, action.ref, ctx)
    _require_enabled(action.ref, found)
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
    found = await _locate(session, ref, ctx)
    if found["checked"] is None:
        raise ActionFailed(
            K.UNSUPPORTED_CONTROL,
            f"element {ref} ({found['label']}) is not a checkbox, radio or switch",
        )
    _require_enabled(ref, found)
    if found["checked"] != want:
        await session.page.mouse.click(found["x"], found["y"])


async def _check(session: PageSession, action: A.Check, ctx: ExecContext) -> None:
    await _set_checked(session, action.ref, True, ctx)


async def _uncheck(session: PageSession, action: A.Uncheck, ctx: ExecContext) -> None:
    await _set_checked(session, action.ref, False, ctx)


async def _press(session: PageSession, action: A.Press, ctx: ExecContext) -> None:
    if action.ref is not None:
        await _locate(session, action.ref, ctx)
        await session.call_agent("focus", action.ref)
    if not is_valid_key(action.key):
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"unknown key {action.key!r}; use names like Enter, Tab, Escape, ArrowDown, "
            "Control+A, or one printable ASCII character (keyboard_type types any text)",
        )
    await session.page.keyboard.press(action.key)


async def _scroll(session: PageSession, action: A.Scroll, ctx: ExecContext) -> None:
    await session.call_agent("scrollBy", action.dx, action.dy)


async def _mouse_click(session: PageSession, action: A.MouseClick, ctx: ExecContext) -> None:
    size = session.page.viewport_size or {"width": 0, "height": 0}
    if not (0 <= action.x < size["width"] and 0 <= action.y < size["height"]):
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"({action.x}, {action.y}) is outside the {size['width']}×{size['height']} viewport",
        )
    await session.page.mouse.click(action.x, action.y)


async def _keyboard_type(session: PageSession, action: A.KeyboardType, ctx: ExecContext) -> None:
    if len(action.text) > MAX_TYPED_CHARS:
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"text is {len(action.text)} characters; the limit is {MAX_TYPED_CHARS}",
        )
    await session.page.keyboard.type(action.text)


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


async def _nothing(session: PageSession, action: Any, ctx: ExecContext) -> None:
    """Actions with no page effect: the episode handles them."""


_HANDLERS: dict[A.ActionKind, Handler] = {
    A.ActionKind.CLICK: _click,
    A.ActionKind.FILL: _fill,
    A.ActionKind.SELECT_OPTION: _select_option,
    A.ActionKind.CHECK: _check,
    A.ActionKind.UNCHECK: _uncheck,
    A.ActionKind.HOVER: _hover,
    A.ActionKind.PRESS: _press,
    A.ActionKind.SCROLL: _scroll,
    A.ActionKind.MOUSE_CLICK: _mouse_click,
    A.ActionKind.KEYBOARD_TYPE: _keyboard_type,
    A.ActionKind.GOTO: _goto,
    A.ActionKind.GO_BACK: _go_back,
    A.ActionKind.WAIT: _wait,
    A.ActionKind.NOOP: _nothing,
    A.ActionKind.SEND_MSG_TO_USER: _nothing,
    A.ActionKind.ASK_USER: _nothing,
    A.ActionKind.REPORT_INFEASIBLE: _nothing,
    A.ActionKind.DONE: _nothing,
}

"""Executing the pointer and keyboard actions: trusted input through Playwright's mouse
and keyboard, at points of the viewport or on the focus.

A point outside the viewport, an unknown key or too long a text is the agent's
``invalid_argument``, and nothing is sent. Buttons and keys an action presses are released
by the same action, even when it fails, except ``mouse_down`` and ``key_down``, whose
point is to hold them into the next steps.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from webharness import actions as A
from webharness.action_result import ActionErrorKind as K
from webharness.actions.keys import is_valid_key, split_combo
from webharness.browser.page_session import PageSession
from webharness.episode.targets import ActionFailed, ExecContext, check_point, hit_test, locate

MAX_TYPED_CHARS = 5_000
# Pointer moves per segment of a drag and per mouse_move: HTML5 drag and drop starts on a
# move after the press and needs moves over the target to report it, as a hand gives.
MOVE_STEPS = 5
# How long a wheel's event may take to reach the page (it does in a frame or two; a page
# that stops its propagation, or a frame of another origin under the point, never tells).
_WHEEL_WAIT_MS = 500
# A hold_key must end, its keys released, within the action's timeout.
_HOLD_MARGIN_MS = 500


async def _press(session: PageSession, action: A.Press, ctx: ExecContext) -> None:
    if action.ref is not None:
        await locate(session, action.ref, ctx)
        await session.call_agent("focus", action.ref)
    _require_key(action.key)
    await session.page.keyboard.press(action.key)


def _require_key(key: str, single: bool = False) -> None:
    if single and is_valid_key(key) and split_combo(key) != [key]:
        raise ActionFailed(
            K.INVALID_ARGUMENT, f"{key!r} is a combination; key_down and key_up take one key"
        )
    if not is_valid_key(key):
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"unknown key {key!r}; use names like Enter, Tab, Escape, ArrowDown, "
            "Control+A, or one printable ASCII character (keyboard_type types any text)",
        )


async def _key_down(session: PageSession, action: A.KeyDown, ctx: ExecContext) -> None:
    _require_key(action.key, single=True)
    await session.page.keyboard.down(action.key)


async def _key_up(session: PageSession, action: A.KeyUp, ctx: ExecContext) -> None:
    _require_key(action.key, single=True)
    await session.page.keyboard.up(action.key)


async def _hold_key(session: PageSession, action: A.HoldKey, ctx: ExecContext) -> None:
    _require_key(action.key)
    longest = max(0, int(ctx.timeout_ms) - _HOLD_MARGIN_MS)
    if action.ms > longest:
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"hold_key holds keys at most {longest} ms (the action timeout), not {action.ms}",
        )
    async with held_keys(session, action.key):
        await asyncio.sleep(action.ms / 1000)  # the hold itself: the agent's asked duration


@asynccontextmanager
async def held_keys(session: PageSession, combo: str | None) -> AsyncIterator[None]:
    """Keys down in order for the block, up in reverse order after it, whatever happens."""
    keyboard, pressed = session.page.keyboard, []
    try:
        for key in (split_combo(combo) or []) if combo else []:
            await keyboard.down(key)
            pressed.append(key)
        yield
    finally:
        for key in reversed(pressed):
            await keyboard.up(key)


async def _keyboard_type(session: PageSession, action: A.KeyboardType, ctx: ExecContext) -> None:
    if len(action.text) > MAX_TYPED_CHARS:
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"text is {len(action.text)} characters; the limit is {MAX_TYPED_CHARS}",
        )
    await session.page.keyboard.type(action.text)


async def _mouse_click(session: PageSession, action: A.MouseClick, ctx: ExecContext) -> None:
    await _point_at(session, ctx, (action.x, action.y))
    async with held_keys(session, action.modifiers):
        await session.page.mouse.click(
            action.x, action.y, button=action.button, click_count=action.count
        )


async def _point_at(session: PageSession, ctx: ExecContext, *points: tuple[float, float]) -> None:
    """Check the points, record what the first and last hit (``ctx.pointer``,
    ``ctx.pointer_end``) before any input is sent, and note where the mouse will be."""
    for x, y in points:
        check_point(session, x, y, ctx)
    hits = await hit_test(session, [points[0], points[-1]] if len(points) > 1 else [points[0]])
    ctx.pointer = hits[0]
    ctx.pointer_end = hits[1] if len(hits) > 1 else None
    session.mouse_at = points[-1]


async def _mouse_move(session: PageSession, action: A.MouseMove, ctx: ExecContext) -> None:
    await _point_at(session, ctx, (action.x, action.y))
    await session.page.mouse.move(action.x, action.y, steps=MOVE_STEPS)


async def _mouse_down(session: PageSession, action: A.MouseDown, ctx: ExecContext) -> None:
    if session.mouse_at is not None:
        ctx.pointer = (await hit_test(session, [session.mouse_at]))[0]
    await session.page.mouse.down(button=action.button)


async def _mouse_up(session: PageSession, action: A.MouseUp, ctx: ExecContext) -> None:
    if session.mouse_at is not None:
        ctx.pointer = (await hit_test(session, [session.mouse_at]))[0]
    await session.page.mouse.up(button=action.button)


async def _drag(session: PageSession, action: A.Drag, ctx: ExecContext) -> None:
    await _point_at(session, ctx, *action.path)
    await drag_along(session, action.path)


async def drag_along(session: PageSession, path: Sequence[tuple[float, float]]) -> None:
    """Press the left button at the first point, move through the others in small moves,
    release it at the last (released even when a move fails)."""
    mouse = session.page.mouse
    await mouse.move(*path[0])
    await mouse.down()
    try:
        for x, y in path[1:]:
            await mouse.move(x, y, steps=MOVE_STEPS)
    finally:
        await mouse.up()


async def _drag_and_drop(session: PageSession, action: A.DragAndDrop, ctx: ExecContext) -> None:
    source = await locate(session, action.from_ref, ctx)
    target = await locate(session, action.to_ref, ctx)
    session.mouse_at = (target["x"], target["y"])
    await drag_along(session, [(source["x"], source["y"]), (target["x"], target["y"])])


async def _scroll(session: PageSession, action: A.Scroll, ctx: ExecContext) -> None:
    if action.x is None or action.y is None:
        if action.modifiers is None:
            await session.call_agent("scrollBy", action.dx, action.dy)
            return
        size = session.page.viewport_size or {"width": 0, "height": 0}
        x, y = size["width"] / 2, size["height"] / 2
    else:
        x, y = action.x, action.y
    check_point(session, x, y, ctx)
    async with held_keys(session, action.modifiers):
        await session.page.mouse.move(x, y)
        session.mouse_at = (x, y)
        # one call arms the wheel's wait and, at the agent's point, hit-tests it
        hits = await hit_test(session, [(x, y)] if action.x is not None else [], "armWheel")
        ctx.pointer = hits[0] if hits else None
        await session.page.mouse.wheel(action.dx, action.dy)
        await session.call_agent("awaitWheel", _WHEEL_WAIT_MS)


INPUT_HANDLERS: dict[A.ActionKind, Callable[[PageSession, Any, ExecContext], Awaitable[None]]] = {
    A.ActionKind.PRESS: _press,
    A.ActionKind.KEY_DOWN: _key_down,
    A.ActionKind.KEY_UP: _key_up,
    A.ActionKind.HOLD_KEY: _hold_key,
    A.ActionKind.KEYBOARD_TYPE: _keyboard_type,
    A.ActionKind.SCROLL: _scroll,
    A.ActionKind.MOUSE_CLICK: _mouse_click,
    A.ActionKind.MOUSE_MOVE: _mouse_move,
    A.ActionKind.MOUSE_DOWN: _mouse_down,
    A.ActionKind.MOUSE_UP: _mouse_up,
    A.ActionKind.DRAG: _drag,
    A.ActionKind.DRAG_AND_DROP: _drag_and_drop,
}

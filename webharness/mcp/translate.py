"""Playwright MCP's state-changing tools as webharness actions: each call is one env step
(``browser_fill_form`` one per field, ``browser_type`` with ``submit`` two), or a
``ToolInputError`` saying what webharness cannot do yet."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webharness import actions as A
from webharness.mcp.catalogue import ToolInputError

Translator = Callable[[dict[str, Any]], list[A.Action]]


def element_ref(args: dict[str, Any], target: str = "target", ref: str = "ref") -> str:
    """The element a call names: ``target``, or the older ``ref``.

    Raises:
        ToolInputError: neither is given, or both, naming different elements.
    """
    given = {key: args[key] for key in (target, ref) if args.get(key) is not None}
    if not given:
        raise ToolInputError(
            f"argument {target!r} is missing (or its older name {ref!r}): give the "
            "element's ref from the page snapshot, such as 'e12'"
        )
    if len(set(given.values())) > 1:
        raise ToolInputError(f"arguments {target!r} and {ref!r} name different elements: give one")
    return str(next(iter(given.values())))


def cannot(what: str) -> ToolInputError:
    """The error for something Playwright MCP does that webharness cannot do yet."""
    return ToolInputError(f"webharness cannot {what} yet")


def _click(args: dict[str, Any]) -> list[A.Action]:
    modifiers = "+".join(args.get("modifiers") or []) or None
    return [
        A.Click(
            ref=element_ref(args),
            button=args.get("button", "left"),
            count=2 if args.get("doubleClick") else 1,
            modifiers=modifiers,
        )
    ]


def _type(args: dict[str, Any]) -> list[A.Action]:
    ref = element_ref(args)
    steps: list[A.Action] = [A.Fill(ref=ref, text=args["text"])]
    if args.get("submit"):
        steps.append(A.Press(ref=ref, key="Enter"))
    return steps  # ``slowly``: the text is filled at once, as without it


def _field(field: dict[str, Any]) -> A.Action:
    ref, value, kind = element_ref(field), str(field["value"]), field["type"]
    if kind in ("checkbox", "radio"):
        if value not in ("true", "false"):
            raise ToolInputError(
                f"argument 'fields' ({field['name']!r}): a {kind}'s value is 'true' or 'false', "
                f"not {value!r}"
            )
        return A.Check(ref=ref) if value == "true" or kind == "radio" else A.Uncheck(ref=ref)
    if kind == "combobox":
        return A.SelectOption(ref=ref, option=value)
    return A.Fill(ref=ref, text=value)  # textbox, slider


def _select(args: dict[str, Any]) -> list[A.Action]:
    ref, values = element_ref(args), args["values"]
    if len(values) != 1:
        raise cannot(f"select {len(values)} options at once (give one value)")
    return [A.SelectOption(ref=ref, option=values[0])]


def _wait(args: dict[str, Any]) -> list[A.Action]:
    seconds = float(args.get("time", 5 if args.get("text") or args.get("textGone") else 1))
    return [A.Wait(ms=int(min(max(seconds, 0), 30) * 1000))]


def _mouse_click(args: dict[str, Any]) -> list[A.Action]:
    count = args.get("clickCount", 1)
    if count not in (1, 2, 3):
        raise ToolInputError(f"argument 'clickCount' is 1, 2 or 3, not {count!r}")
    # ``delay`` (between press and release) is not kept: the click is as quick as ever
    return [
        A.MouseClick(
            x=float(args["x"]), y=float(args["y"]), button=args.get("button", "left"), count=count
        )
    ]


def _drag_xy(args: dict[str, Any]) -> list[A.Action]:
    start = (float(args["startX"]), float(args["startY"]))
    return [A.Drag(path=(start, (float(args["endX"]), float(args["endY"]))))]


def _drag(args: dict[str, Any]) -> list[A.Action]:
    source = element_ref(args, "startTarget", "startRef")
    return [A.DragAndDrop(from_ref=source, to_ref=element_ref(args, "endTarget", "endRef"))]


TRANSLATORS: dict[str, Translator] = {
    "browser_click": _click,
    "browser_type": _type,
    "browser_fill_form": lambda args: [_field(f) for f in args["fields"]],
    "browser_select_option": _select,
    "browser_press_key": lambda args: [A.Press(key=args["key"])],
    "browser_hover": lambda args: [A.Hover(ref=element_ref(args))],
    "browser_drag": _drag,
    "browser_navigate": lambda args: [A.Goto(url=args["url"])],
    "browser_navigate_back": lambda args: [A.GoBack()],
    "browser_wait_for": _wait,
    "browser_file_upload": lambda args: [A.Upload(paths=tuple(args.get("paths") or ()))],
    "browser_mouse_click_xy": _mouse_click,
    "browser_mouse_move_xy": lambda args: [A.MouseMove(x=float(args["x"]), y=float(args["y"]))],
    "browser_mouse_drag_xy": _drag_xy,
    "browser_mouse_wheel": lambda args: [
        A.Scroll(dx=float(args.get("deltaX", 0)), dy=float(args.get("deltaY", 0)))
    ],
    "webharness_answer": lambda args: [A.SendMsgToUser(text=args["text"])],
    "webharness_ask_user": lambda args: [A.AskUser(question=args["question"])],
    "webharness_done": lambda args: [A.Done()],
    "webharness_report_infeasible": lambda args: [A.ReportInfeasible(reason=args["reason"])],
}

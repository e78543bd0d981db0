"""The DSL, read with ``ast`` into the typed models (never executed), and their union.

A DSL string is one call of a known action with literal arguments.

``parse_action`` also takes a typed model, a dict of one (``{"kind": "click", ...}``) and
a provider's computer-use action object (``webharness.actions.computer_use``).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from webharness.action_result import ActionErrorKind, ActionResult
from webharness.actions.computer_use import from_provider
from webharness.actions.errors import ActionParseError, ProviderActionError
from webharness.actions.input import (
    Drag,
    HoldKey,
    KeyboardType,
    KeyDown,
    KeyUp,
    MouseClick,
    MouseDown,
    MouseMove,
    MouseUp,
    Press,
    Scroll,
)
from webharness.actions.models import (
    AskUser,
    Check,
    Click,
    Done,
    DragAndDrop,
    Fill,
    GoBack,
    Goto,
    Hover,
    Noop,
    ReportInfeasible,
    Script,
    SelectOption,
    SendMsgToUser,
    Uncheck,
    Upload,
    Wait,
    _Action,
)
from webharness.errors import did_you_mean

MAX_ACTION_CHARS = 10_000

Action = Annotated[
    Click
    | Fill
    | SelectOption
    | Check
    | Uncheck
    | Hover
    | DragAndDrop
    | Press
    | KeyDown
    | KeyUp
    | HoldKey
    | Scroll
    | MouseClick
    | MouseMove
    | MouseDown
    | MouseUp
    | Drag
    | KeyboardType
    | Upload
    | Goto
    | GoBack
    | Wait
    | Noop
    | Script
    | SendMsgToUser
    | AskUser
    | ReportInfeasible
    | Done,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)

# Parameter names per action, in the order the DSL takes them positionally (BrowserGym's).
SIGNATURES: dict[str, tuple[str, ...]] = {
    "click": ("ref", "button", "modifiers", "count"),
    "fill": ("ref", "text"),
    "select_option": ("ref", "option"),
    "check": ("ref",),
    "uncheck": ("ref",),
    "hover": ("ref",),
    "drag_and_drop": ("from_ref", "to_ref"),
    "press": ("ref", "key"),
    "key_down": ("key",),
    "key_up": ("key",),
    "hold_key": ("key", "ms"),
    "scroll": ("dx", "dy", "x", "y", "modifiers"),
    "mouse_click": ("x", "y", "button", "count", "modifiers"),
    "mouse_move": ("x", "y"),
    "mouse_down": ("button",),
    "mouse_up": ("button",),
    "drag": ("path",),
    "keyboard_type": ("text",),
    "upload": ("paths",),
    "goto": ("url",),
    "go_back": (),
    "wait": ("ms",),
    "noop": (),
    "script": ("text",),
    "send_msg_to_user": ("text",),
    "ask_user": ("question",),
    "report_infeasible": ("reason",),
    "done": (),
}
# BrowserGym spellings of keyword arguments.
_ALIASES = {
    "bid": "ref",
    "value": "text",
    "options": "option",
    "key_comb": "key",
    "delta_x": "dx",
    "delta_y": "dy",
    "wait_ms": "ms",
    "from_bid": "from_ref",
    "to_bid": "to_ref",
}


def parse_action(text: object) -> Action:
    """Parse a DSL string (or validate a dict / typed model) into a typed ``Action``.

    A dict with ``kind`` is a typed action's fields. A dict without it is a provider's
    computer-use action: one with ``type`` is OpenAI's (``{"type": "click", "x": 10, ...}``,
    or the ``computer_call`` item that holds it), one with ``action`` Anthropic's
    (``{"action": "left_click", "coordinate": [10, 20]}``, or the ``tool_use`` block
    that holds it): see ``from_provider``.

    >>> parse_action('fill("e12", "Ada Lovelace")')
    Fill(kind='fill', ref='e12', text='Ada Lovelace')
    >>> parse_action({"type": "double_click", "x": 10, "y": 20})
    MouseClick(kind='mouse_click', x=10.0, y=20.0, button='left', count=2, modifiers=None)

    Raises:
        ActionParseError: ``text`` is not one of those, or does not make a valid action
            (a ``ProviderActionError`` for a provider's object).
    """
    if isinstance(text, dict) and "kind" not in text:
        return from_provider(text)
    if isinstance(text, (_Action, dict)):
        return _validate(text)
    if not isinstance(text, str):
        raise ActionParseError(
            f"an action is a string or an Action model, got {type(text).__name__}"
        )
    if len(text) > MAX_ACTION_CHARS:
        raise ActionParseError(
            f"action string is {len(text)} characters; the limit is {MAX_ACTION_CHARS}"
        )
    call = _single_call(text.strip())
    name = call.func.id  # type: ignore[attr-defined]
    if name not in SIGNATURES:
        raise ActionParseError(f"unknown action {name!r}.{did_you_mean(name, SIGNATURES)}")
    fields = _bind(
        name,
        [_argument(name, a) for a in call.args],
        {_ALIASES.get(k.arg or "", k.arg or ""): _argument(name, k.value) for k in call.keywords},
    )
    return _validate({"kind": name, **fields})


def _single_call(text: str) -> ast.Call:
    try:
        tree = ast.parse(text, mode="eval")
    # SystemError: CPython 3.11's parser can lose count of its recursion depth on deeply
    # nested input ("AST constructor recursion depth mismatch"; seen once in 50,000 soak
    # steps, from `click(not not ... 1)`): still just input that is not an action.
    except (SyntaxError, ValueError, RecursionError, MemoryError, SystemError) as exc:
        raise ActionParseError(
            f"not a single action call: {text[:80]!r} ({type(exc).__name__})"
        ) from None
    call = tree.body
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        raise ActionParseError(f"expected one call such as click('e12'), got {text[:80]!r}")
    return call


def _argument(action: str, node: ast.expr) -> Any:
    if action == "drag" and isinstance(node, (ast.List, ast.Tuple)):
        return [_point(point) for point in node.elts]
    if action == "upload":  # a list of paths, or one path
        elements = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
        return [_literal(element) for element in elements]
    return _literal(node)


def _point(node: ast.expr) -> list[Any]:
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == 2:
        return [_literal(coordinate) for coordinate in node.elts]
    raise ActionParseError(
        f"a path is a list of [x, y] points, such as [[10, 20], [200, 20]]; got "
        f"{type(node).__name__} in it"
    )


def _literal(node: ast.expr) -> Any:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (str, int, float))
        and not isinstance(node.value, bool)
    ):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    ):
        value = node.operand.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    if isinstance(node, ast.List) and len(node.elts) == 1:  # select_option(ref, ["x"])
        return _literal(node.elts[0])
    raise ActionParseError(
        f"arguments must be string or number literals, got {type(node).__name__}"
    )


def _bind(name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    params = SIGNATURES[name]
    if name == "press" and len(args) == 1 and "key" not in kwargs:
        params = ("key",)  # press("Enter") acts on the focused element
    if len(args) > len(params):
        raise ActionParseError(
            f"{name}() takes {len(params)} arguments ({', '.join(params)}), got {len(args)}"
        )
    fields = dict(zip(params, args))
    for key, value in kwargs.items():
        if key not in SIGNATURES[name] or key in fields:
            raise ActionParseError(f"{name}() got an unexpected or repeated argument {key!r}")
        fields[key] = value
    return fields


def _validate(fields: _Action | dict[str, Any]) -> Action:
    try:
        return ACTION_ADAPTER.validate_python(fields)  # a model of the union comes back as is
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'action'}: {e['msg']}" for e in exc.errors()
        )
        kind = fields.get("kind") if isinstance(fields, dict) else getattr(fields, "kind", None)
        raise ActionParseError(f"invalid action {kind!r}: {problems}") from None


@dataclass(frozen=True)
class Performed:
    """An action the agent performed itself, through its own connection to the browser.

    The agent drives the page over CDP (``webharness.attach``); ``env.step`` lets the page
    settle and observes it as after the action, but does not act. The trace keeps the action.

    ``failed`` says the agent failed before it ended the episode (its exception, as
    ``webharness.play_attached`` names it): the step observes the page as the agent left it
    and truncates the episode, ``agent_error``, with that error, as the runner ends an agent
    process that fails.
    """

    action: Action
    failed: str | None = None


def step_action(action: object) -> tuple[Action, ActionResult | None]:
    """What ``env.step`` runs for the agent's output, and why not when it is no action.

    Returns the typed action and None, or ``noop()`` and the failed result that says why
    there is no action.

    An output that is no action is ``unparseable``; a provider's object that is read as
    one but does not make a valid action (a field missing, unknown or mistyped) is the
    agent's ``invalid_argument``. A ``Performed`` action is its action.
    """
    if isinstance(action, Performed):
        return action.action, None
    try:
        return parse_action(action), None
    except ProviderActionError as exc:
        return Noop(), ActionResult.failed(ActionErrorKind.INVALID_ARGUMENT, str(exc))
    except ActionParseError as exc:
        return Noop(), ActionResult.failed(ActionErrorKind.UNPARSEABLE, str(exc))
    except (RecursionError, MemoryError) as exc:  # a pathologically nested string
        message = f"not a single action call: too deeply nested ({type(exc).__name__})"
        return Noop(), ActionResult.failed(ActionErrorKind.UNPARSEABLE, message)


def action_text(action: object) -> str | None:
    """How ``info["action"]`` and the trace write the agent's output.

    A typed action as its DSL, a string as given, None as None, anything else (a dict
    that made no action) as JSON, cut to ``MAX_ACTION_CHARS``.
    """
    if action is None or isinstance(action, str):
        return action
    if isinstance(action, Performed):
        action = action.action
    if isinstance(action, _Action):
        return action.dsl()
    try:
        return json.dumps(action, default=str)[:MAX_ACTION_CHARS]
    except (TypeError, ValueError, RecursionError):  # a circular or pathological object
        return repr(action)[:MAX_ACTION_CHARS]

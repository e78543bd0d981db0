"""The action space: typed pydantic models and a string DSL parsed with ``ast``.

Agent strings are never executed: ``parse_action`` accepts exactly one call of a known
action name whose arguments are literals, and maps them onto the typed models.
"""

from __future__ import annotations

import ast
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from webharness.errors import WebHarnessError, did_you_mean

MAX_ACTION_CHARS = 10_000


class ActionKind(str, Enum):
    """The name of each action of the DSL, as the agent writes it."""

    CLICK = "click"
    FILL = "fill"
    SELECT_OPTION = "select_option"
    CHECK = "check"
    UNCHECK = "uncheck"
    HOVER = "hover"
    PRESS = "press"
    SCROLL = "scroll"
    MOUSE_CLICK = "mouse_click"
    KEYBOARD_TYPE = "keyboard_type"
    GOTO = "goto"
    GO_BACK = "go_back"
    WAIT = "wait"
    NOOP = "noop"
    SEND_MSG_TO_USER = "send_msg_to_user"
    ASK_USER = "ask_user"
    REPORT_INFEASIBLE = "report_infeasible"
    DONE = "done"


# Groupings the executor and the annotator reason with.
REF_ACTIONS = frozenset(
    {
        ActionKind.CLICK,
        ActionKind.FILL,
        ActionKind.SELECT_OPTION,
        ActionKind.CHECK,
        ActionKind.UNCHECK,
        ActionKind.HOVER,
    }
)
ENDING_ACTIONS = frozenset(
    {ActionKind.SEND_MSG_TO_USER, ActionKind.REPORT_INFEASIBLE, ActionKind.DONE}
)
PAGE_FREE_ACTIONS = frozenset(
    {ActionKind.WAIT, ActionKind.NOOP, ActionKind.ASK_USER} | ENDING_ACTIONS
)


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def dsl(self) -> str:
        """The action as a DSL string that ``parse_action`` reads back to an equal model."""
        fields = self.model_dump(exclude={"kind"}, exclude_none=True)
        args = ", ".join(repr(v) for v in fields.values())
        return f"{self.kind}({args})"  # type: ignore[attr-defined]

    @property
    def ref_target(self) -> str | None:
        """The ref the action targets, None for an action without one."""
        return getattr(self, "ref", None)


class Click(_Action):
    """``click(ref)``: a trusted click at the centre of the element, after a hit test."""

    kind: Literal["click"] = "click"
    ref: str


class Fill(_Action):
    """``fill(ref, text)``: replace the value of a text field (or contenteditable)."""

    kind: Literal["fill"] = "fill"
    ref: str
    text: str


class SelectOption(_Action):
    """``select_option(ref, option)``: choose an option by its label or value."""

    kind: Literal["select_option"] = "select_option"
    ref: str
    option: str


class Check(_Action):
    """``check(ref)``: make a checkbox, radio or switch checked."""

    kind: Literal["check"] = "check"
    ref: str


class Uncheck(_Action):
    """``uncheck(ref)``: make a checkbox or switch unchecked."""

    kind: Literal["uncheck"] = "uncheck"
    ref: str


class Hover(_Action):
    """``hover(ref)``: move the pointer over the element."""

    kind: Literal["hover"] = "hover"
    ref: str


class Press(_Action):
    """``press(ref?, key)``: press a key (Playwright's names) on the element or the focus."""

    kind: Literal["press"] = "press"
    ref: str | None = None  # None: the focused element
    key: str

    def dsl(self) -> str:
        """The action as a DSL string (``press('e3', 'Enter')`` or ``press('Enter')``)."""
        return f"press({self.ref!r}, {self.key!r})" if self.ref else f"press({self.key!r})"


class Scroll(_Action):
    """``scroll(dx, dy)``: scroll the page by this many CSS pixels."""

    kind: Literal["scroll"] = "scroll"
    dx: float
    dy: float


class MouseClick(_Action):
    """``mouse_click(x, y)``: a click at a point of the viewport, in CSS pixels."""

    kind: Literal["mouse_click"] = "mouse_click"
    x: float
    y: float


class KeyboardType(_Action):
    """``keyboard_type(text)``: type into whatever has the focus."""

    kind: Literal["keyboard_type"] = "keyboard_type"
    text: str


class Goto(_Action):
    """``goto(url)``: navigate; an origin the task does not allow is refused."""

    kind: Literal["goto"] = "goto"
    url: str


class GoBack(_Action):
    """``go_back()``: the browser's back button."""

    kind: Literal["go_back"] = "go_back"


class Wait(_Action):
    """``wait(ms)``: let the page run for ``ms`` milliseconds (at most 30 s)."""

    kind: Literal["wait"] = "wait"
    ms: int = Field(default=1000, ge=0, le=30_000)


class Noop(_Action):
    """``noop()``: do nothing; the page is observed again."""

    kind: Literal["noop"] = "noop"


class SendMsgToUser(_Action):
    """``send_msg_to_user(text)``: the final answer; it ends the episode."""

    kind: Literal["send_msg_to_user"] = "send_msg_to_user"
    text: str


class AskUser(_Action):
    """``ask_user(question)``: the simulated user's reply comes in ``user_messages``."""

    kind: Literal["ask_user"] = "ask_user"
    question: str


class ReportInfeasible(_Action):
    """``report_infeasible(reason)``: the agent says the task cannot be done."""

    kind: Literal["report_infeasible"] = "report_infeasible"
    reason: str


class Done(_Action):
    """``done()``: the agent says the task is done; it ends the episode."""

    kind: Literal["done"] = "done"


Action = Annotated[
    Click
    | Fill
    | SelectOption
    | Check
    | Uncheck
    | Hover
    | Press
    | Scroll
    | MouseClick
    | KeyboardType
    | Goto
    | GoBack
    | Wait
    | Noop
    | SendMsgToUser
    | AskUser
    | ReportInfeasible
    | Done,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)

# Positional parameter names per action, as the DSL takes them (BrowserGym's order).
_SIGNATURES: dict[str, tuple[str, ...]] = {
    "click": ("ref",),
    "fill": ("ref", "text"),
    "select_option": ("ref", "option"),
    "check": ("ref",),
    "uncheck": ("ref",),
    "hover": ("ref",),
    "press": ("ref", "key"),
    "scroll": ("dx", "dy"),
    "mouse_click": ("x", "y"),
    "keyboard_type": ("text",),
    "goto": ("url",),
    "go_back": (),
    "wait": ("ms",),
    "noop": (),
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
}


class ActionParseError(WebHarnessError, ValueError):
    """An action string that is not one call of a known action with literal arguments."""


def parse_action(text: object) -> Action:
    """Parse a DSL string (or validate a dict / typed model) into a typed ``Action``.

    >>> parse_action('fill("e12", "Ada Lovelace")')
    Fill(kind='fill', ref='e12', text='Ada Lovelace')

    Raises:
        ActionParseError: ``text`` is not one of those, or does not make a valid action.
    """
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
    if name not in _SIGNATURES:
        raise ActionParseError(f"unknown action {name!r}.{did_you_mean(name, _SIGNATURES)}")
    fields = _bind(
        name,
        [_literal(a) for a in call.args],
        {_ALIASES.get(k.arg or "", k.arg or ""): _literal(k.value) for k in call.keywords},
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
    params = _SIGNATURES[name]
    if name == "press" and len(args) == 1 and "key" not in kwargs:
        params = ("key",)  # press("Enter") acts on the focused element
    if len(args) > len(params):
        raise ActionParseError(
            f"{name}() takes {len(params)} arguments ({', '.join(params)}), got {len(args)}"
        )
    fields = dict(zip(params, args))
    for key, value in kwargs.items():
        if key not in _SIGNATURES[name] or key in fields:
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

"""The names of the actions and the groupings the executor and the diagnosis reason with."""

from __future__ import annotations

from enum import Enum


class ActionKind(str, Enum):
    """The name of each action of the DSL, as the agent writes it."""

    CLICK = "click"
    FILL = "fill"
    SELECT_OPTION = "select_option"
    CHECK = "check"
    UNCHECK = "uncheck"
    HOVER = "hover"
    DRAG_AND_DROP = "drag_and_drop"
    PRESS = "press"
    KEY_DOWN = "key_down"
    KEY_UP = "key_up"
    HOLD_KEY = "hold_key"
    SCROLL = "scroll"
    MOUSE_CLICK = "mouse_click"
    MOUSE_MOVE = "mouse_move"
    MOUSE_DOWN = "mouse_down"
    MOUSE_UP = "mouse_up"
    DRAG = "drag"
    KEYBOARD_TYPE = "keyboard_type"
    UPLOAD = "upload"
    GOTO = "goto"
    GO_BACK = "go_back"
    WAIT = "wait"
    NOOP = "noop"
    SCRIPT = "script"  # recorded only: a script an agent ran in its own browser (CDP)
    SEND_MSG_TO_USER = "send_msg_to_user"
    ASK_USER = "ask_user"
    REPORT_INFEASIBLE = "report_infeasible"
    DONE = "done"


# Actions on an element named by its ref (``drag_and_drop`` names two: from and to).
REF_ACTIONS = frozenset(
    {
        ActionKind.CLICK,
        ActionKind.FILL,
        ActionKind.SELECT_OPTION,
        ActionKind.CHECK,
        ActionKind.UNCHECK,
        ActionKind.HOVER,
        ActionKind.DRAG_AND_DROP,
    }
)
# Actions at points of the viewport, or with a button held: a computer-use agent's.
POINTER_ACTIONS = frozenset(
    {
        ActionKind.MOUSE_CLICK,
        ActionKind.MOUSE_MOVE,
        ActionKind.MOUSE_DOWN,
        ActionKind.MOUSE_UP,
        ActionKind.DRAG,
    }
)
# Actions on whatever has the keyboard focus (``press`` may name an element first).
KEYBOARD_ACTIONS = frozenset(
    {
        ActionKind.PRESS,
        ActionKind.KEY_DOWN,
        ActionKind.KEY_UP,
        ActionKind.HOLD_KEY,
        ActionKind.KEYBOARD_TYPE,
    }
)
ENDING_ACTIONS = frozenset(
    {ActionKind.SEND_MSG_TO_USER, ActionKind.REPORT_INFEASIBLE, ActionKind.DONE}
)
PAGE_FREE_ACTIONS = frozenset(
    {ActionKind.WAIT, ActionKind.NOOP, ActionKind.ASK_USER} | ENDING_ACTIONS
)

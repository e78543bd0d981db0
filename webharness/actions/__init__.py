"""The action space: typed models, a DSL parsed with ``ast``, providers' action objects.

Agent strings are never executed: ``parse_action`` accepts exactly one call of a known
action name whose arguments are literals, and maps them onto the typed models. The
modules: ``kinds`` (the names and their groupings), ``models`` (actions on elements, the
page and the episode), ``input`` (the pointer and the keyboard), ``keys`` (key names),
``parse`` (the DSL) and ``computer_use`` (OpenAI's and Anthropic's action objects).
"""

from webharness.actions.computer_use import (
    PIXELS_PER_SCROLL_CLICK,
    from_anthropic_computer,
    from_openai_computer,
    from_provider,
)
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
from webharness.actions.keys import is_valid_key, normalize_key
from webharness.actions.kinds import (
    ENDING_ACTIONS,
    KEYBOARD_ACTIONS,
    PAGE_FREE_ACTIONS,
    POINTER_ACTIONS,
    REF_ACTIONS,
    ActionKind,
)
from webharness.actions.models import (
    AskUser,
    Button,
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
)
from webharness.actions.models import _Action as _Action
from webharness.actions.parse import (
    ACTION_ADAPTER,
    MAX_ACTION_CHARS,
    Action,
    Performed,
    action_text,
    parse_action,
    step_action,
)

__all__ = [
    "ACTION_ADAPTER",
    "ENDING_ACTIONS",
    "KEYBOARD_ACTIONS",
    "MAX_ACTION_CHARS",
    "PAGE_FREE_ACTIONS",
    "Performed",
    "PIXELS_PER_SCROLL_CLICK",
    "POINTER_ACTIONS",
    "REF_ACTIONS",
    "Action",
    "ActionKind",
    "ActionParseError",
    "AskUser",
    "Button",
    "Check",
    "Click",
    "Done",
    "Drag",
    "DragAndDrop",
    "Fill",
    "GoBack",
    "Goto",
    "HoldKey",
    "Hover",
    "KeyDown",
    "KeyUp",
    "KeyboardType",
    "MouseClick",
    "MouseDown",
    "MouseMove",
    "MouseUp",
    "Noop",
    "Script",
    "Press",
    "ProviderActionError",
    "ReportInfeasible",
    "Scroll",
    "SelectOption",
    "SendMsgToUser",
    "Uncheck",
    "Upload",
    "Wait",
    "action_text",
    "from_anthropic_computer",
    "from_openai_computer",
    "from_provider",
    "is_valid_key",
    "normalize_key",
    "parse_action",
    "step_action",
]

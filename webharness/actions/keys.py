"""Key names: the ones Playwright presses, and the other spellings agents use for them.

Agents write keys as Playwright does (``Control+a``), as people do (``ctrl+a``), as
xdotool does (Anthropic's computer tool: ``Return``, ``Page_Down``, ``super``) or in
capitals (OpenAI's computer use: ``["CTRL", "A"]``). ``normalize_key`` rewrites each part
of a combination to Playwright's name; ``is_valid_key`` says whether Playwright can press
the result.
"""

from __future__ import annotations

MODIFIERS = frozenset({"Shift", "Control", "Alt", "Meta", "ControlOrMeta"})
NAMED_KEYS = frozenset(
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
        *MODIFIERS,
        *(f"F{i}" for i in range(1, 13)),
    ]
)
# Other spellings of a key (compared in lower case) and Playwright's name for it.
_ALIASES: dict[str, str] = {
    **{name.lower(): name for name in NAMED_KEYS},
    **dict.fromkeys(("ctrl", "ctl", "control_l", "control_r"), "Control"),
    **dict.fromkeys(("shift_l", "shift_r"), "Shift"),
    **dict.fromkeys(("option", "opt", "alt_l", "alt_r"), "Alt"),
    **dict.fromkeys(("cmd", "command", "super", "super_l", "super_r", "win"), "Meta"),
    **dict.fromkeys(("meta_l", "meta_r", "windows"), "Meta"),
    **dict.fromkeys(("return", "kp_enter"), "Enter"),
    **dict.fromkeys(("esc",), "Escape"),
    **dict.fromkeys(("del", "kp_delete"), "Delete"),
    **dict.fromkeys(("ins",), "Insert"),
    **dict.fromkeys(("page_up", "prior", "pgup", "kp_prior"), "PageUp"),
    **dict.fromkeys(("page_down", "next", "pgdn", "kp_next"), "PageDown"),
    **dict.fromkeys(("up", "kp_up"), "ArrowUp"),
    **dict.fromkeys(("down", "kp_down"), "ArrowDown"),
    **dict.fromkeys(("left", "kp_left"), "ArrowLeft"),
    **dict.fromkeys(("right", "kp_right"), "ArrowRight"),
    **dict.fromkeys(("spacebar",), "Space"),
    **dict.fromkeys(("kp_home",), "Home"),
    **dict.fromkeys(("kp_end",), "End"),
    # xdotool's names of printable keys
    "minus": "-",
    "equal": "=",
    "comma": ",",
    "period": ".",
    "slash": "/",
    "backslash": "\\",
    "semicolon": ";",
    "apostrophe": "'",
    "grave": "`",
    "bracketleft": "[",
    "bracketright": "]",
    **{f"kp_{digit}": str(digit) for digit in range(10)},
}


def normalize_key(combo: str) -> str:
    """Playwright's spelling of a key or combination; what it does not know is kept as is.

    Each ``+``-separated part is looked up without regard to case (``ctrl`` → ``Control``,
    ``Return`` → ``Enter``, ``Page_Down`` → ``PageDown``, ``ESC`` → ``Escape``). In a
    combination a capital letter is written small, since the modifiers say what is held
    (``CTRL+A`` → ``Control+a``); a single character alone is kept as is.

    >>> normalize_key("ctrl+shift+ArrowDown")
    'Control+Shift+ArrowDown'
    """
    parts = split_combo(combo)
    if parts is None:
        return combo
    named = [_ALIASES.get(part.lower(), part) if len(part) > 1 else part for part in parts]
    if len(named) > 1:
        named = [part.lower() if len(part) == 1 and part.isalpha() else part for part in named]
    return "+".join(named)


def split_combo(combo: str) -> list[str] | None:
    """The parts of ``Control+Shift+a``; None when a part is empty (``Control+``)."""
    if combo == "+":
        return ["+"]
    parts = combo.split("+")
    return parts if all(parts) else None


def is_valid_key(combo: str) -> bool:
    """A key or combination Playwright can press: "Enter", "a", "Control+Shift+K".

    A single character must be on Playwright's US layout: printable ASCII, or a newline
    (Enter). It knows no other ("é", a control character): ``keyboard_type`` types them.
    """
    parts = combo.split("+") if combo != "+" else ["+"]
    return bool(parts) and all(p in NAMED_KEYS or _on_the_layout(p) for p in parts)


def is_modifier_combo(combo: str) -> bool:
    """Whether every part of ``combo`` (as ``normalize_key`` writes it) is a modifier."""
    parts = split_combo(combo)
    return parts is not None and all(part in MODIFIERS for part in parts)


def _on_the_layout(char: str) -> bool:
    return len(char) == 1 and (" " <= char <= "~" or char in "\n\r")

"""Reading the observation's accessibility tree back into nodes (for the built-in agents).

The tree is the aria-snapshot text the env emits, one node a line:
``- combobox "Country" [ref=e7]: "France"`` with indented children.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_LINE = re.compile(
    r"^(?P<indent>\s*)- (?P<role>[a-z]+)"
    r'(?: (?P<name>"(?:[^"\\]|\\.)*"))?'
    r"(?P<flags>(?: \[[^\]]*\])*)"
    r":?(?: (?P<value>.*))?$"
)
_FLAG = re.compile(r"\[([^\]=]+)(?:=([^\]]*))?\]")

# Roles an agent can type into, and roles it can click.
TEXT_ROLES = frozenset({"textbox", "searchbox", "spinbutton"})
CLICK_ROLES = frozenset(
    {
        "button",
        "link",
        "menuitem",
        "tab",
        "checkbox",
        "radio",
        "option",
        "switch",
        "menuitemcheckbox",
        "menuitemradio",
        "treeitem",
        "row",
        "listitem",
        "cell",
    }
)


@dataclass
class Node:
    """One line of the tree that carries a ref."""

    role: str
    name: str
    ref: str
    depth: int
    value: str = ""
    flags: frozenset[str] = frozenset()
    options: list[str] = field(default_factory=list)  # names of <option> children (native selects)
    line: str = ""

    @property
    def checked(self) -> bool:
        return "checked" in self.flags

    @property
    def disabled(self) -> bool:
        return "disabled" in self.flags

    @property
    def is_native_select(self) -> bool:
        return self.role in ("combobox", "listbox") and bool(self.options)


def parse_axtree(text: str) -> list[Node]:
    """The nodes of ``text`` that have a ref, in document order; lines that don't parse are
    skipped."""
    nodes: list[Node] = []
    stack: list[Node] = []  # open comboboxes/listboxes collecting their options
    for raw in (text or "").splitlines():
        match = _LINE.match(raw)
        if match is None or match["role"] == "text":
            continue
        depth = len(match["indent"]) // 2
        flags = {m.group(1): m.group(2) for m in _FLAG.finditer(match["flags"] or "")}
        name = _unquote(match["name"]) if match["name"] else ""
        while stack and stack[-1].depth >= depth:
            stack.pop()
        if match["role"] == "option" and stack:
            stack[-1].options.append(name)
        ref = flags.pop("ref", None)
        if ref is None:
            continue
        value = (match["value"] or "").strip()
        node = Node(
            match["role"],
            name,
            ref,
            depth,
            _unquote(value) if value.startswith('"') else value,
            frozenset(flags),
            line=raw.strip(),
        )
        nodes.append(node)
        if node.role in ("combobox", "listbox"):
            stack.append(node)
    return nodes


def _unquote(text: str) -> str:
    try:
        value = json.loads(text)
    except ValueError:
        return text.strip('"')
    return value if isinstance(value, str) else text

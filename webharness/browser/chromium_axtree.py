"""Chromium's own accessibility tree, read over CDP, beside ours: the outside reference our
tree is measured against (``benchmarks/bench_axtree.py``, the page agent's tests).

Chromium's interactive nodes and table headers (``Accessibility.getFullAXTree``, every
frame) are matched to
our refs through their DOM nodes: each node is resolved in the page agent's world and asked
for the ref the agent gave it (in a frame of another origin, in that frame's agent's world,
over the session that reaches it: ``frame_worlds.py``). A node counts as shown when that
ref is in the tree text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError

from webharness.browser.agent_world import AGENT, AgentWorld

# The roles whose nodes are measured: what an agent acts on (the page agent's INTERACTIVE).
INTERACTIVE = frozenset(
    "button link textbox searchbox checkbox radio combobox listbox option menuitem "
    "menuitemcheckbox menuitemradio tab switch slider spinbutton treeitem".split()
)
# Table headers are measured too: a <th> heads its row or its column by where it stands
# (a scope, the cells beside it), which an agent reading a table relies on.
TABLE_HEADERS = frozenset({"columnheader", "rowheader"})
MEASURED = INTERACTIVE | TABLE_HEADERS
# Chromium's internal role names where ours (ARIA's) differ: a <summary> is a button, a
# date or colour input a text field (we show the field, not its parts), an image an img.
CHROMIUM_ROLES = {
    "DisclosureTriangle": "button",
    "image": "img",
    "MenuListOption": "option",
    "ListBoxOption": "option",
    "PopUpButton": "combobox",
    "Date": "textbox",
    "DateTime": "textbox",
    "InputTime": "textbox",
    "ColorWell": "textbox",
    "Iframe": "iframe",
}
# Chromium exposes the inside of some native controls (a date field's day, month and year,
# its picker button): one control with one ref in our tree, its parts left out here.
NATIVE_COMPOSITES = frozenset({"Date", "DateTime", "InputTime", "ColorWell"})

_LINE = re.compile(r'^\s*- ([\w-]+)(?: ("(?:[^"\\]|\\.)*"))?.*?\[ref=(e\d+)\]')
_REF_OF = "function () { const agent = " + AGENT + "; return agent ? agent.refOf(this) : null; }"


@dataclass(frozen=True)
class ChromiumNode:
    """One measured node of Chromium's tree (interactive, or a table header)."""

    backend_id: int
    role: str  # ours, mapped from Chromium's
    name: str
    frame_id: str


@dataclass
class Comparison:
    """Chromium's interactive nodes against our tree on one page."""

    nodes: int = 0  # Chromium's interactive nodes
    shown: int = 0  # of them, shown in our tree with a ref
    same_role: int = 0  # of the shown, with the same role
    same_name: int = 0  # of the shown, with the same name
    differences: list[dict[str, Any]] = field(default_factory=list)

    def rates(self) -> dict[str, float]:
        return {
            "recall": self.shown / self.nodes if self.nodes else 1.0,
            "role": self.same_role / self.shown if self.shown else 1.0,
            "name": self.same_name / self.shown if self.shown else 1.0,
        }


def squash(text: str) -> str:
    return " ".join(text.split())


def tree_nodes(axtree: str) -> dict[str, tuple[str, str]]:
    """Our tree's lines by ref: (role, name)."""
    nodes: dict[str, tuple[str, str]] = {}
    for line in axtree.splitlines():
        match = _LINE.match(line)
        if match:
            role, quoted, ref = match.groups()
            nodes[ref] = (role, json.loads(quoted) if quoted else "")
    return nodes


async def chromium_nodes(cdp: CDPSession) -> list[ChromiumNode]:
    """Chromium's measured (interactive or table header), unignored nodes in every frame of
    the page, in tree order."""
    frames = [(await cdp.send("Page.getFrameTree"))["frameTree"]]
    found: list[ChromiumNode] = []
    while frames:
        frame = frames.pop(0)
        frames.extend(frame.get("childFrames", []))
        frame_id = frame["frame"]["id"]
        try:
            tree = await cdp.send("Accessibility.getFullAXTree", {"frameId": frame_id})
        except PlaywrightError:
            continue  # a frame of another process (out of this session's reach)
        found.extend(_interactive(tree["nodes"], frame_id))
    return found


def _interactive(nodes: list[dict[str, Any]], frame_id: str) -> list[ChromiumNode]:
    by_id = {node["nodeId"]: node for node in nodes}
    out = []
    for node in nodes:
        raw = node.get("role", {}).get("value", "")
        role = CHROMIUM_ROLES.get(raw, raw)
        if node.get("ignored") or role not in MEASURED or "backendDOMNodeId" not in node:
            continue
        if _inside_native_composite(node, by_id):
            continue
        name = squash(str(node.get("name", {}).get("value", "")))
        out.append(ChromiumNode(node["backendDOMNodeId"], role, name, frame_id))
    return out


def _inside_native_composite(node: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> bool:
    parent = by_id.get(node.get("parentId", ""))
    while parent is not None:
        if parent.get("role", {}).get("value") in NATIVE_COMPOSITES:
            return True
        parent = by_id.get(parent.get("parentId", ""))
    return False


async def ref_of(cdp: CDPSession, context_id: int, backend_id: int) -> str | None:
    """The ref the page agent gave the DOM node ``backend_id`` (None: it gave none)."""
    try:
        resolved = await cdp.send(
            "DOM.resolveNode", {"backendNodeId": backend_id, "executionContextId": context_id}
        )
        answer = await cdp.send(
            "Runtime.callFunctionOn",
            {
                "objectId": resolved["object"]["objectId"],
                "functionDeclaration": _REF_OF,
                "returnByValue": True,
            },
        )
    except PlaywrightError:
        return None
    value = answer.get("result", {}).get("value")
    return value if isinstance(value, str) else None


async def compare(
    cdp: CDPSession, world: AgentWorld, axtree: str, frames: Sequence[AgentWorld] = ()
) -> Comparison:
    """Chromium's interactive nodes on the page now against ``axtree`` (our tree of the
    same page, taken just before); ``frames``: the agents' worlds in its frames of other
    origins (``PageSession.frames.worlds()``)."""
    ours = tree_nodes(axtree)
    owners = {frame.frame_id: frame for frame in frames}
    nodes = await chromium_nodes(cdp)
    for session in {id(f.cdp): f.cdp for f in frames if f.cdp is not cdp}.values():
        nodes += await chromium_nodes(session)  # frames out of the page's process
    result = Comparison()
    for node in nodes:
        result.nodes += 1
        owner = owners.get(node.frame_id, world)  # a same-origin frame: the page's world
        ref = await ref_of(owner.cdp, await owner.context_id(), node.backend_id)
        shown = ours.get(ref) if ref else None
        if shown is None:
            result.differences.append({"kind": "missing", "chromium": _describe(node)})
            continue
        result.shown += 1
        role, name = shown
        result.same_role += role == node.role
        result.same_name += squash(name) == node.name
        if role != node.role or squash(name) != node.name:
            result.differences.append(
                {"kind": "differs", "ref": ref, "ours": [role, name], "chromium": _describe(node)}
            )
    return result


def _describe(node: ChromiumNode) -> list[str]:
    return [node.role, node.name]

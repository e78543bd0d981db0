"""A scripted model for browser-use, served by ``FakeOpenAI``: it answers browser-use's own
structured-output requests by reading the prompt it is sent, as a model would.

Each request carries the task (``<user_request>``), the agent's history (the ``next_goal``
of each earlier answer, which this model numbers ``Move k: ...``) and the page as
browser-use serializes it (``[12]<button id=new-contact />`` and the text below it). The
task picks the episode's plan: a list of ``Move``s, made from the task's golden path
(``plan_of``). The history says which move comes next; the page, which element index it
targets (``find_index``). While a move's target is not on the page the model waits, as a
golden model would. Its answer is browser-use's ``AgentOutput`` with one action:
``click``, ``input``, ``select_dropdown``, ``navigate``, ``done``. Its judge's request
(``verdict`` in the schema) is answered with a verdict.

The model name picks the behaviour: ``golden``, or a fault of ``FAULTS``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

import webharness
from tests.support.fake_openai import Reply, completion, error
from webharness.spec.task_spec import instantiate, load_task

MAX_WAITS = 10  # waits for a target in one episode, before the model gives up
GIVE_UP = "I could not finish the task."
FAULTS = ("no_save", "wrong_element", "repeat", "early_stop", "offsite", "stale")
_MOVE = re.compile(r"^Move (\d+):", re.M)
_NOTED = re.compile(r"noted \[(\d+)\] for move (\d+)")
_ELEMENT = re.compile(r"^(\t*)(?:\|SHADOW\(\w+\)\|)?\*?\[(\d+)\]<(\w+)(.*?)/?>\s*$")
_NAMED = re.compile(r"(?:aria-label|placeholder|title)=([^=]+?)(?= \w+=|\s*$)")
_FIELD_ROLES = {"combobox", "textbox", "searchbox", "spinbutton", "listbox", "slider"}
_FIELDS = {"input", "select", "textarea"}
_ROLES = {  # the tags that show each ARIA role, for roles not written in the element's attributes
    "button": {"button"},
    "link": {"a"},
    "textbox": {"input", "textarea"},
    "searchbox": {"input"},
    "spinbutton": {"input"},
    "combobox": {"select", "input"},
    "checkbox": {"input", "label"},
    "radio": {"input", "label"},
    "option": {"li", "option"},
    "menuitem": {"a", "button", "li"},
}


@dataclass(frozen=True)
class Move:
    """One semantic step: ``kind`` (click, fill, select, check, hover, answer) on the element
    of ``role`` and ``name`` (in the part of the page named ``within``, if any), with
    ``value`` (the text to type or pick, or the answer). ``earlier``: acted on where the
    page of the first move showed it, not where the current page does (a stale index)."""

    kind: str
    role: str = ""
    name: str = ""
    value: str = ""
    within: str = ""
    earlier: bool = False

    def describe(self) -> str:
        return f"{self.kind} {self.role} {self.name!r} {self.value!r}".strip()


def plan_of(task: str, seed: int) -> tuple[str, list[Move]]:
    """The goal of ``task`` on ``seed`` and its golden path's moves, values filled in.
    ``task`` is a built-in task's name or a task folder, as ``--tasks`` takes them."""
    folder = Path(task)
    spec = load_task(folder / "task.yaml") if folder.is_dir() else webharness.get_task(task)
    bound = instantiate(spec, seed, np.random.default_rng(seed))
    moves = []
    for step in bound.spec.golden_paths[0].steps:
        kind, target = str(step.action.value), step.target
        value = "" if step.value is None else str(step.value)
        if kind in ("done", "send_msg_to_user"):
            moves.append(Move("answer", value=value or "Done."))
        elif kind == "check" and value.lower() == "false":
            continue
        elif target is not None:
            kind = {"select_option": "select"}.get(kind, kind)
            within = target.within.name if target.within is not None else ""
            moves.append(Move(kind, target.role, target.name, value, within))
        else:
            raise ValueError(f"{task}: no browser-use move for the golden step {kind!r}")
    return str(bound.instance.instruction), moves


def faulty(moves: list[Move], fault: str, offsite: str = "") -> list[Move]:
    """``moves`` made wrong in the way ``fault`` names (one of ``FAULTS``)."""
    last_click = max(i for i, m in enumerate(moves) if m.kind == "click")
    claim = Move("answer", value="Saved it.")
    if fault == "no_save":  # a false success: the answer instead of the last click
        return [*moves[:last_click], claim]
    if fault == "wrong_element":  # the last click on the wrong button
        return [*moves[:last_click], replace(moves[last_click], name="Cancel"), claim]
    if fault == "repeat":  # the last click, on the empty form, again and again
        return [moves[0], moves[last_click], moves[last_click], moves[last_click], claim]
    if fault == "early_stop":  # gives up after two moves
        return [*moves[:2], Move("answer", value=GIVE_UP)]
    if fault == "offsite":  # a navigation to an origin the task does not allow, and a claim
        return [Move("navigate", value=offsite), claim]
    if fault == "stale":  # the last click on its element as the first page showed it
        return [*moves[:last_click], replace(moves[last_click], earlier=True), claim]
    raise ValueError(f"unknown fault {fault!r}: one of {FAULTS}")


class BrowserUseModel:
    """A ``FakeOpenAI`` responder: ``plans[goal]`` is an episode's golden moves; the model
    name (``golden`` or a fault) picks how it plays them. ``offsite`` is the URL the
    ``offsite`` fault navigates to."""

    def __init__(self, plans: dict[str, list[Move]], offsite: str = "") -> None:
        self.plans, self.offsite = plans, offsite

    def __call__(self, body: dict[str, Any]) -> Reply:
        schema = body.get("response_format", {}).get("json_schema", {}).get("schema", {})
        if "verdict" in schema.get("properties", {}):  # browser-use's judge of the run
            return _json({"reasoning": "", "verdict": True, "failure_reason": "",
                          "impossible_task": False, "reached_captcha": False})  # fmt: skip
        prompt = "\n".join(_text(m) for m in body.get("messages", []) if m.get("role") == "user")
        goal = _between(prompt, "<user_request>", "</user_request>").strip()
        plan = self.plans.get(goal)
        if plan is None:
            return error(400, f"no plan for the task {goal!r}")
        model = body.get("model", "golden")
        moves = plan if model == "golden" else faulty(plan, model, self.offsite)
        history = _between(prompt, "<agent_history>", "</agent_history>")
        page = _between(prompt, "<browser_state>", "</browser_state>")
        return self.answer(moves, history, page)

    def answer(self, moves: list[Move], history: str, page: str) -> Reply:
        """The next move after those the history shows, on the page's elements."""
        number = max((int(n) for n in _MOVE.findall(history)), default=0)
        elements = parse_elements(page)
        noted = {int(move): int(index) for index, move in _NOTED.findall(history)}
        while number < len(moves):
            move = moves[number]
            index = find_index(elements, move) if move.role else None
            if move.earlier:
                index = noted.get(number + 1)
            waits = history.count("Waiting for ")
            if move.role and index is None:
                if waits >= MAX_WAITS:
                    return _action("Giving up", _browser_use(Move("answer", value=GIVE_UP), None))
                return _action(f"Waiting for {move.describe()}", {"wait": {"seconds": 1}})
            if move.kind != "hover":  # browser-use has no hover: its target shown is enough
                goal = f"Move {number + 1}: {move.describe()}{_notes(moves, elements, number)}"
                return _action(goal, _browser_use(move, index))
            number += 1
        return _action("Finished", _browser_use(Move("answer", value="Done."), None))


def _notes(moves: list[Move], elements: list[Element], number: int) -> str:
    """At the first move, where the page shows the targets of the moves played ``earlier``
    (``noted [12] for move 3``), for the history to keep."""
    if number > 0:
        return ""
    found = [(find_index(elements, m), k + 1) for k, m in enumerate(moves) if m.earlier]
    return "".join(f"; noted [{i}] for move {k}" for i, k in found if i is not None)


def _browser_use(move: Move, index: int | None) -> dict[str, Any]:
    """browser-use's action for ``move`` on element ``index``."""
    if move.kind == "answer":
        success = move.value != GIVE_UP
        return {"done": {"text": move.value, "success": success, "files_to_display": []}}
    if move.kind == "navigate":
        return {"navigate": {"url": move.value, "new_tab": False}}
    if move.kind == "fill":
        return {"input": {"index": index, "text": move.value, "clear": True}}
    if move.kind == "select":
        return {"select_dropdown": {"index": index, "text": move.value}}
    return {"click": {"index": index}}


@dataclass
class Element:
    """One of browser-use's interactive elements: its index, tag, attributes, the text
    below it and the text lines above it (a form field's label)."""

    index: int
    tag: str
    attributes: str
    depth: int
    text: list[str]
    labels: tuple[str, str]  # the nearest text line above it of no element's, and any
    parent: Element | None


def parse_elements(page: str) -> list[Element]:
    """The interactive elements of browser-use's serialized page."""
    elements: list[Element] = []
    open_: list[Element] = []  # the elements whose subtree the current line is in
    label = near = ""
    for line in page.splitlines():
        depth = len(line) - len(line.lstrip("\t"))
        while open_ and open_[-1].depth >= depth:
            open_.pop()
        found = _ELEMENT.match(line)
        if found:
            parent = open_[-1] if open_ else None
            labels = (label, near)
            element = Element(int(found[2]), found[3], found[4], depth, [], labels, parent)
            elements.append(element)
            open_.append(element)
            continue
        text = line.strip()
        if text:
            near = text
            if not open_:  # a text of its own, not an element's: a label of what follows
                label = text
            for element in open_:
                element.text.append(text)
    return elements


def find_index(elements: list[Element], move: Move) -> int | None:
    """The index of the element ``move`` targets: its role and name, as a model reads them."""
    wanted = _norm(move.name)
    named = [e for e in elements if wanted in _names(e) and _inside(e, move.within)]
    fitting = [e for e in named if _fits(e, move.role)]
    chosen = fitting or named
    return chosen[0].index if chosen else None


def _names(element: Element) -> set[str]:
    names = {_norm(" ".join(element.text))}
    names |= {_norm(v) for v in _NAMED.findall(element.attributes)}
    if element.tag in _FIELDS or _declared(element) in _FIELD_ROLES:
        names |= {_norm(label) for label in element.labels}
        if element.parent is not None and element.parent.tag == "label":
            names.add(_norm(" ".join(element.parent.text)))
    return names - {""}


def _inside(element: Element, within: str) -> bool:
    """Whether ``element`` is in the part of the page named ``within``: the text line above
    it of no element's (a list item's title) or an enclosing element's text holds it."""
    if not within:
        return True
    texts = [element.labels[0]]
    parent = element.parent
    while parent is not None:
        texts.append(" ".join(parent.text))
        parent = parent.parent
    return any(_norm(within) in _norm(text) for text in texts)


def _declared(element: Element) -> str:
    """The element's ``role`` attribute, if it has one."""
    declared = re.search(r"(?:^|\s)role=(\w+)", element.attributes)
    return declared[1] if declared else ""


def _fits(element: Element, role: str) -> bool:
    if _declared(element):
        return _declared(element) == role
    kind = re.search(r"\btype=(\w+)", element.attributes)
    if role in ("checkbox", "radio") and element.tag == "input":
        return kind is not None and kind[1] == role
    if role == "button" and element.tag == "input":
        return kind is not None and kind[1] in ("submit", "button")
    return element.tag in _ROLES.get(role, {element.tag})


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _between(text: str, start: str, end: str) -> str:
    head, _, rest = text.partition(start)
    return rest.partition(end)[0] if rest else ""


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _action(next_goal: str, action: dict[str, Any]) -> Reply:
    return _json({"thinking": "", "evaluation_previous_goal": "", "memory": "",
                  "next_goal": next_goal, "current_plan_item": None, "plan_update": None,
                  "action": [action]})  # fmt: skip


def _json(content: dict[str, Any]) -> Reply:
    return completion(json.dumps(content))

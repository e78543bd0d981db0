"""``HeuristicAgent``: a weak but realistic baseline that reads the tree and the goal.

It pulls values out of the instruction (quoted strings, ``label value`` pairs such as
``email ada@x.example``), matches them to form fields by label similarity (difflib), fills
textboxes, picks native-select options, ticks checkboxes the goal mentions (unless
negated), clicks the button that most looks like submit, and ends with ``done()``. For a
question it answers with the line of the page that best matches the goal. It has the
failure modes of simple agents: it types into custom dropdowns, acts before late content
arrives, never asks the user, and trusts its first reading of the page.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from webharness import actions as A
from webharness.agents._axtree import TEXT_ROLES, Node, parse_axtree
from webharness.trace.models import TaskInstance

STOPWORDS = frozenset(
    "a an and are as at be by for from how i in into is it its me my of on or that the then this "
    "to was were what which who with you your".split()
)
FILLERS = frozenset("it to as the a an is be by with of".split())  # dropped in front of a value
PREPOSITIONS = frozenset(
    "in on at for from into onto under over about".split()
)  # no value starts so
SUBMIT_WORDS = (
    "save",
    "submit",
    "search",
    "sign in",
    "log in",
    "send",
    "continue",
    "next",
    "apply",
    "create",
    "confirm",
    "update",
    "ok",
    "done",
    "go",
)
AVOID_WORDS = ("cancel", "close", "delete", "remove", "reset", "clear", "back", "discard")
FREE_TEXT_NAMES = (
    "message",
    "reply",
    "comment",
    "body",
    "note",
    "description",
    "text",
    "content",
    "search",
    "query",
)
CLICKABLE = frozenset({"button", "link", "menuitem", "tab"})
_QUESTION = re.compile(
    r"\b(what (is|was|are|were)|how (many|much)|which|who|tell me)\b|\?|(^|[.!?]\s+)report\b", re.I
)
_NEGATION = frozenset({"not", "no", "without", "never", "don't", "dont", "non"})
_VALUE_END = re.compile(r"\s*(?:[,;]|\.(?:\s|$)|\s(?:and|with|or|then|but)\s|\s\(|$)")
_QUOTED = re.compile(r"[\"“]([^\"”]+)[\"”]")


class HeuristicAgent:
    """Fills the fields the goal names, submits, says ``done()`` (or answers a question).

    Deterministic: the same page and goal give the same action.
    """

    name = "heuristic"

    def __init__(self, max_clicks: int = 6, match_cutoff: float = 0.85) -> None:
        self.max_clicks = max_clicks
        self.match_cutoff = match_cutoff
        self.goal = ""
        self._reset_memory()

    def reset(self, instance: TaskInstance) -> None:
        self.goal = instance.instruction
        self._reset_memory()

    def _reset_memory(self) -> None:
        self._handled: set[tuple[str, str]] = set()  # (role, name) of fields already acted on
        self._clicked: set[tuple[str, str]] = set()
        self._used_values: set[str] = set()
        self._filled = False
        self._finished = False

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        goal = str(obs.get("goal") or self.goal)
        nodes = [n for n in parse_axtree(str(obs.get("axtree", ""))) if not n.disabled]
        if self._finished:
            return A.Done().dsl()
        for node in nodes:
            action = self._field_action(node, goal, nodes)
            if action is not None:
                self._handled.add((node.role, node.name))
                self._filled = True
                return action.dsl()
        if _QUESTION.search(goal):
            self._finished = True
            return A.SendMsgToUser(text=answer_from_tree(str(obs.get("axtree", "")), goal)).dsl()
        if self._filled:
            self._finished = True
            button = _best(nodes, lambda n: _submit_score(n, goal) if n.role == "button" else 0)
            return (A.Click(ref=button.ref) if button else A.Press(key="Enter")).dsl()
        target = _best(nodes, lambda n: self._open_score(n, goal))
        if target is not None and len(self._clicked) < self.max_clicks:
            self._clicked.add((target.role, target.name))
            return A.Click(ref=target.ref).dsl()
        self._finished = True
        return A.Done().dsl()

    # --- fields -------------------------------------------------------------------------
    def _field_action(self, node: Node, goal: str, nodes: list[Node]) -> Any | None:
        if (node.role, node.name) in self._handled:
            return None
        if node.role in ("checkbox", "radio", "switch"):
            wanted = self._mentioned_positively(node.name, goal)
            if wanted is None or wanted == node.checked:
                return None
            return A.Check(ref=node.ref) if wanted else A.Uncheck(ref=node.ref)
        if node.is_native_select:
            option = self._option_for(node, goal)
            return (
                A.SelectOption(ref=node.ref, option=option)
                if option and option != node.value
                else None
            )
        if node.role in TEXT_ROLES or node.role == "combobox":  # a custom combobox gets typed into
            value = self.value_for(node.name, goal) or self._free_text(node, goal, nodes)
            if not value or value == node.value:
                return None
            self._used_values.add(value)
            return A.Fill(ref=node.ref, text=value)
        return None

    def value_for(self, label: str, goal: str) -> str | None:
        """The value the goal gives for a field labelled ``label`` (``country France``)."""
        span = _find_phrase(label, goal, self.match_cutoff)
        if span is None:
            return None
        rest = goal[span[1] :].lstrip(" :=")
        quoted = re.match(r"[\"“]([^\"”]+)[\"”]", rest)
        if quoted:
            return quoted.group(1)
        words = _VALUE_END.split(rest, maxsplit=1)[0].split()
        while words and words[0].lower() in FILLERS:
            words.pop(0)
        if not words or words[0].lower() in PREPOSITIONS or len(words) > 6:
            return None
        return " ".join(words).strip("\"'")

    def _free_text(self, node: Node, goal: str, nodes: list[Node]) -> str | None:
        """A long quoted string for a message-like box, or for the page's only textbox."""
        boxes = [n for n in nodes if n.role in TEXT_ROLES]
        if not (any(w in node.name.lower() for w in FREE_TEXT_NAMES) or len(boxes) == 1):
            return None
        shortest = (
            2 if node.role == "searchbox" or "search" in node.name.lower() else 15
        )  # a query, or a message
        quotes = [
            q for q in _QUOTED.findall(goal) if len(q) >= shortest and q not in self._used_values
        ]
        return max(quotes, key=len) if quotes else None

    def _option_for(self, node: Node, goal: str) -> str | None:
        value = self.value_for(node.name, goal)
        if value:
            match = difflib.get_close_matches(value, node.options, n=1, cutoff=0.6)
            return match[0] if match else None
        lowered = goal.lower()
        named = [
            o
            for o in node.options
            if len(o) >= 3 and re.search(rf"\b{re.escape(o.lower())}\b", lowered)
        ]
        return max(named, key=len) if named else None

    def _mentioned_positively(self, name: str, goal: str) -> bool | None:
        span = _find_phrase(name, goal, self.match_cutoff)
        if span is None:
            return None
        before = re.findall(r"[\w']+", goal[: span[0]].lower())[-3:]
        return not any(w in _NEGATION for w in before)

    # --- clicks -------------------------------------------------------------------------
    def _open_score(self, node: Node, goal: str) -> float:
        """How surely the goal names this link/button (all its words in the goal)."""
        if node.role not in CLICKABLE or (node.role, node.name) in self._clicked:
            return 0
        words = _content_words(node.name)
        if not words or not words <= _content_words(goal):
            return 0
        quoted = any(q.strip().lower() == node.name.strip().lower() for q in _QUOTED.findall(goal))
        return len(words) + (3 if quoted else 0)


def answer_from_tree(axtree: str, goal: str) -> str:
    """The page text that best answers ``goal``: the line sharing most words with it
    (preferring lines with figures the goal lacks) or, for a table row, the cell under the
    column header that best matches the goal."""
    wanted = _content_words(goal)
    goal_numbers = set(re.findall(r"\d[\d,.]*", goal))
    best, best_line, best_score = "", "", 0.0
    for line in axtree.splitlines():
        text = _line_text(line)
        numbers = set(re.findall(r"\d[\d,.]*\d|\d", text)) - goal_numbers
        score = len(_content_words(text) & wanted) + (2 if numbers else 0)
        if score > best_score:
            best, best_line, best_score = text, line, score
    ref = re.search(r"\[ref=(\w+)\]", best_line)
    cell = _table_cell(parse_axtree(axtree), ref.group(1), wanted) if ref else None
    return cell or best or "I could not find the answer on the page."


def _table_cell(nodes: list[Node], ref: str, wanted: set[str]) -> str | None:
    """The cell of row ``ref`` under the column header most like the goal's words."""
    index = next((i for i, n in enumerate(nodes) if n.ref == ref and n.role == "row"), None)
    if index is None:
        return None
    row = nodes[index]
    cells = []
    for node in nodes[index + 1 :]:
        if node.depth <= row.depth:
            break
        if node.role in ("cell", "gridcell", "rowheader") and node.depth == row.depth + 1:
            cells.append(node.name)
    start = max((i for i, n in enumerate(nodes[:index]) if n.role in ("table", "grid")), default=0)
    headers = [n.name for n in nodes[start:index] if n.role == "columnheader"]
    overlaps = [
        len(_content_words(h) & wanted) if re.search(r"\d", c) else 0
        for h, c in zip(headers, cells)
    ]
    if not overlaps or max(overlaps) == 0:
        return None
    return cells[overlaps.index(max(overlaps))]


def _line_text(line: str) -> str:
    text = re.sub(r"\[[^\]]*\]", "", line.strip().lstrip("- "))
    text = re.sub(r"^[a-z]+(?=[\s:\"]|$)", "", text, count=1).strip(" :")
    return re.sub(r"\s+", " ", text.replace('"', " ")).strip()


def _submit_score(node: Node, goal: str) -> float:
    name = node.name.lower()
    if not name or any(w in name for w in AVOID_WORDS):
        return 0
    score = len(_content_words(name) & _content_words(goal))
    return score + (3 if any(re.search(rf"\b{w}\b", name) for w in SUBMIT_WORDS) else 0)


def _best(nodes: list[Node], score: Any) -> Node | None:
    scored = [(score(n), -i, n) for i, n in enumerate(nodes)]
    top = max(scored, key=lambda t: (t[0], t[1]), default=None)
    return top[2] if top and top[0] > 0 else None


def _content_words(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _find_phrase(phrase: str, text: str, cutoff: float) -> tuple[int, int] | None:
    """Character span of the run of words in ``text`` most like ``phrase`` (difflib ratio)."""
    target = " ".join(re.findall(r"\w+", phrase.lower()))
    words = list(re.finditer(r"\w+", text))
    n = len(target.split())
    if not target or n == 0:
        return None
    best, best_ratio = None, 0.0
    for i in range(len(words) - n + 1):
        window = " ".join(m.group(0).lower() for m in words[i : i + n])
        fuzzy = len(target) > 4 and not any(
            c.isdigit() for c in target
        )  # short words and numbers: exact only
        ratio = (
            1.0
            if window == target
            else (difflib.SequenceMatcher(None, window, target).ratio() if fuzzy else 0.0)
        )
        if ratio > best_ratio:
            best, best_ratio = (words[i].start(), words[i + n - 1].end()), ratio
    return best if best_ratio >= cutoff else None

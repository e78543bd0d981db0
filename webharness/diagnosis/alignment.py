"""Golden-trace alignment: where did the agent's run leave the reference path?

Pure functions over traces, no browser. States are compared by a weighted similarity of
URL, interactive elements, their values, the app's data and page landmarks. ``align``
pairs agent states with golden states one-to-one (a monotone alignment with gaps, so
extra and skipped steps are explicit) and scores fidelity with nDTW.

>>> report = align(agent_trace, [golden_a, golden_b])        # doctest: +SKIP
>>> report.first_divergence_step, report.progress_rate       # doctest: +SKIP
(4, 0.6)
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from webharness.actions import ActionParseError, parse_action
from webharness.semantic import Element, SemanticLocator, SemanticState
from webharness.trace.models import EpisodeTrace

__all__ = [
    "DEFAULT_THRESHOLD",
    "DEFAULT_WEIGHTS",
    "ActionSignature",
    "Alignment",
    "ElementChange",
    "ElementDiff",
    "MatchedPair",
    "ProgressTracker",
    "SimilarityWeights",
    "StateFeatures",
    "action_signature",
    "align",
    "element_diff",
    "progress_curve",
    "similarity_matrix",
    "state_features",
    "state_similarity",
]

DEFAULT_THRESHOLD = 0.9  # similarity at which a golden state counts as reached
GAP_COST = 0.5  # cost of an extra agent step or a skipped golden step (a match costs 1 - sim)
FIDELITY_SCALE = 0.25  # nDTW distance scale: a mean cost of 0.25 per golden step gives 1/e
_EPS = 1e-9
_ONE = 1.0 - 1e-12  # weighted sums of 1.0 that float rounding left a hair short
_COMPARED = ("value", "checked", "selected", "disabled", "invalid", "expanded")
_flags = attrgetter(*_COMPARED)


# --- state similarity -----------------------------------------------------------------


class SimilarityWeights(BaseModel):
    """How much each part of a semantic state counts in ``state_similarity``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: float = Field(default=0.2, ge=0)  # same page (origin+path), same query
    elements: float = Field(default=0.25, ge=0)  # which controls exist, by (role, name)
    values: float = Field(default=0.25, ge=0)  # their values and checked/disabled/... flags
    app: float = Field(default=0.2, ge=0)  # the backend's rows
    page: float = Field(default=0.1, ge=0)  # title, headings, dialogs, alerts

    @model_validator(mode="after")
    def _not_all_zero(self) -> SimilarityWeights:
        if self.url + self.elements + self.values + self.app + self.page <= 0:
            raise ValueError("at least one similarity weight must be positive")
        return self

    def normalised(self) -> tuple[float, float, float, float, float]:
        parts = (self.url, self.elements, self.values, self.app, self.page)
        total = sum(parts)
        return tuple(p / total for p in parts)  # type: ignore[return-value]


DEFAULT_WEIGHTS = SimilarityWeights()


@dataclass(frozen=True, slots=True)
class StateFeatures:
    """What similarity looks at, extracted once per state (hashable keys, no models)."""

    page: str  # origin + path
    url: str  # page + sorted query + fragment
    sets: tuple[frozenset[Any], ...]  # elements, element values, app rows, landmarks


def state_features(state: SemanticState) -> StateFeatures:
    """Precompute a state's comparison keys; pass them to ``state_similarity`` in loops."""
    keyed = _keyed(state)
    values = frozenset(zip(keyed, map(_flags, keyed.values())))
    landmarks = frozenset(
        [("title", state.title)]
        + [("h", h.level, h.text) for h in state.headings]
        + [("dialog", d) for d in state.dialogs]
        + [("alert", a) for a in state.alerts]
    )
    page, url = _url_keys(state.url)
    return StateFeatures(page, url, (frozenset(keyed), values, _app_rows(state.app), landmarks))


def state_similarity(
    a: SemanticState | StateFeatures,
    b: SemanticState | StateFeatures,
    weights: SimilarityWeights = DEFAULT_WEIGHTS,
) -> float:
    """Similarity of two page states in [0, 1]; 1.0 for states with the same meaning.

    A weighted mix of: URL (1 same path and query, 0.5 same path, 0 otherwise), Jaccard
    of the interactive elements by (role, name), Jaccard of their values and flags,
    Jaccard of the app's rows (as sorted JSON) and of title/headings/dialogs/alerts.
    Refs, geometry, scroll and focus are ignored: they differ between equal runs.

    >>> state_similarity(SemanticState(url="http://x/a"), SemanticState(url="http://x/a"))
    1.0
    """
    fa = a if isinstance(a, StateFeatures) else state_features(a)
    fb = b if isinstance(b, StateFeatures) else state_features(b)
    w = weights.normalised()
    total = 0.0 + w[0] * (1.0 if fa.url == fb.url else 0.5 if fa.page == fb.page else 0.0)
    for weight, x, y in zip(w[1:], fa.sets, fb.sets):
        union = len(x | y)
        total += weight * (len(x & y) / union if union else 1.0)
    return 1.0 if total > _ONE else total  # equal states score exactly 1.0 despite float sums


def similarity_matrix(
    a: Sequence[StateFeatures],
    b: Sequence[StateFeatures],
    weights: SimilarityWeights = DEFAULT_WEIGHTS,
) -> np.ndarray:
    """``state_similarity`` for every pair, vectorised: shape ``(len(a), len(b))``."""
    w = weights.normalised()
    total = np.zeros((len(a), len(b))) + w[0] * _url_scores(a, b)
    for c, weight in enumerate(w[1:]):
        total += weight * _jaccard_matrix([f.sets[c] for f in a], [f.sets[c] for f in b])
    return np.where(total > _ONE, 1.0, total)  # same float steps as state_similarity


def _url_keys(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    page = f"{parts.scheme}://{parts.netloc.lower()}{parts.path.rstrip('/') or '/'}"
    query = "&".join(sorted(parts.query.split("&"))) if parts.query else ""
    return page, f"{page}?{query}#{parts.fragment}"


def _app_rows(app: dict[str, list[dict[str, Any]]]) -> frozenset[tuple[str, str, int]]:
    seen: Counter[tuple[str, str]] = Counter()
    for collection, rows in app.items():
        for row in rows:
            seen[(collection, json.dumps(row, sort_keys=True, default=str))] += 1
    return frozenset((c, row, n) for (c, row), count in seen.items() for n in range(count))


def _url_scores(a: Sequence[StateFeatures], b: Sequence[StateFeatures]) -> np.ndarray:
    ua, ub = _codes([f.url for f in a], [f.url for f in b])
    pa, pb = _codes([f.page for f in a], [f.page for f in b])
    same_page = np.where(pa[:, None] == pb[None, :], 0.5, 0.0)
    return np.where(ua[:, None] == ub[None, :], 1.0, same_page)


def _codes(a: list[str], b: list[str]) -> tuple[np.ndarray, np.ndarray]:
    ids: dict[str, int] = {}
    code = [ids.setdefault(x, len(ids)) for x in a + b]
    return np.array(code[: len(a)], dtype=np.int64), np.array(code[len(a) :], dtype=np.int64)


def _jaccard_matrix(a: list[frozenset[Any]], b: list[frozenset[Any]]) -> np.ndarray:
    (ua, ia), (ub, ib) = _unique(a), _unique(b)  # runs revisit pages: compare each set once
    keys_a, keys_b = [k for s in ua for k in s], [k for s in ub for k in s]
    vocab = {k: n for n, k in enumerate(dict.fromkeys(keys_a + keys_b))}
    ma, mb = _incidence(ua, keys_a, vocab), _incidence(ub, keys_b, vocab)
    inter = ma @ mb.T  # 0/1 rows: exact integer counts
    union = ma.sum(axis=1)[:, None] + mb.sum(axis=1)[None, :] - inter
    jaccard = np.divide(inter, union, out=np.ones_like(inter), where=union > 0)
    return jaccard[np.ix_(ia, ib)]


def _unique(sets: list[frozenset[Any]]) -> tuple[list[frozenset[Any]], np.ndarray]:
    ids: dict[frozenset[Any], int] = {}
    index = [ids.setdefault(s, len(ids)) for s in sets]
    return list(ids), np.array(index, dtype=np.int64)


def _incidence(sets: list[frozenset[Any]], keys: list[Any], vocab: dict[Any, int]) -> np.ndarray:
    """Row r has a 1 in the column of every key of ``sets[r]`` (``keys``: them, flattened)."""
    matrix = np.zeros((len(sets), len(vocab)))
    rows = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
    matrix[rows, list(map(vocab.__getitem__, keys))] = 1.0
    return matrix


# --- action signatures ----------------------------------------------------------------

_TOGGLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
_VALUE_FIELD = {
    "fill": "text",
    "select_option": "option",
    "press": "key",
    "keyboard_type": "text",
    "goto": "url",
}


class ActionSignature(BaseModel):
    """An action by meaning: kind, semantic target and value, with the ref resolved away."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str  # as written: "click"
    effect: str  # what it does: a click on an unchecked checkbox is "check"
    role: str | None = None
    name: str | None = None
    value: str | None = None  # text typed, option chosen, key, URL or scroll direction
    unresolved_ref: str | None = None  # a ref the state before the action did not have

    def same_effect(self, other: ActionSignature) -> bool:
        """Same effect on the same semantic target with the same value (refs ignored)."""
        return self._key() == other._key()

    def describe(self) -> str:
        target = f" {self.role} {self.name!r}" if self.role else ""
        target = target or (f" {self.unresolved_ref}" if self.unresolved_ref else "")
        return f"{self.kind}{target}" + (f" = {self.value!r}" if self.value is not None else "")

    def _key(self) -> tuple[Any, ...]:
        name = None if self.name is None else self.name.strip().lower()
        return (self.effect, self.role, name, self.value, self.unresolved_ref)


def action_signature(trace: EpisodeTrace, i: int) -> ActionSignature | None:
    """The meaning of the action that led to ``trace.steps[i]``; None for step 0.

    A ref is resolved against the state *before* the action (``steps[i - 1]``), since
    refs differ between runs but role+name do not. Message texts (answers, questions)
    are left out: the criteria judge them, not the alignment.
    """
    text = trace.steps[i].action
    if text is None:
        return None
    try:
        action = parse_action(text)
    except ActionParseError:
        return ActionSignature(kind="unparseable", effect="unparseable", value=text)
    before = trace.steps[i - 1].state if i > 0 else None
    ref = getattr(action, "ref", None)
    target = _target(action, before)
    return ActionSignature(
        kind=action.kind,
        effect=_effect(action.kind, target),
        role=target.role if target else None,
        name=target.name if target else None,
        value=_value(action, target),
        unresolved_ref=ref if ref and target is None else None,
    )


def _target(action: Any, before: SemanticState | None) -> Element | None:
    if before is None:
        return None
    if getattr(action, "ref", None):
        return before.by_ref(action.ref)
    if action.kind == "mouse_click":  # hit-test: the smallest box under the point
        under = [e for e in before.elements if _contains(e.bbox, action.x, action.y)]
        return min(under, key=lambda e: e.bbox[2] * e.bbox[3], default=None)
    return None


def _contains(bbox: tuple[float, float, float, float], x: float, y: float) -> bool:
    left, top, width, height = bbox
    return width > 0 and height > 0 and left <= x <= left + width and top <= y <= top + height


def _effect(kind: str, target: Element | None) -> str:
    if kind in ("click", "mouse_click") and target is not None and target.role in _TOGGLES:
        if target.checked is not None:
            return "uncheck" if target.checked and target.role != "radio" else "check"
    return "click" if kind == "mouse_click" and target is not None else kind


def _value(action: Any, target: Element | None) -> str | None:
    if action.kind in _VALUE_FIELD:
        return str(getattr(action, _VALUE_FIELD[action.kind]))
    if action.kind == "scroll":
        return f"{_sign(action.dx)},{_sign(action.dy)}"  # direction, not distance
    if action.kind == "mouse_click" and target is None:
        return f"{action.x:.0f},{action.y:.0f}"
    return None


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


# --- alignment ------------------------------------------------------------------------


class ElementChange(BaseModel):
    """An element both states have (same role+name) whose value or flags differ."""

    model_config = ConfigDict(extra="forbid")

    role: str
    name: str
    fields: list[str]  # which of value/checked/selected/disabled/invalid/expanded differ
    agent: dict[str, Any] = Field(default_factory=dict)
    golden: dict[str, Any] = Field(default_factory=dict)


class ElementDiff(BaseModel):
    """How the agent's elements differ from the golden state's, matched by role+name."""

    model_config = ConfigDict(extra="forbid")

    missing: list[SemanticLocator] = Field(default_factory=list)  # golden has, agent lacks
    extra: list[SemanticLocator] = Field(default_factory=list)  # agent has, golden lacks
    changed: list[ElementChange] = Field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.missing or self.extra or self.changed)

    def describe(self) -> list[str]:
        """One short line per difference, e.g. ``no button 'Submit'``."""
        lines = [f"no {loc.role} {loc.name!r}" for loc in self.missing]
        lines += [f"unexpected {loc.role} {loc.name!r}" for loc in self.extra]
        for c in self.changed:
            shown = ", ".join(f"{f} {c.agent[f]!r} (golden {c.golden[f]!r})" for f in c.fields)
            lines.append(f"{c.role} {c.name!r}: {shown}")
        return lines


class MatchedPair(BaseModel):
    """An agent step paired with the golden step whose state it corresponds to."""

    model_config = ConfigDict(extra="forbid")

    agent_step: int
    golden_step: int
    similarity: float
    element_diff: ElementDiff
    action_agent: str | None  # the DSL string that led to the agent's state
    action_golden: str | None
    action_matches: bool  # same kind, semantic target and value (refs ignored)


class Alignment(BaseModel):
    """The agent's run laid over its best golden trace. Step numbers are ``StepRecord.index``."""

    model_config = ConfigDict(extra="forbid")

    golden_path: str | None
    matched: list[MatchedPair] = Field(default_factory=list)
    extra_steps: list[int] = Field(default_factory=list)  # agent steps with no golden counterpart
    skipped_golden_steps: list[int] = Field(
        default_factory=list
    )  # golden steps with no agent counterpart
    wrong_actions: list[int] = Field(default_factory=list)  # action differs and so does the state
    first_divergence_step: int | None = None  # None: the run never left the golden path
    progress_rate: float = 0.0  # golden key states (after step 0) reached, in order; a skipped
    # golden step whose action changed nothing is reached with the state before it
    fidelity: float = 0.0  # nDTW in [0, 1]; 1.0 for a run identical to the golden one
    step_efficiency: float = 0.0  # agent actions / golden actions
    dtw_cost: float | None = None  # summed 1 - similarity on the DTW path; None: no agent steps
    threshold: float = (
        DEFAULT_THRESHOLD  # "reached" means similarity >= threshold * start_similarity
    )
    start_similarity: float = (
        1.0  # agent vs golden state after reset (< 1: perturbed or other seed)
    )
    per_golden: dict[str, float] = Field(default_factory=dict)  # fidelity per golden path id

    @property
    def divergences(self) -> int:
        return len(self.extra_steps) + len(self.skipped_golden_steps) + len(self.wrong_actions)


def element_diff(agent: SemanticState, golden: SemanticState) -> ElementDiff:
    """Elements missing, extra or changed in ``agent`` relative to ``golden``.

    Args:
        agent: the agent's state.
        golden: the golden state it was matched with.

    Returns:
        The difference, keyed by role+name (duplicates by occurrence).

    >>> element_diff(agent_state, golden_state).describe()   # doctest: +SKIP
    ["no button 'Submit'"]
    """
    mine, theirs = _keyed(agent), _keyed(golden)
    changed = []
    for key in sorted(mine.keys() & theirs.keys()):
        a, g = mine[key], theirs[key]
        fields = [f for f in _COMPARED if getattr(a, f) != getattr(g, f)]
        if fields:
            changed.append(
                ElementChange(
                    role=a.role,
                    name=a.name,
                    fields=fields,
                    agent={f: getattr(a, f) for f in fields},
                    golden={f: getattr(g, f) for f in fields},
                )
            )
    return ElementDiff(
        missing=[theirs[k].locator for k in sorted(theirs.keys() - mine.keys())],
        extra=[mine[k].locator for k in sorted(mine.keys() - theirs.keys())],
        changed=changed,
    )


def align(
    agent: EpisodeTrace,
    golden: EpisodeTrace | Sequence[EpisodeTrace],
    *,
    weights: SimilarityWeights = DEFAULT_WEIGHTS,
    threshold: float = DEFAULT_THRESHOLD,
) -> Alignment:
    """Align an agent's trace with one or several golden traces and keep the best.

    Args:
        agent: the agent's episode; ``steps[0]`` is the state after reset.
        golden: one golden trace, or several (one per golden path).
        weights: how much each part of a state counts in the similarity.
        threshold: similarity at which a state counts as the golden one (progress, drift).

    Returns:
        The alignment with the highest fidelity (ties: fewest divergences, then first
        given), with ``per_golden`` holding every path's fidelity.

    Raises:
        ValueError: no golden trace, or a golden trace without steps.
    """
    goldens = [golden] if isinstance(golden, EpisodeTrace) else list(golden)
    if not goldens:
        raise ValueError("align() needs at least one golden trace, got an empty list")
    agent_side = _Side(agent)
    results = [_align_one(agent_side, _Side(g), weights, threshold) for g in goldens]
    best = min(
        range(len(results)),
        key=lambda k: (-round(results[k].fidelity, 9), results[k].divergences, k),
    )
    per_golden = {_golden_id(g, k): r.fidelity for k, (g, r) in enumerate(zip(goldens, results))}
    return results[best].model_copy(update={"per_golden": per_golden})


class ProgressTracker:
    """Incremental progress along golden traces, for a per-step shaped reward.

    Greedy and in order: a state advances along a golden trace when its best match among
    the golden states not yet passed is a later one with similarity >= ``threshold``
    times the similarity of the first state to the golden start (as in ``align``).
    Progress is the fraction of golden key states reached, the best over the traces.

    >>> tracker = ProgressTracker(golden_trace)                  # doctest: +SKIP
    >>> reward = tracker.update(info["semantic_state"])          # doctest: +SKIP
    """

    def __init__(
        self,
        golden: EpisodeTrace | Sequence[EpisodeTrace],
        *,
        weights: SimilarityWeights = DEFAULT_WEIGHTS,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> None:
        goldens = [golden] if isinstance(golden, EpisodeTrace) else list(golden)
        if not goldens or any(not g.steps for g in goldens):
            raise ValueError("ProgressTracker needs golden traces with at least one step")
        self._golden = [[state_features(s.state) for s in g.steps] for g in goldens]
        self._weights, self._threshold = weights, threshold
        self._position = [0] * len(goldens)  # golden index last reached, per trace
        self._reached = [0] * len(goldens)
        self._cut: list[float] = []  # per trace, set by the first state

    @property
    def progress(self) -> float:
        return max(_fraction(r, len(g) - 1) for r, g in zip(self._reached, self._golden))

    def update(self, state: SemanticState) -> float:
        """Take the agent's newest state; return the progress so far in [0, 1]."""
        features = state_features(state)
        if not self._cut:
            self._cut = [
                self._threshold * state_similarity(features, g[0], self._weights)
                for g in self._golden
            ]
        for k, golden in enumerate(self._golden):
            start = self._position[k]
            sims = [state_similarity(features, g, self._weights) for g in golden[start:]]
            best = max(range(len(sims)), key=sims.__getitem__)  # first best: stay on ties
            if best > 0 and sims[best] >= self._cut[k]:
                self._position[k] += best
                self._reached[k] += 1
            # Golden states the agent cannot tell apart from this one (e.g. the state after
            # done() repeats the one before) are reached together with it.
            while best + 1 < len(sims) and sims[best + 1] >= sims[best] >= self._cut[k]:
                best += 1
                self._position[k] += 1
                self._reached[k] += 1
        return self.progress


def progress_curve(
    agent_states: Sequence[SemanticState],
    golden: EpisodeTrace | Sequence[EpisodeTrace],
    *,
    weights: SimilarityWeights = DEFAULT_WEIGHTS,
    threshold: float = DEFAULT_THRESHOLD,
) -> float:
    """Progress of the states so far along the golden trace(s), in [0, 1].

    Uses ``ProgressTracker`` from scratch; keep a tracker to pay per step instead.
    """
    tracker = ProgressTracker(golden, weights=weights, threshold=threshold)
    for state in agent_states:
        tracker.update(state)
    return tracker.progress


# --- internals ------------------------------------------------------------------------


class _Side:
    """One trace's per-step data, computed once per ``align`` call."""

    def __init__(self, trace: EpisodeTrace) -> None:
        self.trace = trace
        self.index = [s.index for s in trace.steps]
        self.features: list[StateFeatures] = [state_features(s.state) for s in trace.steps]
        self._signatures: dict[int, ActionSignature | None] = {}

    def signature(self, i: int) -> ActionSignature | None:
        """Parsed on demand: only matched steps need one."""
        if i not in self._signatures:
            self._signatures[i] = action_signature(self.trace, i)
        return self._signatures[i]


def _align_one(
    agent: _Side, golden: _Side, weights: SimilarityWeights, threshold: float
) -> Alignment:
    if not golden.index:
        raise ValueError(f"golden trace {golden.trace.golden_path!r} has no steps")
    sim = similarity_matrix(agent.features, golden.features, weights)
    start = float(sim[0, 0]) if sim.size else 1.0
    cut = (
        threshold * start
    )  # judged relative to the starts: a perturbation from reset lowers all alike
    pairs = _monotone_pairs(sim.tolist())
    matched = [_pair(agent, golden, i, j, float(sim[i, j])) for i, j in pairs]
    agent_hit, golden_hit = {i for i, _ in pairs}, {j for _, j in pairs}
    also_reached = _reached_with_previous(pairs, sim, cut)
    extra = [i for i in range(len(agent.index)) if i not in agent_hit]
    # a different action is wrong when it also led somewhere else (same state: same effect)
    wrong = [
        i for (i, _), m in zip(pairs, matched) if not m.action_matches and m.similarity < 1 - _EPS
    ]
    key_states = len(golden.index) - 1
    reached = sum(1 for (_, j), m in zip(pairs, matched) if j > 0 and m.similarity >= cut) + len(
        also_reached
    )
    cost = _dtw_cost(1.0 - sim)
    return Alignment(
        golden_path=golden.trace.golden_path,
        matched=matched,
        extra_steps=[agent.index[i] for i in extra],
        skipped_golden_steps=[
            golden.index[j] for j in range(len(golden.index)) if j not in golden_hit
        ],
        wrong_actions=[agent.index[i] for i in wrong],
        first_divergence_step=_first_divergence(
            agent, pairs, matched, set(extra) | set(wrong), also_reached, cut
        ),
        progress_rate=_fraction(reached, key_states),
        fidelity=math.exp(-cost / (len(golden.index) * FIDELITY_SCALE))
        if cost is not None
        else 0.0,
        step_efficiency=max(len(agent.index) - 1, 0) / max(key_states, 1),
        dtw_cost=cost,
        threshold=threshold,
        start_similarity=start,
    )


def _pair(agent: _Side, golden: _Side, i: int, j: int, similarity: float) -> MatchedPair:
    mine, theirs = agent.signature(i), golden.signature(j)
    same = mine == theirs if mine is None or theirs is None else mine.same_effect(theirs)
    return MatchedPair(
        agent_step=agent.index[i],
        golden_step=golden.index[j],
        similarity=similarity,
        element_diff=element_diff(agent.trace.steps[i].state, golden.trace.steps[j].state),
        action_agent=agent.trace.steps[i].action,
        action_golden=golden.trace.steps[j].action,
        action_matches=same,
    )


def _reached_with_previous(pairs: list[tuple[int, int]], sim: np.ndarray, cut: float) -> set[int]:
    """Unpaired golden steps the agent reached along with the golden step paired just before.

    A golden step whose action changed nothing the similarity sees (clicking the tab that
    was already selected, the state after ``done()``) repeats the state before it. An agent
    that leaves such a step out still reaches its state: as in ``ProgressTracker``, it is
    reached when the agent's matched state is at least as similar to it as to the one before.
    """
    reached: set[int] = set()
    ends = [j for _, j in pairs[1:]] + [sim.shape[1]]
    for (i, j), end in zip(pairs, ends):
        while j + 1 < end and sim[i, j + 1] >= sim[i, j] >= cut:
            j += 1
            reached.add(j)
    return reached


def _first_divergence(
    agent: _Side,
    pairs: list[tuple[int, int]],
    matched: list[MatchedPair],
    flagged: set[int],
    reached: set[int],
    cut: float,
) -> int | None:
    """The first agent step that is extra or wrong, cuts a corner, or drops off the golden states.

    ``reached``: unpaired golden steps the agent reached all the same; leaving them out cuts no corner.
    """
    candidates = set(flagged)
    last_j, last_sim = -1, None
    for (i, j), m in zip(pairs, matched):
        if any(k not in reached for k in range(last_j + 1, j)):  # golden steps skipped just before
            candidates.add(i)
        if last_sim is not None and last_sim >= cut > m.similarity:  # fell below: not from reset on
            candidates.add(i)
        last_j, last_sim = j, m.similarity
    return agent.index[min(candidates)] if candidates else None


def _monotone_pairs(sim: list[list[float]]) -> list[tuple[int, int]]:
    """One-to-one monotone pairs minimising sum(1 - sim) + GAP_COST per unpaired step.

    On ties the traceback (from the end) leaves the *agent* step unpaired, then the
    *golden* step, and pairs only when neither gap ties: of several equal states on
    either side the first visit is paired and the later ones are the extra or skipped
    steps. (Pairing first would match the agent's start with the last copy of a golden
    path's repeated start state, leaving golden step 0 as a skip before agent step 0.)
    """
    n, m = len(sim), len(sim[0]) if sim else 0
    table = [[0.0] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        table[0][j] = j * GAP_COST
    for i in range(1, n + 1):
        row, above, s = table[i], table[i - 1], sim[i - 1]
        row[0] = i * GAP_COST
        for j in range(1, m + 1):
            row[j] = min(above[j - 1] + 1.0 - s[j - 1], above[j] + GAP_COST, row[j - 1] + GAP_COST)
    pairs, i, j = [], n, m
    while i > 0 and j > 0:
        here = table[i][j]
        if abs(table[i - 1][j] + GAP_COST - here) <= _EPS:
            i -= 1
        elif abs(table[i][j - 1] + GAP_COST - here) <= _EPS:
            j -= 1
        else:  # neither gap gives ``here``: the pair does
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
    return pairs[::-1]


def _dtw_cost(cost: np.ndarray) -> float | None:
    """Classic DTW (steps right, down, diagonal) over a cost matrix; None when empty."""
    n, m = cost.shape
    if n == 0 or m == 0:
        return None
    rows = cost.tolist()
    previous = [math.inf] * m
    for i in range(n):
        current, c = [0.0] * m, rows[i]
        for j in range(m):
            if i == 0 and j == 0:
                best = 0.0
            else:
                best = min(
                    previous[j],
                    previous[j - 1] if j else math.inf,
                    current[j - 1] if j else math.inf,
                )
            current[j] = c[j] + best
        previous = current
    return previous[-1]


def _keyed(state: SemanticState) -> dict[tuple[Any, ...], Element]:
    """Elements by (role, name); a repeat of the same pair gets (role, name, n), n >= 1."""
    keyed = {(e.role, e.name): e for e in state.elements}
    if len(keyed) == len(state.elements):
        return keyed  # the common case, without counting
    seen: dict[tuple[str, str], int] = {}
    keyed = {}
    for e in state.elements:
        n = seen.get((e.role, e.name), 0)
        seen[(e.role, e.name)] = n + 1
        keyed[(e.role, e.name, n) if n else (e.role, e.name)] = e
    return keyed


def _fraction(part: int, whole: int) -> float:
    return 1.0 if whole <= 0 else part / whole


def _golden_id(trace: EpisodeTrace, position: int) -> str:
    return trace.golden_path if trace.golden_path is not None else f"#{position}"

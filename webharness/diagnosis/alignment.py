"""Golden-trace alignment: where did the agent's run leave the reference path?

Pure functions over traces, no browser. States are compared by ``state_similarity``
(``diagnosis.similarity``) and actions by their ``ActionSignature``
(``trace.signatures``). ``align`` pairs agent states with golden states one-to-one (a
monotone alignment with gaps, so extra and skipped steps are explicit), judges progress
by the rules of ``diagnosis.progress`` and scores fidelity with nDTW.

>>> report = align(agent_trace, [golden_a, golden_b])        # doctest: +SKIP
>>> report.first_divergence_step, report.progress_rate       # doctest: +SKIP
(4, 0.6)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from webharness.diagnosis.decisive import decisive_step
from webharness.diagnosis.element_diff import ElementChange, ElementDiff, element_diff
from webharness.diagnosis.progress import (
    DEFAULT_THRESHOLD,
    progress_rate,
    reach_cut,
    reached_through,
)
from webharness.diagnosis.similarity import (
    DEFAULT_WEIGHTS,
    SimilarityWeights,
    StateFeatures,
    similarity_matrix,
    state_features,
)
from webharness.trace.models import EpisodeTrace
from webharness.trace.signatures import PREPARING_EFFECTS, ActionSignature, action_signature

__all__ = [
    "Alignment",
    "ElementChange",
    "ElementDiff",
    "MatchedPair",
    "align",
    "element_diff",
]

GAP_COST = 0.5  # cost of an extra agent step or a skipped golden step (a match costs 1 - sim)
FIDELITY_SCALE = 0.25  # nDTW distance scale: a mean cost of 0.25 per golden step gives 1/e
_EPS = 1e-9


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
    # golden steps with no agent counterpart
    skipped_golden_steps: list[int] = Field(default_factory=list)
    wrong_actions: list[int] = Field(default_factory=list)  # action differs and so does the state
    first_divergence_step: int | None = None  # None: the run never left the golden path
    # the point of no return: the first step of the final stretch of states from which no
    # golden path can be completed without undoing something (``diagnosis.decisive``);
    # None: the run's last state could still complete one
    decisive_step: int | None = None
    # golden key steps the run followed: paired at or above the cut, with the same action
    followed_steps: int = 0
    # golden key states (after step 0) reached, in order; a skipped golden step whose
    # action changed nothing is reached with the state before it (``reached_through``)
    progress_rate: float = 0.0
    fidelity: float = 0.0  # nDTW in [0, 1]; 1.0 for a run identical to the golden one
    step_efficiency: float = 0.0  # agent actions / golden actions
    dtw_cost: float | None = None  # summed 1 - similarity on the DTW path; None: no agent steps
    # "reached" means similarity >= threshold * start_similarity (``reach_cut``)
    threshold: float = DEFAULT_THRESHOLD
    # agent vs golden state after reset (< 1: perturbed or other seed)
    start_similarity: float = 1.0
    per_golden: dict[str, float] = Field(default_factory=dict)  # fidelity per golden path id

    @property
    def divergences(self) -> int:
        """Extra steps, skipped golden steps and wrong actions, counted together."""
        return len(self.extra_steps) + len(self.skipped_golden_steps) + len(self.wrong_actions)


def align(
    agent: EpisodeTrace,
    golden: EpisodeTrace | Sequence[EpisodeTrace],
    *,
    weights: SimilarityWeights = DEFAULT_WEIGHTS,
    threshold: float = DEFAULT_THRESHOLD,
    id_patterns: Sequence[str] = (),
) -> Alignment:
    """Align an agent's trace with one or several golden traces and keep the best.

    Args:
        agent: the agent's episode; ``steps[0]`` is the state after reset.
        golden: one golden trace, or several (one per golden path).
        weights: how much each part of a state counts in the similarity.
        threshold: similarity at which a state counts as the golden one (progress, drift).
        id_patterns: the task's own patterns of ids the app generates
            (``diagnosis.generated_ids``), besides the built-in ones of URLs: the two
            runs' records may have other ids.

    Returns:
        The alignment on the path the run followed: the most golden key steps followed
        in order (``followed_steps``; a detour or an early stop does not change which
        steps were followed), ties to the shorter path, then the higher fidelity, the
        fewest divergences and the first given. ``per_golden`` holds every path's
        fidelity and ``decisive_step`` is judged against every path.

    Raises:
        ValueError: no golden trace, or a golden trace without steps.
    """
    goldens = [golden] if isinstance(golden, EpisodeTrace) else list(golden)
    if not goldens:
        raise ValueError("align() needs at least one golden trace, got an empty list")
    agent_side = _Side(agent, id_patterns)
    sides = [_Side(g, id_patterns) for g in goldens]
    results = [_align_one(agent_side, side, weights, threshold) for side in sides]
    best = min(
        range(len(results)),
        key=lambda k: (
            -results[k].followed_steps,
            len(goldens[k].steps),
            -round(results[k].fidelity, 9),
            results[k].divergences,
            k,
        ),
    )
    per_golden = {_golden_id(g, k): r.fidelity for k, (g, r) in enumerate(zip(goldens, results))}
    decisive = decisive_step(agent, [(s.trace, s.features) for s in sides], agent_side.features)
    return results[best].model_copy(update={"per_golden": per_golden, "decisive_step": decisive})


class _Side:
    """One trace's per-step data, computed once per ``align`` call."""

    def __init__(self, trace: EpisodeTrace, id_patterns: Sequence[str]) -> None:
        self.trace = trace
        self.id_patterns = id_patterns
        self.index = [s.index for s in trace.steps]
        self.features: list[StateFeatures] = [
            state_features(s.state, id_patterns) for s in trace.steps
        ]
        # an action the harness refused (an error result) did not happen: its step pairs
        # with no golden step
        self.refused = [s.action_result is not None and not s.action_result.ok for s in trace.steps]
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
    cut = reach_cut(threshold, start)
    # input that only prepares the next step pairs with nothing, on either side
    preparing = {i for i in range(len(agent.index)) if _prepares(agent, i)}
    unpaired = [r or i in preparing for i, r in enumerate(agent.refused)]
    golden_preparing = {j for j in range(1, len(golden.index)) if _prepares(golden, j)}
    pairs = _monotone_pairs(_pairable(sim, unpaired, golden_preparing).tolist())
    matched = [_pair(agent, golden, i, j, float(sim[i, j])) for i, j in pairs]
    agent_hit, golden_hit = {i for i, _ in pairs}, {j for _, j in pairs} | golden_preparing
    also_reached = _reached_with_previous(pairs, sim, cut) | golden_preparing
    extra = [i for i in range(len(agent.index)) if i not in agent_hit]
    # a different action is wrong when it also led somewhere else (same state: same effect)
    wrong = [
        i for (i, _), m in zip(pairs, matched) if not m.action_matches and m.similarity < 1 - _EPS
    ]
    key_states = len(golden.index) - 1
    paired_reached = sum(1 for (_, j), m in zip(pairs, matched) if j > 0 and m.similarity >= cut)
    followed = sum(
        1 for (_, j), m in zip(pairs, matched) if j > 0 and m.similarity >= cut and m.action_matches
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
            agent, pairs, matched, (set(extra) - preparing) | set(wrong), also_reached, cut
        ),
        progress_rate=progress_rate(paired_reached + len(also_reached), key_states),
        fidelity=0.0 if cost is None else math.exp(-cost / (len(golden.index) * FIDELITY_SCALE)),
        step_efficiency=max(len(agent.index) - 1, 0) / max(key_states, 1),
        dtw_cost=cost,
        followed_steps=followed,
        threshold=threshold,
        start_similarity=start,
    )


def _prepares(agent: _Side, i: int) -> bool:
    """Whether step ``i`` only prepared the next, changing nothing.

    A click that put the caret in a text field, a text selection: how a pixel agent
    starts a ``fill``. Such a step pairs with no golden step, as a refused action does,
    and is no divergence.
    """
    signature, result = agent.signature(i), agent.trace.steps[i].action_result
    unchanged = result is not None and result.ok and not result.state_changed
    return unchanged and signature is not None and signature.effect in PREPARING_EFFECTS


def _pair(agent: _Side, golden: _Side, i: int, j: int, similarity: float) -> MatchedPair:
    mine, theirs = agent.signature(i), golden.signature(j)
    same = mine == theirs if mine is None or theirs is None else mine.same_effect(theirs)
    return MatchedPair(
        agent_step=agent.index[i],
        golden_step=golden.index[j],
        similarity=similarity,
        element_diff=element_diff(
            agent.trace.steps[i].state, golden.trace.steps[j].state, agent.id_patterns
        ),
        action_agent=agent.trace.steps[i].action,
        action_golden=golden.trace.steps[j].action,
        action_matches=same,
    )


def _pairable(sim: np.ndarray, refused: list[bool], columns: set[int]) -> np.ndarray:
    """``sim`` with refused (or preparing) rows and the golden ``columns`` unpairable.

    A pair would then cost more than leaving both steps unpaired.
    """
    if not any(refused) and not columns:
        return sim
    masked = sim.copy()
    masked[np.array(refused, dtype=bool)] = -1.0
    masked[:, sorted(columns)] = -1.0
    return masked


def _reached_with_previous(pairs: list[tuple[int, int]], sim: np.ndarray, cut: float) -> set[int]:
    """Unpaired golden steps the agent reached along with the golden step paired before.

    Each is reached through that pair (``reached_through``), up to the next paired golden
    step.
    """
    reached: set[int] = set()
    ends = [j for _, j in pairs[1:]] + [sim.shape[1]]
    for (i, j), end in zip(pairs, ends):
        reached.update(range(j + 1, reached_through(sim[i, :end], j, cut) + 1))
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

    ``reached``: unpaired golden steps the agent reached all the same; leaving them out
    cuts no corner.
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


def _golden_id(trace: EpisodeTrace, position: int) -> str:
    return trace.golden_path if trace.golden_path is not None else f"#{position}"

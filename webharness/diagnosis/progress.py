"""Progress along golden traces: when a golden state counts as reached, and the
incremental ``ProgressTracker`` that a shaped reward reads step by step.

``align`` judges "reached" by the same three rules: ``reach_cut`` (how similar is similar
enough), ``reached_through`` (golden states that repeat the one reached come with it) and
``progress_rate`` (the share of golden key states reached).

>>> tracker = ProgressTracker(golden_trace)                  # doctest: +SKIP
>>> reward = tracker.update(info["semantic_state"])          # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from webharness.diagnosis.similarity import (
    DEFAULT_WEIGHTS,
    SimilarityWeights,
    state_features,
    state_similarity,
)
from webharness.semantic import SemanticState
from webharness.trace.models import EpisodeTrace

__all__ = [
    "DEFAULT_THRESHOLD",
    "ProgressTracker",
    "progress_curve",
    "progress_rate",
    "reach_cut",
    "reached_through",
]

DEFAULT_THRESHOLD = 0.9  # similarity at which a golden state counts as reached


def reach_cut(threshold: float, start_similarity: float) -> float:
    """The similarity at which a golden state counts as reached.

    Judged relative to the starts (agent vs golden state after reset): a perturbation
    present from reset lowers every similarity alike, and is no divergence.
    """
    return threshold * start_similarity


def reached_through(similarities: Sequence[float] | np.ndarray, j: int, cut: float) -> int:
    """The last golden index reached together with golden state ``j``.

    A golden step whose action changed nothing the similarity sees (clicking the tab that
    was already selected, the state after ``done()``) repeats the state before it: an
    agent state matching one matches the other as well. So golden state ``j + 1`` is
    reached along with ``j`` when ``j`` is reached (>= ``cut``) and the agent's state is at
    least as similar to ``j + 1``; and so on.

    Args:
        similarities: the agent state's similarity to each golden state in reach.
        j: the golden state it was matched with.
        cut: ``reach_cut``.

    Returns:
        ``j`` itself when no later golden state comes along.
    """
    while j + 1 < len(similarities) and similarities[j + 1] >= similarities[j] >= cut:
        j += 1
    return j


def progress_rate(reached: int, key_states: int) -> float:
    """The share of golden key states (those after step 0) reached; 1.0 when there are none."""
    return 1.0 if key_states <= 0 else reached / key_states


class ProgressTracker:
    """Incremental progress along golden traces, for a per-step shaped reward.

    Greedy and in order: a state advances along a golden trace when its best match among
    the golden states not yet passed is a later one at or above ``reach_cut``; golden
    states that repeat it come along (``reached_through``). Progress is the fraction of
    golden key states reached, the best over the traces.

    Args:
        golden: one golden trace, or several.
        weights: how much each part of a state counts in the similarity.
        threshold: the similarity (relative to the starts') at which a state is reached.
        id_patterns: the task's own patterns of ids the app generates
            (``diagnosis.generated_ids``), besides the built-in ones of URLs.

    Raises:
        ValueError: no golden trace, or one without steps.
    """

    def __init__(
        self,
        golden: EpisodeTrace | Sequence[EpisodeTrace],
        *,
        weights: SimilarityWeights = DEFAULT_WEIGHTS,
        threshold: float = DEFAULT_THRESHOLD,
        id_patterns: Sequence[str] = (),
    ) -> None:
        goldens = [golden] if isinstance(golden, EpisodeTrace) else list(golden)
        if not goldens or any(not g.steps for g in goldens):
            raise ValueError("ProgressTracker needs golden traces with at least one step")
        self._ids = tuple(id_patterns)
        self._golden = [[state_features(s.state, self._ids) for s in g.steps] for g in goldens]
        self._weights, self._threshold = weights, threshold
        self._position = [0] * len(goldens)  # golden index last reached, per trace
        self._reached = [0] * len(goldens)
        self._cut: list[float] = []  # per trace, set by the first state

    @property
    def progress(self) -> float:
        """The progress so far in [0, 1]: the best over the golden traces."""
        return max(progress_rate(r, len(g) - 1) for r, g in zip(self._reached, self._golden))

    def update(self, state: SemanticState) -> float:
        """Take the agent's newest state; return the progress so far in [0, 1]."""
        features = state_features(state, self._ids)
        if not self._cut:
            self._cut = [
                reach_cut(self._threshold, state_similarity(features, g[0], self._weights))
                for g in self._golden
            ]
        for k, golden in enumerate(self._golden):
            start, cut = self._position[k], self._cut[k]
            sims = [state_similarity(features, g, self._weights) for g in golden[start:]]
            best = max(range(len(sims)), key=sims.__getitem__)  # first best: stay on ties
            if best > 0 and sims[best] < cut:
                continue  # the best match ahead is not reached: stay
            last = reached_through(sims, best, cut)
            self._position[k] += last
            self._reached[k] += last - best + (best > 0)
        return self.progress


def progress_curve(
    agent_states: Sequence[SemanticState],
    golden: EpisodeTrace | Sequence[EpisodeTrace],
    *,
    weights: SimilarityWeights = DEFAULT_WEIGHTS,
    threshold: float = DEFAULT_THRESHOLD,
    id_patterns: Sequence[str] = (),
) -> float:
    """Progress of the states so far along the golden trace(s), in [0, 1].

    Uses ``ProgressTracker`` from scratch; keep a tracker to pay per step instead.
    """
    tracker = ProgressTracker(golden, weights=weights, threshold=threshold, id_patterns=id_patterns)
    for state in agent_states:
        tracker.update(state)
    return tracker.progress

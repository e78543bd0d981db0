"""How alike two page states are: a weighted similarity of URL, interactive elements,
their values, the app's data and page landmarks, one pair at a time or as a matrix.

Ids the app generates (``diagnosis.generated_ids``) are compared as one placeholder, so
two runs whose records got other numbers match; a URL that differs only in them still
counts as the same URL only when the pages say the same thing (title, headings, alerts,
dialogs), so another record's page stays another page.

>>> state_similarity(SemanticState(url="http://x/a"), SemanticState(url="http://x/a"))
1.0
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from webharness.diagnosis.generated_ids import GeneratedIds, generated_ids
from webharness.semantic import Element, SemanticState

__all__ = [
    "COMPARED_FIELDS",
    "DEFAULT_WEIGHTS",
    "SimilarityWeights",
    "StateFeatures",
    "keyed_elements",
    "same_url",
    "similarity_matrix",
    "state_features",
    "state_similarity",
]

# The element fields compared between states (besides role+name, which key them).
COMPARED_FIELDS = ("value", "checked", "selected", "disabled", "invalid", "expanded")
_ONE = 1.0 - 1e-12  # weighted sums of 1.0 that float rounding left a hair short
_flags = attrgetter(*COMPARED_FIELDS)


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
        """The weights scaled to sum to 1, in the order url, elements, values, app, page."""
        parts = (self.url, self.elements, self.values, self.app, self.page)
        total = sum(parts)
        return tuple(p / total for p in parts)  # type: ignore[return-value]


DEFAULT_WEIGHTS = SimilarityWeights()


@dataclass(frozen=True, slots=True)
class StateFeatures:
    """What similarity looks at, extracted once per state (hashable keys, no models)."""

    page: str  # origin + path, generated ids replaced
    url: str  # page + sorted query + fragment, generated ids replaced
    sets: tuple[frozenset[Any], ...]  # elements, element values, app rows, landmarks
    exact: str  # ``url`` as it was, ids and all


def state_features(state: SemanticState, id_patterns: Sequence[str] = ()) -> StateFeatures:
    """Precompute a state's comparison keys; pass them to ``state_similarity`` in loops.

    Args:
        state: the page state.
        id_patterns: the task's own patterns of generated ids (``diagnosis.generated_ids``),
            besides the built-in ones of URLs.
    """
    ids = generated_ids(id_patterns)
    text = ids.text if ids.in_texts else _same
    keyed = keyed_elements(state, ids)
    values = frozenset(zip(keyed, map(_flags, keyed.values())))
    if ids.in_texts:
        values = frozenset((k, (_text_or(v[0], text), *v[1:])) for k, v in values)
    landmarks = frozenset(
        [("title", text(state.title))]
        + [("h", h.level, text(h.text)) for h in state.headings]
        + [("dialog", text(d)) for d in state.dialogs]
        + [("alert", text(a)) for a in state.alerts]
    )
    page, url = _url_keys(ids.url(state.url))
    rows = _app_rows(state.app, text)
    exact = _url_keys(state.url)[1]
    return StateFeatures(page, url, (frozenset(keyed), values, rows, landmarks), exact)


def same_url(a: StateFeatures, b: StateFeatures) -> bool:
    """The same URL: as it is, or after replacing generated ids when the two pages also
    say the same thing (title, headings, dialogs, alerts), so that the ids stand for the
    same record."""
    return a.exact == b.exact or (a.url == b.url and a.sets[3] == b.sets[3])


def state_similarity(
    a: SemanticState | StateFeatures,
    b: SemanticState | StateFeatures,
    weights: SimilarityWeights = DEFAULT_WEIGHTS,
    id_patterns: Sequence[str] = (),
) -> float:
    """Similarity of two page states in [0, 1]; 1.0 for states with the same meaning.

    A weighted mix of: URL (1 the same URL by ``same_url``, 0.5 same path, 0 otherwise),
    Jaccard of the interactive elements by (role, name), Jaccard of their values and
    flags, Jaccard of the app's rows (as sorted JSON) and of title/headings/dialogs/alerts.
    Refs, geometry, scroll and focus are ignored: they differ between equal runs; ids the
    app generated are one placeholder (``diagnosis.generated_ids``).

    Args:
        a: a state, or its ``state_features``.
        b: the other.
        weights: how much each part counts.
        id_patterns: the task's own patterns of generated ids, for states given as states.

    Returns:
        The similarity; ``similarity_matrix`` gives the same numbers for many pairs.
    """
    fa = a if isinstance(a, StateFeatures) else state_features(a, id_patterns)
    fb = b if isinstance(b, StateFeatures) else state_features(b, id_patterns)
    w = weights.normalised()
    total = 0.0 + w[0] * (1.0 if same_url(fa, fb) else 0.5 if fa.page == fb.page else 0.0)
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


def keyed_elements(
    state: SemanticState, id_patterns: Sequence[str] | GeneratedIds = ()
) -> dict[tuple[Any, ...], Element]:
    """Elements by (role, name); a repeat of the same pair gets (role, name, n), n >= 1.
    With a task's ``id_patterns``, the names have their generated ids replaced."""
    ids = generated_ids(id_patterns)
    name = ids.text if ids.in_texts else _same
    keyed: dict[tuple[Any, ...], Element] = {(e.role, name(e.name)): e for e in state.elements}
    if len(keyed) == len(state.elements):
        return keyed  # the common case, without counting
    seen: dict[tuple[str, str], int] = {}
    keyed = {}
    for e in state.elements:
        pair = (e.role, name(e.name))
        n = seen.get(pair, 0)
        seen[pair] = n + 1
        keyed[(*pair, n) if n else pair] = e
    return keyed


def _same(text: str) -> str:
    return text


def _text_or(value: Any, text: Any) -> Any:
    return text(value) if isinstance(value, str) else value


def _url_keys(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    page = f"{parts.scheme}://{parts.netloc.lower()}{parts.path.rstrip('/') or '/'}"
    query = "&".join(sorted(parts.query.split("&"))) if parts.query else ""
    return page, f"{page}?{query}#{parts.fragment}"


def _app_rows(
    app: dict[str, list[dict[str, Any]]], text: Any = _same
) -> frozenset[tuple[str, str, int]]:
    seen: Counter[tuple[str, str]] = Counter()
    for collection, rows in app.items():
        for row in rows:
            seen[(collection, text(json.dumps(row, sort_keys=True, default=str)))] += 1
    return frozenset((c, row, n) for (c, row), count in seen.items() for n in range(count))


def _url_scores(a: Sequence[StateFeatures], b: Sequence[StateFeatures]) -> np.ndarray:
    """1.0 where ``same_url``, 0.5 where the same page, else 0."""
    same = _equal([f.exact for f in a], [f.exact for f in b])
    same |= _equal([f.url for f in a], [f.url for f in b]) & _equal(
        [f.sets[3] for f in a], [f.sets[3] for f in b]
    )
    same_page = np.where(_equal([f.page for f in a], [f.page for f in b]), 0.5, 0.0)
    return np.where(same, 1.0, same_page)


def _equal(a: list[Any], b: list[Any]) -> np.ndarray:
    ca, cb = _codes(a, b)
    return ca[:, None] == cb[None, :]


def _codes(a: list[Any], b: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    ids: dict[Any, int] = {}
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

"""Summary statistics over evaluation attempts: pure functions from records to a model.

Conventions, applied everywhere below:

* Not-executable episodes (harness faults) are counted, but left out of every rate and
  distribution that judges the agent: success, false success, give-up, steps, duration,
  progress, fidelity, pass^k. ``not_executable_rate`` uses all ``n`` episodes, and the
  failure-code and root-cause counts include harness faults so that they stay visible.
* Tokens and cost (``usage``) count every episode, harness faults included; a cost is
  None wherever some of the tokens have no price (``webharness.reporting.costs``).
* Success rates carry a 95% Wilson score interval, which stays inside [0, 1] and is
  sensible at the small n of agent benchmarks (unlike the normal approximation).
* A gap between two success rates (clean minus perturbed, a reference split minus
  another split) carries a 95% interval built from the two Wilson intervals (Newcombe's
  hybrid score interval), in ``gap_low``/``gap_high``.

Example:
    >>> from webharness.reporting.records import EvalAttempt
    >>> runs = [EvalAttempt(scenario_id="WebEval/form-v0", category="form", runner="a",
    ...                     seed=s, passed=s < 8) for s in range(10)]
    >>> s = summarize(runs).overall.success
    >>> round(s.rate, 2), round(s.low, 4), round(s.high, 4)
    (0.8, 0.4902, 0.9433)
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from webharness.reporting.costs import PriceTable, Usage, usage
from webharness.reporting.records import EvalAttempt
from webharness.reporting.splits import Split

Z_95 = 1.959963984540054  # two-sided 95% normal quantile


class Rate(BaseModel):
    """A proportion with its 95% Wilson score interval; all None when ``n`` is 0."""

    model_config = ConfigDict(extra="forbid")

    successes: int
    n: int
    rate: float | None
    low: float | None
    high: float | None

    def bounds(self) -> tuple[float, float, float] | None:
        """``(rate, low, high)``, or None when there are no episodes."""
        if self.rate is None or self.low is None or self.high is None:
            return None
        return self.rate, self.low, self.high


class Spread(BaseModel):
    """Median and 95th percentile (linear interpolation); None when there is no data."""

    model_config = ConfigDict(extra="forbid")

    p50: float | None
    p95: float | None


class PassK(BaseModel):
    """Consistency over k repeated trials of the same (runner, scenario, seed, stack)."""

    model_config = ConfigDict(extra="forbid")

    k: int
    groups: int
    pass_hat_k: float  # pass^k: fraction of groups where all k trials passed
    pass_at_k: float  # pass@k: fraction of groups where at least one trial passed


class RateGap(BaseModel):
    """One success rate minus another, with the difference's 95% interval (``rate_gap``)."""

    model_config = ConfigDict(extra="forbid")

    gap: float | None  # positive: the second side does worse
    gap_low: float | None = None
    gap_high: float | None = None


class PerturbationGap(RateGap):
    """Clean success minus success under one perturbation stack, on the same scenarios."""

    stack: str
    clean: Rate
    perturbed: Rate


class SplitGap(RateGap):
    """A reference split's success minus another split's (the generalisation gap)."""

    reference: str  # the first split of its kind (seeds or tasks), e.g. "seen"
    split: str  # e.g. "unseen"
    reference_success: Rate
    split_success: Rate


class GroupSummary(BaseModel):
    """Statistics for one set of attempts (one runner, or all of them)."""

    model_config = ConfigDict(extra="forbid")

    n: int
    executable: int
    not_executable: int
    not_executable_rate: float | None
    success: Rate
    false_success_rate: float | None
    false_give_up_rate: float | None
    steps: Spread
    duration_ms: Spread
    mean_progress: float | None
    mean_fidelity: float | None
    by_category: dict[str, Rate] = Field(default_factory=dict)
    by_perturbation: dict[str, Rate] = Field(default_factory=dict)  # "" is clean
    failure_codes: dict[str, int] = Field(default_factory=dict)  # most common first
    root_causes: dict[str, int] = Field(default_factory=dict)  # stage -> failures
    endings: dict[str, int] = Field(default_factory=dict)  # EndedBy value -> episodes
    pass_k: list[PassK] = Field(default_factory=list)  # one entry per k > 1 seen
    perturbation_gaps: list[PerturbationGap] = Field(default_factory=list)
    by_split: dict[str, Rate] = Field(default_factory=dict)  # in the order the splits were named
    split_gaps: list[SplitGap] = Field(default_factory=list)
    usage: Usage  # tokens and cost
    usage_by_task: dict[str, Usage] = Field(default_factory=dict)  # by env id


class Summary(BaseModel):
    """The whole run: every attempt pooled, and each runner on its own."""

    model_config = ConfigDict(extra="forbid")

    overall: GroupSummary
    runners: dict[str, GroupSummary] = Field(default_factory=dict)
    prices: PriceTable = Field(default_factory=PriceTable)  # what the costs were computed with
    splits: list[Split] = Field(default_factory=list)  # the run's named parts, if any


def summarize(
    attempts: list[EvalAttempt],
    prices: PriceTable | None = None,
    splits: list[Split] | None = None,
) -> Summary:
    """Compute the run's statistics, overall and per runner (runners sorted by name).

    Args:
        attempts: the run's episodes.
        prices: what tokens cost; without it every token is unpriced (``cost_usd`` None).
        splits: named parts of the run, for success by split and the gaps between them.
    """
    prices = prices or PriceTable()
    splits = splits or []
    by_runner: dict[str, list[EvalAttempt]] = defaultdict(list)
    for a in attempts:
        by_runner[a.runner].append(a)
    return Summary(
        overall=summarize_group(attempts, prices, splits),
        runners={
            name: summarize_group(by_runner[name], prices, splits) for name in sorted(by_runner)
        },
        prices=prices,
        splits=splits,
    )


def summarize_group(
    attempts: list[EvalAttempt],
    prices: PriceTable | None = None,
    splits: list[Split] | None = None,
) -> GroupSummary:
    """Statistics for one set of attempts; see the module docstring for conventions."""
    prices = prices or PriceTable()
    splits = splits or []
    ran = [a for a in attempts if not a.not_executable]
    by_task: dict[str, list[EvalAttempt]] = defaultdict(list)
    for a in attempts:
        by_task[a.scenario_id].append(a)
    return GroupSummary(
        n=len(attempts),
        executable=len(ran),
        not_executable=len(attempts) - len(ran),
        not_executable_rate=_fraction(attempts, lambda a: a.not_executable),
        success=success_rate(attempts),
        false_success_rate=_fraction(ran, lambda a: a.false_success),
        false_give_up_rate=_fraction(ran, lambda a: a.false_give_up),
        steps=spread(a.steps for a in ran),
        duration_ms=spread(a.duration_ms for a in ran),
        mean_progress=_mean(a.progress_rate for a in ran),
        mean_fidelity=_mean(a.fidelity for a in ran),
        by_category=_rates_by(attempts, lambda a: a.category),
        by_perturbation=_rates_by(attempts, lambda a: a.perturbations),
        failure_codes=_counts(a.failure_code for a in attempts),
        root_causes=_counts(a.root_cause for a in attempts),
        endings=_counts(a.ended_by for a in attempts),
        pass_k=pass_k(attempts),
        perturbation_gaps=perturbation_gaps(attempts),
        by_split={split.name: success_rate(filter(split.holds, attempts)) for split in splits},
        split_gaps=split_gaps(attempts, splits),
        usage=usage(attempts, prices),
        usage_by_task={task: usage(by_task[task], prices) for task in sorted(by_task)},
    )


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``n`` (``n`` > 0).

    >>> tuple(round(x, 4) for x in wilson_interval(0, 10))
    (0.0, 0.2775)
    """
    if n <= 0:
        raise ValueError(f"wilson_interval needs n > 0, got n={n}")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # At p=0 or 1 rounding leaves a bound a hair off (0 < low, high < 1): the interval
    # must hold p and stay in [0, 1], or error bars drawn from it go negative.
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


def success_rate(attempts: Iterable[EvalAttempt]) -> Rate:
    """Success over executable attempts only, with its Wilson interval."""
    ran = [a for a in attempts if not a.not_executable]
    wins = sum(a.passed for a in ran)
    if not ran:
        return Rate(successes=0, n=0, rate=None, low=None, high=None)
    low, high = wilson_interval(wins, len(ran))
    return Rate(successes=wins, n=len(ran), rate=wins / len(ran), low=low, high=high)


def spread(values: Iterable[float]) -> Spread:
    """P50 and P95 of ``values``."""
    data = np.asarray(list(values), dtype=float)
    if data.size == 0:
        return Spread(p50=None, p95=None)
    p50, p95 = np.percentile(data, [50, 95])
    return Spread(p50=float(p50), p95=float(p95))


def pass_k(attempts: Iterable[EvalAttempt]) -> list[PassK]:
    """pass^k and pass@k for every k > 1 found among repeated trials.

    A group is (runner, scenario, seed, perturbations); its k is the number of its
    executable trials, so a harness fault shortens a group instead of failing it.
    """
    groups: dict[tuple[object, ...], list[bool]] = defaultdict(list)
    for a in attempts:
        if not a.not_executable:
            groups[(a.runner, a.scenario_id, a.seed, a.perturbations)].append(a.passed)
    by_k: dict[int, list[list[bool]]] = defaultdict(list)
    for outcomes in groups.values():
        if len(outcomes) > 1:
            by_k[len(outcomes)].append(outcomes)
    return [
        PassK(
            k=k,
            groups=len(sets),
            pass_hat_k=sum(all(s) for s in sets) / len(sets),
            pass_at_k=sum(any(s) for s in sets) / len(sets),
        )
        for k, sets in sorted(by_k.items())
    ]


def perturbation_gaps(attempts: Iterable[EvalAttempt]) -> list[PerturbationGap]:
    """Clean minus perturbed success for each perturbation stack.

    The clean side is restricted to the scenarios the stack was run on, so a stack tried
    only on hard scenarios is not blamed for their difficulty.
    """
    attempts = list(attempts)
    clean = [a for a in attempts if not a.perturbations]
    gaps = []
    for stack in sorted({a.perturbations for a in attempts} - {""}):
        perturbed = [a for a in attempts if a.perturbations == stack]
        scenarios = {a.scenario_id for a in perturbed}
        base = success_rate(a for a in clean if a.scenario_id in scenarios)
        hit = success_rate(perturbed)
        gaps.append(PerturbationGap(stack=stack, clean=base, perturbed=hit, **rate_gap(base, hit)))
    return gaps


def split_gaps(attempts: Iterable[EvalAttempt], splits: list[Split]) -> list[SplitGap]:
    """The first split of each kind (seeds, tasks) minus each later split of that kind."""
    attempts = list(attempts)
    references: dict[str, Split] = {}
    gaps = []
    for split in splits:
        reference = references.setdefault(split.kind, split)
        if reference is split:
            continue
        base = success_rate(filter(reference.holds, attempts))
        other = success_rate(filter(split.holds, attempts))
        gaps.append(
            SplitGap(
                reference=reference.name,
                split=split.name,
                reference_success=base,
                split_success=other,
                **rate_gap(base, other),
            )
        )
    return gaps


def rate_gap(base: Rate, other: Rate) -> dict[str, float | None]:
    """``base.rate - other.rate`` as ``RateGap`` fields, with a 95% interval for it.

    The interval is Newcombe's hybrid score interval (method 10), built from the two
    Wilson intervals, so it stays within [-1, 1] and is sound at small n. All None when
    either side has no episodes.

    >>> a = Rate(successes=8, n=10, rate=0.8, low=0.4902, high=0.9433)
    >>> b = Rate(successes=2, n=10, rate=0.2, low=0.0567, high=0.5098)
    >>> {k: round(v, 3) for k, v in rate_gap(a, b).items()}
    {'gap': 0.6, 'gap_low': 0.162, 'gap_high': 0.803}
    """
    first, second = base.bounds(), other.bounds()
    if first is None or second is None:
        return {"gap": None, "gap_low": None, "gap_high": None}
    (p1, low1, high1), (p2, low2, high2) = first, second
    gap = p1 - p2
    below, above = math.hypot(p1 - low1, high2 - p2), math.hypot(high1 - p1, p2 - low2)
    return {"gap": gap, "gap_low": gap - below, "gap_high": gap + above}


def _rates_by(attempts: list[EvalAttempt], field: Callable[[EvalAttempt], str]) -> dict[str, Rate]:
    buckets: dict[str, list[EvalAttempt]] = defaultdict(list)
    for a in attempts:
        buckets[field(a)].append(a)
    return {name: success_rate(buckets[name]) for name in sorted(buckets)}


def _fraction(attempts: list[EvalAttempt], flag: Callable[[EvalAttempt], bool]) -> float | None:
    return sum(flag(a) for a in attempts) / len(attempts) if attempts else None


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _counts(values: Iterable[str | None]) -> dict[str, int]:
    return dict(Counter(v for v in values if v).most_common())

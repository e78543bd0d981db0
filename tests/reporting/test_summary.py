"""Summary statistics: Wilson intervals, exclusions, pass^k, robustness gaps."""

from __future__ import annotations

from typing import Any

import pytest

from webharness.reporting.records import EvalAttempt
from webharness.reporting.splits import Split
from webharness.reporting.summary import (
    Summary,
    rate_gap,
    success_rate,
    summarize,
    wilson_interval,
)


def attempt(**fields: Any) -> EvalAttempt:
    base: dict[str, Any] = {
        "scenario_id": "WebEval/form-v0",
        "category": "form",
        "runner": "agent",
        "seed": 0,
        "passed": True,
    }
    return EvalAttempt(**{**base, **fields})


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (8, 10, 0.4902, 0.9433),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
        (1, 1, 0.2065, 1.0),
    ],
)
def test_wilson_interval_matches_known_values(
    successes: int, n: int, low: float, high: float
) -> None:
    assert wilson_interval(successes, n) == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_rejects_empty_sample() -> None:
    with pytest.raises(ValueError, match="n=0"):
        wilson_interval(0, 0)


def test_not_executable_episodes_are_excluded_from_success_rate() -> None:
    runs = [attempt(seed=i, passed=i < 3) for i in range(4)]
    runs += [attempt(seed=10 + i, passed=False, not_executable=True) for i in range(2)]
    overall = summarize(runs).overall
    assert (overall.success.successes, overall.success.n) == (3, 4)
    assert overall.success.rate == 0.75
    assert overall.n == 6 and overall.executable == 4 and overall.not_executable == 2
    assert overall.not_executable_rate == pytest.approx(2 / 6)


def test_not_executable_episodes_stay_out_of_steps_and_duration() -> None:
    runs = [attempt(steps=4, duration_ms=100.0), attempt(seed=1, steps=4, duration_ms=100.0)]
    runs.append(attempt(seed=2, passed=False, not_executable=True, steps=99, duration_ms=9e6))
    overall = summarize(runs).overall
    assert overall.steps.p95 == 4 and overall.duration_ms.p95 == 100.0


def test_group_without_executable_episodes_has_no_rate() -> None:
    overall = summarize([attempt(passed=False, not_executable=True)]).overall
    assert overall.success.rate is None and overall.success.low is None
    assert overall.false_success_rate is None and overall.steps.p50 is None


def test_summary_of_no_attempts_is_empty() -> None:
    summary = summarize([])
    assert summary.overall.n == 0 and summary.runners == {}


def test_success_is_reported_per_runner_and_per_category() -> None:
    runs = [
        attempt(runner="a", category="form", passed=True),
        attempt(runner="a", category="search", scenario_id="WebEval/search-v0", passed=False),
        attempt(runner="b", category="form", passed=False),
    ]
    summary = summarize(runs)
    assert list(summary.runners) == ["a", "b"]
    assert summary.runners["a"].by_category["form"].rate == 1.0
    assert summary.runners["a"].by_category["search"].rate == 0.0
    assert summary.runners["b"].success.rate == 0.0
    assert summary.overall.by_category["form"].n == 2


def test_false_success_and_false_give_up_rates_count_executable_episodes() -> None:
    runs = [
        attempt(passed=False, false_success=True),
        attempt(seed=1, passed=False, false_give_up=True),
        attempt(seed=2),
        attempt(seed=3),
        attempt(seed=4, passed=False, not_executable=True, false_success=True),
    ]
    overall = summarize(runs).overall
    assert overall.false_success_rate == 0.25
    assert overall.false_give_up_rate == 0.25


def test_steps_and_duration_percentiles_interpolate_linearly() -> None:
    runs = [attempt(seed=i, steps=s, duration_ms=10.0 * s) for i, s in enumerate([1, 2, 3, 4, 10])]
    overall = summarize(runs).overall
    assert overall.steps.p50 == 3
    assert overall.steps.p95 == pytest.approx(8.8)  # 4 + 0.8 * (10 - 4)
    assert overall.duration_ms.p50 == 30.0


def test_failure_codes_and_root_causes_are_counted_most_common_first() -> None:
    runs = [
        attempt(seed=0, passed=False, failure_code="stale_index", root_cause="perception"),
        attempt(seed=1, passed=False, failure_code="action_no_effect", root_cause="execution"),
        attempt(seed=2, passed=False, failure_code="action_no_effect", root_cause="execution"),
        attempt(seed=3, passed=False, failure_code="runtime_error", not_executable=True),
        attempt(seed=4),
    ]
    overall = summarize(runs).overall
    assert overall.failure_codes == {"action_no_effect": 2, "stale_index": 1, "runtime_error": 1}
    assert list(overall.failure_codes)[0] == "action_no_effect"
    assert overall.root_causes == {"execution": 2, "perception": 1}


def test_mean_progress_and_fidelity_skip_missing_values() -> None:
    runs = [attempt(progress_rate=0.5, fidelity=0.2), attempt(seed=1, progress_rate=1.0)]
    overall = summarize(runs).overall
    assert overall.mean_progress == 0.75
    assert overall.mean_fidelity == 0.2


def test_pass_hat_k_and_pass_at_k_on_hand_built_trials() -> None:
    outcomes = {0: [True, True, True], 1: [True, False, False], 2: [False, False, False]}
    runs = [
        attempt(seed=seed, trial=t, passed=p)
        for seed, trials in outcomes.items()
        for t, p in enumerate(trials)
    ]
    runs.append(attempt(seed=3))  # a single trial is not a repeated group
    (k3,) = summarize(runs).runners["agent"].pass_k
    assert (k3.k, k3.groups) == (3, 3)
    assert k3.pass_hat_k == pytest.approx(1 / 3)
    assert k3.pass_at_k == pytest.approx(2 / 3)


def test_pass_k_groups_keep_runners_and_perturbations_apart() -> None:
    runs = [
        attempt(runner="a", trial=0, passed=True),
        attempt(runner="b", trial=1, passed=False),
        attempt(runner="a", trial=1, perturbations="popup", passed=False),
    ]
    assert summarize(runs).overall.pass_k == []  # no (runner, scenario, seed, stack) twice


def test_pass_k_reports_each_k_separately() -> None:
    runs = [attempt(seed=0, trial=t) for t in range(2)]
    runs += [attempt(seed=1, trial=t, passed=t == 0) for t in range(4)]
    by_k = {p.k: p for p in summarize(runs).overall.pass_k}
    assert by_k[2].pass_hat_k == 1.0
    assert (by_k[4].pass_hat_k, by_k[4].pass_at_k) == (0.0, 1.0)


def test_not_executable_trial_shortens_its_pass_k_group() -> None:
    runs = [attempt(trial=0), attempt(trial=1), attempt(trial=2, passed=False, not_executable=True)]
    (group,) = summarize(runs).overall.pass_k
    assert group.k == 2 and group.pass_hat_k == 1.0


def test_clean_vs_perturbed_gap_per_stack_and_runner() -> None:
    runs = [attempt(seed=i) for i in range(4)]
    runs += [attempt(seed=i, perturbations="popup", passed=i == 0) for i in range(4)]
    runs += [attempt(seed=i, perturbations="latency@0.5,popup", passed=i < 2) for i in range(4)]
    runs += [attempt(runner="other", seed=0, perturbations="popup")]
    gaps = {g.stack: g for g in summarize(runs).runners["agent"].perturbation_gaps}
    assert gaps["popup"].gap == pytest.approx(0.75)
    assert gaps["latency@0.5,popup"].gap == pytest.approx(0.5)
    assert gaps["popup"].clean.n == 4 and gaps["popup"].perturbed.n == 4
    assert summarize(runs).runners["other"].perturbation_gaps[0].gap is None  # no clean run


def test_gap_compares_only_scenarios_the_stack_was_run_on() -> None:
    runs = [attempt(seed=0), attempt(seed=0, perturbations="popup")]
    runs.append(attempt(scenario_id="WebEval/hard-v0", category="hard", passed=False))
    (gap,) = summarize(runs).overall.perturbation_gaps
    assert gap.clean.n == 1 and gap.gap == 0.0


def test_a_gap_carries_newcombes_interval_from_the_two_wilson_intervals() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, table II, example (a), method 10.
    ran = [attempt(seed=i, passed=i < 56) for i in range(70)]
    other = [attempt(seed=i, passed=i < 48) for i in range(80)]
    gap = rate_gap(success_rate(ran), success_rate(other))
    assert gap["gap"] == pytest.approx(0.2)
    assert (gap["gap_low"], gap["gap_high"]) == pytest.approx((0.0524, 0.3339), abs=5e-5)
    empty = rate_gap(success_rate(ran), success_rate([]))
    assert empty == {"gap": None, "gap_low": None, "gap_high": None}


def test_the_perturbation_gap_has_its_interval() -> None:
    runs = [attempt(seed=i) for i in range(4)] + [
        attempt(seed=i, perturbations="popup", passed=False) for i in range(4)
    ]
    (gap,) = summarize(runs).overall.perturbation_gaps
    assert gap.gap == 1.0 and gap.gap_low is not None and 0.0 < gap.gap_low < 1.0
    assert gap.gap_high == pytest.approx(1.0)


def test_success_per_split_and_the_gap_from_the_first_split_of_its_kind() -> None:
    runs = [attempt(seed=s, passed=s < 9) for s in range(10)]  # seen: 9/10
    runs += [attempt(seed=s, passed=s < 1003) for s in range(1000, 1010)]  # unseen: 3/10
    runs += [attempt(seed=s, passed=False) for s in range(2000, 2005)]  # far: 0/5
    runs += [attempt(runner="other", seed=s) for s in (0, 1000)]
    splits = [
        Split(name="seen", seeds=list(range(10))),
        Split(name="unseen", seeds=list(range(1000, 1010))),
        Split(name="far", seeds=list(range(2000, 2005))),
        Split(name="forms", tasks=["WebEval/form-v0"]),
    ]
    summary = summarize(runs, splits=splits)
    agent = summary.runners["agent"]
    assert list(agent.by_split) == ["seen", "unseen", "far", "forms"]  # as named
    assert [agent.by_split[n].successes for n in agent.by_split] == [9, 3, 0, 12]
    gaps = {g.split: g for g in agent.split_gaps}
    assert set(gaps) == {"unseen", "far"}  # "forms" is the first (and only) task split
    assert gaps["unseen"].reference == "seen" and gaps["unseen"].gap == pytest.approx(0.6)
    expected = rate_gap(agent.by_split["seen"], agent.by_split["unseen"])
    assert (gaps["unseen"].gap_low, gaps["unseen"].gap_high) == (
        expected["gap_low"],
        expected["gap_high"],
    )
    assert summary.splits == splits
    assert summary.runners["other"].by_split["far"].n == 0
    assert {g.split: g.gap for g in summary.runners["other"].split_gaps} == {
        "unseen": 0.0,
        "far": None,
    }


def test_a_run_without_splits_has_no_split_view() -> None:
    summary = summarize([attempt()])
    assert summary.splits == [] and summary.overall.by_split == {}
    assert summary.overall.split_gaps == []


def test_success_by_perturbation_stack_lists_clean_under_empty_key() -> None:
    runs = [attempt(), attempt(perturbations="popup", passed=False)]
    by_stack = summarize(runs).overall.by_perturbation
    assert by_stack[""].rate == 1.0 and by_stack["popup"].rate == 0.0


def test_summary_round_trips_through_json() -> None:
    runs = [attempt(trial=t, perturbations=p) for t in range(2) for p in ("", "popup")]
    summary = summarize(runs, splits=[Split(name="a", seeds=[0]), Split(name="b", seeds=[1])])
    assert Summary.model_validate_json(summary.model_dump_json()) == summary


def test_the_wilson_interval_always_holds_the_rate_and_stays_in_0_1():
    for n in range(1, 120):
        for k in range(n + 1):
            low, high = wilson_interval(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0, (k, n, low, high)

"""WebEval/async-v0: the oracle waits for the regenerated report; answering early fails."""

from __future__ import annotations

import re

from tests.support.episodes import distinct, instance_params, play

TASK = "async"
ENV = f"WebEval/{TASK}-v0"


def params(seed: int) -> dict:
    return instance_params(TASK, seed)


def tile(axtree: str, metric: str) -> str:
    """The figure the summary tile for ``metric`` shows right now."""
    match = re.search(
        rf'- group "{metric}" \[ref=e\d+\]:\n\s+- text: {metric}\n\s+- text: (\$[\d,]+)', axtree
    )
    assert match, axtree
    return match.group(1)


def click(info, name: str) -> str:
    return f"click('{info['semantic_state'].find('button', name)[0].ref}')"


def test_answering_while_the_report_is_still_loading_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    for seed in (4, 13, 3):  # the longest delays (3.7-4 s): the answer surely comes first
        seen = []

        def early(obs, info, seen=seen):  # played within this iteration
            if not seen:  # the figure on screen before and while the report regenerates
                seen.append(tile(obs["axtree"], info["task"].params["metric"]))
                return click(info, "Run report")
            assert (
                "Generating report" in info["semantic_state"].text
            )  # the fresh report is not in yet
            assert tile(obs["axtree"], info["task"].params["metric"]) == seen[0]
            return f'send_msg_to_user("The figure is {seen[0]}")'

        run = play(env, early, seed)
        assert run.terminated and not run.success, (seed, seen)
        assert seen[0] != "$" + params(seed)["value_shown"]


def test_the_fresh_figure_arrives_only_after_the_delay(make_env):
    env = make_env(ENV, obs_mode="text")
    obs, info = env.reset(seed=4)
    p = info["task"].params
    stale = tile(obs["axtree"], p["metric"])
    obs, *_, info = env.step(click(info, "Run report"))
    assert tile(obs["axtree"], p["metric"]) == stale and not info["semantic_state"].find(
        "button", "Download CSV"
    )
    waits = 0
    while not info["semantic_state"].find("button", "Download CSV") and waits < 10:
        obs, *_, info = env.step("wait(1000)")
        waits += 1
    assert waits >= 1 and tile(obs["axtree"], p["metric"]) == "$" + p["value_shown"]
    assert "Up to date" in info["semantic_state"].text


def test_same_seed_gives_the_same_report(make_env):
    env = make_env(ENV, obs_mode="text")
    texts = [env.reset(seed=s)[1]["semantic_state"].text for s in (9, 9, 10)]
    assert texts[0] == texts[1] != texts[2]


def test_there_are_over_a_thousand_distinct_instances():
    instances = (
        (p["company"], p["period"], p["metric"], p["value_shown"]) for p in map(params, range(1500))
    )
    assert distinct(instances, enough=1000) >= 1000

"""WebEval/stats-v0: the oracle reads the asked figure; neighbouring figures fail."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.support.episodes import distinct, instance_params, play

TASK = "stats"
ENV = f"WebEval/{TASK}-v0"
MONEY_COLUMN = {"Revenue": 1, "Gross profit": 2}  # index among a row's dollar figures
Table = list[tuple[str, list[str]]]


def params(seed: int) -> dict:
    return instance_params(TASK, seed)


def region_table(axtree: str) -> Table:
    """The table's rows top to bottom, the total last: (region, [orders, revenue, profit])."""
    rows = []
    for text in re.findall(r'- row "([^"]+)"', axtree):
        figures = re.findall(r"\$?\d[\d,]*(?!\.\d|%|,)", text)
        if figures:  # the header row (column names) has none
            rows.append((text.split(figures[0])[0].strip(), figures[:3]))
    return rows


def answering(pick: Callable[[dict, Table], str], seen: list[Table] | None = None):
    """Sets the asked period (as the oracle does), then answers ``pick(params, table)``."""

    def act(obs, info):
        if "Performance by region · " + info["task"].params["period"] not in obs["axtree"]:
            period = info["semantic_state"].find("combobox", "Period")[0].ref
            return f'select_option("{period}", "{info["task"].params["period"]}")'
        table = region_table(obs["axtree"])
        if seen is not None:
            seen.append(table)
        return f'send_msg_to_user("It was {pick(info["task"].params, table)}.")'

    return act


def row_of(p: dict, table: Table) -> int:
    return [name for name, _ in table].index(p["scope"])


def same_column_next_row(p: dict, table: Table) -> str:
    i = row_of(p, table)
    neighbour = (
        i - 1 if i == len(table) - 1 or (i > 0 and i % 2) else i + 1
    )  # the total's neighbour is above
    return table[neighbour][1][MONEY_COLUMN[p["metric"]]]


def other_metric_same_row(p: dict, table: Table) -> str:
    return table[row_of(p, table)][1][3 - MONEY_COLUMN[p["metric"]]]


def test_reading_the_asked_cell_succeeds(make_env):
    env = make_env(ENV, obs_mode="text")
    for seed in range(4):
        seen: list[Table] = []
        run = play(
            env, answering(lambda p, t: t[row_of(p, t)][1][MONEY_COLUMN[p["metric"]]], seen), seed
        )
        p = params(seed)
        assert run.success, (seed, p["question"], seen)
        assert dict(seen[-1])[p["scope"]][MONEY_COLUMN[p["metric"]]] == "$" + p["value_shown"]


def test_reporting_a_neighbouring_figure_fails(make_env):
    env = make_env(ENV, obs_mode="text")
    seeds = [s for s in range(40) if params(s)["scope"] == "All regions"][:2] + [0, 1, 2]
    for seed in seeds:
        for pick in (same_column_next_row, other_metric_same_row):
            run = play(env, answering(pick), seed)
            assert run.terminated and not run.success, (seed, pick.__name__, run.actions[-1])


def test_same_seed_shows_the_same_dashboard(make_env):
    env = make_env(ENV, obs_mode="text")
    texts = [env.reset(seed=7)[1]["semantic_state"].text for _ in range(2)]
    assert texts[0] == texts[1]
    assert env.reset(seed=8)[1]["semantic_state"].text != texts[0]


def test_there_are_over_a_thousand_distinct_instances():
    instances = (
        (p["company"], p["period"], p["question"], p["value_shown"])
        for p in map(params, range(1500))
    )
    assert distinct(instances, enough=1000) >= 1000

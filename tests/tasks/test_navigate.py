"""WebEval/navigate-v0: the oracle reaches the page by menus and by links; siblings fail."""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.support.episodes import distinct, instance_params, oracle_policy, play
from webharness.spec.catalogue import get_task, task_dir

TASK = "navigate"
ENV = f"WebEval/{TASK}-v0"


def params(seed: int) -> dict:
    return instance_params(TASK, seed)


def build_module():
    spec = importlib.util.spec_from_file_location(
        "navigate_build_site", task_dir("navigate") / "build_site.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sibling_instead(env, path: str):
    """Plays the golden path, but its last click opens a sibling of the target page."""
    oracle = oracle_policy(env, path)

    def act(obs, info):
        action = oracle(obs, info)
        leaf = info["task"].params["leaf"]
        state = info["semantic_state"]
        target = state.find("menuitem" if path == "menu" else "link", leaf)
        if action.startswith("click(") and target and f"'{target[0].ref}'" in action:
            siblings = [
                e
                for e in state.elements
                if e.in_viewport
                and e.role == target[0].role
                and e.expanded is None
                and e.name != leaf
                and abs(e.bbox[0] - target[0].bbox[0]) < 1
                and not e.name.startswith("All ")
            ]
            return f"click('{siblings[0].ref}')"
        return action

    return act


@pytest.mark.parametrize("path", ["menu", "links"])
def test_ending_on_a_sibling_page_fails(make_env, path):
    env = make_env(ENV, obs_mode="text")
    for seed in range(2):
        run = play(env, sibling_instead(env, path), seed)
        p = params(seed)
        heading = run.last["semantic_state"].headings[0].text
        assert run.terminated and not run.success, (seed, run.actions)
        assert (
            heading != p["leaf"]
            and heading in build_module().SITEMAP[p["section"]][1][p["category"]][1]
        )


def test_the_task_maps_agree_with_the_site():
    site = build_module().SITEMAP
    leaves = get_task("navigate").params["leaf"].values
    assert sorted(leaves) == sorted(
        leaf for _, cats in site.values() for _, pages in cats.values() for leaf in pages
    )
    for seed in range(200):
        p = params(seed)
        assert p["leaf"] in site[p["section"]][1][p["category"]][1]
        page = task_dir("navigate") / "site" / p["leaf_path"].lstrip("/")
        assert re.search(
            rf"<h1[^>]*>{re.escape(p['leaf'])}</h1>", page.read_text().replace("&amp;", "&")
        )


def test_same_seed_gives_the_same_menus(make_env):
    env = make_env(ENV, obs_mode="text")
    trees = []
    for seed in (4, 4, 5):
        obs, info = env.reset(seed=seed)
        obs, *_ = env.step(f"click('{info['semantic_state'].find('menuitem', 'Company')[0].ref}')")
        trees.append(re.sub(r"\[ref=e\d+\]", "", obs["axtree"]))
    assert trees[0] == trees[1]
    assert trees[2] != trees[0]


def test_there_are_over_a_thousand_distinct_instances():
    instances = ((p["org"], p["leaf"]) for p in map(params, range(3000)))
    assert distinct(instances, enough=1000) >= 1000

"""The observation's budget: a page of 50,000 buttons gives a bounded tree and element list
that say what they left out, and scrolling brings the rest in."""

from __future__ import annotations

import pytest

from tests.support.sites import site_spec
from webharness.envs import WebEvalEnv
from webharness.episode.observation import MAX_AXTREE_CHARS, _whole_lines


@pytest.fixture(scope="module")
def huge_env(browser):
    # Chromium itself takes about 2 s of main-thread work to lay out this page here (plain
    # Playwright, none of our scripts); among the suite's other workers on two cores that
    # passed the default 5 s bound of the start page's load. The bound is not under test.
    env = WebEvalEnv(
        site_spec("huge_site"), obs_mode="text", max_tree_lines=1_000, action_timeout_ms=30_000
    )
    yield env
    env.close()


def _buttons(info: dict) -> list[str]:
    return [e.name for e in info["semantic_state"].elements if e.role == "button"]


def test_a_huge_page_gives_a_bounded_tree_and_scrolling_brings_the_left_out_part_in(huge_env):
    # One episode for both: each reset of this page costs seconds of Chromium's layout.
    obs, info = huge_env.reset(seed=0)
    lines = obs["axtree"].splitlines()
    assert len(lines) <= 1_001
    assert lines[-1].startswith("- note: this page is larger than the observation's budget")
    left_out = int(lines[-1].split(": ", 2)[2].split(" elements")[0])
    assert 98_000 < left_out < 100_000  # the page's 100,000 elements, less those walked
    before = _buttons(info)
    assert 0 < len(before) <= 1_000 and before[0] == "Item 0"

    info = huge_env.step("scroll(0, 800000)")[4]
    shown_before = set(before)
    shown_now = [name for name in _buttons(info) if name not in shown_before]
    assert shown_now and all(int(name.split()[1]) > 10_000 for name in shown_now)


def test_a_tree_over_the_text_space_is_cut_at_a_line_with_a_note():
    tree = "\n".join(f'- button "Item {i}" [ref=e{i}]' for i in range(20_000))
    cut = _whole_lines(tree, MAX_AXTREE_CHARS)
    *kept, note = cut.splitlines()
    assert len(cut) <= MAX_AXTREE_CHARS and tree.startswith("\n".join(kept) + "\n")
    assert note.startswith(f"- note: the tree is longer than {MAX_AXTREE_CHARS:,} characters")
    assert f": {20_000 - len(kept)} lines are left out" in note
    assert _whole_lines("short", MAX_AXTREE_CHARS) == "short"


def test_the_budget_must_be_a_whole_number_of_at_least_ten():
    with pytest.raises(ValueError, match="max_tree_lines=5: give a whole number of at least 10"):
        WebEvalEnv("form", max_tree_lines=5)

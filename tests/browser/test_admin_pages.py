"""A server-rendered admin (tests/fixtures/admin_site, Django's layout): table headers take
the role Chromium gives them (a title cell heading its row is a ``rowheader``), and a field
the app flags carries the app's own error text, from its description or the error list
beside it; a built-in scenario's rejected field carries its text too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.sites import site_spec
from webharness.browser import chromium_axtree
from webharness.envs import WebEvalEnv
from webharness.golden.oracle import OracleAgent


@pytest.fixture(scope="module")
def env(browser: None) -> Iterator[WebEvalEnv]:
    made = WebEvalEnv(site_spec("admin_site", start_page="/changelist.html"), obs_mode="text")
    yield made
    made.close()


def _headers(env: WebEvalEnv) -> dict[str, str]:
    """Chromium's table headers on the page now: name -> role."""
    nodes = env.runtime.run(chromium_axtree.chromium_nodes(env.episode.session.cdp), 30)
    return {n.name: n.role for n in nodes if n.role in chromium_axtree.TABLE_HEADERS}


def test_table_headers_have_chromium_s_roles(env):
    obs, _ = env.reset(seed=0)
    chromium = _headers(env)
    assert chromium["Harbour Lights"] == chromium["Empires of Grain"] == "rowheader"
    assert chromium["Title"] == chromium["Decade"] == "columnheader"
    nodes = chromium_axtree.tree_nodes(obs["axtree"]).values()
    ours = {name: role for role, name in nodes if role in chromium_axtree.TABLE_HEADERS}
    assert ours == chromium
    # Django writes the title cell without a scope: its row's data cells make it a row header
    assert '- rowheader "Harbour Lights"' in obs["axtree"]


def test_a_flagged_field_carries_the_app_s_error_text(env):
    env.reset(seed=0)
    _, _, _, _, info = env.step('goto("/add.html")')
    fields = {e.name: e for e in info["semantic_state"].elements}
    isbn, published = fields["ISBN:"], fields["Published:"]
    # the description's error part (not its help text), and the error list above the field
    assert (
        isbn.invalid and isbn.validation_message == "Enter a valid ISBN-13: 13 digits, no spaces."
    )
    assert published.invalid and published.validation_message == "Enter a date on or before today."
    assert fields["Title:"].validation_message == "" and not fields["Genre:"].invalid


def test_a_built_in_scenario_s_rejected_field_carries_the_app_s_error_text(make_env):
    env = make_env("WebEval/validation-v0", obs_mode="text")
    obs, info = env.reset(seed=0)
    oracle = OracleAgent()
    oracle.reset(info["task"])
    for _ in range(7):  # the golden path's first submit, which the server answers with 422
        obs, _, _, _, info = env.step(oracle.act(obs, info))
    (phone,) = info["semantic_state"].find("textbox", "Mobile phone")
    assert phone.invalid and phone.validation_message.startswith(
        "Enter the mobile number in international format"
    )

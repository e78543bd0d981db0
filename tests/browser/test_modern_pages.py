"""Pages as component-based sites build them (tests/fixtures/modern_site): shadow roots,
frames, hidden content and animated changes, observed and acted on through the env, with
Chromium's own accessibility tree (over CDP) as the outside reference for names."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.episodes import ref_of, step
from tests.support.sites import site_spec
from webharness.browser import chromium_axtree
from webharness.envs import WebEvalEnv


@pytest.fixture(scope="module")
def env(browser):
    spec = site_spec("modern_site", start_page="/shadow.html", max_steps=50)
    env = WebEvalEnv(spec, obs_mode="text")
    yield env
    env.close()


def open_page(env: WebEvalEnv, page: str) -> tuple[dict[str, Any], dict[str, Any]]:
    obs, info = env.reset(seed=0)
    if page != "shadow.html":
        obs, _, _, _, info = env.step(f'goto("/{page}")')
    return obs, info


def chromium(env: WebEvalEnv) -> list[chromium_axtree.ChromiumNode]:
    session = env.episode.session
    return env.runtime.run(chromium_axtree.chromium_nodes(session.cdp), 30)


def chromium_named(env: WebEvalEnv, role: str) -> list[str]:
    return [node.name for node in chromium(env) if node.role == role]


def test_a_labelled_input_inside_a_shadow_root_is_named_as_chromium_names_it_and_filled(env):
    obs, info = open_page(env, "shadow.html")
    assert chromium_named(env, "textbox") == ["Full name"]
    field = ref_of(info, "textbox", "Full name")
    _, info = step(env, f'fill("{field}", "Ada Lovelace")')
    assert info["action_result"].ok
    _, info = step(env, f'click("{ref_of(info, "button", "Save profile")}")')
    assert "Saved Ada Lovelace" in info["semantic_state"].text


def test_a_slotted_text_button_inside_a_shadow_root_is_named_as_chromium_names_it_and_clicked(env):
    obs, info = open_page(env, "shadow.html")
    assert "Save profile" in chromium_named(env, "button")
    assert f'button "Save profile" [ref={ref_of(info, "button", "Save profile")}]' in obs["axtree"]
    _, info = step(env, f'click("{ref_of(info, "button", "Save profile")}")')
    # The hit test reached the button inside the component, not its host.
    assert info["action_result"].ok and "Saved nobody" in info["semantic_state"].text


def test_a_component_under_a_popup_is_not_interactable_and_the_popup_is_named(env):
    _, info = open_page(env, "shadow.html")
    save = ref_of(info, "button", "Save profile")
    _, info = step(env, f'click("{ref_of(info, "button", "Show tip")}")')
    _, info = step(env, f'click("{save}")')
    result = info["action_result"]
    assert result.error == "not_interactable" and 'covered by dialog "Tip"' in result.message


def test_a_ref_inside_a_shadow_root_is_stale_once_its_element_is_rendered_again(env):
    _, info = open_page(env, "shadow.html")
    field = ref_of(info, "textbox", "Full name")
    _, info = step(env, f'click("{ref_of(info, "button", "Clear the form")}")')
    _, info = step(env, f'fill("{field}", "Ada")')
    assert info["action_result"].error == "stale_ref"
    _, info = step(env, 'fill("e999", "Ada")')
    assert info["action_result"].error == "unknown_ref"


def test_a_button_in_a_same_origin_iframe_is_clicked_and_the_parent_page_sees_it(env):
    obs, info = open_page(env, "frames.html")
    assert '- iframe "Inner form"' in obs["axtree"]
    _, info = step(env, f'fill("{ref_of(info, "textbox", "Voucher code")}", "SPRING")')
    obs, info = step(env, f'click("{ref_of(info, "button", "Apply voucher")}")')
    assert info["action_result"].ok
    assert 'status "Voucher SPRING applied"' in obs["axtree"]


def test_a_frame_from_an_origin_the_task_does_not_allow_is_shown_blocked(env):
    obs, _ = open_page(env, "frames.html")
    assert (
        '- iframe "Ads" [ref=' in obs["axtree"]
        and "[blocked: http://ads.blocked.test is not allowed for this task]" in obs["axtree"]
    )


def test_a_closed_listbox_and_a_closed_dialog_are_not_in_the_tree(env):
    obs, _ = open_page(env, "shadow.html")
    shadow_tree = obs["axtree"]
    roles = [node.role for node in chromium(env)]
    obs, _ = step(env, 'goto("/hidden.html")')
    hidden_tree = obs["axtree"]
    closed = (
        "Red team",
        "Secret dialog text",
        "Apple option",
        "Closed dialog text",
        "Accept terms",
    )
    for text in closed:
        assert text not in shadow_tree + hidden_tree
    for text in ("Inside closed details", "Inert button", "Aria-hidden button", "Invisible button"):
        assert text not in hidden_tree
    assert "option" not in roles + [node.role for node in chromium(env)]  # Chromium agrees
    assert 'button "Visible button"' in hidden_tree and 'button "More details"' in hidden_tree


def test_a_hidden_label_names_its_input_as_chromium_does(env):
    # A display:none <label for> names nothing in Chromium (nor then does the placeholder);
    # a hidden element that aria-labelledby points at still names (accname's exception).
    obs, info = open_page(env, "hidden.html")
    names = chromium_named(env, "textbox")
    assert names == ["", "Postal code"]
    assert [e.name for e in info["semantic_state"].elements if e.role == "textbox"] == names


def test_a_modal_that_fades_out_is_gone_from_the_observation_that_follows_the_click(env):
    obs, info = open_page(env, "motion.html")
    assert 'dialog "Welcome"' in obs["axtree"]
    obs, info = step(env, f'click("{ref_of(info, "button", "Close welcome")}")')
    assert info["action_result"].state_changed
    assert "Welcome" not in obs["axtree"]
    assert info["semantic_state"].find("button", "Close welcome") == []


def test_an_enter_that_adds_a_row_in_the_next_animation_frame_shows_the_row(env):
    _, info = open_page(env, "motion.html")
    item = ref_of(info, "textbox", "New item")
    _, info = step(env, f'fill("{item}", "Buy bread")')
    obs, info = step(env, f'press("{item}", "Enter")')
    assert info["action_result"].state_changed
    assert "listitem" in obs["axtree"] and "Buy bread" in obs["axtree"].split('list "Items"')[1]


def test_roles_names_and_states_set_through_element_internals_are_chromium_s(env):
    obs, info = open_page(env, "internals.html")
    state = info["semantic_state"]
    ours = sorted((e.role, e.name) for e in state.elements if e.role in chromium_axtree.INTERACTIVE)
    theirs = sorted(
        (n.role, n.name) for n in chromium(env) if n.role in chromium_axtree.INTERACTIVE
    )
    expected = [
        ("button", "Save preferences"),
        ("checkbox", "Beta features"),
        ("checkbox", "Dark mode"),
        ("link", "Reset everything"),  # the host's own role and aria-label win
    ]
    assert ours == theirs == expected
    dark, beta = state.find("checkbox", "Dark mode")[0], state.find("checkbox", "Beta features")[0]
    assert dark.checked is True and beta.checked is False and beta.disabled
    assert '- heading "Advanced" [level=3]' in obs["axtree"]
    _, info = step(env, f'click("{dark.ref}")')
    assert info["semantic_state"].find("checkbox", "Dark mode")[0].checked is False
    obs, _ = step(env, f'click("{ref_of(info, "button", "Save preferences")}")')
    assert 'status "Saved, dark mode false"' in obs["axtree"]

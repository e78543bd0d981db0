"""Every action kind on a real page, stale vs unknown refs, hostile strings, containment."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Error as PlaywrightError

from webharness.action_result import ActionErrorKind
from webharness.browser.agent_world import AGENT
from webharness.envs import WebEvalEnv
from webharness.episode.executor import is_valid_key
from webharness.spec.task_spec import TaskSpec

SITE = Path(__file__).parents[1] / "fixtures" / "controls_site"


@pytest.fixture(scope="module")
def env(browser):
    spec = TaskSpec.model_validate(
        {
            "id": "controls",
            "category": "test",
            "instruction": "Exercise the controls.",
            "site": str(SITE),
            "max_steps": 500,
            "success": {"kind": "text", "text": "Clicked 3 times"},
            "user": {"replies": [{"keywords": ["colour", "color"], "text": "Blue, please."}]},
        }
    )
    env = WebEvalEnv(spec, obs_mode="text")
    yield env
    env.close()


@pytest.fixture
def page(env):
    """A fresh episode: (env, first info)."""
    _, info = env.reset(seed=0)
    return env, info


def ref(info, role, name):
    return info["semantic_state"].find(role, name)[0].ref


def element(info, role, name):
    return info["semantic_state"].find(role, name)[0]


def act(env, action):
    obs, reward, terminated, truncated, info = env.step(action)
    return obs, info


def test_click_runs_the_page_handler(page):
    env, info = page
    _, info = act(env, f"click({ref(info, 'button', 'Add one')!r})")
    assert info["action_result"].ok and info["action_result"].state_changed
    assert "Clicked 1 times" in info["semantic_state"].text


def test_fill_replaces_the_text_of_a_field(page):
    env, info = page
    name = ref(info, "textbox", "Name")
    act(env, f"fill({name!r}, 'first')")
    _, info = act(env, f"fill({name!r}, 'Ada Lovelace')")
    assert element(info, "textbox", "Name").value == "Ada Lovelace"


def test_fill_writes_into_a_contenteditable_editor(page):
    env, info = page
    _, info = act(env, f"fill({ref(info, 'textbox', 'Editor')!r}, 'Hello editor')")
    assert element(info, "textbox", "Editor").value == "Hello editor"


def test_select_option_picks_by_label_and_rejects_a_missing_option(page):
    env, info = page
    color = ref(info, "combobox", "Color")
    _, info = act(env, f"select_option({color!r}, 'Blue')")
    assert element(info, "combobox", "Color").value == "Blue"
    _, info = act(env, f"select_option({color!r}, 'Purple')")
    assert info["action_result"].error is ActionErrorKind.INVALID_ARGUMENT
    assert "Red, Green, Blue" in info["action_result"].message


def test_fill_on_a_custom_combobox_is_unsupported(page):
    env, info = page
    _, info = act(env, f"fill({ref(info, 'combobox', 'Fancy picker')!r}, 'x')")
    assert info["action_result"].error is ActionErrorKind.UNSUPPORTED_CONTROL


def test_check_and_uncheck_set_the_checkbox(page):
    env, info = page
    agree = ref(info, "checkbox", "I agree")
    _, info = act(env, f"check({agree!r})")
    assert element(info, "checkbox", "I agree").checked is True
    _, info = act(env, f"check({agree!r})")  # already checked: stays checked
    assert element(info, "checkbox", "I agree").checked is True
    _, info = act(env, f"uncheck({agree!r})")
    assert element(info, "checkbox", "I agree").checked is False


def test_hover_shows_the_tooltip(page):
    env, info = page
    assert "Tooltip shown" not in info["semantic_state"].text
    _, info = act(env, f"hover({ref(info, 'button', 'Hover me')!r})")
    assert "Tooltip shown" in info["semantic_state"].text


def test_press_sends_a_key_and_rejects_an_unknown_one(page):
    env, info = page
    _, info = act(env, f"press({ref(info, 'textbox', 'Name')!r}, 'Escape')")
    assert "Last key: Escape" in info["semantic_state"].text
    for unknown in ("NotAKey", "\\0", "é", "Control+\\x7f"):  # escapes the action parser reads
        _, info = act(env, f"press('{unknown}')")
        assert info["action_result"].error is ActionErrorKind.INVALID_ARGUMENT, unknown


def test_the_keys_press_accepts_are_the_ones_playwright_can_press(page):
    """Playwright is the reference: a key it calls unknown would end the step as a browser
    error, the harness's fault, where it is the agent's invalid argument."""
    env, _ = page
    keyboard = env.episode.session.page.keyboard
    candidates = [chr(code) for code in range(128)] + ["é", "€", "中", "\u00a0", "😀"]
    candidates += ["Enter", "Tab", "Escape", "F12", "Control+A", "Shift+ArrowDown", "Ctrl"]

    async def playwright_presses(key: str) -> bool:
        try:
            await keyboard.press(key)
        except PlaywrightError:
            return False
        return True

    disagree = [
        key
        for key in candidates
        if is_valid_key(key) != env.runtime.run(playwright_presses(key), 10)
    ]
    assert disagree == []


def test_keyboard_type_types_into_the_focused_field(page):
    env, info = page
    act(env, f"click({ref(info, 'textbox', 'Name')!r})")
    _, info = act(env, "keyboard_type('typed')")
    assert element(info, "textbox", "Name").value == "typed"


def test_scroll_moves_the_page(page):
    env, info = page
    _, info = act(env, "scroll(0, 800)")
    assert info["semantic_state"].scroll[1] == 800


def test_mouse_click_at_coordinates_clicks_what_is_there(page):
    env, info = page
    x, y, w, h = element(info, "button", "Add one").bbox
    _, info = act(env, f"mouse_click({x + w / 2}, {y + h / 2})")
    assert "Clicked 1 times" in info["semantic_state"].text
    _, info = act(env, "mouse_click(99999, 5)")
    assert info["action_result"].error is ActionErrorKind.INVALID_ARGUMENT


def test_clicking_an_off_screen_element_scrolls_it_into_view(page):
    env, info = page
    _, info = act(env, f"click({ref(info, 'button', 'Bottom button')!r})")
    assert info["action_result"].ok and info["semantic_state"].scroll[1] > 1000


def test_goto_and_go_back_navigate(page):
    env, info = page
    _, info = act(env, "goto('/page2.html')")
    assert info["semantic_state"].url.endswith("/page2.html")
    _, info = act(env, "go_back()")
    assert info["semantic_state"].url.endswith("/index.html")


def test_clicking_a_link_follows_it(page):
    env, info = page
    _, info = act(env, f"click({ref(info, 'link', 'Go to page two')!r})")
    assert [h.text for h in info["semantic_state"].headings] == ["Page two"]


def _settle_after_submitting(env, form_id: str, cap_ms: int) -> dict:
    """Submit a form and start settling in the same task, before its navigation can begin."""
    script = (
        f"(() => {{ document.getElementById({form_id!r}).requestSubmit();"
        f" return {AGENT}.settle({{quietMs: 10, capMs: {cap_ms}}}); }})()"
    )
    try:
        return env.runtime.run(env.episode.session.world.run(script), 10)
    except PlaywrightError:
        return {"navigating": True}  # the document went away first: it did not settle early


def test_settling_waits_for_a_submitted_form_to_start_its_navigation(page):
    env, _ = page
    assert _settle_after_submitting(env, "leave", cap_ms=3000)["navigating"]


def test_settling_does_not_wait_for_a_submit_the_page_handles_itself(page):
    env, _ = page
    settled = _settle_after_submitting(env, "stay", cap_ms=1000)
    assert not settled["navigating"] and not settled["timedOut"]


def test_submitting_a_form_shows_the_page_it_leads_to(page):
    env, info = page
    _, info = act(env, f"click({ref(info, 'button', 'Open page two')!r})")
    assert [h.text for h in info["semantic_state"].headings] == ["Page two"]


def test_goto_another_origin_is_blocked(page):
    env, info = page
    obs, info = act(env, "goto('https://example.com/')")
    assert info["action_result"].error is ActionErrorKind.NAVIGATION_BLOCKED
    assert "outside this task" in obs["last_action_error"]
    _, info = act(env, "goto('file:///etc/passwd')")
    assert info["action_result"].error is ActionErrorKind.NAVIGATION_BLOCKED


def test_wait_returns_when_late_content_arrives(page):
    env, info = page
    act(env, f"click({ref(info, 'button', 'Load later')!r})")
    _, info = act(env, "wait(3000)")
    assert "Arrived late" in info["semantic_state"].text


def test_noop_changes_nothing(page):
    env, info = page
    _, info = act(env, "noop()")
    assert info["action_result"].ok and not info["action_result"].state_changed


def test_ask_user_gets_a_reply_in_the_next_observation(page):
    env, info = page
    obs, info = act(env, "ask_user('Which colour should I pick?')")
    assert obs["user_messages"] == ("Blue, please.",)


@pytest.mark.parametrize(
    "action, ended_by",
    [
        ("done()", "done"),
        ("send_msg_to_user('the answer is 42')", "send_msg_to_user"),
        ("report_infeasible('cannot be done')", "report_infeasible"),
    ],
)
def test_ending_actions_end_the_episode(page, action, ended_by):
    env, _ = page
    _, reward, terminated, truncated, info = env.step(action)
    assert terminated and not truncated and reward == 0.0
    assert info["episode_end"].ended_by == ended_by


def test_success_is_judged_on_the_page_not_the_claim(page):
    env, info = page
    add = ref(info, "button", "Add one")
    for _ in range(3):
        act(env, f"click({add!r})")
    _, reward, terminated, _, info = env.step("done()")
    assert terminated and reward == 1.0 and info["episode_end"].success


def test_a_replaced_element_is_a_stale_ref_and_a_made_up_one_is_unknown(page):
    env, info = page
    old_item = ref(info, "button", "Item A")
    _, info = act(env, f"click({ref(info, 'button', 'Re-render list')!r})")
    assert ref(info, "button", "Item A") != old_item  # the new element got a new ref
    _, info = act(env, f"click({old_item!r})")
    assert info["action_result"].error is ActionErrorKind.STALE_REF
    _, info = act(env, "click('e99999')")
    assert info["action_result"].error is ActionErrorKind.UNKNOWN_REF


def test_refs_from_before_a_navigation_are_stale(page):
    env, info = page
    add = ref(info, "button", "Add one")
    act(env, "goto('/page2.html')")
    _, info = act(env, f"click({add!r})")
    assert info["action_result"].error is ActionErrorKind.STALE_REF


def test_a_covered_element_is_reported_with_what_covers_it(page):
    env, info = page
    _, info = act(env, f"click({ref(info, 'button', 'Under the overlay')!r})")
    assert info["action_result"].error is ActionErrorKind.NOT_INTERACTABLE
    assert "covered by" in info["action_result"].message


def test_a_disabled_button_click_has_no_effect(page):
    env, info = page
    _, info = act(env, f"click({ref(info, 'button', 'Disabled action')!r})")
    assert info["action_result"].ok and not info["action_result"].state_changed


def test_a_request_to_another_origin_is_blocked_and_counted(page):
    env, info = page
    assert info["semantic_state"].blocked_requests == []
    _, info = act(env, f"click({ref(info, 'button', 'Phone home')!r})")
    assert info["semantic_state"].blocked_requests == ["http://evil.example/steal?x=1 [fetch]"]


@pytest.mark.parametrize(
    "hostile",
    [
        "__import__('os').system('touch /tmp/webharness-pwned')",
        "click(__import__('os').system('touch /tmp/webharness-pwned'))",
        "exec('import os')",
        "click('e1'); import os",
        "lambda: 1",
        "(" * 5000 + ")" * 5000,
        "x" * 100_000,
        "",
        "click(*['e1'])",
        "click(**{'ref': 'e1'})",
        "fill('e1', f'{__import__(\"os\")}')",
        "\x00\x01click('e1')",
    ],
)
def test_hostile_action_strings_are_unparseable_and_never_run(page, hostile):
    env, _ = page
    obs, reward, terminated, truncated, info = env.step(hostile)
    assert info["action_result"].error is ActionErrorKind.UNPARSEABLE
    assert obs["last_action_error"] and not terminated
    assert not Path("/tmp/webharness-pwned").exists()


def test_typed_html_is_typed_not_injected(page):
    env, info = page
    payload = (
        "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"
    )
    _, info = act(env, f"fill({ref(info, 'textbox', 'Name')!r}, {payload!r})")
    assert element(info, "textbox", "Name").value == payload
    assert info["semantic_state"].title == "Controls"

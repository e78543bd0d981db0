"""A frame of another origin that the task allows (a payment form, as shops embed them):
its content is observed under its <iframe> and acted on through the env, whether Chromium
renders it out of the page's process (another site) or in it (the same site, another
port). The frame's page is served by a second server on 127.0.0.1, the page tells what it
received from the frame (postMessage)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import pytest
from playwright.async_api import Error as PlaywrightError

from tests.support.episodes import oracle_policy, play, ref_of, step
from tests.support.sites import FIXTURES, FRAME_ARRANGEMENTS, other_origin_frame_spec
from tests.support.static_server import serving
from webharness.browser import chromium_axtree
from webharness.envs import WebEvalEnv
from webharness.wrappers import FailureAnnotation, GoldenTraceAlignment

SITE = FIXTURES / "modern_site"


@pytest.fixture(scope="module")
def servers() -> Iterator[list[str]]:
    """Two origins on 127.0.0.1 serving the modern site: one for an external page, one
    for the frame."""
    with serving(SITE, count=2) as origins:
        yield origins


@pytest.fixture(scope="module", params=FRAME_ARRANGEMENTS)
def env(browser, servers, request) -> Iterator[WebEvalEnv]:
    env = WebEvalEnv(other_origin_frame_spec(request.param, *servers), obs_mode="text")
    env.arrangement = request.param  # type: ignore[attr-defined]
    yield env
    env.close()


def test_the_frame_is_out_of_the_page_s_process_only_for_another_site(env):
    env.reset(seed=0)
    page = env.episode.session.page
    (frame,) = page.frames[1:]

    async def out_of_process() -> bool:  # Playwright opens a session for such a frame only
        try:
            await (await page.context.new_cdp_session(frame)).detach()
        except PlaywrightError:
            return False
        return True

    assert env.runtime.run(out_of_process(), 10) == (env.arrangement == "another-site")


def test_the_frame_s_content_is_in_the_tree_under_its_iframe_and_in_the_state(env):
    obs, info = env.reset(seed=0)
    lines = obs["axtree"].split("\n")
    at = next(i for i, line in enumerate(lines) if '- iframe "Payment"' in line)
    assert lines[at].endswith(":") and "cross-origin" not in lines[at]
    indent = len(lines[at]) - len(lines[at].lstrip()) + 2
    below = lines[at + 1 : at + 5]
    assert (
        below[0]
        == " " * indent + '- heading "Card payment" [level=2] [ref=' + below[0].split("[ref=")[1]
    )
    assert any('textbox "Card holder"' in line for line in below)
    refs = [e.ref for e in info["semantic_state"].elements]
    assert len(refs) == len(set(refs)), "refs are unique across the page and its frame"
    holder = info["semantic_state"].find("textbox", "Card holder")[0]
    assert holder.in_viewport and holder.bbox[0] > 40 + 8 + 6  # in the page's coordinates


def test_the_frame_s_controls_are_those_chromium_shows_in_it_with_its_roles_and_names(env):
    obs, _ = env.reset(seed=0)
    session = env.episode.session
    (frame,) = session.page.frames[1:]

    async def chromium_frame_nodes() -> list[tuple[str, str]]:
        try:  # out of process: the frame's own session; else the page's, the frame's id
            cdp = await session.page.context.new_cdp_session(frame)
            top = None
        except PlaywrightError:
            cdp = session.cdp
            top = (await cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
        nodes = await chromium_axtree.chromium_nodes(cdp)
        return sorted((n.role, n.name) for n in nodes if n.frame_id != top)

    chromium = env.runtime.run(chromium_frame_nodes(), 10)
    lines = obs["axtree"].split("\n")
    at = next(i for i, line in enumerate(lines) if '- iframe "Payment"' in line)
    depth = len(lines[at]) - len(lines[at].lstrip())
    below = "\n".join(
        itertools.takewhile(lambda line: len(line) - len(line.lstrip()) > depth, lines[at + 1 :])
    )
    ours = sorted(
        (role, name)
        for role, name in chromium_axtree.tree_nodes(below).values()
        if role in chromium_axtree.INTERACTIVE
    )
    assert (
        chromium
        == ours
        == [("button", "Pay now"), ("link", "Cancel payment"), ("textbox", "Card holder")]
    )


def test_a_form_in_the_frame_is_filled_and_its_button_clicked_and_the_page_sees_it(env):
    _, info = env.reset(seed=0)
    _, info = step(env, f'fill("{ref_of(info, "textbox", "Card holder")}", "Ada Lovelace")')
    assert info["action_result"].ok
    obs, info = step(env, f'click("{ref_of(info, "button", "Pay now")}")')
    assert info["action_result"].ok and info["action_result"].state_changed
    assert 'status "Paid by Ada Lovelace' in obs["axtree"]
    # Rendered in the frame's next animation frame: settled on by the frame's own agent.
    assert "Payment sent" in info["semantic_state"].alerts


@pytest.mark.parametrize("arrangement", FRAME_ARRANGEMENTS)
def test_with_screenshots_the_frame_is_settled_before_it_is_observed(browser, servers, arrangement):
    # The screenshot path settles and observes in separate calls: the frames too.
    with WebEvalEnv(other_origin_frame_spec(arrangement, *servers), obs_mode="both") as env:
        for seed in range(3):
            _, info = env.reset(seed=seed)
            _, info = step(env, f'fill("{ref_of(info, "textbox", "Card holder")}", "Ada")')
            obs, info = step(env, f'click("{ref_of(info, "button", "Pay now")}")')
            assert "Payment sent" in info["semantic_state"].alerts
            assert 'status "Paid by Ada' in obs["axtree"]


def test_a_popup_of_the_page_over_the_frame_covers_the_frame_s_button(env):
    _, info = env.reset(seed=0)
    _, info = step(env, f'click("{ref_of(info, "button", "Show promotion")}")')
    _, info = step(env, f'click("{ref_of(info, "button", "Pay now")}")')
    result = info["action_result"]
    assert result.error == "not_interactable" and 'covered by dialog "Promotion"' in result.message


def test_a_ref_of_the_frame_is_stale_once_the_frame_has_left_its_document(env):
    _, info = env.reset(seed=0)
    pay = ref_of(info, "button", "Pay now")
    obs, info = step(env, f'click("{ref_of(info, "link", "Cancel payment")}")')
    assert "Payment cancelled." in obs["axtree"] and "Pay now" not in obs["axtree"]
    _, info = step(env, f'click("{pay}")')
    assert info["action_result"].error == "stale_ref"


def test_a_frame_inside_the_frame_is_marked_not_entered(browser, servers):
    blocked = "http://bank.blocked.test/check.html"
    spec = other_origin_frame_spec("another-site", *servers, nested=blocked)
    with WebEvalEnv(spec, obs_mode="text") as env:
        obs, _ = env.reset(seed=0)
    (line,) = [line for line in obs["axtree"].split("\n") if '- iframe "Card check"' in line]
    assert line.endswith("[blocked: http://bank.blocked.test is not allowed for this task]")
    assert line.startswith(" " * 4)  # under the payment frame's iframe, itself under main


@pytest.mark.parametrize("arrangement", FRAME_ARRANGEMENTS)
def test_a_click_into_a_frame_scrolled_to_from_below_the_fold_reaches_it(
    browser, servers, arrangement
):
    """Chromium sends a mouse event into a frame rendered out of process where the
    compositor last drew it: a frame not drawn since the scroll that brought it into view
    (throttled while off-screen) lost about half of these clicks to the page."""
    spec = other_origin_frame_spec(arrangement, *servers, below_the_fold=True)
    with WebEvalEnv(spec, obs_mode="text") as env:
        for seed in range(8):
            _, info = env.reset(seed=seed)
            _, info = step(env, f'click("{ref_of(info, "button", "Pay now")}")')
            text = info["semantic_state"].text
            assert "Paid by nobody" in text, f"seed {seed}: the click was lost"


def test_a_frame_out_of_process_hung_in_its_click_handler_ends_the_step_in_its_bound(
    browser, servers
):
    spec = other_origin_frame_spec("another-site", *servers, frame_page="spin_frame.html")
    with WebEvalEnv(spec, obs_mode="text", action_timeout_ms=1000, settle_cap_ms=1000) as env:
        _, info = env.reset(seed=0)
        started = time.monotonic()
        _, _, _, truncated, info = env.step(f'click("{ref_of(info, "button", "Spin forever")}")')
        assert time.monotonic() - started <= env._step_timeout_s() + 1.0
        assert truncated, f"the step was not cut short: {info['action_result']}"
        assert info["episode_end"].not_executable
        assert "hung page" in info["episode_end"].error
        obs, _ = env.reset(seed=1)  # the next episode has the frame again, observed
        assert 'button "Spin forever"' in obs["axtree"]


PAY = [
    {"action": "fill", "target": {"role": "textbox", "name": "Card holder"}, "value": "Ada"},
    {"action": "click", "target": {"role": "button", "name": "Pay now"}},
    {"action": "done"},
]


@pytest.mark.parametrize("arrangement", FRAME_ARRANGEMENTS)
def test_the_oracle_pays_through_the_frame_and_nothing_is_charged_to_it(
    browser, servers, arrangement
):
    spec = other_origin_frame_spec(
        arrangement,
        *servers,
        success={"kind": "text", "text": "Paid by Ada"},
        golden_paths=[{"id": "pay", "steps": PAY}],
    )
    env = FailureAnnotation(GoldenTraceAlignment(WebEvalEnv(spec, obs_mode="text")))
    try:
        run = play(env, oracle_policy(env, spec=spec), seed=0)
    finally:
        env.close()
    assert all(info["action_result"].ok for info in run.infos[1:]), run.actions
    assert all(info["action_result"].state_changed for info in run.infos[1:-1]), run.actions
    failure = run.last["failure"]
    assert run.last["success"] and failure.passed, failure.message
    assert failure.code is None and not failure.step_notes

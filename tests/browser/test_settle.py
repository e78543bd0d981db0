"""Settling: a DOM change with nothing of the page's work due after it is settled after a
short quiet; work the page scheduled (a timeout, an animation frame, a posted message, a
running transition, a zero-length animation's finish) holds the settle until it has run,
within the quiet window."""

from __future__ import annotations

import asyncio
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from webharness.browser.agent_world import AGENT
from webharness.envs import WebEvalEnv
from webharness.spec.task_spec import TaskSpec

SITE = Path(__file__).parents[1] / "fixtures" / "settle_site"
QUIET_MS = 1_000  # long, so a case that waited out the window is told apart from one that did not


@pytest.fixture(scope="module")
def env(browser):
    spec = TaskSpec.model_validate(
        {
            "id": "settle",
            "category": "test",
            "instruction": "Watch the page settle.",
            "site": str(SITE),
            "max_steps": 100,
            "success": {"kind": "text", "text": "done"},
        }
    )
    env = WebEvalEnv(spec, obs_mode="text")
    yield env
    env.close()


def in_agent_world(env, page_code: str, agent_call: str):
    """Run ``page_code`` in the page's world and then ``agent_call`` (an expression of
    the agent, ``AGENT``) in the agent's world, in the same task; the call's value."""
    run = f"window.dispatchEvent(new CustomEvent('run', {{detail: {json.dumps(page_code)}}}))"
    expression = f"(async () => {{ {run}; return {agent_call.replace('AGENT', AGENT)}; }})()"
    return env.runtime.run(env.episode.session.world.run(expression), 30)


def status(env) -> str:
    page = env.episode.session.page
    return env.runtime.run(page.evaluate("document.getElementById('status').textContent"), 30)


def settle_after(env, case: str) -> tuple[dict, str]:
    """Run a case's handler and settle in the same task; the settle result and the status."""
    env.reset(seed=0)
    settle = f"AGENT.settle({{quietMs: {QUIET_MS}, capMs: 5000}})"
    return in_agent_world(env, f"CASES[{case!r}]()", settle), status(env)


@pytest.mark.parametrize("case", ["now", "clearedTimeout"])
def test_a_change_with_nothing_due_after_it_settles_without_waiting_out_the_window(env, case):
    settled, status = settle_after(env, case)
    assert settled == {"navigating": False, "timedOut": False, "early": True}
    assert status == "done"


@pytest.mark.parametrize(
    "case", ["timeout", "timeoutWithArgs", "stringTimeout", "frame", "message", "transition"]
)
def test_work_the_page_scheduled_is_waited_for_before_the_page_counts_as_settled(env, case):
    settled, status = settle_after(env, case)
    assert not settled["timedOut"] and not settled["navigating"]
    assert status == "done", f"settled before the {case} had run"


@pytest.mark.parametrize("case", ["instantAnimationEvent", "instantAnimationPromise"])
def test_a_zero_length_animation_holds_the_settle_until_its_finish_has_come(env, case):
    """Under reduced motion a library's animation is zero-length: finished at once, its
    finish (on which the page hides what it animated out) comes with the next frame. The
    status is read as the settle ends: a frame later, the page has moved on either way."""
    env.reset(seed=0)
    settle = (
        "AGENT.settle({quietMs: 1000, capMs: 5000})"
        ".then((r) => [r, document.getElementById('status').textContent])"
    )
    settled, seen = in_agent_world(env, f"CASES[{case!r}]()", settle)
    assert not settled["timedOut"] and not settled["navigating"]
    assert seen == "done", f"settled before the {case}'s finish"


def test_a_page_that_keeps_scheduling_work_still_settles_after_the_quiet_window(env):
    """An animation loop always has a frame pending: the full quiet window decides."""
    env.reset(seed=0)
    loop = "const loop = () => requestAnimationFrame(loop); loop(); say('looping')"
    settled = in_agent_world(env, loop, "AGENT.settle({quietMs: 50, capMs: 5000})")
    assert settled == {"navigating": False, "timedOut": False, "early": False}


def test_the_page_timers_keep_their_native_behaviour(env):
    env.reset(seed=0)
    page = env.episode.session.page
    ids = env.runtime.run(
        page.evaluate(
            "() => new Promise((done) => {"
            " const a = setTimeout(() => {}, 10); const b = setTimeout(() => {}, 10);"
            " const f = requestAnimationFrame(() => {}); cancelAnimationFrame(f);"
            " setTimeout(function () { done([a, b, typeof a, this === window]); }, 0); })"
        ),
        30,
    )
    assert ids[0] != ids[1] and ids[2] == "number" and ids[3] is True
    with pytest.raises(Exception, match="requestAnimationFrame"):
        env.runtime.run(page.evaluate("() => requestAnimationFrame('not a function')"), 30)


def wait_for_change(env, start: str, ms: int) -> tuple[bool, str]:
    """Start something on the page, then wait for a change; the result and the status."""
    env.reset(seed=0)
    return in_agent_world(env, start, f"AGENT.waitForChange({ms})"), status(env)


@pytest.mark.parametrize(
    "start, status",
    [
        ("setTimeout(() => say('later'), 30)", "later"),  # a DOM change
        ("setTimeout(() => document.body.dataset.seen = '1', 30)", "idle"),  # an attribute
        ("fetch('/index.html')", "idle"),  # a request that finishes, changing nothing
    ],
)
def test_wait_for_change_wakes_at_the_first_change_or_finished_request(env, start, status):
    changed, now = wait_for_change(env, start, 10_000)
    assert changed is True and now == status


def test_wait_for_change_on_a_quiet_page_ends_at_its_bound_with_false(env):
    assert wait_for_change(env, "", 100) == (False, "idle")


def test_wait_for_change_ends_when_the_page_starts_to_leave(env):
    env.reset(seed=0)
    script = (
        f"(() => {{ const waited = {AGENT}.waitForChange(10000);"
        f" window.dispatchEvent(new Event('beforeunload')); return waited; }})()"
    )
    assert env.runtime.run(env.episode.session.world.run(script), 30) is True


def test_a_text_mode_step_settles_and_reads_the_page_in_one_call(env, monkeypatch):
    """Without a screenshot, the settle and the snapshot after an action are one call into
    the page (they were two), and the snapshot still sees the work the action scheduled."""
    monkeypatch.setattr(env, "options", replace(env.options, settle_quiet_ms=QUIET_MS))
    env.reset(seed=0)
    page = env.episode.session.page
    arm = (
        "() => addEventListener('click',"
        " () => { say('first'); setTimeout(() => say('clicked'), 30); })"
    )
    env.runtime.run(page.evaluate(arm), 30)
    calls: list[str] = []
    world = env.episode.session.world
    call = world.call

    async def counted(method, *args, **kwargs):
        calls.append(method)
        return await call(method, *args, **kwargs)

    monkeypatch.setattr(world, "call", counted)
    obs, _, _, _, info = env.step("mouse_click(5, 5)")
    # the pointer's hit test (what the click will land on), then one call that settles and reads
    assert info["action_result"].ok and calls == ["pointerAt", "settleAndObserve"], calls
    assert "paragraph [ref=e2]: clicked" in obs["axtree"]
    timings = env.last_timings_ms  # the timeout starts at the click, inside the action
    assert timings["action"] + timings["settle"] >= 25, timings  # the settle waited it out


def test_a_page_that_replaces_json_stringify_is_still_observed(env):
    """The page agent serialises with the builtin from before the page's scripts ran."""
    env.reset(seed=0)
    page = env.episode.session.page
    env.runtime.run(
        page.evaluate(
            "() => { JSON.stringify = () => { throw new Error('no JSON here'); };"
            " say('replaced'); }"
        ),
        30,
    )
    obs, _, _, _, info = env.step("mouse_click(5, 5)")
    assert info["action_result"].ok and "paragraph [ref=e2]: replaced" in obs["axtree"]


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "teal").save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("loading, waited", [("eager", True), ("lazy", False)])
def test_an_image_still_loading_holds_the_settle_unless_it_is_lazy(env, loading, waited):
    """An ``<img width=20>`` has no height until it arrives, and what follows it moves when
    it does (MiniWoB++'s order-food: its Order! button 108 px up in 3 of 120 resets). A
    lazy image may wait for a scroll: it is not waited for."""
    late_s = 0.4 if waited else 5.0  # the image server is slow; a lazy one, very slow
    png = _png(20, 40)

    async def serve_late(route) -> None:
        await asyncio.sleep(late_s)  # the situation under test: a slow image response
        await route.fulfill(body=png, content_type="image/png")

    env.reset(seed=0)
    page = env.episode.session.page
    env.runtime.run(page.route("**/late.png", serve_late), 30)
    try:
        add_image = (
            "const image = document.createElement('img');"
            f" image.id = 'late'; image.width = 20; image.loading = '{loading}';"
            " image.src = 'late.png'; document.body.prepend(image);"
        )
        settle = "AGENT.settle({quietMs: 50, capMs: 10000})"
        settled = in_agent_world(env, add_image, settle)
        height = env.runtime.run(page.evaluate("document.getElementById('late').height"), 30)
    finally:
        env.runtime.run(page.unroute_all(behavior="ignoreErrors"), 30)
    assert not settled["timedOut"] and not settled["navigating"]
    assert height == (40 if waited else 0)

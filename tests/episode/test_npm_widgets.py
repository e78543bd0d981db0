"""Widgets of npm component libraries the suite uses nowhere else: noUiSlider's slider,
SortableJS's sortable list and Dropzone's file drop area (tests/fixtures/widgets_site,
installed by scripts/setup_widgets.sh). Pixel actions alone, through ``env.step``, drive
each as a person's mouse would: it ends in the state a person would leave it in, and in
the same state as plain Playwright's mouse doing the same on the same page, served from
the same files."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from tests.support.sites import FIXTURES, site_spec
from tests.support.static_server import serving
from webharness.browser.host import LAUNCH_ARGS, find_chromium
from webharness.envs import WebEvalEnv
from webharness.semantic import SemanticState

SITE = FIXTURES / "widgets_site"
PACKAGES = ("nouislider", "sortablejs", "dropzone")
VIEWPORT = (1280, 720)
MOVE_STEPS = 5  # pointer moves per segment of a path, as the env's drag makes them
REPORT = "report.txt"
# The line under each widget: "Price: 65.", "Order: Banana, Cherry, Apple, Damson.",
# "Files: report.txt (13 bytes)."
_STATE_LINE = re.compile(r"(Price|Order|Files): (.*?)\.(?=\s|$)")

Point = tuple[float, float]


@pytest.fixture(scope="module")
def installed() -> None:
    # Not a skip: CI installs them (scripts/setup.sh), and a missing library is a failure.
    for package in PACKAGES:
        assert (SITE / "node_modules" / package).is_dir(), (
            f"{package} is not installed in {SITE / 'node_modules'}: run scripts/setup_widgets.sh"
        )


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("widget_uploads")
    (folder / REPORT).write_text("the quarterly report\n")
    return folder


@pytest.fixture(scope="module")
def env(browser, installed, files) -> Iterator[WebEvalEnv]:
    spec = site_spec("widgets_site", start_page="/index.html", max_steps=100)
    env = WebEvalEnv(spec, obs_mode="text", viewport=VIEWPORT, upload_dir=files)
    yield env
    env.close()


@pytest.fixture(scope="module")
def page(browser, installed) -> Iterator[Page]:
    """Plain Playwright's page in its own Chromium, at the page served from the same files
    over HTTP on 127.0.0.1 (each test loads it afresh)."""
    with serving(SITE) as (origin,), sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=find_chromium(), args=list(LAUNCH_ARGS)
        )
        page = chromium.new_page(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]})
        page.set_default_timeout(10_000)
        # File choosers intercepted from the start, not from the first expect_file_chooser
        # (whose subscription goes to the driver beside the click that opens the chooser).
        page.on("filechooser", lambda _: None)
        page.goto(f"{origin}/index.html")
        yield page
        chromium.close()


def widget_state(text: str) -> dict[str, str]:
    """The widgets' state lines in a page's text: ``{"Price": "65", ...}``."""
    return dict(_STATE_LINE.findall(text))


def centre(state: SemanticState, role: str, name: str, down: float = 0.5) -> Point:
    """The centre of the element's box (``down``: how far down it, 0.5 the middle)."""
    x, y, width, height = state.find(role, name)[0].bbox
    return x + width / 2, y + height * down


def env_drag(env: WebEvalEnv, path: list[Point]) -> dict[str, str]:
    """``drag(path)`` through ``env.step``: the widgets' state after it."""
    *_, info = env.step(f"drag({[list(point) for point in path]})")
    assert info["action_result"].ok, info["action_result"].message
    return widget_state(info["semantic_state"].text)


def playwright_drag(page: Page, path: list[Point]) -> dict[str, str]:
    """The same drag with Playwright's mouse on a fresh page: the widgets' state after it."""
    page.reload()
    page.mouse.move(*path[0])
    page.mouse.down()
    for x, y in path[1:]:
        page.mouse.move(x, y, steps=MOVE_STEPS)
    page.mouse.up()
    return widget_state(page.inner_text("body"))


def test_the_page_shows_the_widgets_start_state(env, page):
    _, info = env.reset(seed=0)
    start = {"Price": "20", "Order": "Apple, Banana, Cherry, Damson", "Files": "none"}
    assert widget_state(info["semantic_state"].text) == start
    page.reload()
    assert widget_state(page.inner_text("body")) == start


def test_dragging_the_nouislider_handle_sets_the_value_under_the_pointer(env, page):
    _, info = env.reset(seed=0)
    handle = centre(info["semantic_state"], "slider", "Price")
    path = [handle, (handle[0] + 180, handle[1])]  # 4 px a unit: 20 + 45
    ours, theirs = env_drag(env, path), playwright_drag(page, path)
    assert ours["Price"] == "65"
    assert ours == theirs


def test_dragging_a_sortablejs_item_below_another_moves_it_there(env, page):
    _, info = env.reset(seed=0)
    state = info["semantic_state"]
    (x, top), (_, bottom) = (
        centre(state, "listitem", "Apple"),
        centre(state, "listitem", "Cherry", down=0.8),  # into Cherry's lower part
    )
    # As a hand drags: a point every 4 px. (Two or three points, each segment in 5 moves,
    # leave Apple after Banana, in both browsers alike.)
    path = [(x, top + dy) for dy in range(0, int(bottom - top), 4)] + [(x, bottom)]
    ours, theirs = env_drag(env, path), playwright_drag(page, path)
    assert ours["Order"] == "Banana, Cherry, Apple, Damson"
    assert ours == theirs


def test_clicking_the_dropzone_and_choosing_a_file_adds_it(env, page, files):
    _, info = env.reset(seed=0)
    area = centre(info["semantic_state"], "button", "Drop files here")
    *_, info = env.step(f"mouse_click({area[0]}, {area[1]})")
    assert info["action_result"].ok, info["action_result"].message
    *_, info = env.step(f"upload([{REPORT!r}])")
    assert info["action_result"].ok, info["action_result"].message
    ours = widget_state(info["semantic_state"].text)

    page.reload()
    page.locator("#drop.dz-clickable").wait_for()  # Dropzone has set up its click
    box = page.locator("#drop").bounding_box()  # the same point of the same page
    assert box is not None
    theirs_at = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert max(abs(a - b) for a, b in zip(area, theirs_at, strict=True)) < 2, (area, box)
    with page.expect_file_chooser() as chooser:
        page.mouse.click(*area)
    chooser.value.set_files(files / REPORT)
    page.get_by_text(f"Files: {REPORT}").wait_for()
    theirs = widget_state(page.inner_text("body"))
    assert ours["Files"] == f"{REPORT} (21 bytes)"
    assert ours == theirs

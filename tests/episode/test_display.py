"""A computer-use agent's display: screenshots scaled to it, its pointer's coordinates mapped
back to the page's, and the trace keeping the page's."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from webharness import actions as A
from webharness.episode.display import Display

DISPLAY = Display(size=(1024, 576), viewport=(1280, 720))


@pytest.mark.parametrize(
    ("given", "page"),
    [
        (A.MouseClick(x=512, y=288, button="right"), A.MouseClick(x=640, y=360, button="right")),
        (A.MouseMove(x=0, y=576), A.MouseMove(x=0, y=720)),
        (A.Drag(path=((100, 100), (200, 50))), A.Drag(path=((125, 125), (250, 62.5)))),
        (A.Scroll(dx=0, dy=300, x=512, y=288), A.Scroll(dx=0, dy=300, x=640, y=360)),
        (A.Scroll(dx=0, dy=300), A.Scroll(dx=0, dy=300)),  # no point: nothing to map
        (A.Click(ref="e3"), A.Click(ref="e3")),
    ],
)
def test_display_coordinates_become_the_pages(given: A.Action, page: A.Action) -> None:
    assert DISPLAY.to_page(given) == page


def test_a_frame_is_scaled_to_the_display() -> None:
    frame = np.zeros((720, 1280, 3), dtype=np.uint8)
    assert DISPLAY.frame(frame).shape == (576, 1024, 3)
    assert DISPLAY.frame(None) is None


@pytest.mark.parametrize("bad", [(0, 768), (1024,), "1024x768", (1024.5, 768), (True, 768)])
def test_a_display_that_is_no_size_is_refused_naming_it(bad: object) -> None:
    with pytest.raises(ValueError, match=r"display=.*\(width, height\)"):
        gym.make("WebEval/form-v0", display=bad)


@pytest.mark.browser
def test_an_agent_on_its_display_clicks_where_it_sees(browser: None) -> None:
    env = gym.make("WebEval/form-v0", display=(1024, 576))
    try:
        obs, info = env.reset(seed=0)
        assert obs["screenshot"].shape == (576, 1024, 3)
        assert info["display"] == {"size": (1024, 576), "viewport": (1280, 720)}
        x, y, width, height = info["semantic_state"].find("button", "New contact")[0].bbox
        seen = ((x + width / 2) * 0.8, (y + height / 2) * 0.8)  # where it is on the display
        info = env.step({"type": "click", "x": seen[0], "y": seen[1]})[4]
        assert info["semantic_state"].find("textbox", "Full name"), "the click opened the form"
        assert info["action"] == A.MouseClick(x=x + width / 2, y=y + height / 2).dsl()
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()

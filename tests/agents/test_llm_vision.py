"""LLMAgent with vision: the screenshot as an image part, with or without set-of-marks."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.support.fake_openai import OBS, FakeOpenAI, llm_agent
from webharness.semantic import Element, SemanticState

WIDTH, HEIGHT = 200, 120
BUTTON = Element(ref="e7", role="button", name="Save", bbox=(40, 30, 80, 40), in_viewport=True)
HIDDEN = Element(ref="e8", role="link", name="Gone", bbox=(0, 0, 0, 0))


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def screenshot_obs() -> dict[str, Any]:
    return {**OBS, "screenshot": np.full((HEIGHT, WIDTH, 3), 255, dtype=np.uint8)}


def info() -> dict[str, Any]:
    return {"semantic_state": SemanticState(elements=[BUTTON, HIDDEN])}


def sent_images(fake: FakeOpenAI) -> list[Image.Image]:
    """The images of the last request, decoded from their data URLs."""
    images: list[Image.Image] = []
    for message in fake.requests[-1].body["messages"]:
        for part in message["content"] if isinstance(message["content"], list) else []:
            if part["type"] == "image_url":
                head, _, data = part["image_url"]["url"].partition(",")
                assert head == "data:image/jpeg;base64"
                images.append(Image.open(io.BytesIO(base64.b64decode(data))))
    return images


def test_vision_sends_the_screenshot_as_a_jpeg_image_part_of_its_size(fake):
    llm_agent(fake, vision=True).act(screenshot_obs(), info())
    (image,) = sent_images(fake)
    assert image.format == "JPEG" and image.size == (WIDTH, HEIGHT)
    text, _ = fake.requests[-1].body["messages"][-1]["content"]
    assert text["type"] == "text" and OBS["axtree"] in text["text"]
    assert "attached as an image." in text["text"]
    assert "screenshot of the viewport" in fake.requests[-1].body["messages"][0]["content"]


def test_without_vision_the_request_is_text_only(fake):
    llm_agent(fake).act(screenshot_obs(), info())
    assert isinstance(fake.requests[-1].body["messages"][-1]["content"], str)


def test_vision_without_a_screenshot_sends_text(fake):
    llm_agent(fake, vision=True).act(OBS, {})  # obs_mode="text": no screenshot
    assert sent_images(fake) == []


def test_set_of_marks_draws_on_the_image_at_the_elements_box(fake):
    llm_agent(fake, vision=True).act(screenshot_obs(), info())
    (plain,) = sent_images(fake)
    llm_agent(fake, vision=True, set_of_marks=True).act(screenshot_obs(), info())
    (marked,) = sent_images(fake)
    x, y, w, h = (int(v) for v in BUTTON.bbox)
    plain_px, marked_px = np.asarray(plain, dtype=int), np.asarray(marked, dtype=int)
    on_box = (y + h // 2, x)  # the middle of the box's left edge
    assert np.abs(marked_px[on_box] - plain_px[on_box]).max() > 60
    away = (HEIGHT - 5, WIDTH - 5)  # no box there
    assert np.abs(marked_px[away] - plain_px[away]).max() < 20
    assert "labelled with its ref" in fake.requests[-1].body["messages"][-1]["content"][0]["text"]


def test_only_the_current_screenshot_is_sent(fake):
    agent = llm_agent(fake, vision=True)
    for _ in range(3):
        agent.act(screenshot_obs(), info())
    assert len(sent_images(fake)) == 1


def test_transcript_keeps_the_image_size_not_its_data(fake):
    agent = llm_agent(fake, vision=True, log_prompts=True)
    agent.act(screenshot_obs(), info())
    (entry,) = agent.transcript
    url = entry["messages"][-1]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,<") and url.endswith(" characters omitted>")

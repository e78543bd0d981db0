"""Screenshots in the HTML report: each distinct picture once, as a WebP of bounded size."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from webharness.reporting.screenshots import ScreenshotSheet, encode_thumbnail
from webharness.trace.frames import AGENT_FRAMES, EMBED_QUALITY, EMBED_WIDTH, GOLDEN_FRAMES


def page_like(path: Path, colour: str = "white", size: tuple[int, int] = (1280, 720)) -> Path:
    """A screenshot-like picture: a header bar, text lines and boxes on a plain page."""
    image = Image.new("RGB", size, colour)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, size[0], 60), fill="#161b2e")
    for row in range(12):
        draw.text(
            (80, 100 + 45 * row), f"Row {row}: Gross sales $115,870 refunds $6,497", fill="black"
        )
        draw.rectangle((700, 95 + 45 * row, 1100, 125 + 45 * row), outline="#c0c6d0")
    image.save(path)
    return path


def page_pixels(folder: Path) -> np.ndarray:
    """A screenshot-like picture as the env gives it (uint8 H×W×3)."""
    return np.asarray(Image.open(page_like(folder / "page.png")).convert("RGB"))


def embedded(path: Path) -> tuple[str, int, int]:
    """``encode_thumbnail`` as the report calls it: the data URI and the picture's size."""
    result = encode_thumbnail(str(path), EMBED_WIDTH, EMBED_QUALITY)
    assert result is not None, f"{path} gave no picture"
    return result


def picture_of(uri: str) -> Image.Image:
    assert uri.startswith("data:image/webp;base64,")
    return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))


def test_a_picture_is_embedded_once_however_often_and_from_wherever_it_is_shown(tmp_path):
    first = page_like(tmp_path / "agent.png")
    same = page_like(tmp_path / "golden.png")  # another file, the same pixels
    other = page_like(tmp_path / "other.png", colour="#eef")
    sheet = ScreenshotSheet()
    shots = [sheet.add(first), sheet.add(same), sheet.add(other), sheet.add(first)]
    assert [s.css_class for s in shots if s] == ["s0", "s0", "s1", "s0"]
    assert sheet.css().count("background-image:url(data:image/webp;base64,") == 2


def test_the_picture_is_at_most_the_embed_width_and_the_shot_keeps_the_screenshot_size(tmp_path):
    uri, width, height = embedded(page_like(tmp_path / "p.png"))
    picture = picture_of(uri)
    assert picture.format == "WEBP" and picture.width == EMBED_WIDTH
    assert picture.height == round(720 * EMBED_WIDTH / 1280)
    assert (width, height) == (1280, 720)  # the enlarged view's largest size
    small = page_like(tmp_path / "small.png", size=(300, 200))
    assert picture_of(embedded(small)[0]).size == (300, 200)


def test_a_page_sized_screenshot_costs_a_few_kilobytes(tmp_path):
    # 36 episodes show ~95 distinct pictures: under 10 kB each keeps the page under 1.5 MB.
    uri, _, _ = embedded(page_like(tmp_path / "p.png"))
    assert len(uri) < 10_000  # base64: 7.5 kB


def test_an_unreadable_screenshot_gives_no_shot(tmp_path):
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    sheet = ScreenshotSheet()
    assert sheet.add(tmp_path / "missing.png") is None and sheet.add(broken) is None
    assert sheet.css() == ""


def test_a_golden_preview_is_embedded_as_its_own_bytes_not_encoded_again(tmp_path):
    # Golden previews are written at the report's width and quality: a second encoding
    # would only cost time and detail.
    assert (GOLDEN_FRAMES.format, GOLDEN_FRAMES.max_width) == ("webp", EMBED_WIDTH)
    assert GOLDEN_FRAMES.quality == EMBED_QUALITY
    pixels = page_pixels(tmp_path)
    preview = GOLDEN_FRAMES.write(pixels, tmp_path, 1)
    uri, width, height = embedded(preview)
    assert base64.b64decode(uri.split(",", 1)[1]) == preview.read_bytes()
    assert (width, height) == (EMBED_WIDTH, round(720 * EMBED_WIDTH / 1280))
    # A WebP wider than the embed width is still scaled down and encoded.
    wide = AGENT_FRAMES.write(pixels, tmp_path, 2)  # 1280 px
    assert picture_of(embedded(wide)[0]).width == EMBED_WIDTH


def test_a_damaged_webp_preview_gives_no_shot_rather_than_a_broken_picture(tmp_path):
    preview = GOLDEN_FRAMES.write(page_pixels(tmp_path), tmp_path, 1)
    preview.write_bytes(preview.read_bytes()[: preview.stat().st_size // 2])
    assert encode_thumbnail(str(preview), EMBED_WIDTH, EMBED_QUALITY) is None

"""The screenshot as ``LLMAgent`` sends it: a JPEG ``data:`` URL, optionally with marks.

Set-of-marks draws each element's bounding box and its ref (``e12``) onto the image, so a
model that reads images can name what it sees with the refs the actions take. Boxes come
from ``info["semantic_state"].elements``, in viewport pixels like the screenshot.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable

import numpy as np
from PIL import Image, ImageDraw

from webharness.semantic import Element

JPEG_QUALITY = 85
# Box colours, one per element in turn: saturated, and apart from page greys and whites.
PALETTE = ((230, 25, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (60, 180, 75))


def screenshot_data_url(frame: np.ndarray, marks: Iterable[Element] = ()) -> str:
    """The frame (H×W×3 uint8) as a base64 JPEG ``data:`` URL, with ``marks`` drawn on it.

    Example:
        >>> import numpy as np
        >>> screenshot_data_url(np.zeros((4, 4, 3), np.uint8))[:23]
        'data:image/jpeg;base64,'
    """
    image = Image.fromarray(np.ascontiguousarray(frame, dtype=np.uint8)).convert("RGB")
    image = draw_marks(image, marks)
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=JPEG_QUALITY)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def draw_marks(image: Image.Image, elements: Iterable[Element]) -> Image.Image:
    """A copy of ``image`` with each visible element's box outlined and labelled by ref."""
    marked = image.copy()
    draw = ImageDraw.Draw(marked)
    for index, element in enumerate(elements):
        box = _visible_box(element, marked.size)
        if box is None:
            continue
        colour = PALETTE[index % len(PALETTE)]
        draw.rectangle(box, outline=colour, width=2)
        left, top, right, bottom = draw.textbbox((0, 0), element.ref)
        label = (box[0], box[1], box[0] + right - left + 4, box[1] + bottom - top + 2)
        draw.rectangle(label, fill=colour)
        draw.text((box[0] + 2 - left, box[1] + 1 - top), element.ref, fill=(255, 255, 255))
    return marked


def _visible_box(element: Element, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    x, y, w, h = element.bbox
    right, bottom = min(x + w, size[0] - 1), min(y + h, size[1] - 1)
    x, y = max(x, 0.0), max(y, 0.0)
    if w <= 0 or h <= 0 or right <= x or bottom <= y:
        return None
    return round(x), round(y), round(right), round(bottom)

"""How a trace keeps its screenshots: the image format, its quality and size.

A 1280×720 page screenshot was a 228 kB PNG (compress level 1) in every step of every
trace, 90% of a run's disk. Measured on the built-in scenarios' frames here: WebP at
quality 80 (method 0) is 40 kB and costs 13 ms to encode, JPEG at quality 85 is 78 kB in
3 ms. The agent's own frames default to WebP 82 at method 2 (``DEFAULT_FRAMES``), which
keeps the page's text as sharp as the JPEG (quality 90) the agent was shown: over the
oracle's 146 distinct frames of the 12 scenarios it is 31.9 KiB a frame at 42.5 dB PSNR
at worst, 44.7 median, where quality 80 at method 0 was 38.7 KiB at 42.4 and 44.9, for
7 ms more CPU a frame (20 against 13). Golden traces keep previews in the form
the report embeds pictures (WebP at quality 50, 600 px wide), since nothing but the
report's timelines looks at them: it embeds them as they are.
Encoding happens on the trace's writer thread, off the step path.

Example:
    >>> import numpy as np, tempfile
    >>> from pathlib import Path
    >>> codec = FrameCodec("jpeg", quality=85)
    >>> path = codec.write(np.zeros((72, 128, 3), np.uint8), Path(tempfile.mkdtemp()), 3)
    >>> path.name
    'step_0003.jpg'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from PIL import Image, features

from webharness.trace.atomic import write_with

__all__ = [
    "AGENT_FRAMES",
    "DEFAULT_FRAMES",
    "EMBED_QUALITY",
    "EMBED_WIDTH",
    "FRAME_FORMATS",
    "GOLDEN_FRAMES",
    "FrameCodec",
    "FrameFormat",
]

FrameFormat = Literal["webp", "jpeg", "png"]
FRAME_FORMATS: tuple[FrameFormat, ...] = ("webp", "jpeg", "png")
_SUFFIX = {"webp": ".webp", "jpeg": ".jpg", "png": ".png"}


@dataclass(frozen=True)
class FrameCodec:
    """Writes a frame as ``step_NNNN.<suffix>`` in one format, quality and greatest width.

    WebP falls back to JPEG where Pillow was built without it. ``quality`` means nothing
    to PNG (lossless).
    """

    format: FrameFormat = "webp"
    quality: int = 82
    max_width: int | None = None  # frames wider than this are scaled down (aspect kept)
    effort: int = 2  # WebP's method, 0 (fastest) to 6 (smallest)

    def __post_init__(self) -> None:
        if self.format not in FRAME_FORMATS:
            raise ValueError(
                f"frame format {self.format!r} is not one of {', '.join(FRAME_FORMATS)}"
            )
        if not 1 <= self.quality <= 100:
            raise ValueError(f"frame quality {self.quality} is not between 1 and 100")

    @classmethod
    def parse(cls, text: str) -> FrameCodec:
        """``"webp"``, ``"jpeg:90"``, ``"png"``: a format and, after a colon, a quality.

        Raises:
            ValueError: an unknown format, or a quality that is not a number in 1..100.
        """
        fmt, _, quality = text.strip().lower().partition(":")
        if fmt not in FRAME_FORMATS:
            raise ValueError(
                f"frame format {fmt!r} (in {text!r}) is not one of {', '.join(FRAME_FORMATS)}; "
                "write e.g. webp:82 or jpeg:90"
            )
        if quality and not quality.isdigit():
            raise ValueError(f"frame quality {quality!r} (in {text!r}) is not a whole number")
        return cls(fmt, int(quality)) if quality else cls(fmt)

    @property
    def effective_format(self) -> FrameFormat:
        if self.format == "webp" and not features.check("webp"):
            return "jpeg"
        return self.format

    def file_name(self, index: int) -> str:
        return f"step_{index:04d}{_SUFFIX[self.effective_format]}"

    def write(self, pixels: np.ndarray, folder: Path, index: int) -> Path:
        """Encode ``pixels`` (uint8 H×W×3) into ``folder`` as step ``index``'s frame, in
        place only once whole (temp file, fsync, rename)."""
        path = folder / self.file_name(index)
        write_with(path, lambda tmp: self._encode(pixels, tmp))
        return path

    def _encode(self, pixels: np.ndarray, path: Path) -> None:
        image = Image.fromarray(np.ascontiguousarray(pixels))
        if self.max_width and image.width > self.max_width:
            height = round(image.height * self.max_width / image.width)
            image = image.resize((self.max_width, height), Image.Resampling.LANCZOS)
        fmt = self.effective_format
        if fmt == "webp":
            image.save(path, format="WEBP", quality=self.quality, method=self.effort)
        elif fmt == "jpeg":
            image.save(path, format="JPEG", quality=self.quality)
        else:
            image.save(path, format="PNG", compress_level=1)


AGENT_FRAMES = FrameCodec()
DEFAULT_FRAMES = f"{AGENT_FRAMES.format}:{AGENT_FRAMES.quality}"  # the runner's --frames

# How the HTML report embeds a picture (reporting.screenshots), WebP at this width and
# quality. The width is nearly twice the thumbnail's 320 CSS px: a thumbnail stays sharp
# on a HiDPI screen and the enlarged view is readable. WebP at quality 50 (method 2) keeps
# a 1280x720 page in 6.5 kB with a thumbnail at 40.0 dB PSNR (at 320 px, against the
# screenshot scaled there), where JPEG at quality 30 took 10.3 kB for 38.2 dB: the report
# of 24 episodes was a quarter of their run's disk.
EMBED_WIDTH = 600
EMBED_QUALITY = 50
# Golden previews are written in that form, so the report embeds them as they are. A
# preview is small and recorded once (golden.cache): effort 4 makes it 7 kB, not 9.5.
GOLDEN_FRAMES = FrameCodec("webp", EMBED_QUALITY, max_width=EMBED_WIDTH, effort=4)

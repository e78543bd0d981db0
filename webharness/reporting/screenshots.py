"""Screenshots in the HTML report: each distinct picture embedded once, as a WebP.

A picture recurs across a page (a golden step beside every episode of its task, the
start page of every agent's episode), so it is not an ``<img>`` per use: each distinct
picture becomes one CSS rule, ``.s3 { background-image: url(data:image/webp;base64,...) }``,
and every use is an element with that class. The one picture serves both the timeline's
thumbnail and the view enlarged on click (``<details>``, no script), so the enlarged view
costs no bytes.

Example:
    >>> import tempfile; from pathlib import Path; from PIL import Image
    >>> png = Path(tempfile.mkdtemp()) / "step.png"
    >>> Image.new("RGB", (1280, 720), "white").save(png)
    >>> sheet = ScreenshotSheet()
    >>> shot = sheet.add(png)
    >>> shot.css_class, shot.width, shot.height, sheet.add(png) == shot
    ('s0', 1280, 720, True)
    >>> sheet.css().startswith(".s0{--ar:1.7778;--w:1280px;background-image:url(data:image/webp;")
    True
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from webharness.trace.frames import EMBED_QUALITY, EMBED_WIDTH


@dataclass(frozen=True)
class Shot:
    """One picture of the page: the class that shows it, and the screenshot's own size."""

    css_class: str
    width: int  # px of the screenshot as taken: the enlarged view's largest width
    height: int

    @property
    def aspect(self) -> str:
        return f"{self.width / self.height:.4f}"


class ScreenshotSheet:
    """The pictures of one page, each added once; ``css()`` is the stylesheet that holds them.

    A picture is known by its file's bytes when added (a golden frame hard-linked into two
    runs, the same start page in every episode); it is encoded when the stylesheet is made,
    all pictures at once on a thread per core (Pillow lets go of the GIL while it decodes,
    scales and encodes).
    """

    def __init__(self, width: int = EMBED_WIDTH, quality: int = EMBED_QUALITY) -> None:
        self._width, self._quality = width, quality
        self._shots: dict[str, tuple[str, Shot]] = {}  # by the file's digest: its path, its shot

    def add(self, path: Path) -> Shot | None:
        """The picture at ``path`` on this page; None when the file cannot be read."""
        try:
            digest = hashlib.sha1(path.read_bytes()).hexdigest()
            if digest not in self._shots:
                with Image.open(path) as image:  # reads the header only
                    size = image.size
                shot = Shot(f"s{len(self._shots)}", *size)
                self._shots[digest] = (str(path), shot)
        except OSError:  # missing or unreadable file: the timeline shows a placeholder
            return None
        return self._shots[digest][1]

    def css(self) -> str:
        """One rule per picture, in the order they were added (none for one that turned out
        unreadable when encoded)."""
        paths = [path for path, _ in self._shots.values()]
        with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            encoded = list(
                pool.map(lambda p: encode_thumbnail(p, self._width, self._quality), paths)
            )
        return "\n".join(
            f".{shot.css_class}{{--ar:{shot.aspect};--w:{shot.width}px;background-image:url({e[0]})}}"
            for (_, shot), e in zip(self._shots.values(), encoded)
            if e is not None
        )


@functools.lru_cache(maxsize=1024)  # a picture recurs in a page, and across a run's reports
def encode_thumbnail(path: str, width: int, quality: int) -> tuple[str, int, int] | None:
    """The screenshot at ``path`` as a WebP data URI at most ``width`` px wide, with its own
    size; None if it cannot be read.

    A WebP no wider than ``width`` is embedded as its file's bytes: encoding it again could
    only lose detail. Golden previews are written so (``trace.frames.GOLDEN_FRAMES``): they
    were half the pictures a report encoded.
    """
    try:
        data = Path(path).read_bytes()
        with Image.open(io.BytesIO(data)) as image:
            size = image.size
            picture = image.convert("RGB")  # decodes it whole: a damaged file fails here
            as_is = image.format == "WEBP" and image.width <= width
    except OSError:  # missing or unreadable file: the timeline shows a placeholder
        return None
    if as_is:
        return _data_uri(data), *size
    if picture.width > width:  # bilinear: 38.2 dB against Lanczos's 38.5, in 1/7 the time
        picture = picture.resize(
            (width, round(picture.height * width / picture.width)), Image.Resampling.BILINEAR
        )
    buffer = io.BytesIO()
    picture.save(buffer, format="WEBP", quality=quality, method=2)
    return _data_uri(buffer.getvalue()), *size


def _data_uri(webp: bytes) -> str:
    return "data:image/webp;base64," + base64.b64encode(webp).decode("ascii")

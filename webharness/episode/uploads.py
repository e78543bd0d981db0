"""Executing ``upload``: files of the env's ``upload_dir`` for the file chooser the page
opened (``webharness.browser.file_choosers``).

Every mistake is the agent's ``invalid_argument``, checked before the chooser is answered,
so the agent can try again: no ``upload_dir``, a path outside it or no file there, more
files than the chooser takes, no chooser open.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from webharness import actions as A
from webharness.action_result import ActionErrorKind as K
from webharness.browser.page_session import PageSession
from webharness.episode.targets import ActionFailed, ExecContext

# Files of the folder an error lists, at most.
_LISTED = 20
# How long an upload waits for the chooser the previous action opened to be handed over.
CHOOSER_WAIT_S = 1.0


async def upload(session: PageSession, action: A.Upload, ctx: ExecContext) -> None:
    """Answer the open file chooser with the files ``action.paths`` names (none: dismiss it)."""
    files = files_in(action.paths, ctx.upload_dir)
    chooser = await session.choosers.opened(CHOOSER_WAIT_S)
    if chooser is None:
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            "no file chooser is open: click the file input or drop area first, then upload()",
        )
    if len(files) > 1 and not chooser.is_multiple():
        raise ActionFailed(
            K.INVALID_ARGUMENT, f"this file chooser takes one file, not {len(files)}"
        )
    session.choosers.closed()
    if files:
        await chooser.set_files(files)


def files_in(paths: Sequence[str], folder: Path | None) -> list[Path]:
    """The files ``paths`` name in ``folder`` (relative to it, or absolute within it).

    Raises:
        ActionFailed: no folder was given, or a path is outside it or names no file there.
    """
    if folder is None:
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            "this env hands out no files: make it with upload_dir= (the folder upload() "
            "takes files from)",
        )
    root = folder.resolve()
    return [_file(given, root) for given in paths]


def _file(given: str, root: Path) -> Path:
    try:
        path = (root / given).resolve()  # an absolute path replaces the root
        found = path.is_file()
    except (OSError, ValueError):  # a name no file system takes (a NUL in it)
        path, found = root, False
    if not path.is_relative_to(root):
        raise ActionFailed(
            K.INVALID_ARGUMENT,
            f"{given!r} is outside the folder files are uploaded from ({root}): give a file in it",
        )
    if not found:
        raise ActionFailed(
            K.INVALID_ARGUMENT, f"no file {given!r} in {root}; files there: {_listing(root)}"
        )
    return path


def _listing(root: Path) -> str:
    try:
        names = sorted(p.name for p in root.iterdir() if p.is_file())
    except OSError:
        return "none (the folder cannot be read)"
    return ", ".join(names[:_LISTED]) + (", ..." if len(names) > _LISTED else "") or "none"

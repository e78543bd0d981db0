"""Golden traces kept across runs, under a key made of everything that determines them.

A task's golden traces for a seed are the same for every agent, every perturbation stack
(they are recorded clean) and every run, yet each run recorded them again: 22 oracle
episodes for a 12-episode grid, 2/3 of its disk. The cache keeps each recording once, in
a folder of its own, named by the SHA-256 of what it depends on (``golden_key``): the
task spec, the bytes of its site, the seed, the viewport, whether frames are kept, the
library's version and the page agent's scripts. A run links the entry's files into its own
``golden/`` folder (hard links: no second copy on disk), so the run stays whole when the
cache is cleared.

An entry is written into a temporary folder and renamed into place whole; ``entry.json``
holds the SHA-256 of each of its files, checked on every use, so a damaged entry is
dropped and recorded again, never used. Least recently used entries go first when the
cache is over its size bound. An app of the user's own (``start_url``) is cached only when
its task declares the app's version (``golden_key``): its code is not ours to hash.

Example:
    >>> import tempfile
    >>> cache = GoldenCache(tempfile.mkdtemp())
    >>> cache.lookup("0" * 64) is None, cache.size_bytes()
    (True, 0)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from webharness.spec.catalogue import shared_assets_dir
from webharness.spec.task_spec import TaskSpec
from webharness.trace.atomic import write_atomic
from webharness.trace.frames import GOLDEN_FRAMES
from webharness.trace.io import TRACE_FORMAT

__all__ = [
    "CACHE_DIR_ENV",
    "CacheEntry",
    "GoldenCache",
    "default_cache_dir",
    "golden_key",
    "link_tree",
]

CACHE_DIR_ENV = "WEBHARNESS_CACHE_DIR"
DEFAULT_MAX_BYTES = 2 * 1024**3
ENTRY = "entry.json"


def default_cache_dir() -> Path:
    """``$WEBHARNESS_CACHE_DIR``, else ``$XDG_CACHE_HOME/webharness/golden``, else
    ``~/.cache/webharness/golden``."""
    if os.environ.get(CACHE_DIR_ENV):
        return Path(os.environ[CACHE_DIR_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "webharness" / "golden"


def golden_key(
    spec: TaskSpec, seed: int | None, *, screenshots: bool, viewport: tuple[int, int]
) -> str | None:
    """The cache key of a task's golden traces for one seed; None when they cannot be
    cached (an app of the user's own that declares no version, or no seed: a random
    instance).

    A task on an app of its own (``start_url``) is keyed by its spec as loaded (a declared
    app's origin is the placeholder, the same for every instance) and the version it
    declares (``app.version``, or ``app_version``): the app's code is not ours to hash, so
    a new build must say so with a new version, and never gets an older one's recording.
    """
    if seed is None:
        return None
    if spec.start_url:
        version = spec.build_version
        if version is None or spec.app_url is not None:  # bound: keyed by the spec as loaded
            return None
        served = {"app_version": version}
    elif spec.site is None:
        return None
    else:
        served = {"site": _tree_digest(Path(spec.site))}
    described = {
        "spec": spec.model_dump(mode="json", exclude={"site"}),
        **served,
        "shared": _tree_digest(shared_assets_dir()),
        "seed": seed,
        "screenshots": screenshots,
        "viewport": list(viewport),
        "frames": repr(GOLDEN_FRAMES),
        "trace_format": TRACE_FORMAT,
        "library": _library_digest(),
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """One cached recording: its key, its folder, its size and when it was last used."""

    key: str
    folder: Path
    size_bytes: int
    used: float  # seconds since the epoch


class GoldenCache:
    """A folder of golden recordings by key, bounded in size.

    Every method may raise ``OSError`` (a read-only or full folder): the caller records
    without the cache then (``runner.worker``).
    """

    def __init__(self, root: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes

    def lookup(self, key: str) -> Path | None:
        """The entry's folder, checked whole and marked used; None when there is none. An
        entry whose files do not match what it recorded is removed."""
        folder = self.root / key
        if not (folder / ENTRY).is_file():
            return None
        if not _intact(folder, key):
            shutil.rmtree(folder, ignore_errors=True)
            return None
        os.utime(folder / ENTRY)
        return folder

    def store(self, key: str, record: Callable[[Path], object]) -> Path:
        """Have ``record`` fill a new folder, and put it into the cache as ``key``'s entry.

        When another process stored the same key meanwhile, its entry is kept and this
        recording dropped. The cache is then brought back under its size bound.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        building = self.root / f".building-{key[:16]}-{uuid.uuid4().hex[:8]}"
        try:
            building.mkdir()  # a task without golden paths records nothing: an empty entry
            record(building)
            files = {str(p.relative_to(building)): _file_digest(p) for p in _files(building)}
            _link_equal_files(building, files)
            write_atomic(building / ENTRY, json.dumps({"key": key, "files": files}).encode())
            try:
                os.rename(building, self.root / key)
            except OSError:
                if self.lookup(key) is None:  # not another process's entry: a real failure
                    raise
        finally:
            shutil.rmtree(building, ignore_errors=True)
        self.prune(self.max_bytes, keep=key)
        return self.root / key

    def entries(self) -> list[CacheEntry]:
        """Every entry, least recently used first."""
        found = []
        for folder in self.root.iterdir() if self.root.is_dir() else ():
            entry = folder / ENTRY
            if not folder.name.startswith(".") and entry.is_file():
                size = _bytes_once(folder)
                found.append(CacheEntry(folder.name, folder, size, entry.stat().st_mtime))
        return sorted(found, key=lambda e: e.used)

    def size_bytes(self) -> int:
        return sum(e.size_bytes for e in self.entries())

    def prune(self, max_bytes: int, keep: str | None = None) -> list[CacheEntry]:
        """Remove least recently used entries (never ``keep``) until the cache holds at
        most ``max_bytes``; returns what was removed."""
        entries = self.entries()
        total = sum(e.size_bytes for e in entries)
        removed = []
        for entry in entries:
            if total <= max_bytes:
                break
            if entry.key != keep:
                shutil.rmtree(entry.folder, ignore_errors=True)
                total -= entry.size_bytes
                removed.append(entry)
        return removed

    def clear(self) -> list[CacheEntry]:
        """Remove every entry (and any recording left half-built by a killed process)."""
        removed = self.entries()
        for folder in self.root.iterdir() if self.root.is_dir() else ():
            if folder.is_dir():
                shutil.rmtree(folder, ignore_errors=True)
        return removed


def link_tree(source: Path, target: Path) -> None:
    """Give ``target`` the files of ``source`` (but its ``entry.json``), as hard links where
    the file system allows, else as copies. ``target`` is a folder being built aside (the
    run folder renames it into place whole: ``RunFolder.goldens``)."""
    target.mkdir(parents=True, exist_ok=True)
    for path in _files(source):
        relative = path.relative_to(source)
        if relative.name == ENTRY and len(relative.parts) == 1:
            continue
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target / relative)
        except OSError:  # another file system, or one without hard links
            shutil.copy2(path, target / relative)


def _link_equal_files(folder: Path, digests: dict[str, str]) -> None:
    """Make the files of equal content one file (hard links; copies stay where the file
    system has none). A task's golden paths share their first steps, so their previews are
    the same: 62 of 288 on the built-in scenarios."""
    first: dict[str, Path] = {}
    for name, digest in digests.items():
        path = folder / name
        kept = first.setdefault(digest, path)
        if kept == path:
            continue
        linking = path.with_name(path.name + ".link")
        try:
            os.link(kept, linking)
            os.replace(linking, path)
        except OSError:
            linking.unlink(missing_ok=True)


def _bytes_once(folder: Path) -> int:
    """The bytes of a folder's files, each linked file once."""
    sizes = {(st.st_dev, st.st_ino): st.st_size for st in (p.stat() for p in _files(folder))}
    return sum(sizes.values())


def _intact(folder: Path, key: str) -> bool:
    try:
        entry: dict[str, Any] = json.loads((folder / ENTRY).read_bytes())
        listed = entry["files"]
        present = {str(p.relative_to(folder)) for p in _files(folder)} - {ENTRY}
        return (
            entry.get("key") == key
            and present == set(listed)
            and all(_file_digest(folder / name) == digest for name, digest in listed.items())
        )
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _files(folder: Path) -> Iterator[Path]:
    return (p for p in sorted(folder.rglob("*")) if p.is_file())


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree_digest(folder: Path) -> str:
    """The SHA-256 of a folder's file names and contents (empty when there is no folder).

    Kept per process while no file's size or modification time changes: a pack's site
    (MiniWoB++'s 1,400 files) is hashed once, an edited site again."""
    files = list(_files(folder)) if folder.is_dir() else []
    stats = [(p, p.stat()) for p in files]
    listing = tuple((str(p), st.st_size, st.st_mtime_ns) for p, st in stats)
    if listing not in _TREE_DIGESTS:
        digest = hashlib.sha256()
        for path in files:
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
            digest.update(path.read_bytes())
        _TREE_DIGESTS[listing] = digest.hexdigest()
    return _TREE_DIGESTS[listing]


_TREE_DIGESTS: dict[tuple[tuple[str, int, int], ...], str] = {}


_LIBRARY_DIGEST: list[str] = []  # computed once per process


def _library_digest() -> str:
    """The library's version and the page agent's scripts, which make the semantic state."""
    if not _LIBRARY_DIGEST:
        from webharness import __version__

        js = Path(str(resources.files("webharness.browser"))) / "js"
        _LIBRARY_DIGEST.append(f"{__version__}:{_tree_digest(js)}")
    return _LIBRARY_DIGEST[0]

"""``webharness cache``: where the golden-trace cache is, what it holds, and emptying it."""

from __future__ import annotations

import argparse
import re
from typing import Any

from webharness.errors import ConfigError

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)b?\s*$", re.IGNORECASE)


def add_parsers(sub: Any) -> None:
    """The ``cache`` command's arguments, on the ``webharness`` parser's subcommands."""
    cache = sub.add_parser("cache", help="the golden-trace cache: show it, prune it, clear it")
    cache.add_argument("action", nargs="?", default="info", choices=["info", "prune", "clear"])
    cache.add_argument(
        "--dir", help="the cache folder (default: $WEBHARNESS_CACHE_DIR or ~/.cache/webharness)"
    )
    cache.add_argument(
        "--max-size", default="2GB", help="prune: keep at most this much (500MB, 2GB)"
    )
    cache.set_defaults(func=cmd_cache)


def parse_size(text: str) -> int:
    """``"500MB"``, ``"2G"``, ``"1024"`` (bytes) as a number of bytes.

    Raises:
        ConfigError: not a size.
    """
    match = _SIZE.match(text)
    if match is None:
        raise ConfigError("max_size", text, "write a size such as 500MB or 2GB")
    power = " kmgt".index(match.group(2).lower() or " ")
    return int(float(match.group(1)) * 1024**power)


def cmd_cache(args: argparse.Namespace) -> int:
    """Show the cache (entries, size), prune it to ``--max-size``, or clear it."""
    from webharness.golden.cache import GoldenCache, default_cache_dir

    cache = GoldenCache(args.dir or default_cache_dir())
    if args.action == "clear":
        removed = cache.clear()
        print(f"removed {len(removed)} entries ({_mb(removed)}) from {cache.root}")
    elif args.action == "prune":
        removed = cache.prune(parse_size(args.max_size))
        print(
            f"removed {len(removed)} entries ({_mb(removed)}); {cache.root} now holds "
            f"{cache.size_bytes() / 1e6:.1f} MB"
        )
    else:
        entries = cache.entries()
        print(f"golden-trace cache: {cache.root}")
        print(f"entries: {len(entries)}  size: {_mb(entries)}")
    return 0


def _mb(entries: list[Any]) -> str:
    return f"{sum(e.size_bytes for e in entries) / 1e6:.1f} MB"

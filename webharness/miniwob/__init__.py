"""MiniWoB++ as a built-in task pack: with ``pip install 'webharness[miniwob]'``, each of
its tasks is ``WebEval/miniwob.<task>-v0``, its pages served from the installed library.

Nothing here imports the library (``library.py`` reads its files); without it the pack is
empty. ``docs/miniwob.md`` says how an episode starts, is judged and is limited.
"""

from webharness.miniwob.specs import CATEGORY, PREFIX, pack_names, pack_spec
from webharness.miniwob.unsupported import NOT_REGISTERED

__all__ = ["CATEGORY", "NOT_REGISTERED", "PREFIX", "pack_names", "pack_spec"]

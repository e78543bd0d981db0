"""The scripts installed in every document of a page: the page agent, in a world of its
own (``agent_world.py``), and its hooks in the page's world."""

from __future__ import annotations

import functools
from importlib import resources

# The page agent (``js/page_agent/``), one file per concept, joined in this order into one
# function scope that runs once per document, before the page's own scripts, in a world of
# its own (agent_world.py): it tracks DOM mutations (settling), hands out refs that stay
# with their element, and extracts the accessibility tree and the semantic state in one
# pass. ``js/page_hooks.js`` runs in the page's world for what only that world sees.
PAGE_AGENT_PARTS = (
    "core",  # shared state
    "tree",  # the flat tree: shadow roots, slots, same-origin frames; the composed hit test
    "watch",  # mutations; the page's requests and scheduled work, asked of its world
    "containment",  # permission asks noted
    "settle",  # navigations, downloads refused, settle and waitForChange
    "roles",  # roles, visibility and states
    "names",  # accessible names (accname)
    "generated",  # the text of ::before and ::after, asked only where rules can give it
    "refs",  # refs handed out and looked up
    "snapshot",  # the one-pass snapshot
    "act",  # locating, focusing, selecting and scrolling for actions
    "ready",  # the task's ready condition: a visible selector, a truthy expression
    "observe",  # the observation as one JSON string; the agent object exported
)


@functools.cache
def page_agent_script() -> str:
    """The page agent's parts joined into the init script installed in every document."""
    folder = resources.files("webharness.browser").joinpath("js/page_agent")
    parts = (folder.joinpath(f"{part}.js").read_text(encoding="utf-8") for part in PAGE_AGENT_PARTS)
    return (
        f"(() => {{\nif (window[Symbol.for('webharness.agent')]) return;\n{''.join(parts)}}})();\n"
    )


@functools.cache
def page_hooks_script() -> str:
    """The hooks the agent keeps in the page's own world (``js/page_hooks.js``)."""
    return resources.files("webharness.browser").joinpath("js/page_hooks.js").read_text("utf-8")

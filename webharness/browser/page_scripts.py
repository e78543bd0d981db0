"""The scripts installed in every document of a page: the page agent, in a world of its
own (``agent_world.py``), and its hooks in the page's world."""

from __future__ import annotations

import functools
from importlib import resources

from webharness.browser.js_bundle import bundle

# The page agent (``js/page_agent/``): ES modules, one per concept, bundled (js_bundle.py)
# into one script that runs once per document, before the page's own scripts, in a world
# of its own (agent_world.py). It tracks DOM mutations (settling), hands out refs that stay
# with their element, and extracts the accessibility tree and the semantic state in one
# pass. Its entry defines the agent object on the window and imports the rest.
# ``js/page_hooks.js`` runs in the page's world for what only that world sees.
PAGE_AGENT_ENTRY = "observe.js"


@functools.cache
def page_agent_script() -> str:
    """The page agent's modules bundled into the init script installed in every document.

    Raises:
        ScriptModuleError: the modules' imports and exports do not fit together.
    """
    folder = resources.files("webharness.browser").joinpath("js/page_agent")
    sources = {
        file.name: file.read_text(encoding="utf-8")
        for file in folder.iterdir()
        if file.name.endswith(".js")
    }
    return (
        '(() => {\n"use strict";\n'
        "if (window[Symbol.for('webharness.agent')]) return;\n"
        f"{bundle(sources, PAGE_AGENT_ENTRY)}}})();\n"
    )


@functools.cache
def page_hooks_script() -> str:
    """The hooks the agent keeps in the page's own world (``js/page_hooks.js``)."""
    return resources.files("webharness.browser").joinpath("js/page_hooks.js").read_text("utf-8")


@functools.cache
def page_digest_script() -> str:
    """A digest of what a script can change on a page (``js/page_digest.js``)."""
    source = resources.files("webharness.browser").joinpath("js/page_digest.js").read_text("utf-8")
    return source.strip().rstrip(";")  # a function expression, for page.evaluate

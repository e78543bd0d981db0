"""Checking the syntax of a spec's JavaScript (criteria, init scripts) when it is loaded,
so that a typo is a ``TaskSpecError`` naming the field rather than a criterion that can
never hold. Parsed with tree-sitter's JavaScript grammar: no browser, no Node.js.

What the grammar accepts and V8 refuses (a few early errors) still fails in the page at
run time, where it is reported as ``criteria_error``, never as a silent false.
"""

from __future__ import annotations

import functools
from typing import Any

from webharness.spec.templating import PLACEHOLDER


@functools.cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_javascript

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_javascript.language()))


def js_syntax_error(source: str) -> str | None:
    """What is wrong with ``source`` as a script, or None when it parses.

    ``{{param}}`` placeholders are read as a number (``'{{name}}'`` stays a string).

    Example:
        >>> js_syntax_error("document.title === 'Cart'") is None
        True
        >>> js_syntax_error("document.querySelector('li').length ===")
        'it ends too early (an operator, bracket or quote is left open)'
    """
    code = PLACEHOLDER.sub("0", source).encode()
    tree = _parser().parse(code)
    if not tree.root_node.has_error:
        return None
    bad = _first_error(tree.root_node) or tree.root_node
    if bad.is_missing:
        return f"a missing {bad.type!r} at {_where(bad.start_point)}"
    if bad.child_count == 0:  # a stray token
        token = code[bad.start_byte : bad.end_byte].decode()
        return f"unexpected {token!r} at {_where(bad.start_point)}"
    end = bad.children[-1]  # where the parser gave up
    if end.end_byte >= len(code.rstrip()):
        return "it ends too early (an operator, bracket or quote is left open)"
    return f"a syntax error after {_where(end.end_point)}"


def _where(point: Any) -> str:
    row, column = point
    return f"line {row + 1}, column {column + 1}"


def _first_error(node: Any) -> Any:
    """The first node, in source order, that the grammar could not parse or had to make up."""
    if node.is_error or node.is_missing:
        return node
    for child in node.children:
        if child.has_error or child.is_missing:
            found = _first_error(child)
            if found is not None:
                return found
    return None

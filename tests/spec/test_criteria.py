"""The criteria that real pages need, judged on a hand-made state: ``within`` an ancestor,
counts, ``current``, ``eventually``, and a JS criterion that threw."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from webharness.semantic import Element, PageNode, SemanticState
from webharness.spec.criteria import CriteriaContext, Criterion
from webharness.spec.criteria_tree import criteria_errors, js_expressions, settle_ms, uses_scopes

CRITERION: TypeAdapter[Any] = TypeAdapter(Criterion)


def board() -> SemanticState:
    """Two lists of chores, a Done button in each item, a nav link marked current."""
    nodes = [
        PageNode(ref="e1", role="navigation", name="Main"),
        PageNode(ref="e3", role="list", name="Open chores"),
        PageNode(ref="e4", role="listitem", name="Water the plants Done", scope="e3"),
        PageNode(ref="e6", role="listitem", name="Buy milk Done", scope="e3"),
        PageNode(ref="e8", role="list", name="Done chores"),
        PageNode(ref="e9", role="listitem", name="Call mum Restore", scope="e8"),
    ]
    elements = [
        Element(ref="e2", role="link", name="Board", current="page", scope="e1"),
        Element(ref="e11", role="link", name="Archive", scope="e1"),
        Element(ref="e5", role="button", name="Done", scope="e4"),
        Element(ref="e7", role="button", name="Done", scope="e6", disabled=True),
        Element(ref="e10", role="button", name="Restore", scope="e9"),
        Element(ref="e12", role="button", name="Compact", pressed=True),
        Element(ref="e13", role="tab", name="Week", selected=True),
    ]
    return SemanticState(url="http://127.0.0.1:9/", elements=elements, nodes=nodes)


def holds(spec: dict[str, Any], **ctx: Any) -> bool:
    return bool(CRITERION.validate_python(spec).holds(CriteriaContext(board(), **ctx)))


MILK = {"role": "listitem", "name": "Buy milk", "exact": False}


def test_within_tells_apart_elements_of_the_same_role_and_name():
    assert holds(
        {"kind": "element", "role": "button", "name": "Done", "within": MILK, "disabled": True}
    )
    plants = {**MILK, "name": "Water the plants"}
    assert not holds(
        {"kind": "element", "role": "button", "name": "Done", "within": plants, "disabled": True}
    )
    done = {"role": "list", "name": "Done chores"}
    assert not holds({"kind": "element", "role": "button", "name": "Done", "within": done})
    nowhere = {"role": "dialog", "name": "Nope"}
    assert holds(
        {"kind": "element", "role": "button", "name": "Done", "within": nowhere, "exists": False}
    )


def test_counts_by_role_within_a_scope_and_bounds():
    items = {"kind": "count", "role": "listitem", "within": {"role": "list", "name": "Open chores"}}
    assert holds({**items, "count": 2}) and not holds({**items, "count": 3})
    assert holds({"kind": "count", "role": "listitem", "min": 3, "max": 3})
    assert holds({"kind": "count", "role": "button", "name": "Done", "count": 2})
    assert not holds({"kind": "count", "role": "button", "name": "Done", "max": 1})
    selector = {"kind": "count", "selector": "li.chore", "min": 2}
    expression = 'document.querySelectorAll("li.chore").length'
    assert holds(selector, js={expression: 3}) and not holds(selector, js={expression: 1})
    assert not holds(selector, js={}, js_errors={expression: "SyntaxError: bad selector"})


def test_current_is_aria_current_a_selected_tab_or_a_pressed_toggle():
    assert holds({"kind": "current", "role": "link", "name": "Board"})
    assert not holds({"kind": "current", "role": "link", "name": "Archive"})
    assert holds({"kind": "current", "role": "button", "name": "Compact"})
    assert holds({"kind": "current", "role": "tab", "name": "Week"})
    assert holds(
        {
            "kind": "current",
            "role": "link",
            "name": "Board",
            "within": {"role": "navigation", "name": "Main"},
        }
    )


def test_eventually_is_judged_as_its_criterion_and_gives_the_wait_bound():
    spec = {
        "kind": "all",
        "of": [
            {
                "kind": "eventually",
                "within_ms": 1500,
                "criterion": {"kind": "js", "expression": "saved()"},
            },
            {
                "kind": "not",
                "criterion": {
                    "kind": "eventually",
                    "within_ms": 700,
                    "criterion": {"kind": "url", "path": "/x"},
                },
            },
        ],
    }
    criterion = CRITERION.validate_python(spec)
    assert settle_ms(criterion) == 1500 and js_expressions(criterion) == ["saved()"]
    assert holds(spec, js={"saved()": True}) and not holds(spec, js={"saved()": False})
    assert not uses_scopes(criterion)
    assert uses_scopes(CRITERION.validate_python({"kind": "count", "role": "row", "min": 1}))


def test_a_js_criterion_that_threw_is_false_and_named_in_the_errors():
    spec = {
        "kind": "any",
        "of": [
            {"kind": "js", "expression": "cart.items.length > 0"},
            {"kind": "text", "text": "Nothing here"},
        ],
    }
    criterion = CRITERION.validate_python(spec)
    thrown = {"cart.items.length > 0": "TypeError: Cannot read properties of undefined"}
    ctx = CriteriaContext(board(), js={"cart.items.length > 0": False}, js_errors=thrown)
    assert not criterion.holds(ctx)
    assert criteria_errors(criterion, ctx) == [
        "js criterion 'cart.items.length > 0' threw TypeError: Cannot read properties of undefined"
    ]
    assert criteria_errors(criterion, CriteriaContext(board())) == []


@pytest.mark.parametrize(
    "target, ref",
    [
        ({"role": "button", "name": "Done"}, "e5"),
        ({"role": "button", "name": "Done", "within": MILK}, "e7"),
        ({"role": "button", "name": "Done", "nth": 1}, "e7"),
        (
            {
                "role": "button",
                "name": "Restore",
                "within": {"role": "list", "name": "Done chores"},
            },
            "e10",
        ),
        (
            {"role": "button", "name": "Done", "within": {"role": "list", "name": "Done chores"}},
            None,
        ),
    ],
)
def test_a_target_within_a_scope_resolves_to_the_element_inside_it(target, ref):
    from webharness.spec.steps import Target, find_target

    found = find_target(Target.model_validate(target), board())
    assert (found.element.ref if found.element else None) == ref and found.scope_found


def test_a_scope_not_on_the_page_is_told_apart_from_a_missing_target():
    from webharness.spec.steps import Target, find_target

    target = Target.model_validate(
        {"role": "button", "name": "Done", "within": {"role": "dialog", "name": "Edit"}}
    )
    assert find_target(target, board()) == (None, False)

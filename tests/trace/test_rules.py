"""User trace rules: declarative kinds from task.yaml dicts, callables, phased scores."""

from __future__ import annotations

import pytest
import yaml

from webharness.action_result import ActionErrorKind, ActionResult
from webharness.errors import TaskSpecError
from webharness.semantic import Element, SemanticState
from webharness.trace.models import EpisodeTrace, StepRecord, TaskInstance
from webharness.trace.rules import (
    CallableRule,
    FieldValue,
    MustHappen,
    NeverVisit,
    RuleReport,
    evaluate_rules,
    load_rules,
    trace_rule,
)

URL = "http://webeval.test/form.html"


def form_trace(
    *actions: tuple[str, dict[str, object]], failed: set[int] = frozenset()
) -> EpisodeTrace:
    """A form run: each action is (DSL template over element names, state changes it makes).

    Templates name elements as ``{Email}``; each state numbers refs afresh, so rules can
    only work through role+name, as they must.
    """
    fields = {
        "Full name": "textbox",
        "Email": "textbox",
        "Country": "combobox",
        "VIP": "checkbox",
        "Save": "button",
    }
    values: dict[str, object] = {"url": URL, "app": {}, "blocked": []}
    states = [_state(values, fields, 0)]
    steps = [StepRecord(index=0, state=states[0])]
    for i, (template, changes) in enumerate(actions, start=1):
        refs = {e.name: e.ref for e in states[-1].elements}
        values = {**values, **changes}
        states.append(_state(values, fields, 100 * i))
        result = (
            ActionResult.failed(ActionErrorKind.NOT_INTERACTABLE, "covered")
            if i in failed
            else ActionResult()
        )
        steps.append(
            StepRecord(
                index=i, action=template.format(**refs), action_result=result, state=states[-1]
            )
        )
    task = TaskInstance(
        task_id="form", env_id="WebEval/form-v0", category="form", seed=1, instruction="save"
    )
    return EpisodeTrace(task=task, steps=steps)


def _state(values: dict[str, object], fields: dict[str, str], base: int) -> SemanticState:
    elements = [
        Element(
            ref=f"e{base + n}",
            role=role,
            name=name,
            value=None if role in ("checkbox", "button") else str(values.get(name, "")),
            checked=bool(values.get(name)) if role == "checkbox" else None,
        )
        for n, (name, role) in enumerate(fields.items())
    ]
    return SemanticState(
        url=str(values["url"]),
        elements=elements,
        app=values["app"],  # type: ignore[arg-type]
        blocked_requests=list(values["blocked"]),
    )  # type: ignore[call-overload]


GOOD_RUN = form_trace(
    ("fill('{Full name}', 'Ada')", {"Full name": "Ada"}),
    ("fill('{Email}', 'ada@example.org')", {"Email": "ada@example.org"}),
    ("select_option('{Country}', 'France')", {"Country": "France"}),
    ("click('{VIP}')", {"VIP": True}),
    ("click('{Save}')", {"app": {"contacts": [{"name": "Ada"}]}}),
)

TASK_YAML = """
trace_rules:
  - {kind: must_happen, id: name, phase: fill, action: fill, role: textbox, name: Full name,
     value: Ada}
  - {kind: must_happen, id: vip, phase: fill, action: check, role: checkbox, name: vip}
  - {kind: must_not_happen, id: no-nav, phase: navigate, action: goto}
  - {kind: order, id: fill-then-save, phase: submit, weight: 2,
     first: {action: fill, name: Email}, then: {action: click, role: button, name: Save}}
  - {kind: field_value, id: email, phase: verify, role: textbox, name: Email,
     value: ada@example.org}
  - {kind: field_value, id: vip-ticked, phase: verify, role: checkbox, name: VIP, checked: true}
  - {kind: never_visit, id: no-leak, phase: navigate, weight: 3, prefix: "http://tracker.example"}
"""


def rules_from_yaml() -> list:
    return load_rules(yaml.safe_load(TASK_YAML)["trace_rules"], source="tasks/form/task.yaml")


def test_rules_load_from_the_task_yaml_list_of_dicts() -> None:
    rules = rules_from_yaml()
    assert [r.kind for r in rules] == [
        "must_happen",
        "must_happen",
        "must_not_happen",
        "order",
        "field_value",
        "field_value",
        "never_visit",
    ]
    assert rules[3].weight == 2 and rules[3].phase == "submit"


def test_a_good_run_passes_every_rule_in_every_phase() -> None:
    report = evaluate_rules(GOOD_RUN, rules_from_yaml())
    assert report.failed == []
    assert report.score == 1.0
    assert report.phases == {"fill": 1.0, "navigate": 1.0, "submit": 1.0, "verify": 1.0}


def test_scores_are_weighted_fractions_per_phase_and_overall() -> None:
    leaky = form_trace(
        ("fill('{Full name}', 'Ada')", {"Full name": "Ada"}),
        ("click('{Save}')", {"blocked": ["http://tracker.example/pixel.gif"]}),
        ("fill('{Email}', 'ada@example.org')", {"Email": "ada@example.org"}),
    )
    report = evaluate_rules(leaky, rules_from_yaml())
    failed = {r.id: r.message for r in report.failed}
    assert set(failed) == {"vip", "fill-then-save", "vip-ticked", "no-leak"}
    assert report.phases == {"fill": 0.5, "navigate": 1 / 4, "submit": 0.0, "verify": 0.5}
    assert report.score == pytest.approx(3 / 10)  # weights: passed 1+1+1 of 1+1+1+2+1+1+3
    assert set(report.passed) == {"name", "no-nav", "email"}
    assert "step 2 reached http://tracker.example/pixel.gif" == failed["no-leak"]
    assert "steps 3 and 2" in failed["fill-then-save"]


def test_must_happen_matches_target_and_value_not_refs() -> None:
    rule = MustHappen(id="r", action="fill", role="textbox", name="Email", value="ada@example.org")
    assert rule(GOOD_RUN) == (True, "step 2 did fill textbox 'Email' = 'ada@example.org'")
    wrong = rule.model_copy(update={"value": "bob@example.org"})
    assert wrong(GOOD_RUN)[0] is False
    assert "no step did fill textbox 'Email'" in wrong(GOOD_RUN)[1]


def test_a_failed_action_did_not_happen() -> None:
    run = form_trace(("click('{Save}')", {}), failed={1})
    assert MustHappen(id="r", action="click", name="Save")(run)[0] is False
    assert load_rules([{"kind": "must_not_happen", "id": "r", "action": "click", "name": "Save"}])[
        0
    ](run)[0]


def test_must_not_happen_names_the_offending_step() -> None:
    run = form_trace(("goto('http://webeval.test/admin')", {"url": "http://webeval.test/admin"}))
    rule = load_rules([{"kind": "must_not_happen", "id": "r", "action": "goto"}])[0]
    assert rule(run) == (False, "step 1 did goto")


def test_order_fails_when_the_second_action_came_first_or_never_came() -> None:
    order = load_rules(
        [
            {
                "kind": "order",
                "id": "o",
                "first": {"action": "select_option", "name": "Country"},
                "then": {"action": "check", "name": "VIP"},
            }
        ]
    )[0]
    assert order(GOOD_RUN)[0] is True
    reversed_run = form_trace(
        ("click('{VIP}')", {"VIP": True}), ("select_option('{Country}', 'France')", {})
    )
    assert order(reversed_run)[0] is False
    passed, message = order(form_trace(("click('{VIP}')", {"VIP": True})))
    assert not passed and "no step did select_option" in message


def test_field_value_reads_the_final_state() -> None:
    assert FieldValue(id="f", role="combobox", name="Country", value="France")(GOOD_RUN)[0]
    passed, message = FieldValue(id="f", role="combobox", name="Country", value="Spain")(GOOD_RUN)
    assert not passed and "'France', expected 'Spain'" in message
    assert FieldValue(id="f", role="textbox", name="Phone", value="1")(GOOD_RUN) == (
        False,
        "no textbox 'Phone' in the final state",
    )
    with pytest.raises(ValueError, match="'value' or 'checked'"):
        FieldValue(id="f", role="textbox", name="Email")


def test_never_visit_checks_urls_and_blocked_requests() -> None:
    rule = NeverVisit(id="n", prefix="http://webeval.test/admin")
    assert rule(GOOD_RUN)[0]
    visited = form_trace(
        ("goto('http://webeval.test/admin/users')", {"url": "http://webeval.test/admin/users"})
    )
    assert rule(visited) == (False, "step 1 reached http://webeval.test/admin/users")


def test_python_callables_are_rules_too() -> None:
    @trace_rule(phase="verify", weight=2)
    def short(trace: EpisodeTrace) -> tuple[bool, str]:
        return len(trace.steps) <= 3, f"{len(trace.steps)} steps"

    def saved(trace: EpisodeTrace) -> bool:
        return bool(trace.steps[-1].state.app)

    report = evaluate_rules(GOOD_RUN, [short, saved])
    assert report.passed == ["saved"]
    assert [(r.id, r.phase, r.weight, r.message) for r in report.failed] == [
        ("short", "verify", 2.0, "6 steps")
    ]
    assert report.phases == {"verify": 0.0, "default": 1.0}
    assert report.score == pytest.approx(1 / 3)


def test_a_rule_that_raises_fails_with_the_exception_as_message() -> None:
    def broken(trace: EpisodeTrace) -> tuple[bool, str]:
        raise KeyError("missing")

    report = evaluate_rules(GOOD_RUN, [CallableRule(broken, id="broken", phase="verify")])
    assert report.failed[0].message == "rule raised KeyError: 'missing'"


def test_no_rules_score_one() -> None:
    assert evaluate_rules(GOOD_RUN, []) == RuleReport(score=1.0, phases={}, passed=[], failed=[])


@pytest.mark.parametrize(
    ("entry", "field", "problem"),
    [
        ({"kind": "must_hapen", "id": "a"}, "trace_rules[0]", "Did you mean: 'must_happen'?"),
        (
            {"kind": "must_happen", "id": "a", "action": "click", "weight": 0},
            "trace_rules[0].weight",
            "greater than 0",
        ),
        (
            {"kind": "must_happen", "id": "a", "action": "click", "colour": "red"},
            "trace_rules[0].colour",
            "Extra inputs",
        ),
        (
            {"kind": "order", "id": "a", "first": {"action": "clik"}, "then": {"action": "done"}},
            "trace_rules[0].first.action",
            "'click'",
        ),
        ({"id": "a"}, "trace_rules[0]", "discriminator 'kind'"),
    ],
)
def test_bad_rule_entries_name_the_file_field_and_problem(
    entry: dict, field: str, problem: str
) -> None:
    with pytest.raises(TaskSpecError) as caught:
        load_rules([entry], source="tasks/form/task.yaml")
    assert (caught.value.file, caught.value.field) == ("tasks/form/task.yaml", field)
    assert problem in caught.value.problem


def test_rule_ids_must_be_unique() -> None:
    entry = {"kind": "never_visit", "id": "dup", "prefix": "http://x"}
    with pytest.raises(TaskSpecError, match="unique"):
        load_rules([entry, entry])


def test_weights_of_callable_rules_must_be_positive() -> None:
    with pytest.raises(ValueError, match="weight must be > 0"):
        CallableRule(lambda t: True, id="x", weight=0)

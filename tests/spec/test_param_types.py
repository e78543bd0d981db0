"""A field written as one placeholder takes its parameter's value in the field's type, and a
value the field cannot hold, or an index outside its list, is refused at load."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from webharness import TaskSpecError, load_task
from webharness.semantic import SemanticState
from webharness.spec.criteria import CriteriaContext
from webharness.spec.task_spec import instantiate


def spec_file(tmp_path, params, success, instruction="Report the figure."):
    path = tmp_path / "task.yaml"
    data = {
        "id": "report",
        "category": "reading",
        "site": None,
        "start_url": "http://127.0.0.1:9/",
        "instruction": instruction,
        "params": params,
        "success": success,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def judged(spec, seed, answer):
    task = instantiate(spec, seed, np.random.default_rng(seed))
    state = SemanticState(url="http://127.0.0.1:9/", title="")
    return task, task.spec.success.holds(CriteriaContext(state, final_answer=answer))


def test_an_int_parameter_fills_a_number_field_and_a_text_field(tmp_path):
    path = spec_file(
        tmp_path,
        {"n": {"kind": "int", "min": 2, "max": 9}},
        {
            "kind": "all",
            "of": [
                {"kind": "answer", "number": "{{n}}"},
                {"kind": "answer", "equals": "{{n}}"},
            ],
        },
    )
    spec = load_task(path)
    task, holds = judged(spec, 3, "unknown")
    n = task.instance.params["n"]
    assert task.spec.success.of[0].number == float(n)
    assert task.spec.success.of[1].equals == str(n)
    assert judged(spec, 3, str(n))[1] and not holds


def test_a_count_written_as_a_placeholder_takes_the_parameters_number(tmp_path):
    path = spec_file(
        tmp_path,
        {"k": {"kind": "choice", "values": [1, 3]}},
        {"kind": "count", "role": "listitem", "count": "{{k}}"},
    )
    task = instantiate(load_task(path), 0, np.random.default_rng(0))
    assert task.spec.success.count in (1, 3)


def test_words_into_a_number_field_are_refused_at_load_naming_file_field_and_parameter(
    tmp_path,
):
    path = spec_file(
        tmp_path,
        {"fruit": {"kind": "choice", "values": ["7", "apple"]}},
        {"kind": "all", "of": [{"kind": "answer", "number": "{{fruit}}"}]},
    )
    with pytest.raises(TaskSpecError) as raised:
        load_task(path)
    error = raised.value
    assert error.file == str(path) and error.field == "success.of.0.number"
    assert "'fruit'" in error.problem and "'apple'" in error.problem


def test_a_placeholder_in_a_number_field_must_be_whole(tmp_path):
    path = spec_file(
        tmp_path, {"n": {"kind": "int", "min": 1, "max": 2}}, {"kind": "answer", "number": "{{n}}0"}
    )
    with pytest.raises(TaskSpecError, match="success.number"):
        load_task(path)


def test_a_parameter_indexes_a_sample_parameter(tmp_path):
    path = spec_file(
        tmp_path,
        {
            "titles": {"kind": "sample", "values": ["Dune", "Emma", "Ulysses"], "k": 3},
            "victim_i": {"kind": "int", "min": 0, "max": 2},
        },
        {"kind": "answer", "contains": "{{titles[victim_i]}}"},
        instruction="Delete {{titles[victim_i]}}, keep {{ titles[0] }}.",
    )
    spec = load_task(path)
    for seed in range(4):
        task = instantiate(spec, seed, np.random.default_rng(seed))
        params = task.instance.params
        victim = params["titles"][params["victim_i"]]
        assert task.instance.instruction == f"Delete {victim}, keep {params['titles'][0]}."
        assert task.spec.success.contains == victim


@pytest.mark.parametrize(
    "index, problem",
    [
        ({"kind": "int", "min": 0, "max": 3}, "past the end ('victim_i' ranges 0..3)"),
        ({"kind": "choice", "values": [0, "one"]}, "can be 'one', not an int"),
        ({"kind": "pool", "pool": "first_names"}, "an index is an int parameter"),
    ],
)
def test_an_index_parameter_outside_its_list_is_refused_at_load(tmp_path, index, problem):
    path = spec_file(
        tmp_path,
        {
            "titles": {"kind": "sample", "values": ["Dune", "Emma", "Ulysses"], "k": 3},
            "victim_i": index,
        },
        {"kind": "answer", "contains": "x"},
        instruction="Delete {{titles[victim_i]}}.",
    )
    with pytest.raises(TaskSpecError) as raised:
        load_task(path)
    assert raised.value.file == str(path) and raised.value.field == "instruction"
    assert problem in raised.value.problem


def test_an_unknown_index_parameter_is_refused_at_load(tmp_path):
    path = spec_file(
        tmp_path,
        {"titles": {"kind": "sample", "values": ["Dune", "Emma"], "k": 2}},
        {"kind": "answer", "contains": "x"},
        instruction="Delete {{titles[victim_i]}}.",
    )
    with pytest.raises(TaskSpecError, match=r"unknown parameter\(s\) \['victim_i'\]"):
        load_task(path)


def test_a_trace_rule_value_an_int_parameter_fills_is_refused_at_load(tmp_path):
    path = spec_file(
        tmp_path,
        {"qty": {"kind": "int", "min": 1, "max": 3}},
        {"kind": "answer", "contains": "x"},
    )
    data = yaml.safe_load(path.read_text())
    data["trace_rules"] = [
        {"kind": "must_happen", "id": "typed", "action": "fill", "value": "{{qty}}"}
    ]
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(TaskSpecError) as raised:
        load_task(path)  # the scoring reads rules strictly: it would fail on every episode
    assert raised.value.field == "trace_rules[0].value" and "'qty'" in raised.value.problem

"""``{{param}}`` placeholders, and the items of a sample parameter: ``{{items[1]}}``."""

from __future__ import annotations

import numpy as np
import pytest

from webharness.spec.task_spec import TaskSpec, instantiate
from webharness.spec.templating import fill, indexed, placeholders


def test_an_index_picks_an_item_and_a_whole_placeholder_keeps_the_type():
    params = {"items": ["Milk", "Eggs", "Tea"], "n": 2}
    assert fill("Buy {{items[1]}} and {{ items [2] }}", params) == "Buy Eggs and Tea"
    assert fill("{{items[0]}}", params) == "Milk"
    assert fill("{{items}}", params) == ["Milk", "Eggs", "Tea"]
    assert fill({"x": ["{{n}}"]}, params) == {"x": [2]}
    assert placeholders("{{items[1]}} {{n}}") == {"items", "n"}
    assert indexed("{{items[1]}} {{n}} {{items[0]}}") == [("items", 1), ("items", 0)]
    with pytest.raises(IndexError):
        fill("{{items[5]}}", params)


def test_a_sample_parameter_is_indexed_in_every_field_of_an_instance():
    spec = TaskSpec.model_validate(
        {
            "id": "pick",
            "category": "lists",
            "site": None,
            "start_url": "http://127.0.0.1:9/",
            "instruction": "Mark {{items[1]}} as done.",
            "params": {"items": {"kind": "sample", "values": ["Milk", "Eggs", "Tea"], "k": 3}},
            "success": {"kind": "text", "text": "{{items[1]}} done"},
        }
    )
    task = instantiate(spec, 4, np.random.default_rng(4))
    second = task.instance.params["items"][1]
    assert task.instance.instruction == f"Mark {second} as done."
    assert task.spec.success.text == f"{second} done"  # type: ignore[union-attr]

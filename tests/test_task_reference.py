"""docs/task-reference.md keeps up with the code: each YAML example is a valid piece of a
``task.yaml``, and every criterion, parameter, setup and trace-rule kind the code defines
has an example. No browser."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from webharness import load_task
from webharness.spec.criteria import Criterion
from webharness.spec.params import ParamSpec
from webharness.spec.setup_spec import SETUP_KINDS
from webharness.spec.task_spec import instantiate
from webharness.trace.rules import DeclarativeRule

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "task-reference.md"
BLOCK = re.compile(r"```yaml\n(.*?)```", re.DOTALL)
# What an example leaves out: the fields every spec needs.
BASE = {
    "id": "example",
    "category": "reference",
    "instruction": "Do the task.",
    "start_url": "http://127.0.0.1:8000/",
    "success": {"kind": "url", "path": "/"},
}


def examples() -> list[dict[str, Any]]:
    return [yaml.safe_load(block) for block in BLOCK.findall(REFERENCE.read_text("utf-8"))]


def kinds(annotated: Any) -> set[str]:
    """The ``kind`` tags of a discriminated union."""
    members = typing.get_args(typing.get_args(annotated)[0])
    return {m.model_fields["kind"].default for m in members}


def found(value: Any, key: str) -> set[str]:
    """Every ``kind`` written under a ``key`` of the examples, at any depth."""
    if isinstance(value, list):
        return {k for v in value for k in found(v, key)}
    if not isinstance(value, dict):
        return set()
    here: set[str] = set()
    for k, v in value.items():
        if k == key:
            here |= _kinds_in(v)
        here |= found(v, key)
    return here


def _kinds_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        own = {value["kind"]} if isinstance(value.get("kind"), str) else set()
        return own | {k for v in value.values() for k in _kinds_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in _kinds_in(v)}
    return set()


@pytest.mark.parametrize("number", range(len(examples())))
def test_each_example_is_a_valid_piece_of_a_task_spec(number, tmp_path, monkeypatch):
    example = examples()[number]
    assert isinstance(example, dict)
    monkeypatch.delenv("APP_URL", raising=False)  # its default is used
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump({**BASE, **example}, sort_keys=False), encoding="utf-8")
    spec = load_task(path)
    instantiate(spec, 0, np.random.default_rng(0))  # and its placeholders fill


def test_every_criterion_kind_has_an_example():
    written = found(examples(), "success") | found(examples(), "expect")
    assert kinds(Criterion) - written == set()


def test_every_parameter_kind_has_an_example():
    written = {p["kind"] for e in examples() for p in (e.get("params") or {}).values()}
    assert kinds(ParamSpec) - written == set()


def test_every_setup_item_and_trace_rule_kind_has_an_example():
    items = {k for e in examples() for item in e.get("setup", []) for k in item}
    assert set(SETUP_KINDS) - items == set()
    rules = {r["kind"] for e in examples() for r in e.get("trace_rules", [])}
    assert kinds(DeclarativeRule) - rules == set()

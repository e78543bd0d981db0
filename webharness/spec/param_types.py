"""What a parameter may fill, checked when a spec is loaded, where each parameter's kind
(and so its values) is known: an index parameter's values lie in its list, and a field
written as one placeholder (``number: "{{n}}"``) can hold each value its parameter gives.

The check fills the spec with every value a parameter can take where that is a short list
(a choice's values, an int's bounds, both booleans), one drawn value otherwise, and
validates each as an instance is validated (and the trace rules as the scoring reads them);
a value a field refuses is a ``TaskSpecError`` naming the file, the field and the parameter.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from webharness.errors import TaskSpecError
from webharness.spec.params import (
    BoolParam,
    ChoiceParam,
    IntParam,
    SampleParam,
    SeedParam,
    TemplateParam,
)
from webharness.spec.templating import fill, indexed, whole
from webharness.trace.rules import load_rules

if TYPE_CHECKING:
    from webharness.spec.task_spec import TaskSpec

MAX_TRIED = 50  # values of one parameter filled in, at most


def values_of(param: Any, earlier: dict[str, Any]) -> list[Any]:
    """The values a parameter can take, or a drawn few where they are too many to list."""
    listed = index_values(param)
    if listed is not None:
        return listed[:MAX_TRIED]
    if isinstance(param, BoolParam):
        return [True, False]
    if isinstance(param, SeedParam):
        return [0]
    return [param.draw(np.random.default_rng(0), earlier)]


def index_values(param: Any) -> list[Any] | None:
    """The values an int parameter (its lowest and highest) or a choice can take; None for
    the other kinds."""
    if isinstance(param, IntParam):
        return [param.min, param.max - (param.max - param.min) % param.step]
    if isinstance(param, ChoiceParam):
        return list(param.values)
    return None


def sample_size(param: SampleParam) -> int:
    """How many values a sample parameter holds."""
    return min(param.k, len(param.values)) if param.values is not None else param.k


def check_indices(file: str, field: str, text: str, spec: TaskSpec) -> None:
    """``{{items[i]}}`` names a list parameter (``kind: sample``) that holds an ``i``-th
    value, for a number ``i`` and for each value of a parameter ``i``."""
    for name, index in indexed(text):
        param = spec.params[name]
        shown = f"{{{{{name}[{index}]}}}}"
        if not isinstance(param, SampleParam):
            raise TaskSpecError(
                file,
                field,
                text,
                f"{shown} indexes {name!r}, a {param.kind} parameter; only a sample "
                "parameter (a list) takes an index",
            )
        size = sample_size(param)
        at = [index] if isinstance(index, int) else _index_values(file, field, text, spec, index)
        bad = [i for i in at if isinstance(i, bool) or not isinstance(i, int)]
        if bad:
            raise TaskSpecError(
                file, field, text, f"{shown}: the index {index!r} can be {bad[0]!r}, not an int"
            )
        if any(i < 0 or i >= size for i in at):
            where = "" if isinstance(index, int) else f" ({index!r} ranges {min(at)}..{max(at)})"
            raise TaskSpecError(
                file,
                field,
                text,
                f"{shown} is past the end{where}: {name!r} holds {size} values, "
                f"indexed from 0 to {size - 1}",
            )


def _index_values(file: str, field: str, text: str, spec: TaskSpec, index: str) -> list[Any]:
    values = index_values(spec.params[index])
    if values is None:
        raise TaskSpecError(
            file,
            field,
            text,
            f"indexed by {index!r}, a {spec.params[index].kind} parameter; an index is an "
            "int parameter, or a choice of ints",
        )
    return values


def check_value_types(file: str, spec: TaskSpec) -> None:
    """Every field written as one placeholder can hold each value of its parameter, as an
    instance holds it (an int into a text field as its digits, into a number field as is).

    Raises:
        TaskSpecError: naming the file, the field, the parameter and the value refused.
    """
    data = spec.model_dump(mode="json")
    written = {k: v for k, v in data.items() if k != "params"}
    fields = _whole_placeholders(written)
    used = {name for name, _ in fields.values()}
    if not used:
        return
    for params in _tries(spec, used):
        try:
            type(spec).model_validate(
                {**fill(written, params), "params": data["params"]},
                strict=False,
                context={"filled": True, "file": file},
            )
            load_rules(fill(spec.trace_rules, params), source=file)  # as scoring reads them
        except TaskSpecError as error:
            field = re.sub(r"\[(\d+)\]", r".\1", error.field)  # trace_rules[0] too
            found = fields.get(field)
            if found is None:
                raise
            name, text = found
            raise TaskSpecError(
                file,
                error.field,
                text,
                f"parameter {name!r} ({spec.params[name].kind}) can be {error.value!r}, "
                f"which this field cannot hold: {error.problem}",
            ) from None


def _tries(spec: TaskSpec, used: set[str]) -> list[dict[str, Any]]:
    """Parameter sets that between them give each used parameter every value it lists."""
    listed: dict[str, list[Any]] = {}
    first: dict[str, Any] = {}
    for name, param in spec.params.items():
        listed[name] = values_of(param, first) if name in used else []
        first[name] = listed[name][0] if listed[name] else values_of(param, first)[0]
    rounds = max(len(v) for name, v in listed.items() if name in used)
    tries = []
    for n in range(rounds):
        params: dict[str, Any] = {}
        for name, param in spec.params.items():
            options = listed[name]
            if isinstance(param, TemplateParam):
                params[name] = param.draw(np.random.default_rng(0), params)
            else:
                params[name] = options[n % len(options)] if options else first[name]
        tries.append(params)
    return tries


def _whole_placeholders(value: Any, where: str = "") -> dict[str, tuple[str, str]]:
    """Field path -> (parameter, text) of each string that is exactly one placeholder."""
    if isinstance(value, str):
        name = whole(value)
        return {where: (name, value)} if name is not None else {}
    items: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    found: dict[str, tuple[str, str]] = {}
    for key, child in items:
        found.update(_whole_placeholders(child, f"{where}.{key}".lstrip(".")))
    return found

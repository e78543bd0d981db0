"""The cross-field rules of a task spec, checked when it is loaded: names that must refer
to something (collections, parameters, list indices), a site that exists, setup calls
that stay on the task's origins, JavaScript that parses, and fields written as a
placeholder that can hold their parameter's values (``spec/param_types.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webharness.errors import TaskSpecError
from webharness.spec.criteria import DbRecords
from webharness.spec.criteria_tree import js_expressions, walk
from webharness.spec.js_syntax import js_syntax_error
from webharness.spec.param_types import check_indices, check_value_types
from webharness.spec.params import PoolParam
from webharness.spec.setup_spec import check_setup
from webharness.spec.templating import placeholders
from webharness.trace.rules import load_rules

if TYPE_CHECKING:
    from webharness.spec.task_spec import TaskSpec


def check_consistency(file: str, spec: TaskSpec) -> None:
    """Cross-field rules: names that must refer to something, a site that exists."""
    if spec.site is None and spec.start_url is None:
        raise TaskSpecError(file, "start_url", None, "a task without a site needs a start_url")
    collections = spec.backend.collections if spec.backend else {}
    for criterion in walk(spec.success):
        if isinstance(criterion, DbRecords) and criterion.collection not in collections:
            raise TaskSpecError(
                file,
                "success",
                criterion.collection,
                "criteria name a collection the backend does not declare "
                f"(has: {sorted(collections)})",
            )
    _check_params(file, spec)
    _check_expects(file, spec)
    data = spec.model_dump(mode="json", exclude={"params", "site"})
    for field, text in _templated_strings(data):
        missing = placeholders(text) - set(spec.params)
        if missing:
            raise TaskSpecError(
                file, field, text, f"refers to unknown parameter(s) {sorted(missing)}"
            )
        check_indices(file, field, text, spec)
    for field, source in _javascript(data):
        problem = js_syntax_error(source)
        if problem is not None:
            raise TaskSpecError(file, field, source, f"not valid JavaScript: {problem}")
    check_value_types(file, spec)
    check_setup(file, spec.setup, spec.origin, spec.external, spec.allowed_origins)
    load_rules(spec.trace_rules, source=file)
    _check_site(file, spec)
    _check_in_place(file, spec)


def _check_params(file: str, spec: TaskSpec) -> None:
    """Withheld names are parameters; a parameter uses only the ones declared before it."""
    known = set(spec.params)
    for name in spec.withheld:
        if name not in known:
            raise TaskSpecError(file, "withheld", name, f"no such parameter (has: {sorted(known)})")
    declared: list[str] = []
    for name, param in spec.params.items():
        template = getattr(param, "template", "")
        later = placeholders(template) - set(declared)
        if later:
            raise TaskSpecError(
                file,
                f"params.{name}.template",
                template,
                f"uses {sorted(later)}, which must be declared before {name!r}",
            )
        others = param.distinct_from if isinstance(param, PoolParam) else []
        for other in others:
            if other not in declared:
                raise TaskSpecError(
                    file,
                    f"params.{name}.distinct_from",
                    other,
                    f"names no parameter declared before {name!r} (declared: {declared})",
                )
        declared.append(name)


def _check_in_place(file: str, spec: TaskSpec) -> None:
    """A task restarts in place only when its whole start state is the page's and its
    per-episode backend's: setup and an app make theirs outside the page."""
    if spec.declares_in_place and (spec.setup or spec.app):
        field = "restart_in_place" if spec.restart_in_place is not None else "page_start.in_place"
        raise TaskSpecError(
            file,
            field,
            spec.restart_in_place or True,
            "a task with setup or an app cannot restart in place (its start state is made "
            "outside the page, and a reset must make it again): remove one or the other",
        )


def _check_expects(file: str, spec: TaskSpec) -> None:
    """A golden step's ``expect`` is checked from the page's semantic state while the path
    is recorded (``golden/oracle.py``), where no JavaScript is run for it."""
    for p, path in enumerate(spec.golden_paths):
        for n, step in enumerate(path.steps):
            if step.expect is not None and js_expressions(step.expect):
                raise TaskSpecError(
                    file,
                    f"golden_paths.{p}.steps.{n}.expect",
                    step.expect.model_dump(exclude_none=True),
                    "an expect is checked on the page's semantic state while the path is "
                    "recorded, where no JavaScript runs: write it as an element, text, url, "
                    "heading, db or count-by-role criterion, or judge the JS in success",
                )


def _javascript(data: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every piece of JavaScript a spec holds, with its field path: JS criteria (in
    ``success`` and golden steps' ``expect``, a page reward's), init scripts, the ready
    condition, the page's own start."""
    if isinstance(data, dict):
        for key, value in data.items():
            field = f"{where}.{key}".lstrip(".")
            is_js = (
                (key == "expression" and data.get("kind") == "js")
                or (key in ("done", "reward") and data.get("kind") == "page_reward")
                or (key == "js" and (where.endswith("init_script") or where == "ready"))
                or (key in ("script", "goal") and where == "page_start")
                or (key == "restart_in_place" and not where)
            )
            if is_js and isinstance(value, str):
                yield field, value
            else:
                yield from _javascript(value, field)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _javascript(value, f"{where}.{i}")


def _check_site(file: str, spec: TaskSpec) -> None:
    """The folder a local site is served from exists (else every page is "Not found")."""
    if spec.start_url is not None or not spec.site:
        return
    folder = Path(spec.site)
    if not folder.is_absolute():  # data without a file: a built-in task's folder
        folder = Path(str(resources.files("webharness.tasks"))) / spec.id / spec.site
    if not folder.is_dir():
        raise TaskSpecError(
            file,
            "site",
            spec.site,
            f"no such folder ({folder}); a relative site is a folder next to the task.yaml",
        )


def _templated_strings(value: Any, where: str = "") -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, dict):
        return [
            p
            for k, v in value.items()
            if k != "params" or where
            for p in _templated_strings(v, f"{where}.{k}".strip("."))
        ]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _templated_strings(v, f"{where}.{i}")]
    return []

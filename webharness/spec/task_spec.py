"""Task specs (``tasks/<name>/task.yaml``): validated, then instantiated per seed.

A spec names the site, the seeded parameters, the success criteria and the golden paths.
Any problem in the file is a ``TaskSpecError`` that names the file, the field and the value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from webharness.actions import REF_ACTIONS, ActionKind
from webharness.errors import TaskSpecError
from webharness.spec.backend_spec import BackendSpec
from webharness.spec.criteria import Criterion, DbRecords, walk
from webharness.spec.params import ParamSpec, draw_params
from webharness.spec.templating import fill, placeholders
from webharness.trace.models import TaskInstance

SITE_ORIGIN = "http://webeval.test"


class Target(BaseModel):
    """A semantic target: an element by accessibility role and name."""

    model_config = ConfigDict(extra="forbid")

    role: str
    name: str
    exact: bool = True
    nth: int = 0  # which match, when several share role and name


class GoldenStep(BaseModel):
    """One step of a golden path, written against semantic targets."""

    model_config = ConfigDict(extra="forbid")

    action: ActionKind
    target: Target | None = None
    value: str | bool | int | float | None = (
        None  # text, option, key, url, message, ms, "dx,dy", checked
    )
    expect: Criterion | None = None  # must hold after the step
    optional: bool = False  # skipped when its target is not on the page
    note: str = ""

    @model_validator(mode="after")
    def _target_for_ref_actions(self) -> GoldenStep:
        if self.action in REF_ACTIONS and self.target is None:
            raise ValueError(f"action {self.action.value!r} needs a target (role and name)")
        return self


class GoldenPath(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    steps: list[GoldenStep] = Field(min_length=1)


class ReadySpec(BaseModel):
    """What must be true before the first observation and after each action."""

    model_config = ConfigDict(extra="forbid")

    selector: str | None = None  # a CSS selector that must be visible
    js: str | None = None  # a JS expression that must be truthy
    timeout_ms: int = Field(default=5000, ge=0, le=60_000)


class UserReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keywords: list[str] = Field(
        default_factory=list
    )  # any of these in the question; empty: any question
    text: str


class SimulatedUser(BaseModel):
    """Replies to ``ask_user`` questions (ask-user scenarios)."""

    model_config = ConfigDict(extra="forbid")

    replies: list[UserReply] = Field(min_length=1)
    fallback: str = "Sorry, I can't help with that."


class TaskSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    category: str
    title: str = ""
    instruction: str
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    site: str | None = "site"  # folder next to task.yaml, served at SITE_ORIGIN
    start_page: str = "/index.html"
    start_url: str | None = None  # an external site instead of a local one
    allowed_origins: list[str] = Field(default_factory=list)
    max_steps: int = Field(default=25, ge=1, le=1000)
    ready: ReadySpec | None = None
    backend: BackendSpec | None = None
    user: SimulatedUser | None = None
    withheld: list[str] = Field(
        default_factory=list
    )  # params the instruction leaves out on purpose
    success: Criterion
    golden_paths: list[GoldenPath] = Field(default_factory=list)
    trace_rules: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def env_id(self) -> str:
        return f"WebEval/{self.id}-v0"

    @property
    def origin(self) -> str:
        return _origin(self.start_url) if self.start_url else SITE_ORIGIN


class InstantiatedTask(BaseModel):
    """A spec with every ``{{param}}`` filled in for one seed."""

    model_config = ConfigDict(extra="forbid")

    spec: TaskSpec
    instance: TaskInstance


def load_task(path: str | Path) -> TaskSpec:
    """Read and validate a ``task.yaml``.

    Raises:
        TaskSpecError: naming the file, the field path and the value.
    """
    path = Path(path)
    raw = _read_yaml(path)
    if not isinstance(raw, dict):
        raise TaskSpecError(str(path), "<file>", raw, "a task spec is a mapping of fields")
    try:
        spec = TaskSpec.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise TaskSpecError(str(path), where, first.get("input"), first["msg"]) from None
    except RecursionError:
        raise TaskSpecError(str(path), "<file>", None, "nested too deeply to validate") from None
    _check_consistency(str(path), spec, raw)
    from webharness.diagnosis.trace_rules import (
        load_rules,
    )  # trace_rules imports task specs' errors

    load_rules(spec.trace_rules, source=str(path))
    return spec


# Real task files hold a few thousand values; aliases (*name) nested in aliases can expand
# a small file to billions ("billion laughs"), which validation would then walk.
MAX_SPEC_VALUES = 200_000


def _expanded_size(value: Any, sizes: dict[int, int]) -> int:
    """How many values ``value`` holds once aliases are expanded (each shared object
    counted once per use, computed once); -1 when a value contains itself."""
    if not isinstance(value, (dict, list)):
        return 1
    if id(value) in sizes:
        return sizes[id(value)]
    sizes[id(value)] = -1  # in progress: meeting it again below is a cycle
    total = 1
    for child in value.values() if isinstance(value, dict) else value:
        size = _expanded_size(child, sizes)
        if size < 0:
            return -1
        total += size
    sizes[id(value)] = total
    return total


def _read_yaml(path: Path) -> Any:
    """The file's YAML data; every way a file can be unreadable is a ``TaskSpecError``."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise TaskSpecError(str(path), "<file>", None, f"not valid YAML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise TaskSpecError(
            str(path), "<file>", None, f"not UTF-8 text (byte {exc.start}); save the file as UTF-8"
        ) from None
    except OSError as exc:
        raise TaskSpecError(str(path), "<file>", None, f"cannot read: {exc.strerror}") from None
    except RecursionError:
        raise TaskSpecError(str(path), "<file>", None, "nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise TaskSpecError(str(path), "<file>", None, f"a value cannot be read: {exc}") from None
    size = _expanded_size(raw, {})
    if size < 0:
        raise TaskSpecError(
            str(path), "<file>", None, "a value contains itself (a recursive alias)"
        )
    if size > MAX_SPEC_VALUES:
        raise TaskSpecError(
            str(path),
            "<file>",
            None,
            f"expands to more than {MAX_SPEC_VALUES:,} values (aliases within aliases); "
            "write it out plainly",
        )
    return raw


def _check_consistency(file: str, spec: TaskSpec, raw: dict[str, Any]) -> None:
    """Cross-field rules pydantic cannot see: names that must refer to something."""
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
        declared.append(name)
    for field, text in _templated_strings(raw):
        missing = placeholders(text) - known
        if missing:
            raise TaskSpecError(
                file, field, text, f"refers to unknown parameter(s) {sorted(missing)}"
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


def instantiate(spec: TaskSpec, seed: int | None, rng: np.random.Generator) -> InstantiatedTask:
    """Draw the seeded parameters and fill them into every templated field."""
    params = draw_params(spec.params, rng)
    data = spec.model_dump(exclude={"params"}, mode="json")
    filled = TaskSpec.model_validate(
        {**fill(data, params), "params": spec.model_dump(mode="json")["params"]}
    )
    instance = TaskInstance(
        task_id=spec.id,
        env_id=spec.env_id,
        category=spec.category,
        seed=seed,
        instruction=filled.instruction,
        params={**params, "_withheld": list(spec.withheld)},
    )
    return InstantiatedTask(spec=filled, instance=instance)


def _origin(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/')[0]}"

"""Task specs (``tasks/<name>/task.yaml``): validated, then instantiated per seed.

A spec names the site, the seeded parameters, the success criteria and the golden paths.
Any problem in the file is a ``TaskSpecError`` that names the file, the field and the value.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from typing_extensions import Self

from webharness.actions import REF_ACTIONS, ActionKind
from webharness.errors import TaskSpecError
from webharness.spec.backend_spec import BackendSpec
from webharness.spec.checks import SPEC_CONFIG, check_http_url, check_origin, spec_error
from webharness.spec.criteria import Criterion, DbRecords, walk
from webharness.spec.params import ParamSpec, PoolParam, draw_params
from webharness.spec.templating import fill, placeholders
from webharness.spec.yaml_loader import read_yaml
from webharness.trace.models import TaskInstance

SITE_ORIGIN = "http://webeval.test"
BUILTIN_NAMESPACE = "WebEval"  # the env ids of the built-in tasks: WebEval/<id>-v0


class Target(BaseModel):
    """A semantic target: an element by accessibility role and name."""

    model_config = SPEC_CONFIG

    role: str
    name: str
    exact: bool = True
    nth: int = 0  # which match, when several share role and name


class GoldenStep(BaseModel):
    """One step of a golden path, written against semantic targets."""

    model_config = SPEC_CONFIG

    action: ActionKind = Field(strict=False)  # from its name, as YAML and JSON write it
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
    model_config = SPEC_CONFIG

    id: str
    steps: list[GoldenStep] = Field(min_length=1)


class ReadySpec(BaseModel):
    """What must be true before the first observation and after each action."""

    model_config = SPEC_CONFIG

    selector: str | None = None  # a CSS selector that must be visible
    js: str | None = None  # a JS expression that must be truthy
    timeout_ms: int = Field(default=5000, ge=0, le=60_000)


class UserReply(BaseModel):
    model_config = SPEC_CONFIG

    keywords: list[str] = Field(
        default_factory=list
    )  # any of these in the question; empty: any question
    text: str


class SimulatedUser(BaseModel):
    """Replies to ``ask_user`` questions (ask-user scenarios)."""

    model_config = SPEC_CONFIG

    replies: list[UserReply] = Field(min_length=1)
    fallback: str = "Sorry, I can't help with that."


def _http_origin(origin: str) -> str:
    return origin if placeholders(origin) else check_origin(origin)


class TaskSpec(BaseModel):
    """A validated ``task.yaml``.

    Built from a file (``load_task``) or from data (``TaskSpec.model_validate``), any
    problem is a ``TaskSpecError`` naming the file (``<TaskSpec>`` for data), the field
    path and the value. A relative ``site`` is a folder next to the file; without a file,
    a folder of the built-in task with this id. Its env id is ``<namespace>/<id>-v0``: the
    namespace is the built-ins' (``WebEval``) unless the spec was registered under another
    (``register_tasks(folder, namespace="MyApp")``, ``in_namespace``).
    """

    model_config = SPEC_CONFIG
    _namespace: str = PrivateAttr(default=BUILTIN_NAMESPACE)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    category: str
    title: str = ""
    instruction: str
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    # the folder served at SITE_ORIGIN: relative to the folder of the task.yaml
    site: str | None = Field(default="site", validate_default=True)
    start_page: str = Field(default="/index.html", pattern=r"^/")
    start_url: str | None = None  # an external site instead of a local one
    allowed_origins: list[Annotated[str, AfterValidator(_http_origin)]] = Field(
        default_factory=list
    )
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

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        """Validate data as a spec; a problem is a ``TaskSpecError`` (not pydantic's
        ``ValidationError``). ``context={"file": path}`` names the file it came from."""
        try:
            return super().model_validate(obj, *args, **kwargs)
        except ValidationError as exc:
            raise spec_error(_source(kwargs.get("context")), obj, exc) from None
        except RecursionError:
            source = _source(kwargs.get("context"))
            raise TaskSpecError(source, "<file>", None, "nested too deeply to validate") from None

    @field_validator("site")
    @classmethod
    def _site_next_to_file(cls, site: str | None, info: ValidationInfo) -> str | None:
        file = (info.context or {}).get("file")
        if site and file and not Path(site).is_absolute():
            return str((Path(file).parent / site).resolve())
        return site

    @field_validator("start_url")
    @classmethod
    def _http_url(cls, url: str | None) -> str | None:
        return url if url is None or placeholders(url) else check_http_url(url)

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> TaskSpec:
        context = info.context or {}
        if not context.get("filled"):  # an instance of a spec that was checked as written
            _check_consistency(_source(context), self)
        return self

    @property
    def namespace(self) -> str:
        """The namespace of its env id (``WebEval`` for the built-ins)."""
        return self._namespace

    def in_namespace(self, namespace: str) -> TaskSpec:
        """This spec with the env id ``<namespace>/<id>-v0`` (a copy)."""
        copy = self.model_copy()
        copy._namespace = namespace
        return copy

    @property
    def env_id(self) -> str:
        return f"{self._namespace}/{self.id}-v0"

    @property
    def origin(self) -> str:
        return _origin(self.start_url) if self.start_url else SITE_ORIGIN


DATA_SOURCE = "<TaskSpec>"  # the "file" a spec built from data is named by


def _source(context: Any) -> str:
    return str((context or {}).get("file") or DATA_SOURCE)


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
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise TaskSpecError(str(path), "<file>", raw, "a task spec is a mapping of fields")
    return TaskSpec.model_validate(raw, context={"file": str(path)})


def _check_consistency(file: str, spec: TaskSpec) -> None:
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
    data = spec.model_dump(mode="json", exclude={"params", "site"})
    for field, text in _templated_strings(data):
        missing = placeholders(text) - set(spec.params)
        if missing:
            raise TaskSpecError(
                file, field, text, f"refers to unknown parameter(s) {sorted(missing)}"
            )
    from webharness.diagnosis.trace_rules import load_rules  # it imports TaskSpecError

    load_rules(spec.trace_rules, source=file)
    _check_site(file, spec)


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


def instantiate(spec: TaskSpec, seed: int | None, rng: np.random.Generator) -> InstantiatedTask:
    """Draw the seeded parameters and fill them into every templated field."""
    params = draw_params(spec.params, rng)
    data = spec.model_dump(exclude={"params"}, mode="json")
    filled = TaskSpec.model_validate(
        {**fill(data, params), "params": spec.model_dump(mode="json")["params"]},
        context={"filled": True},
    ).in_namespace(spec.namespace)
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

"""Task specs (``tasks/<name>/task.yaml``): validated, then instantiated per seed.

A spec names the site, the seeded parameters, the success criteria and the golden paths.
Any problem in the file is a ``TaskSpecError`` that names the file, the field and the value.
"""

from __future__ import annotations

from collections.abc import Mapping
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

from webharness.errors import TaskSpecError
from webharness.origins import origin_of
from webharness.spec.app_spec import APP_PLACEHOLDER, AppSpec, bind_origin, load_app
from webharness.spec.backend_spec import BackendSpec
from webharness.spec.checks import (
    SPEC_CONFIG,
    check_http_url,
    check_origin,
    check_regex,
    spec_error,
)
from webharness.spec.criteria import Criterion
from webharness.spec.criteria_tree import uses_scopes as _criteria_use_scopes
from webharness.spec.params import ParamSpec, draw_params
from webharness.spec.setup_spec import PageStart, SetupItem
from webharness.spec.steps import GoldenPath, GoldenStep, Target
from webharness.spec.templating import fill, placeholders
from webharness.spec.variables import expand_variables
from webharness.spec.yaml_loader import read_yaml
from webharness.trace.models import TaskInstance

__all__ = [  # the step models live in spec/steps.py; they are imported from here too
    "GoldenPath",
    "GoldenStep",
    "InstantiatedTask",
    "Target",
    "TaskSpec",
    "instantiate",
    "load_task",
]

SITE_ORIGIN = "http://webeval.test"
DATA_SOURCE = "<TaskSpec>"  # the "file" a spec built from data is named by
BUILTIN_NAMESPACE = "WebEval"  # the env ids of the built-in tasks: WebEval/<id>-v0


class ReadySpec(BaseModel):
    """What must be true before the first observation and after each action."""

    model_config = SPEC_CONFIG

    # A CSS selector whose first match (in the document, else in an open shadow root)
    # must be visible; a JS expression, in the page's world, that must be truthy.
    selector: str | None = None
    js: str | None = None
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
    _source: str = PrivateAttr(default=DATA_SOURCE)  # the file it was read from
    _app_url: str | None = PrivateAttr(default=None)  # the running app it is bound to

    # a pack's tasks keep their own names after its prefix: miniwob.click-button
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*(\.[a-z0-9]+(-[a-z0-9]+)*)?$")
    category: str
    title: str = ""
    instruction: str
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    # the folder served at SITE_ORIGIN: relative to the folder of the task.yaml
    site: str | None = Field(default="site", validate_default=True)
    start_page: str = Field(default="/index.html", pattern=r"^/")
    start_url: str | None = None  # an external site instead of a local one
    app: AppSpec | None = None  # how to start that site (spec/app_spec.py): ${APP_URL}
    # An external site without an app of its own: the version of its build (keys its golden
    # traces in the cache; none: recorded every run), and whether it keeps state on its
    # server (true: its episodes run one at a time, as they would share that state).
    app_version: str | None = None
    server_state: bool = True
    allowed_origins: list[Annotated[str, AfterValidator(_http_origin)]] = Field(
        default_factory=list
    )
    # origins whose static assets (fonts, images, styles, media) the page may load, and
    # nothing else: no navigation, no API call, no script
    asset_origins: list[Annotated[str, AfterValidator(_http_origin)]] = Field(default_factory=list)
    setup: list[SetupItem] = Field(default_factory=list)  # run on reset, in order
    page_start: PageStart | None = None  # a page that starts its own episode, after loading
    # JavaScript that brings the last episode's document to what a new load of the start
    # page shows, for the next episode's seed, params and backend: a reset runs it there
    # instead of loading (an in-place reset, docs/your-own-app.md)
    restart_in_place: str | None = Field(default=None, min_length=1)
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
    # ids the app generates beyond the built-in ones (regexes; compared as one placeholder)
    generated_ids: list[Annotated[str, AfterValidator(check_regex)]] = Field(default_factory=list)

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        """Validate data as a spec; a problem is a ``TaskSpecError``, not a ``ValidationError``.

        ``context={"file": path}`` names the file it came from.
        """
        try:
            spec = super().model_validate(obj, *args, **kwargs)
        except ValidationError as exc:
            raise spec_error(_source(kwargs.get("context")), obj, exc) from None
        except RecursionError:
            source = _source(kwargs.get("context"))
            raise TaskSpecError(source, "<file>", None, "nested too deeply to validate") from None
        spec._source = _source(kwargs.get("context"))
        return spec

    @field_validator("site")
    @classmethod
    def _site_next_to_file(cls, site: str | None, info: ValidationInfo) -> str | None:
        file = (info.context or {}).get("file")
        if site and file and file != DATA_SOURCE and not Path(site).is_absolute():
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
            from webharness.spec.consistency import check_consistency  # it reads TaskSpec

            _check_app(_source(context), self, context.get("app_url") or APP_PLACEHOLDER)
            check_consistency(_source(context), self)
        return self

    def bound_to(self, app_url: str) -> TaskSpec:
        """This spec on a running instance of its app, as a copy checked again.

        ``APP_PLACEHOLDER`` (what ``${APP_URL}`` is until an instance runs) is replaced by
        ``app_url`` in every field; the copy's ``app_url`` says where it is bound.

        Raises:
            ValueError: the task declares no app, or the spec is bound already.
            TaskSpecError: the bound spec is not valid, naming the spec's file.
        """
        if self.app is None or self._app_url is not None:
            problem = "declares no app" if self.app is None else f"is bound to {self._app_url}"
            raise ValueError(f"{self.env_id} {problem}: bind the spec as loaded, once")
        app_url = app_url.rstrip("/")
        data = bind_origin(self.model_dump(mode="json"), APP_PLACEHOLDER, app_url)
        bound = TaskSpec.model_validate(data, context={"file": self._source, "app_url": app_url})
        bound._namespace, bound._app_url = self._namespace, app_url
        return bound

    @property
    def app_url(self) -> str | None:
        """The running app the spec is bound to (``bound_to``); None when it is not."""
        return self._app_url

    @property
    def build_version(self) -> str | None:
        """The version of the external site's build: ``app.version``, else ``app_version``.

        None for a site of its own (its files are hashed) or an unversioned app.
        """
        return self.app.version if self.app is not None else self.app_version

    @property
    def source(self) -> str:
        """The file the spec was read from (``<TaskSpec>`` for one built from data).

        A spec error found later, at run time, names it.
        """
        return self._source

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
        """The task's Gymnasium id, ``<namespace>/<id>-v0``."""
        return f"{self._namespace}/{self.id}-v0"

    @property
    def origin(self) -> str:
        """Where the task's pages are served: ``start_url``'s origin, else the site's own."""
        return origin_of(self.start_url) if self.start_url else SITE_ORIGIN

    @property
    def declares_in_place(self) -> bool:
        """Whether the page restarts in the last episode's document when it qualifies.

        Declared by ``restart_in_place`` or ``page_start.in_place``.
        """
        start = self.page_start
        return self.restart_in_place is not None or (start is not None and start.in_place)

    @property
    def uses_scopes(self) -> bool:
        """Whether the page's nodes must be observed, which costs time on every step.

        They must for a ``within`` scope or a count by role in the criteria, a golden step
        or a setup step (the built-ins have none).
        """
        steps = [s for p in self.golden_paths for s in p.steps]
        steps += [i.step for i in self.setup if isinstance(i.step, GoldenStep)]
        return _criteria_use_scopes(self.success) or any(
            (s.target is not None and s.target.within is not None)
            or (s.expect is not None and _criteria_use_scopes(s.expect))
            for s in steps
        )

    @property
    def external(self) -> bool:
        """An app of its own (``start_url``) rather than a site served from ``site/``."""
        return self.start_url is not None


def _check_app(file: str, spec: TaskSpec, app_url: str) -> None:
    """Check that a task that declares an app starts on it and gives its version there.

    It starts on it with ``start_url: ${APP_URL}/...``; its version is ``app.version``.
    """
    if spec.app is None:
        return
    if spec.start_url is None or origin_of(spec.start_url) != origin_of(app_url):
        raise TaskSpecError(
            file, "start_url", spec.start_url, "a task that declares an app (app:, or an "
            "app.yaml beside it) starts on it: write start_url: ${APP_URL}/<path>, or remove "
            "the app declaration",
        )  # fmt: skip
    if spec.app_version is not None:
        raise TaskSpecError(
            file, "app_version", spec.app_version, "a task that declares an app gives its "
            "version there: write it as app.version (in app.yaml or the task's app:)",
        )  # fmt: skip


def _app_param(spec: TaskSpec) -> dict[str, str]:
    """The app instance a bound spec's episode runs on, kept with its parameters.

    Traces are compared with it read as the placeholder origin (``diagnosis/app_origin.py``).
    """
    return {"_app_url": spec.app_url} if spec.app_url is not None else {}


def _source(context: Any) -> str:
    return str((context or {}).get("file") or DATA_SOURCE)


class InstantiatedTask(BaseModel):
    """A spec with every ``{{param}}`` filled in for one seed."""

    model_config = ConfigDict(extra="forbid")

    spec: TaskSpec
    instance: TaskInstance


def load_task(path: str | Path, variables: Mapping[str, str] | None = None) -> TaskSpec:
    """Read and validate a ``task.yaml``, with its ``${NAME}`` variables filled in.

    The variables come from ``variables``, then the environment (``spec/variables.py``).

    Raises:
        TaskSpecError: naming the file, the field path and the value.
    """
    path = Path(path)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise TaskSpecError(str(path), "<file>", raw, "a task spec is a mapping of fields")
    app = load_app(path, variables, raw)  # its own instance variables are not filled here
    if app is not None:  # the env starts the app and binds the spec to it (``bound_to``)
        if "APP_URL" in (variables or {}):
            raise TaskSpecError(
                str(path), "app", "APP_URL", "the task declares its app, so the env starts "
                "it and fills ${APP_URL} from it: leave APP_URL out of the variables",
            )  # fmt: skip
        variables = {**(variables or {}), "APP_URL": APP_PLACEHOLDER}
    raw = expand_variables({k: v for k, v in raw.items() if k != "app"}, str(path), variables)
    return TaskSpec.model_validate({**raw, "app": app} if app else raw, context={"file": str(path)})


def instantiate(spec: TaskSpec, seed: int | None, rng: np.random.Generator) -> InstantiatedTask:
    """Draw the seeded parameters and fill them into every templated field."""
    params = draw_params(spec.params, rng, seed)
    data = spec.model_dump(exclude={"params"}, mode="json")
    # Lax: a filled-in value takes the type its field wants (load checked that it can).
    filled = TaskSpec.model_validate(
        {**fill(data, params), "params": spec.model_dump(mode="json")["params"]},
        strict=False,
        context={"filled": True, "file": spec.source},
    ).in_namespace(spec.namespace)
    filled._app_url = spec.app_url
    instance = TaskInstance(
        task_id=spec.id,
        env_id=spec.env_id,
        category=spec.category,
        seed=seed,
        instruction=filled.instruction,
        params={**params, "_withheld": list(spec.withheld), **_app_param(spec)},
    )
    # Both parts are validated already; validating them again would run the spec's checks
    # (meant for the file as written) on every reset.
    return InstantiatedTask.model_construct(spec=filled, instance=instance)

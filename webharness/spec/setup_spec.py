"""What a task declares to bring an app into its start state (``setup:`` in ``task.yaml``).

Each item is one of: an HTTP call to the app (its reset or fixture endpoint, the answer
checked), cookies, local/session storage, an init script, or a step in the action
vocabulary (a golden step on a semantic target, or a DSL string without a ref). They run
in the order written, on reset, before the first observation; ``{{param}}`` placeholders
are filled from the episode's parameters, so the start state follows the seed.

A call, a script or storage may reach only the task's own origins: a literal URL that
goes elsewhere is a ``TaskSpecError`` at load; a templated one is checked at run time.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from webharness import actions as A
from webharness.errors import TaskSpecError
from webharness.origins import origin_of
from webharness.spec.checks import SPEC_CONFIG, check_http_url
from webharness.spec.steps import GoldenStep
from webharness.spec.templating import placeholders

SETUP_KINDS = ("http", "cookies", "storage", "init_script", "step")


def _url(url: str) -> str:
    return url if placeholders(url) else check_http_url(url)


Url = Annotated[str, AfterValidator(_url)]  # an http(s) URL, or one with placeholders
# "json" is a field of YAML files; as an attribute it would shadow BaseModel.json.
_JSON_FIELD = ConfigDict(**SPEC_CONFIG, serialize_by_alias=True)


class HttpExpect(BaseModel):
    """What the answer of a setup call must be."""

    model_config = _JSON_FIELD

    status: int | list[int] = 200  # the status, or any of these
    json_: dict[str, Any] | None = Field(default=None, alias="json")  # these keys, these values


class HttpCall(BaseModel):
    """A call to the app (its reset or fixture endpoint), its answer checked."""

    model_config = _JSON_FIELD

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "POST"
    url: Url
    json_: Any = Field(default=None, alias="json")  # the body, sent as JSON
    headers: dict[str, str] = Field(default_factory=dict)
    expect: HttpExpect = Field(default_factory=HttpExpect)
    timeout_ms: int = Field(default=10_000, ge=1, le=120_000)


class Cookie(BaseModel):
    """A cookie of the task's origin (or of ``url``'s)."""

    model_config = SPEC_CONFIG

    name: str = Field(min_length=1)
    value: str | int | float | bool
    url: Url | None = None  # default: the task's start origin


class StorageSeed(BaseModel):
    """Keys for ``localStorage`` and ``sessionStorage`` of an origin (default the task's),
    set before the app's first page loads; a value that is not a string is stored as JSON."""

    model_config = SPEC_CONFIG

    origin: Url | None = None
    local: dict[str, Any] = Field(default_factory=dict)
    session: dict[str, Any] = Field(default_factory=dict)


class InitScript(BaseModel):
    """A script run in every document of the task's origins before the page's own: inline
    (``js``) or fetched once from the app (``url``)."""

    model_config = SPEC_CONFIG

    js: str | None = None
    url: Url | None = None

    @model_validator(mode="after")
    def _one_source(self) -> InitScript:
        if (self.js is None) == (self.url is None):
            raise ValueError("give either js (the script) or url (where to fetch it), not both")
        return self


class PageStart(BaseModel):
    """A page that poses and judges its own task (MiniWoB++'s): once the start page has
    loaded (its ``load`` event), ``script`` runs in the page's world to start the page's
    episode (seeded through a ``{{param}}``), and ``goal``, a JavaScript expression read
    right after, is the instruction the agent sees (``obs["goal"]``).

    ``in_place``: the script restarts the page's episode in the document it runs in (as
    MiniWoB++'s own env restarts its tasks), so a reset may run it again there instead of
    loading the page anew: an in-place reset (``docs/architecture.md``)."""

    model_config = SPEC_CONFIG

    script: str = Field(min_length=1)
    goal: str | None = None
    in_place: bool = False


class SetupItem(BaseModel):
    """One setup item: exactly one of ``http``, ``cookies``, ``storage``, ``init_script``,
    ``step``."""

    model_config = SPEC_CONFIG

    http: HttpCall | None = None
    cookies: list[Cookie] | None = None
    storage: StorageSeed | None = None
    init_script: InitScript | None = None
    step: GoldenStep | str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> SetupItem:
        given = [k for k in SETUP_KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                f"a setup item is exactly one of {', '.join(SETUP_KINDS)} (got {given or 'none'})"
            )
        return self

    @field_validator("step")
    @classmethod
    def _dsl_without_ref(cls, step: GoldenStep | str | None) -> GoldenStep | str | None:
        if isinstance(step, str):
            action = A.parse_action(step)  # an ActionParseError is a ValueError: named
            if action.ref_target is not None:
                raise ValueError(
                    "a setup step in the DSL cannot name a ref (refs come with observations); "
                    "write it as {action: ..., target: {role: ..., name: ...}}"
                )
        return step

    @property
    def kind(self) -> str:
        return next(k for k in SETUP_KINDS if getattr(self, k) is not None)

    def describe(self) -> str:
        """One line naming the item, for messages: ``http POST http://.../api/reset``."""
        if self.http is not None:
            return f"http {self.http.method} {self.http.url}"
        if self.step is not None:
            step = self.step
            if isinstance(step, str):
                return f"step {step}"
            target = f" {step.target.role} {step.target.name!r}" if step.target else ""
            return f"step {step.action.value}{target}"
        if self.init_script is not None:
            return f"init_script {self.init_script.url or '(inline)'}"
        return self.kind


def reachable_origins(origin: str, external: bool, allowed: list[str]) -> list[str]:
    """Where setup calls and scripts may go: an external app's origin, the allowed ones.
    A local site's origin is served by the route alone: nothing can be called there."""
    return [*([origin] if external else []), *allowed]


def check_setup(
    file: str, setup: list[SetupItem], origin: str, external: bool, allowed: list[str]
) -> None:
    """Every literal URL of the setup goes to an origin the task may reach.

    Raises:
        TaskSpecError: naming the item's field (``setup.2.http.url``) and the URL.
    """
    network = reachable_origins(origin, external, allowed)
    pages = [origin, *allowed]  # storage and cookies: the site's origin too
    for i, item in enumerate(setup):
        for field, url, may in _urls(item, network, pages):
            if url is None or placeholders(url) or origin_of(url) in may:
                continue
            raise TaskSpecError(
                file,
                f"setup.{i}.{field}",
                url,
                f"{origin_of(url)} is not an origin this task may reach (it may reach: "
                f"{', '.join(may) or 'none'}); add it to allowed_origins, or call the app's "
                "own origin"
                + (
                    ""
                    if external
                    else " (a local site's backend is seeded by backend: rows, not by HTTP calls)"
                ),
            )


def _urls(
    item: SetupItem, network: list[str], pages: list[str]
) -> list[tuple[str, str | None, list[str]]]:
    found: list[tuple[str, str | None, list[str]]] = []
    if item.http is not None:
        found.append(("http.url", item.http.url, network))
    if item.init_script is not None:
        found.append(("init_script.url", item.init_script.url, network))
    if item.storage is not None:
        found.append(("storage.origin", item.storage.origin, pages))
    for n, cookie in enumerate(item.cookies or ()):
        found.append((f"cookies.{n}.url", cookie.url, pages))
    return found

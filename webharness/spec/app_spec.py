"""How a task starts its own app (``app:`` in ``task.yaml``, or an ``app.yaml`` shared by a
pack of task folders): the command, its fixture data, when it is ready, how an episode
resets it, how it stops, and its version.

The declaration is read when the folder is loaded; ``webharness.apps.AppInstance`` runs it.
Four ``${NAME}`` variables are left in it at load and filled per instance:

- ``${PORT}``: a free port on 127.0.0.1, picked for the instance;
- ``${DATA_DIR}``: a fresh folder of the instance's own, holding a copy of ``data``;
- ``${APP_URL}``: ``http://127.0.0.1:${PORT}``;
- ``${PYTHON}``: the Python running webharness (``sys.executable``).

Any other ``${NAME}`` is filled at load like the rest of the file (``spec/variables.py``).
The command runs in the folder of the file that declares it (or ``cwd``, relative to it),
with ``PORT``, ``DATA_DIR`` and ``APP_URL`` also in its environment.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from webharness.errors import TaskSpecError
from webharness.spec.checks import SPEC_CONFIG, check_http_url, spec_error
from webharness.spec.variables import expand_variables
from webharness.spec.yaml_loader import read_yaml

__all__ = [
    "APP_FILE",
    "APP_PLACEHOLDER",
    "INSTANCE_VARIABLES",
    "AppSpec",
    "bind_origin",
    "load_app",
    "read_app",
]

APP_FILE = "app.yaml"  # beside task folders (their pack's), or inside one task folder
# ``${APP_URL}`` of a task's file until an instance runs: a name that never resolves
# (RFC 2606's ``.invalid``), so a spec loads and validates without its app, and its golden
# traces are keyed by the same spec whichever instance recorded them.
APP_PLACEHOLDER = "http://app.webharness.invalid"
INSTANCE_VARIABLES = ("PORT", "DATA_DIR", "APP_URL", "PYTHON")
_SAMPLE = {"PORT": "8000", "DATA_DIR": "/data", "APP_URL": "http://127.0.0.1:8000", "PYTHON": "py"}
_INSTANCE_VARIABLE = re.compile(r"\$\{(" + "|".join(INSTANCE_VARIABLES) + r")\}")
Status = int | list[int]  # the status, or any of these


def fill_instance(text: str, values: Mapping[str, str]) -> str:
    """``text`` with ``${PORT}``, ``${DATA_DIR}``, ``${APP_URL}`` and ``${PYTHON}`` filled."""
    return _INSTANCE_VARIABLE.sub(lambda m: values[m.group(1)], text)


def bind_origin(data: Any, origin: str, to: str) -> Any:
    """``data`` (a spec's JSON) with the origin ``origin`` written ``to`` in every string."""
    if isinstance(data, str):
        return data.replace(origin, to)
    if isinstance(data, dict):
        return {k: bind_origin(v, origin, to) for k, v in data.items()}
    if isinstance(data, list):
        return [bind_origin(v, origin, to) for v in data]
    return data


def _argv(command: str | list[str]) -> list[str]:
    """A command as written (a string split as a shell would, though no shell runs it)."""
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not argv or not argv[0]:
        raise ValueError("an empty command: write e.g. '${PYTHON} app.py --port ${PORT}'")
    return argv


def _command(command: str | list[str]) -> str | list[str]:
    _argv(command)
    return command


Command = Annotated[str | list[str], AfterValidator(_command)]  # a string or argv list


def _app_url(url: str) -> str:
    """A path on the app (``/healthz``) or a URL, once its instance variables are filled."""
    if url.startswith("/"):
        return url
    try:
        check_http_url(fill_instance(url, _SAMPLE))
    except ValueError as exc:
        raise ValueError(f"{exc}, or a path on the app such as '/healthz'") from None
    return url


AppUrl = Annotated[str, AfterValidator(_app_url)]


class AppReady(BaseModel):
    """The app is ready once ``url`` answers ``status`` (polled, up to ``timeout_s``)."""

    model_config = SPEC_CONFIG

    url: AppUrl = "/"  # a path on the app, or a URL (with ${PORT})
    status: Status = 200  # redirects are not followed: a 302 is a 302
    timeout_s: float = Field(default=30.0, gt=0, le=600)


class HttpReset(BaseModel):
    """A call to the app that brings it back to its start state, its status checked."""

    model_config = SPEC_CONFIG

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "POST"
    url: AppUrl
    status: Status = 200
    timeout_s: float = Field(default=10.0, gt=0, le=300)


class CommandReset(BaseModel):
    """A command that brings the app back to its start state (exit status 0)."""

    model_config = SPEC_CONFIG

    command: Command
    timeout_s: float = Field(default=30.0, gt=0, le=600)

    @property
    def argv(self) -> list[str]:
        return _argv(self.command)


def _reset_kind(reset: Any) -> str:
    """An HTTP call unless a command is written (the message then names the right fields)."""
    command = isinstance(reset, CommandReset) or (isinstance(reset, dict) and "command" in reset)
    return "command-run" if command else "http-call"


AppReset = Annotated[
    Annotated[HttpReset, Tag("http-call")] | Annotated[CommandReset, Tag("command-run")],
    Discriminator(_reset_kind),
]


class AppStop(BaseModel):
    """How the app is stopped: ``signal`` to its process group, then SIGKILL after
    ``grace_s``."""

    model_config = SPEC_CONFIG

    signal: Literal["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT"] = "SIGTERM"
    grace_s: float = Field(default=5.0, ge=0, le=120)


class AppSpec(BaseModel):
    """A validated app declaration: see the module's docstring."""

    model_config = SPEC_CONFIG

    command: Command
    cwd: str | None = Field(default=None, validate_default=True)  # made absolute at load
    env: dict[str, str] = Field(default_factory=dict)  # added to the command's environment
    data: str | None = None  # a fixture file or folder, copied into each ${DATA_DIR}
    ready: AppReady = Field(default_factory=AppReady)
    reset: AppReset | None = None  # before each episode
    stop: AppStop = Field(default_factory=AppStop)
    version: str | None = None  # of the app's build: keys its golden recordings
    per_worker: bool = True  # False: one instance at a time, so episodes run one by one

    @field_validator("cwd")
    @classmethod
    def _cwd(cls, cwd: str | None, info: ValidationInfo) -> str:
        folder = _declared_in(info)
        path = (folder / cwd).resolve() if cwd else folder
        if not path.is_dir():
            raise ValueError(f"no such folder ({path}): give the folder the command runs in")
        return str(path)

    @field_validator("data")
    @classmethod
    def _data(cls, data: str | None, info: ValidationInfo) -> str | None:
        if data is None:
            return None
        path = (_declared_in(info) / data).resolve()
        if not path.exists():
            raise ValueError(f"no such file or folder ({path}): give the app's fixture data")
        return str(path)

    @property
    def argv(self) -> list[str]:
        """The command as a list of arguments, its instance variables not filled yet."""
        return _argv(self.command)


def _declared_in(info: ValidationInfo) -> Path:
    """The folder of the file that declares the app (the current folder for data)."""
    file = (info.context or {}).get("file")
    return Path(file).parent.resolve() if file else Path.cwd()


def read_app(
    raw: Any, file: str, where: str = "", variables: Mapping[str, str] | None = None
) -> AppSpec:
    """Validate an app declaration read from ``file`` (``where``: its field path there).

    Raises:
        TaskSpecError: naming the file, the field and the value.
    """
    kept = {name: "${" + name + "}" for name in INSTANCE_VARIABLES}  # filled per instance
    raw = expand_variables(raw, file, {**(variables or {}), **kept}, where)
    try:
        return AppSpec.model_validate(raw, context={"file": file})
    except ValidationError as exc:
        error = spec_error(file, raw, exc)
    field = f"{where}.{error.field}" if where and error.field != "<root>" else where or error.field
    raise TaskSpecError(file, field, error.value, error.problem) from None


def load_app(
    task_file: str | Path, variables: Mapping[str, str] | None = None, raw: Any = None
) -> AppSpec | None:
    """The app a task declares, nearest first: the ``app:`` of its ``task.yaml``, else an
    ``app.yaml`` beside it, else an ``app.yaml`` in the folder above (a pack's); None when
    it declares none. It can be read before the task itself, whose ``${APP_URL}`` the
    running instance fills.

    Args:
        task_file: the task's ``task.yaml``.
        variables: ``${NAME}`` values, as given to ``register_tasks``.
        raw: the task file's data, when it has been read already.

    Raises:
        TaskSpecError: a declaration that is not valid, naming its file, field and value.
    """
    task_file = Path(task_file)
    raw = read_yaml(task_file) if raw is None else raw
    if isinstance(raw, dict) and raw.get("app") is not None:
        return read_app(raw["app"], str(task_file), "app", variables)
    for folder in (task_file.parent, task_file.parent.parent):
        shared = folder / APP_FILE
        if shared.is_file():
            data = read_yaml(shared)
            if not isinstance(data, dict):
                raise TaskSpecError(
                    str(shared), "<file>", data, "an app declaration is a mapping of fields "
                    "(command, ready, reset, ...); move the task folders elsewhere if this "
                    "file is not one",
                )  # fmt: skip
            return read_app(data, str(shared), "", variables)
    return None

"""``${NAME}`` variables in a ``task.yaml``: what the machine running the task knows and the
file cannot, such as the URL of a dev server on a port that changes from run to run.

They are filled in once, when the file is loaded, from the variables given to
``register_tasks(..., variables=...)`` and then the environment; ``${NAME:-default}``
gives a default. After that the spec is literal, so its origins are checked at load time
like any other. ``{{param}}`` placeholders are different: seeded, filled per episode.

Only upper-case names are variables (``${APP_URL}``), so a JavaScript template literal
in a criterion (```${count} items```) is left alone; ``$${`` writes a literal ``${``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from webharness.errors import TaskSpecError

VARIABLE = re.compile(r"\$(\$?)\{([A-Z][A-Z0-9_]*)(?::-([^}]*))?\}")


def expand_variables(
    raw: Any, file: str, variables: Mapping[str, str] | None = None, where: str = ""
) -> Any:
    """``raw`` (a loaded YAML tree) with every ``${NAME}`` in its strings filled in.

    Args:
        raw: the file's data.
        file: the file, for the error.
        variables: names given by the caller; they win over the environment.
        where: the field path of ``raw`` in the file.

    Raises:
        TaskSpecError: a variable that is neither given nor set, with no default (naming the
            field and the variable).

    Example:
        >>> expand_variables({"start_url": "${APP_URL:-http://localhost:8000}/"}, "t.yaml", {})
        {'start_url': 'http://localhost:8000/'}
    """
    if isinstance(raw, str):
        return _expand(raw, file, where, variables or {})
    if isinstance(raw, dict):
        return {
            k: expand_variables(v, file, variables, f"{where}.{k}".lstrip("."))
            for k, v in raw.items()
        }
    if isinstance(raw, list):
        return [expand_variables(v, file, variables, f"{where}.{i}") for i, v in enumerate(raw)]
    return raw


def _expand(text: str, file: str, where: str, variables: Mapping[str, str]) -> str:
    if "${" not in text:
        return text

    def value(match: re.Match[str]) -> str:
        escaped, name, default = match.groups()
        if escaped:
            return match.group(0)[1:]  # $${NAME} is the text ${NAME}
        found = variables.get(name, os.environ.get(name))
        if found is not None:
            return found
        if default is not None:
            return default
        raise TaskSpecError(
            file,
            where or "<root>",
            text,
            f"the variable {name} is not set: set it where the task runs "
            f"({name}=http://localhost:8000 webharness run --tasks ...), give it to "
            f"register_tasks(..., variables={{'{name}': ...}}), or write a default, "
            f"${{{name}:-http://localhost:8000}}",
        )

    return VARIABLE.sub(value, text)

"""Each trace's own app instance read as the placeholder origin, so traces recorded on
different instances of a task's app (each on a port of its own) compare as one app.

A trace of a task with its own app holds the URL of the instance it ran on
(``task.params["_app_url"]``, set by ``instantiate``). Before traces are compared (the
alignment, progress, scoring), that URL, and only that one, is written as
``APP_PLACEHOLDER`` in their states: any other origin, another port of the same host
included, stays as it was, so a real cross-origin difference still shows.
"""

from __future__ import annotations

import re

from webharness.semantic import SemanticState
from webharness.spec.app_spec import APP_PLACEHOLDER
from webharness.trace.models import EpisodeTrace

__all__ = ["APP_URL_PARAM", "on_placeholder", "state_on_placeholder", "traces_on_placeholder"]

APP_URL_PARAM = "_app_url"  # in TaskInstance.params: the instance the episode ran on


def _pattern(app_url: str) -> re.Pattern[str]:
    return re.compile(re.escape(app_url.rstrip("/")) + r"(?![0-9A-Za-z.\-])")  # not :80801


def on_placeholder(trace: EpisodeTrace) -> EpisodeTrace:
    """``trace`` with its app instance's URL written as the placeholder origin in every
    state (a copy); the trace itself when it ran on no instance."""
    app_url = trace.task.params.get(APP_URL_PARAM)
    if not isinstance(app_url, str) or not app_url or app_url == APP_PLACEHOLDER:
        return trace  # no instance, or read as the placeholder already
    text = _pattern(app_url).sub(APP_PLACEHOLDER, trace.model_dump_json())
    return EpisodeTrace.model_validate_json(text)


def traces_on_placeholder(traces: list[EpisodeTrace]) -> list[EpisodeTrace]:
    return [on_placeholder(trace) for trace in traces]


def state_on_placeholder(state: SemanticState, app_url: object) -> SemanticState:
    """A live state of an episode on the app instance at ``app_url``, as ``on_placeholder``
    writes the states of its trace; the state itself when ``app_url`` is not a URL."""
    if not isinstance(app_url, str) or not app_url:
        return state
    text = _pattern(app_url).sub(APP_PLACEHOLDER, state.model_dump_json())
    return SemanticState.model_validate_json(text)

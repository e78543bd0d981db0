"""The errors of reading an action: a DSL string, a dict, or a provider's action object."""

from __future__ import annotations

from webharness.errors import WebHarnessError


class ActionParseError(WebHarnessError, ValueError):
    """An action string that is not one call of a known action with literal arguments."""


class ProviderActionError(ActionParseError):
    """A provider's computer-use action object that webharness cannot read.

    Its message names the provider, the action type and the field at fault. ``env.step``
    reports it as the agent's ``invalid_argument``.
    """

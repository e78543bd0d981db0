"""Agent specs: an agent with its own options, written ``name[key=value,...]``.

A spec names a built-in agent or a ``package.module:ClassName``, optionally followed by
options in brackets: ``llm[model=gpt-4o-mini,temperature=0.2]``. Options are separated by
commas; a value is read as a YAML scalar (``0.2`` a number, ``true`` a boolean, ``null``
none, anything else text), and a value holding a comma or a bracket is quoted:
``llm[obs_parts='goal,url,axtree']``. Several specs are joined with commas outside the
brackets: ``oracle,llm[model=a],llm[model=b]``.

The spec without its price options is the agent's *label*: its row in the results and
the reports, and part of the key a resumed run skips episodes by.

Example:
    >>> spec = parse_agent_spec("llm[model=gpt-x, temperature=0.2]")
    >>> spec.name, spec.options, spec.label
    ('llm', {'model': 'gpt-x', 'temperature': 0.2}, 'llm[model=gpt-x,temperature=0.2]')
    >>> split_agent_specs("oracle,llm[model=a,history=2],llm[model=b]")
    ['oracle', 'llm[model=a,history=2]', 'llm[model=b]']
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from webharness.errors import WebHarnessError

#: Options the runner and the reports read, never passed to the agent: its price in USD
#: per million prompt and completion tokens.
PRICE_OPTIONS = ("price_prompt", "price_completion")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME = re.compile(r"[A-Za-z_][\w.]*(?::[A-Za-z_]\w*)?")
SPEC_SYNTAX = "write name or name[key=value,...], e.g. llm[model=gpt-4o-mini,temperature=0.2]"


class AgentSpecError(WebHarnessError, ValueError):
    """A malformed agent spec or option: names the text and the syntax that is allowed."""


class AgentSpec(BaseModel):
    """An agent and the options written with it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str  # a built-in name or package.module:ClassName
    options: dict[str, Any] = Field(default_factory=dict)  # in the order written

    @property
    def agent_options(self) -> dict[str, Any]:
        """The options passed to the agent (its price options left out)."""
        return {k: v for k, v in self.options.items() if k not in PRICE_OPTIONS}

    @property
    def label(self) -> str:
        """``name[key=value,...]`` without price options: the agent's row in the results."""
        return _written(self.name, self.agent_options)

    @property
    def text(self) -> str:
        """The whole spec, price options included, as it reads back."""
        return _written(self.name, self.options)

    def options_for_run(
        self, run_options: dict[str, Any], accepted: frozenset[str] | None
    ) -> dict[str, Any]:
        """What the agent is made with: the run's options it accepts (``accepted``, None
        for any), then its own, which win."""
        shared = {
            k: v
            for k, v in run_options.items()
            if k not in PRICE_OPTIONS and (accepted is None or k in accepted)
        }
        return {**shared, **self.agent_options}


def parse_agent_spec(text: str) -> AgentSpec:
    """Read one spec, ``name`` or ``name[key=value,...]``.

    Raises:
        AgentSpecError: no name, unbalanced brackets, text after ``]``, an option that is
            not ``key=value``, or a key given twice.
    """
    stripped = text.strip()
    name, bracket, rest = stripped.partition("[")
    name = name.strip()
    if not _NAME.fullmatch(name):
        if "=" in name:
            head, _, written = name.partition(":")
            hint = f"; options go in brackets: {head}[{written.replace(':', ',')}]"
        else:
            hint = ""
        raise AgentSpecError(f"{text!r} is not an agent spec{hint}: {SPEC_SYNTAX}")
    if not bracket:
        return AgentSpec(name=name)
    if not rest.endswith("]"):
        problem = "has text after ']'" if "]" in rest else "opens '[' without closing it"
        raise AgentSpecError(f"{text!r} {problem}: {SPEC_SYNTAX}")
    if not rest[:-1].strip():
        raise AgentSpecError(f"{text!r} has empty brackets: {SPEC_SYNTAX}")
    options: dict[str, Any] = {}
    for part in _split(rest[:-1], text):
        key, value = parse_option(part, where=f"in {text!r}")
        if key in options:
            raise AgentSpecError(f"{text!r} gives {key!r} twice; give each option once")
        options[key] = value
    return AgentSpec(name=name, options=options)


def split_agent_specs(text: str) -> list[str]:
    """The specs of a comma-separated list, split at the commas outside brackets."""
    return [part.strip() for part in _split(text, text, specs=True) if part.strip()]


def parse_option(text: str, where: str = "") -> tuple[str, Any]:
    """One ``key=value`` option, the value read as a YAML scalar.

    Raises:
        AgentSpecError: no ``=``, a key that is not a name, an empty value, or a value
            that is a list or a mapping.

    Example:
        >>> parse_option("temperature=0.2"), parse_option("vision=true")
        (('temperature', 0.2), ('vision', True))
    """
    key, equals, raw = (s.strip() for s in text.partition("="))
    at = f" {where}" if where else ""
    if not equals or not _KEY.fullmatch(key):
        raise AgentSpecError(
            f"{text.strip()!r}{at} is not key=value (a name, '=', then a value), "
            "e.g. model=gpt-4o-mini or temperature=0.2"
        )
    if not raw:
        raise AgentSpecError(f"{text.strip()!r}{at} has no value after '='")
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError:
        value = raw
    if isinstance(value, (list, dict)):
        raise AgentSpecError(
            f"{text.strip()!r}{at}: {key} must be a single value (a number, true/false or "
            f"text), not a {type(value).__name__}; quote it to pass it as text"
        )
    if not isinstance(value, (str, int, float, bool, type(None))):  # a YAML date: keep text
        value = raw
    return key, value


def _split(text: str, whole: str, specs: bool = False) -> list[str]:
    """``text`` cut at its commas outside quotes: a list of ``specs`` (cut outside brackets
    too), or one spec's options (where a bracket must be quoted)."""
    parts, current, quote, depth = [], "", "", 0
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "[" and specs:
            depth += 1
        elif char == "]" and specs:
            depth -= 1
            if depth < 0:
                raise AgentSpecError(f"{whole!r} closes ']' without opening it: {SPEC_SYNTAX}")
        elif char in "[]":
            raise AgentSpecError(
                f"{whole!r} has {char!r} inside an agent's options; quote a value that "
                f"holds one: {SPEC_SYNTAX}"
            )
        elif char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    if quote or depth:
        missing = f"a closing {quote}" if quote else "a closing ']'"
        raise AgentSpecError(f"{whole!r} lacks {missing}: {SPEC_SYNTAX}")
    return [*parts, current]


def _written(name: str, options: dict[str, Any]) -> str:
    if not options:
        return name
    return f"{name}[{','.join(f'{k}={_value_text(v)}' for k, v in options.items())}]"


def _value_text(value: Any) -> str:
    """A value as a spec writes it, read back to the same value."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    text = str(value)
    if isinstance(value, str) and (any(c in text for c in ",[]'\"") or _reads(text) != value):
        return "'" + text.replace("'", "''") + "'"
    return text


def _reads(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


#: Options that change how an agent is reached or what it logs, not how it acts: a resumed
#: run may change them (a longer timeout after timeouts, another key or endpoint).
OPERATIONAL_OPTIONS = frozenset(
    {"api_key", "base_url", "timeout_s", "max_attempts", "max_retry_wait_s", "log_prompts"}
)


def agent_identity(name: str, options: dict[str, Any], agent: Any) -> dict[str, Any]:
    """What a resumed run must play the same for an agent's episodes to share a row: the
    agent, its model as made (an environment variable may have chosen it), and the
    options that change how it acts (not ``OPERATIONAL_OPTIONS``, not prices).

    Example:
        >>> agent_identity("random", {"seed": 3, "log_prompts": True}, object())
        {'agent': 'random', 'options': {'seed': 3}}
    """
    identity: dict[str, Any] = {"agent": name}
    model = getattr(agent, "model", None)
    if isinstance(model, str) and model:
        identity["model"] = model
    identity["options"] = {
        k: v
        for k, v in sorted(options.items())
        if k not in OPERATIONAL_OPTIONS
        and k not in PRICE_OPTIONS
        and not (k == "model" and "model" in identity)
        and isinstance(v, (str, int, float, bool, type(None)))  # not a test's injected clock
    }
    return identity


def identity_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two ``agent_identity`` results, one phrase each.

    Example:
        >>> identity_changes({"agent": "llm", "model": "a", "options": {}},
        ...                  {"agent": "llm", "model": "b", "options": {"history": 2}})
        ["model 'a' -> 'b'", 'history unset -> 2']
    """
    changes = [
        f"{field} {_shown(before, field)} -> {_shown(after, field)}"
        for field in ("agent", "model")
        if before.get(field) != after.get(field)
    ]
    old, new = before.get("options", {}), after.get("options", {})
    for key in sorted(old.keys() | new.keys()):
        if old.get(key, _UNSET) != new.get(key, _UNSET):
            changes.append(f"{key} {_shown(old, key)} -> {_shown(new, key)}")
    return changes


_UNSET = object()


def _shown(values: dict[str, Any], key: str) -> str:
    return repr(values[key]) if key in values else "unset"

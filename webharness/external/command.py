"""An external agent's command: a template with the episode's values as placeholders.

The template is split like a shell line (``shlex``) *before* it is filled, so a goal with
spaces or quotes stays one argument and nothing is ever run through a shell. Each
placeholder is also set as an environment variable (``{goal}`` as ``WEBHARNESS_GOAL``), for
agents that read their settings from the environment. ``{{`` and ``}}`` are literal braces.

Example:
    >>> command = AgentCommand.parse('python agent.py --goal {goal} --mcp {mcp_url}', "mcp")
    >>> command.argv({"goal": "Buy 2 mugs", "mcp_url": "http://127.0.0.1:1/mcp/t"})[3]
    'Buy 2 mugs'
"""

from __future__ import annotations

import os
import shlex
import shutil
import string
from dataclasses import dataclass
from pathlib import Path

from webharness.errors import ConfigError, did_you_mean

#: The placeholders each door fills, by the agent's kind.
PLACEHOLDERS: dict[str, tuple[str, ...]] = {
    "mcp": ("goal", "mcp_url", "mcp_config", "episode_dir", "result_file"),
    "cdp": ("goal", "cdp_url", "ask_url", "episode_dir", "result_file"),
}


def variable(placeholder: str) -> str:
    """The environment variable that carries ``placeholder``: ``WEBHARNESS_GOAL`` for goal."""
    return f"WEBHARNESS_{placeholder.upper()}"


@dataclass(frozen=True)
class AgentCommand:
    """A checked command template: its words, and the placeholders they use."""

    words: tuple[str, ...]
    kind: str

    @classmethod
    def parse(cls, template: str, kind: str) -> AgentCommand:
        """Read ``template``; check its placeholders and that its program can be run.

        Raises:
            ConfigError: an empty template, unbalanced quotes or braces, a placeholder
                ``kind`` does not fill, or a program that is not found or not executable.
        """
        known = PLACEHOLDERS[kind]
        text = template.replace("\\\n", " ").strip()
        try:
            words = tuple(shlex.split(text))
        except ValueError as exc:  # No closing quotation
            raise ConfigError("command", template, f"cannot be split into words: {exc}") from None
        if not words:
            raise ConfigError("command", template, "is empty: give the agent's command line")
        for word in words:
            for name in _placeholders(template, word):
                if name not in known:
                    raise ConfigError(
                        "command",
                        template,
                        f"has an unknown placeholder {{{name}}}.{did_you_mean(name, known)} "
                        f"An {kind.upper()} agent's command may use "
                        + ", ".join(f"{{{k}}}" for k in known),
                    )
        _check_program(template, words[0])
        return cls(words, kind)

    @classmethod
    def from_file(cls, path: str | Path, kind: str) -> AgentCommand:
        r"""Read the template from a file (one command; ``\`` at a line's end continues it).

        Raises:
            ConfigError: the file cannot be read, or its command is not one (``parse``).
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                "command_file", str(path), f"cannot be read: {exc.strerror}"
            ) from None
        lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        return cls.parse("\n".join(lines), kind)

    def argv(self, values: dict[str, str]) -> list[str]:
        """The words with the placeholders filled from ``values``."""
        return [word.format_map(values) for word in self.words]

    def environment(self, values: dict[str, str]) -> dict[str, str]:
        """This process's environment, with each placeholder's variable set."""
        return {**os.environ, **{variable(k): v for k, v in values.items()}}


def _placeholders(template: str, word: str) -> list[str]:
    try:
        return [name for _, name, _, _ in string.Formatter().parse(word) if name is not None]
    except ValueError as exc:  # a single { or }
        raise ConfigError(
            "command", template, f"has a stray brace in {word!r} ({exc}); write {{{{ for {{"
        ) from None


def _check_program(template: str, program: str) -> None:
    if "{" in program:
        raise ConfigError("command", template, "must start with a program, not a placeholder")
    if os.sep in program:
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise ConfigError("command", template, f"program {program!r} is not an executable file")
    elif shutil.which(program) is None:
        raise ConfigError(
            "command", template, f"program {program!r} is not found on PATH; give its full path"
        )

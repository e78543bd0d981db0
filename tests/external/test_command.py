"""An external agent's command template: split before it is filled, so a goal stays one
argument and no shell runs; a template that cannot work is one ``webharness:`` line and
exit code 2 before anything runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from webharness.errors import ConfigError
from webharness.external.command import AgentCommand

GOAL = 'Buy "2" mugs; rm -rf / $(whoami) {not a placeholder}'


def test_a_goal_with_quotes_and_shell_words_stays_one_argument() -> None:
    command = AgentCommand.parse("echo --goal {goal} --mcp={mcp_url}", "mcp")
    argv = command.argv({"goal": GOAL, "mcp_url": "http://127.0.0.1:1/mcp/t"})
    assert argv == ["echo", "--goal", GOAL, "--mcp=http://127.0.0.1:1/mcp/t"]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert done.stdout == f"--goal {GOAL} --mcp=http://127.0.0.1:1/mcp/t\n"


def test_each_placeholder_is_also_an_environment_variable() -> None:
    command = AgentCommand.parse("env", "mcp")
    env = command.environment({"goal": GOAL, "mcp_url": "u"})
    assert env["WEBHARNESS_GOAL"] == GOAL and env["WEBHARNESS_MCP_URL"] == "u"
    assert env["PATH"]  # the runner's own environment is kept


def test_doubled_braces_are_literal() -> None:
    assert AgentCommand.parse("echo {{x}}", "mcp").argv({}) == ["echo", "{x}"]


def test_a_command_file_may_continue_lines_and_hold_comments(tmp_path: Path) -> None:
    path = tmp_path / "agent.cmd"
    path.write_text("# my agent\necho --goal {goal} \\\n  --mcp {mcp_url}\n")
    command = AgentCommand.from_file(path, "mcp")
    assert command.argv({"goal": "g", "mcp_url": "u"}) == ["echo", "--goal", "g", "--mcp", "u"]


@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("echo {gaol}", "unknown placeholder {gaol}. Did you mean: 'goal'?"),
        ("echo {cdp_url}", "An MCP agent's command may use {goal}, {mcp_url}"),
        ("echo {goal", "stray brace"),
        ("echo 'unclosed", "cannot be split into words"),
        ("", "is empty"),
        ("{mcp_url} --x", "must start with a program"),
        ("no-such-agent-xyz --mcp {mcp_url}", "'no-such-agent-xyz' is not found on PATH"),
        ("./not/here --mcp {mcp_url}", "is not an executable file"),
    ],
)
def test_a_template_that_cannot_work_is_refused_naming_what(template: str, says: str) -> None:
    with pytest.raises(ConfigError, match="command") as raised:
        AgentCommand.parse(template, "mcp")
    assert says in str(raised.value)


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ('mcp[command="echo {gaol}"]', "unknown placeholder {gaol}"),
        ('mcp[command="no-such-agent-xyz {mcp_url}"]', "is not found on PATH"),
        ("mcp", "give the agent's command or command_file, exactly one"),
        ('mcp[command="echo",answer=last]', "answer='last': choose one of stdout, file, none"),
        ('mcp[command="echo",timeout_s=0]', "timeout_s=0"),
    ],
)
def test_the_cli_refuses_it_in_one_line_before_anything_runs(
    spec: str, says: str, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "webharness.cli", "run", "--agents", spec, "--tasks", "form",
         "--seeds", "0", "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("webharness: ") and says in lines[0]
    assert not out.exists()


@pytest.mark.parametrize(
    ("agents", "upstream", "says"),
    [
        ('mcp[command="echo"]', "ftp://models.example/v1", "llm_proxy='ftp://models.example/v1'"),
        ("oracle", "http://127.0.0.1:9/v1", "no agent of the run takes 'llm_proxy'"),
    ],
)
def test_a_proxy_that_cannot_work_is_refused_in_one_line(
    agents: str, upstream: str, says: str, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "webharness.cli", "run", "--agents", agents, "--tasks", "form",
         "--seeds", "0", "--llm-proxy", upstream, "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], lines
    assert not out.exists()

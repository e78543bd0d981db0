"""A custom agent needs only ``reset`` and ``act`` (its name defaults to its class's), and the
``webharness`` command finds its module in the current folder, or says how to make it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from webharness.agents import load_agent
from webharness.golden.play import agent_name

COMMAND = str(Path(sys.executable).parent / "webharness")  # the console script a user runs
NAMELESS = '''
class Quitter:
    """Gives up at once: an agent with reset and act, and no name."""

    def reset(self, instance):
        pass

    def act(self, obs, info):
        return "done()"
'''


def run_command(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [COMMAND, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )


class Quitter:
    """Gives up at once: an agent with reset and act, and no name."""

    def reset(self, instance):
        pass

    def act(self, obs, info):
        return "done()"


def test_an_agent_without_a_name_loads_and_is_named_by_its_class():
    agent = load_agent("tests.agents.test_custom_agents:Quitter")
    assert agent_name(agent) == "Quitter" and agent_name(load_agent("random")) == "random"


@pytest.mark.browser
def test_the_command_runs_a_nameless_agent_from_a_module_in_the_current_folder(browser, tmp_path):
    (tmp_path / "nameless_agent.py").write_text(NAMELESS)
    done = run_command(
        tmp_path,
        "run",
        "--agents",
        "nameless_agent:Quitter",
        "--tasks",
        "form",
        "--seeds",
        "0",
        "--obs-mode",
        "text",
        "--no-screenshots",
        "--out",
        "run",
    )
    assert done.returncode == 0, done.stderr
    records = [
        json.loads(line)
        for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()
        if line.strip()
    ]
    assert [(r["runner"], r["not_executable"]) for r in records] == [
        ("nameless_agent:Quitter", False)
    ]


def test_the_command_says_how_to_find_a_module_it_cannot_import(tmp_path):
    done = run_command(
        tmp_path, "run", "--agents", "not_here:Agent", "--tasks", "form", "--out", "run"
    )
    assert done.returncode != 0
    assert "PYTHONPATH" in done.stderr and str(tmp_path) in done.stderr

"""The MiniWoB++ pack: what is registered from the installed library (and nothing without
it), the specs it generates, seeding, the command line and the report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from webharness import miniwob
from webharness.cli import main
from webharness.miniwob import library, specs
from webharness.runner import match_tasks
from webharness.spec.catalogue import get_task, task_names

DOCS = Path(__file__).parents[2] / "docs" / "miniwob.md"

WITHOUT_THE_LIBRARY = """
import json, sys
sys.modules["miniwob"] = None  # as if it were not installed: find_spec answers None
import webharness
from webharness.envs import registered_ids
print(json.dumps({"ids": registered_ids(), "loaded": sorted(
    m for m in ("miniwob", "selenium") if sys.modules.get(m) is not None)}))
"""
WITH_THE_LIBRARY = WITHOUT_THE_LIBRARY.replace('sys.modules["miniwob"] = None', "pass")


def _imported(script: str) -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_without_the_library_the_pack_is_empty_and_with_it_nothing_of_it_is_imported() -> None:
    without, with_it = _imported(WITHOUT_THE_LIBRARY), _imported(WITH_THE_LIBRARY)
    builtins = sorted(f"WebEval/{n}-v0" for n in task_names())
    assert without == {"ids": builtins, "loaded": []}
    assert with_it["loaded"] == [] and len(with_it["ids"]) == len(builtins) + len(PACK)


PACK = [f"WebEval/{name}-v0" for name in miniwob.pack_names()]


def test_every_task_of_the_library_is_registered_or_listed_with_its_reason() -> None:
    registered = {name.removeprefix(miniwob.PREFIX) for name in miniwob.pack_names()}
    assert set(library.task_names()) - registered == set(miniwob.NOT_REGISTERED)
    assert all(reason.strip() for reason in miniwob.NOT_REGISTERED.values())
    documented = DOCS.read_text(encoding="utf-8")
    assert all(f"`{task}`" in documented for task in miniwob.NOT_REGISTERED)


def test_a_spec_serves_the_librarys_page_and_follows_the_tasks_own_limits() -> None:
    spec = get_task("WebEval/miniwob.email-inbox-v0")
    assert Path(spec.site or "") == library.html_dir()
    assert spec.start_page == "/miniwob/email-inbox.html" and spec.category == "miniwob"
    assert spec.max_steps == 30  # its page gives it 30 s
    assert get_task("WebEval/miniwob.click-button-v0").max_steps == 10  # MiniWoB++'s default
    assert get_task("WebEval/miniwob.use-colorwheel-v0").max_steps == 7
    assert get_task("WebEval/miniwob.use-colorwheel-v0").success.threshold == 0.9
    assert get_task("WebEval/miniwob.find-greatest-v0").success.threshold == 1.0


def test_patterns_reach_the_pack_only_by_its_prefix() -> None:
    assert match_tasks(["WebEval/miniwob.*"]) == sorted(PACK)
    assert not any(i.startswith("WebEval/miniwob.") for i in match_tasks(["WebEval/*"]))
    assert match_tasks(["miniwob.click-button"]) == ["WebEval/miniwob.click-button-v0"]


def test_the_list_command_shows_the_pack(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--category", specs.CATEGORY]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == sorted(PACK)


@pytest.mark.parametrize("task", ["click-checkboxes", "email-inbox"])
def test_one_seed_gives_one_instance_and_another_seed_another(make_env, task: str) -> None:
    env = make_env(f"WebEval/miniwob.{task}-v0", obs_mode="text")
    first, again, other = (env.reset(seed=seed)[0] for seed in (5, 5, 6))
    assert first["goal"] and first["goal"] == again["goal"] and first["axtree"] == again["axtree"]
    assert (first["goal"], first["axtree"]) != (other["goal"], other["axtree"])


def test_the_goal_is_the_pages_utterance_and_the_pages_displays_are_hidden(make_env) -> None:
    env = make_env("WebEval/miniwob.click-button-v0", obs_mode="text")
    obs, info = env.reset(seed=3)
    assert obs["goal"] == info["task"].instruction == 'Click on the "no" button.'
    assert obs["axtree"].splitlines()[0] == '- text: Click on the "no" button.'
    assert "Last reward" not in obs["axtree"] and "START" not in obs["axtree"]


def test_a_run_plays_the_pack_and_its_report_groups_it(browser, tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["run", "--agents", "random", "--tasks", "WebEval/miniwob.click-test*", "--seeds", "0"]
    assert main([*argv, "--obs-mode", "text", "--no-screenshots", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    (runner,) = summary["runners"].values()
    assert list(runner["by_category"]) == ["miniwob"] and runner["by_category"]["miniwob"]["n"] == 3

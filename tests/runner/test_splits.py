"""A run's splits: ``--split NAME=SPEC`` parsed, checked against the run, kept in the
manifest, and reported by ``webharness report``."""

from __future__ import annotations

import json
import shutil

import pytest

from webharness.cli import main
from webharness.errors import ConfigError
from webharness.reporting.records import EvalAttempt
from webharness.reporting.splits import Split
from webharness.runner import RunConfig, RunFolder, report_run
from webharness.runner.splits import check_splits, parse_split, split_seeds


def test_a_split_is_seeds_or_tasks_written_as_the_run_writes_them():
    assert parse_split("seen=0-2,7") == Split(name="seen", seeds=[0, 1, 2, 7])
    assert parse_split(" seen = seeds: 5 ") == Split(name="seen", seeds=[5])
    assert parse_split("forms=tasks:form, WebEval/login*") == Split(
        name="forms", tasks=["form", "WebEval/login*"]
    )


@pytest.mark.parametrize(
    "text, says",
    [
        ("seen", "'seen' is not NAME=SPEC"),
        ("=0-4", "'=0-4' is not NAME=SPEC"),
        ("a b=0", "'a b' is not a split name"),
        ("seen=", "no seeds given"),
        ("seen=4-1", "the range '4-1' is empty"),
        ("seen=0-2,2", "2 is listed twice"),
        ("forms=tasks:", "split 'forms' names no task"),
        ("forms=task:form", "not 'task'. Did you mean: 'tasks'?"),
    ],
)
def test_a_malformed_split_names_itself(text, says):
    with pytest.raises(ConfigError) as caught:
        parse_split(text)
    assert (caught.value.field, caught.value.value) == ("splits", text)
    assert says in caught.value.problem


def test_check_splits_matches_task_patterns_to_env_ids():
    (forms,) = check_splits([parse_split("forms=tasks:form*,login")], [0], ["WebEval/*"])
    assert forms.tasks == ("WebEval/form-v0", "WebEval/login-v0")


@pytest.mark.parametrize(
    "splits, says",
    [
        (["a=0-1", "a=2"], "two splits are named 'a'"),
        (["a=0-1", "b=1-2"], "splits 'a' and 'b' share seeds 1;"),
        (["a=tasks:form", "b=tasks:form,stats"], "share tasks WebEval/form-v0;"),
        (["a=0-9"], "names seeds the run leaves out (3-9): add them to --seeds, or leave"),
        (["a=tasks:search"], "names tasks the run leaves out (WebEval/search-v0)"),
        (["a=tasks:nosuch"], "no task matches 'nosuch'"),
    ],
)
def test_a_run_refuses_splits_that_clash_or_reach_outside_it(splits, says):
    with pytest.raises(ConfigError) as caught:
        RunConfig.checked(
            agents=["oracle"], tasks=["form", "stats"], seeds=[0, 1, 2], splits=splits
        )
    assert caught.value.field == "splits" and says in caught.value.problem


def test_a_seed_split_and_a_task_split_may_share_episodes():
    config = RunConfig(
        agents=["oracle"], tasks=["form"], seeds=[0, 1], splits=["a=0", "b=tasks:form"]
    )
    assert [s.kind for s in config.splits] == ["seeds", "tasks"]


def test_the_seeds_the_splits_name_in_order():
    splits = [parse_split("unseen=100-101"), parse_split("seen=0,100"), parse_split("f=tasks:form")]
    assert split_seeds(splits) == [100, 101, 0]


def _folder_with(tmp_path, splits: list[str] | None) -> RunFolder:
    """A run folder as a run leaves it, with results but no traces (no browser needed)."""
    folder = RunFolder(tmp_path / "run")
    config = RunConfig(
        agents=["oracle"], tasks=["form"], seeds=[0, 1, 100, 101], splits=splits or []
    )
    folder.prepare(config, episodes=4)
    for seed in (0, 1, 100, 101):
        folder.append(
            EvalAttempt(
                scenario_id="WebEval/form-v0",
                category="form",
                runner="oracle",
                seed=seed,
                passed=seed < 100,
            )
        )
    return folder


def test_the_report_of_a_run_with_splits_shows_each_split_and_their_gap(tmp_path):
    folder = _folder_with(tmp_path, ["seen=0-1", "unseen=100-101"])
    assert folder.splits() == [
        Split(name="seen", seeds=[0, 1]),
        Split(name="unseen", seeds=[100, 101]),
    ]
    paths = report_run(folder)
    summary = json.loads(paths["json"].read_text())
    oracle = summary["runners"]["oracle"]
    assert {name: rate["rate"] for name, rate in oracle["by_split"].items()} == {
        "seen": 1.0,
        "unseen": 0.0,
    }
    (gap,) = oracle["split_gaps"]
    assert (gap["reference"], gap["split"], gap["gap"]) == ("seen", "unseen", 1.0)
    assert "## Generalisation: success by split" in paths["markdown"].read_text()


def test_the_report_of_a_run_made_without_splits_still_works(tmp_path):
    folder = _folder_with(tmp_path, None)
    manifest = json.loads(folder.manifest.read_text())
    del manifest["config"]["splits"]  # as a run made before splits wrote it
    folder.manifest.write_text(json.dumps(manifest))
    assert folder.splits() == []
    paths = report_run(folder)
    assert json.loads(paths["json"].read_text())["overall"]["by_split"] == {}
    assert "Generalisation" not in paths["html"].read_text()


def test_a_run_given_splits_reports_them(browser, finished_run, tmp_path, capsys):
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy)
    argv = ["run", "--agents", "oracle,heuristic", "--tasks", "form,stats", "--obs-mode", "text"]
    argv += ["--split", "seen=0", "--split", "unseen=1", "--split", "forms=tasks:form"]
    assert main([*argv, "--out", str(copy), "--resume"]) == 0  # its seeds: those of the splits
    assert "episodes to run: 0 of 8" in capsys.readouterr().err
    markdown = (copy / "report.md").read_text()
    assert "- **seen**: seeds 0\n- **unseen**: seeds 1\n- **forms**: tasks form" in markdown
    both = "100.0% [34.2%, 100.0%] (2/2)"  # the oracle passes both tasks of each seed
    assert f"| oracle | {both} | {both} | {both} |" in markdown
    assert (
        f"| oracle | seen | unseen | {both} | {both} | +0.0 pp [-65.8 pp, +65.8 pp] |" in markdown
    )
    html = (copy / "report.html").read_text()
    assert "Generalisation: success by split" in html and "Success by split" in html

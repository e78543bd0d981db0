"""Every bad command-line argument is one ``webharness:`` line on stderr naming the value
and what is allowed, with exit code 2: no traceback, no run folder, no empty report."""

from __future__ import annotations

import subprocess
import sys

import pytest

from webharness.cli import build_parser, main
from webharness.cli.run import run_config
from webharness.envs import registered_ids
from webharness.errors import ConfigError
from webharness.runner import RunConfig, parse_seeds
from webharness.runner.seeds import MAX_SEEDS

ALLOWED_AGENTS = "oracle, heuristic, random, llm, or 'package.module:ClassName'"

# (arguments, what the line must say); the run's own arguments come first.
BAD_RUN_ARGUMENTS = [
    (["--workers", "0"], "--workers 0: use a whole number of 1 or more"),
    (["--workers", "-1"], "--workers -1: use a whole number of 1 or more"),
    (["--trials", "0"], "--trials 0: use a whole number from 1 to 1,000"),
    (["--trials", "1000000"], "--trials 1000000: use a whole number from 1 to 1,000"),
    (["--agents", ""], f"--agents '': name at least one agent: {ALLOWED_AGENTS}"),
    (["--agents", ","], "--agents ',': name at least one agent"),
    (["--agents", "os:path"], "--agents 'os:path': 'os:path' names a module, not an agent class"),
    (
        ["--agents", "webharness.runner:RunConfig"],
        "'webharness.runner:RunConfig' has no reset or act method: not an agent class",
    ),
    (
        ["--agents", "orcale"],
        "--agents 'orcale': no agent called 'orcale'. Did you mean: 'oracle'?",
    ),
    (["--agents", "no_such_module:Agent"], "cannot import agent 'no_such_module:Agent'"),
    (["--agents", "oracle,oracle"], "--agents 'oracle,oracle': 'oracle' is listed twice"),
    (
        ["--perturbations", "bogus@2"],
        "--perturbations 'bogus@2': unknown perturbation 'bogus'. Known: latency, popup",
    ),
    (
        ["--perturbations", "popup@2"],
        "--perturbations 'popup@2': the strength after '@' in 'popup@2' must be a number "
        "from 0 to 1, not '2'",
    ),
    (["--perturbations", "popup@x"], "must be a number from 0 to 1, not 'x'"),
    (["--perturbations", "popup@nan"], "must be a number from 0 to 1, not 'nan'"),
    (["--perturbations", "@0.5"], "'@0.5' gives a strength but no perturbations before '@'"),
    (
        ["--perturbations", "popup,popup"],
        "--perturbations 'popup,popup': perturbation 'popup' is listed twice in 'popup,popup'",
    ),
    (["--perturbations", "popup;popup"], "--perturbations 'popup;popup': 'popup' is listed twice"),
    (["--perturbations", "popup:3"], "strength=3.0 is not a number in [0, 1]"),
    (
        ["--seeds", "5-1"],
        "--seeds '5-1': the range '5-1' is empty: write low-high with low <= high",
    ),
    (["--seeds", ""], "--seeds '': no seeds given: write a range 0-4, a list 0,3,7"),
    (["--seeds", "a-b"], "--seeds 'a-b': 'a-b' is not a seed or a range"),
    (["--seeds", "-1"], "--seeds '-1': '-1' is not a seed or a range"),
    (["--seeds", "0-4,3"], "--seeds '0-4,3': 3 is listed twice"),
    (["--seeds", "0-99999999"], f"--seeds '0-99999999': at most {MAX_SEEDS:,} seeds per run"),
    (["--seeds", f"0-{10**30}"], f"at most {MAX_SEEDS:,} seeds per run"),
    (["--tasks", ""], "--tasks '': name at least one task: an env id, a name or a pattern"),
    (["--tasks", "nosuch"], "--tasks 'nosuch': no task matches 'nosuch'."),
    (["--tasks", "form,WebEval/nothing*"], "no task matches 'WebEval/nothing*'"),
    (
        ["--agents", "llm[modl=a]"],
        "--agents 'llm[modl=a]': agent 'llm' has no option 'modl'. Did you mean: 'model'?",
    ),
    (["--agents", "oracle,llm[model=a"], "'oracle,llm[model=a' lacks a closing ']'"),
    (["--agents", "llm[model=a]]"], "closes ']' without opening it"),
    (["--agents", "llm:model=a"], "options go in brackets: llm[model=a]"),
    (["--agents", "llm[model]"], "'model' in 'llm[model]' is not key=value"),
    (["--agents", "llm[model=a],llm[ model=a ]"], "'llm[model=a]' is listed twice"),
    (["--agents", "llm[price_prompt=1]"], "give price_prompt and price_completion together"),
    (
        ["--agents", "random[done_prob=2]"],
        "--agents 'random[done_prob=2]': cannot be made: done_prob=2 must be between 0 and 1",
    ),
    (["--agent-option", "model"], "--agent-option 'model': 'model' is not key=value"),
    (["--agent-option", "model="], "--agent-option 'model=': 'model=' has no value after '='"),
    (
        ["--agent-option", "sed=2"],
        "--agent-option 'sed=2': no agent of the run takes 'sed'. oracle takes path_id",
    ),
    (
        ["--agents", "oracle,random", "--agent-option", "sed=2"],
        "no agent of the run takes 'sed'. Did you mean: 'seed'?",
    ),
    (["--agent-option", "x=[1, 2]"], "--agent-option 'x=[1, 2]': 'x=[1, 2]': x must be a single"),
    (
        ["--agents", "random", "--agent-option", "seed=1", "--agent-option", "seed=2"],
        "--agent-option 'seed=2': 'seed' is given twice",
    ),
    (["--prices", "/no/such.yaml"], "--prices '/no/such.yaml': cannot be read"),
    (["--split", "seen"], "--split 'seen': 'seen' is not NAME=SPEC: write NAME=SEEDS (seen=0-99)"),
    (["--split", "a=0-1", "--split", "a=2"], "--split 'a=2': two splits are named 'a'"),
    (["--split", "a=0-1", "--split", "b=1"], "--split 'b=1': splits 'a' and 'b' share seeds 1"),
    (["--seeds", "0-2", "--split", "a=0-9"], "--split 'a=0-9': split 'a' names seeds the run"),
    (["--split", "f=tasks:nosuch"], "--split 'f=tasks:nosuch': no task matches 'nosuch'"),
    (
        ["--tasks", "form", "--split", "f=tasks:login"],
        "--split 'f=tasks:login': split 'f' names tasks the run leaves out (WebEval/login-v0)",
    ),
    (["--split", "f=pages:1"], "--split 'f=pages:1': a split holds seeds or tasks, not 'pages'"),
    (["--workers", "two"], "argument --workers: invalid int value: 'two'"),
    (["--obs-mode", "audio"], "argument --obs-mode: invalid choice: 'audio'"),
]


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own errors exit from parse_args
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_usage_line(code: int, out: str, err: str, says: str) -> None:
    assert code == 2, (code, err)
    assert out == "" and err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("webharness: ") and "Traceback" not in err
    assert says in err, err


@pytest.mark.parametrize("args, says", BAD_RUN_ARGUMENTS, ids=lambda v: " ".join(v) or "''")
def test_a_bad_run_argument_is_one_line_naming_it_with_exit_code_2(tmp_path, capsys, args, says):
    out = tmp_path / "run"
    code, stdout, err = _cli(["run", "--out", str(out), *args], capsys)
    _assert_one_usage_line(code, stdout, err, says)
    assert not out.exists(), "a run folder was made for a run that cannot start"


@pytest.mark.parametrize(
    "argv, says",
    [
        (["evaluate", "--seeds", "9-0"], "--seeds '9-0': the range '9-0' is empty"),
        (["evaluate", "--workers", "0"], "--workers 0: use a whole number of 1 or more"),
        (["evaluate", "--perturbation", "popp"], "--perturbation 'popp': unknown perturbation"),
        (["list", "--category", "nope"], "--category 'nope': no scenario has it; categories: "),
        (["demo", "--seed", "-3"], "argument --seed: '-3' is not a seed: use a whole number"),
        (["record", "form", "--script", "/no/such.yaml"], "--script '/no/such.yaml': cannot be"),
        (["report", "/no/such/run"], "/no/such/run is not a run folder"),
        ([], "the following arguments are required: command"),
        (["fly"], "argument command: invalid choice: 'fly'"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_other_commands_refuse_bad_arguments_the_same_way(tmp_path, capsys, argv, says):
    if argv[:1] == ["evaluate"]:
        argv = [*argv, "--out", str(tmp_path / "run")]
    _assert_one_usage_line(*_cli(argv, capsys), says)


def test_an_unknown_task_names_the_closest_and_how_many_others(capsys):
    everything = registered_ids()
    _assert_one_usage_line(
        *_cli(["list", "--tasks", "serch"], capsys),
        "--tasks 'serch': no task matches 'serch'. Closest: 'WebEval/search-v0'; "
        f"{len(everything) - 1} others: webharness list shows them all.",
    )
    assert len(everything) > 100  # the catalogue the message must not spell out


def test_a_name_with_nothing_close_still_says_where_the_names_are(capsys):
    code, out, err = _cli(["run", "--tasks", "nosuch"], capsys)
    _assert_one_usage_line(code, out, err, "None is close; ")
    assert err.endswith(" are known: webharness list shows them all.\n")
    assert len(err) < 200, err


@pytest.mark.parametrize(
    "argv, says",
    [
        (["demo", "nosuch"], "webharness: task 'nosuch': no task matches 'nosuch'."),
        (
            ["demo", "--tasks", "form,login", "frm"],
            "webharness: task 'frm': it is not one of --tasks",
        ),
        (["demo", "WebEval/*"], "webharness: task 'WebEval/*': name one task to play; this names"),
        (["demo", "--tasks", "WebEval/*"], "--tasks 'WebEval/*': name one task to play;"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_a_message_names_the_argument_the_user_typed(capsys, argv, says):
    code, out, err = _cli(argv, capsys)
    _assert_one_usage_line(code, out, err, says)
    assert "--tasks None" not in err


def test_the_command_itself_prints_no_traceback():
    done = subprocess.run(
        [sys.executable, "-m", "webharness.cli", "run", "--workers", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "webharness: --workers 0: use a whole number of 1 or more\n"


def test_good_arguments_still_parse():
    assert parse_seeds("0-2, 7,9-10") == [0, 1, 2, 7, 9, 10]
    config = RunConfig.checked(
        agents=["oracle", "webharness.agents.random_agent:RandomAgent"],
        seeds=parse_seeds("0-1"),
        perturbations=["", "popup,latency@0.5", "theme:1"],
        trials=3,
    )
    assert config.perturbations[1] == "popup,latency@0.5" and config.trials == 3


def test_without_seeds_a_run_plays_the_seeds_its_splits_name():
    def config(*argv: str) -> RunConfig:
        return run_config(build_parser().parse_args(["run", "--agents", "oracle", *argv]))

    split = config("--split", "seen=0-1", "--split", "unseen=100-101", "--split", "f=tasks:form")
    assert split.seeds == [0, 1, 100, 101]
    assert [s.name for s in split.splits] == ["seen", "unseen", "f"]
    assert config("--split", "seen=1", "--seeds", "0-3").seeds == [0, 1, 2, 3]
    assert config().seeds == config("--split", "f=tasks:form").seeds == [0, 1, 2]


def test_the_run_help_documents_splits(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--split NAME=SPEC" in text and "NAME=tasks:IDS (forms=tasks:form,login)" in text
    assert "(default: the seeds of the splits, else 0-2)" in text


def test_a_config_built_in_code_refuses_the_same_values():
    with pytest.raises(ConfigError) as caught:
        RunConfig.checked(agents=["oracle"], seeds=[0, -2])
    assert (caught.value.field, caught.value.value) == ("seeds", -2)
    with pytest.raises(ValueError, match="popup@2"):  # pydantic's ValidationError
        RunConfig(agents=["oracle"], perturbations=["popup@2"])


def test_a_bad_prices_file_is_one_line_naming_the_model_and_field(tmp_path, capsys):
    prices = tmp_path / "prices.yaml"
    prices.write_text("gpt-x: {prompt: 0.15, completion: -1}\n")
    out = tmp_path / "run"
    argv = ["run", "--out", str(out), "--prices", str(prices)]
    _assert_one_usage_line(
        *_cli(argv, capsys),
        f"--prices '{prices}': gpt-x.completion: input should be greater than or equal to 0",
    )
    assert not out.exists()

"""Reports: the files written, a self-contained HTML page, charts and timelines."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from webharness.reporting.records import EvalAttempt
from webharness.reporting.render import (
    MAX_TIMELINE_STEPS,
    EpisodeView,
    StepView,
    format_summary_table,
    write_report,
)
from webharness.reporting.summary import Summary, summarize


class _Tags(HTMLParser):
    """Collects every tag with its attributes, to inspect what the page would load."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags_of(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def classes(tag: str, attrs: dict[str, str | None], wanted: str) -> list[str]:
    """The class names of a ``wanted`` tag; empty for any other tag."""
    return (attrs.get("class") or "").split() if tag == wanted else []


def attempt(**fields: Any) -> EvalAttempt:
    base: dict[str, Any] = {
        "scenario_id": "WebEval/form-v0",
        "category": "form",
        "runner": "agent",
        "seed": 0,
        "passed": True,
        "steps": 3,
    }
    return EvalAttempt(**{**base, **fields})


@pytest.fixture
def attempts() -> list[EvalAttempt]:
    failed = dict(
        passed=False,
        failure_code="action_no_effect",
        root_cause="execution",
        failure_step=2,
        first_divergence_step=1,
        failure_message="Submit is covered",
    )
    return [
        attempt(seed=0, **failed),
        attempt(seed=1),
        attempt(seed=1, trial=1),
        attempt(
            seed=0,
            perturbations="popup",
            passed=False,
            failure_code="observation_miss",
            root_cause="perception",
        ),
        attempt(runner="oracle", scenario_id="WebEval/search-v0", category="search", steps=5),
        attempt(
            runner="oracle",
            seed=2,
            passed=False,
            not_executable=True,
            failure_code="runtime_error",
            error="page crashed",
        ),
    ]


def screenshot(folder: Path, name: str, colour: str) -> Path:
    path = folder / f"{name}.png"
    Image.new("RGB", (64, 48), colour).save(path)
    return path


def view_of(a: EvalAttempt, folder: Path, steps: int = 3) -> EpisodeView:
    agent = [
        (i, None if i == 0 else f'click("e{i}")', screenshot(folder, f"a{a.seed}_{i}", "blue"), "")
        for i in range(steps)
    ]
    golden = [
        StepView(
            index=i,
            action=None if i == 0 else f'click("g{i}")',
            screenshot=screenshot(folder, f"g{i}", "green"),
        )
        for i in range(3)
    ]
    return EpisodeView(
        attempt=a,
        agent_steps=agent,
        golden_steps=golden,
        matched=[(i, min(i, 2)) for i in range(steps)],
        divergence_step=a.first_divergence_step,
        evidence={"code": a.failure_code, "stage": a.root_cause},
    )


def report(tmp_path: Path, attempts: list[EvalAttempt], **kwargs: Any) -> str:
    paths = write_report(tmp_path / "run", attempts, summarize(attempts), **kwargs)
    return paths["html"].read_text(encoding="utf-8")


def test_report_writes_summary_json_markdown_and_html(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    paths = write_report(tmp_path / "run", attempts)
    assert {k: p.name for k, p in paths.items()} == {
        "json": "summary.json",
        "markdown": "report.md",
        "html": "report.html",
    }
    summary = Summary.model_validate(json.loads(paths["json"].read_text()))
    assert summary == summarize(attempts)
    assert not list((tmp_path / "run").glob("*.tmp"))  # atomic writes leave no debris


def test_html_is_self_contained(tmp_path: Path, attempts: list[EvalAttempt]) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    html = report(tmp_path, attempts, episodes={a.key(): view_of(a, shots) for a in attempts})
    links = [
        (tag, name, value)
        for tag, attrs in tags_of(html)
        for name, value in attrs.items()
        if name in {"src", "href", "xlink:href", "srcset", "data", "action"}
    ]
    assert links, "the page should embed images and chart references"
    assert all(v and (v.startswith("data:") or v.startswith("#")) for _, _, v in links), links
    assert "http://" not in html and "https://" not in html
    assert not [t for t, _ in tags_of(html) if t in {"script", "link", "iframe", "object"}]


def test_html_contains_every_chart_as_inline_svg(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    html = report(tmp_path, attempts)
    for title in (
        "Success by category",
        "Failure codes",
        "Root-cause stages",
        "Steps per episode",
        "Robustness by perturbation",
    ):
        assert f"<figcaption>{title}" in html
    assert html.count("<svg") == 5
    ids = [attrs["id"] for _, attrs in tags_of(html) if attrs.get("id")]
    assert len(ids) == len(set(ids)), "chart element ids must be unique across the page"


def test_html_timeline_shows_agent_and_golden_screenshots_and_divergence(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    failed = attempts[0]
    html = report(tmp_path, attempts, episodes={failed.key(): view_of(failed, shots)})
    images = {attrs["alt"]: attrs["src"] for tag, attrs in tags_of(html) if tag == "img"}
    assert images["agent step 1"].startswith("data:image/jpeg;base64,")
    assert images["golden step 1"].startswith("data:image/jpeg;base64,")
    divergent = [attrs for tag, attrs in tags_of(html) if "divergent" in classes(tag, attrs, "tr")]
    assert len(divergent) == 1
    assert "first divergence" in html and "failure step" in html
    assert "action_no_effect" in html and "Submit is covered" in html


def test_failed_episodes_come_first_and_timelines_are_capped(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    episodes = {a.key(): view_of(a, shots) for a in attempts}
    html = report(tmp_path, attempts, episodes=episodes, max_episodes=2)
    badges = [classes(tag, attrs, "span") for tag, attrs in tags_of(html)]
    assert [b for b in badges if "badge" in b] == [["badge", "fail"], ["badge", "fail"]]
    assert f"Showing 2 of {len(attempts)}" in html


def test_missing_screenshot_shows_a_placeholder(tmp_path: Path) -> None:
    a = attempt(passed=False)
    view = EpisodeView(attempt=a, agent_steps=[(0, None, tmp_path / "gone.png", None)])
    html = report(tmp_path, [a], episodes={a.key(): view})
    assert "no screenshot" in html and "<img" not in html


def test_long_timeline_keeps_a_window_round_the_divergence(tmp_path: Path) -> None:
    a = attempt(passed=False, steps=80, first_divergence_step=50)
    view = EpisodeView(
        attempt=a, agent_steps=[(i, "noop()") for i in range(80)], divergence_step=50
    )
    html = report(tmp_path, [a], episodes={a.key(): view})
    rows = [attrs for tag, attrs in tags_of(html) if tag == "td" and attrs.get("class") == "step"]
    assert len(rows) <= MAX_TIMELINE_STEPS
    assert "#50<span" in html and "#0</td>" in html and "#79</td>" in html
    assert "step(s) not shown" in html


def test_step_view_accepts_tuples_with_optional_parts() -> None:
    step = StepView.model_validate((4, 'fill("e1", "x")', None, None))
    assert step == StepView(index=4, action='fill("e1", "x")')


def test_markdown_has_summary_category_and_failure_code_tables(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    markdown = write_report(tmp_path / "run", attempts)["markdown"].read_text()
    assert "| runner | n | success [95% CI] |" in markdown
    assert "| category | agent | oracle |" in markdown
    assert "| action_no_effect | 1 | 0 | 1 |" in markdown
    assert "| agent | `popup` |" in markdown  # the robustness gap table
    assert "| agent | 2 | 1 | 100.0% | 100.0% |" in markdown  # pass^k over seed 1's trials


def test_markdown_escapes_pipes_in_names(tmp_path: Path) -> None:
    markdown = write_report(tmp_path, [attempt(runner="a|b")])["markdown"].read_text()
    assert "| a\\|b |" in markdown


def test_format_summary_table_lists_each_runner_and_the_pool(attempts: list[EvalAttempt]) -> None:
    table = format_summary_table(summarize(attempts)).splitlines()
    assert table[0].split()[:2] == ["runner", "n"]
    assert [line.split()[0] for line in table[2:]] == ["agent", "oracle", "all"]
    assert "1 (50.0%)" in table[3]
    assert "50.0% [15.0%, 85.0%] (2/4)" in table[2]  # the oracle's harness fault is left out

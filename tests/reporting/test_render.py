"""Reports: the files written, a self-contained HTML page, charts and timelines."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from webharness.reporting import formats as fmt
from webharness.reporting.records import EvalAttempt
from webharness.reporting.render import (
    MAX_TIMELINE_STEPS,
    EpisodeView,
    StepView,
    format_summary_table,
    write_report,
)
from webharness.reporting.splits import Split
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


def thumbnails(html: str) -> dict[str, str]:
    """Each screenshot's label (``agent step 1``) and the class that holds its picture."""
    tags = tags_of(html)
    shown = {}
    for (tag, attrs), (_, inner) in zip(tags, tags[1:]):
        if tag == "summary" and "thumb" in (inner.get("class") or ""):
            shown[str(attrs["aria-label"])] = (inner["class"] or "").split()[1]
    return shown


def image_of(html: str, css_class: str) -> str:
    """The picture the stylesheet gives a screenshot class."""
    rule = re.search(r"\." + css_class + r"\{[^}]*url\(([^)]*)\)", html)
    assert rule is not None, css_class
    return rule.group(1)


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


def failed_timeline(tmp_path: Path, attempts: list[EvalAttempt]) -> str:
    """The page of a report showing the timeline of the first (failed) attempt."""
    shots = tmp_path / "shots"
    shots.mkdir()
    failed = attempts[0]
    return report(tmp_path, attempts, episodes={failed.key(): view_of(failed, shots)})


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
    assert links, "the page should hold chart references"
    assert all(v and (v.startswith("data:") or v.startswith("#")) for _, _, v in links), links
    urls = re.findall(r"url\(([^)]*)\)", html)
    assert urls, "the screenshots should be in the stylesheet"
    assert all(u.startswith(("data:image/webp;base64,", "#")) for u in urls), urls
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
    html = failed_timeline(tmp_path, attempts)
    shown = thumbnails(html)
    assert image_of(html, shown["agent step 1"]).startswith("data:image/webp;base64,")
    assert image_of(html, shown["golden step 1"]).startswith("data:image/webp;base64,")
    assert shown["agent step 1"] != shown["golden step 1"]  # blue and green
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
    assert "no screenshot" in html and not thumbnails(html)


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


def test_markdown_lists_every_failed_episode_with_its_diagnosis_and_trace_folder(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    attempts[0] = attempts[0].model_copy(
        update={
            "failure_runner_up": "validation_error",
            "failure_decided_by": "first_at_divergence",
            "decisive_step": 2,
            "trace_dir": "episodes/agent/form-v0/clean/seed-0-t0",
        }
    )
    markdown = write_report(tmp_path / "run", attempts)["markdown"].read_text()
    section = markdown.split("## Failed episodes", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 1 + 3  # the header, two failures and the harness fault
    assert rows[1] == (
        "| agent | WebEval/form-v0 | 0 | `action_no_effect` (`validation_error`) | "
        "first_at_divergence | execution | 2 / 2 | Submit is covered | "
        "[`episodes/agent/form-v0/clean/seed-0-t0`](episodes/agent/form-v0/clean/seed-0-t0) |"
    )
    assert "`popup`" in rows[2] and "| perception | – / – |" in rows[2]
    assert "not executable" in rows[3] and "page crashed" in rows[3]


def test_html_lists_the_failed_episodes_too(tmp_path: Path, attempts: list[EvalAttempt]) -> None:
    html = report(tmp_path, attempts)
    table = html.split('<table class="failed">', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 1 + 3
    assert "Submit is covered" in table and "page crashed" in table


def test_the_robustness_gap_is_shown_with_its_interval(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    markdown = write_report(tmp_path / "run", attempts)["markdown"].read_text()
    (row,) = [line for line in markdown.splitlines() if line.startswith("| agent | `popup` |")]
    assert row.endswith(
        "| 66.7% [20.8%, 93.9%] (2/3) | 0.0% [0.0%, 79.3%] (0/1) | +66.7 pp [-25.0 pp, +93.9 pp] |"
    ), row


def test_reports_show_success_per_split_and_the_gap_between_splits(tmp_path: Path) -> None:
    runs = [attempt(seed=s, passed=s < 4) for s in range(5)]
    runs += [attempt(seed=s, passed=s < 101) for s in range(100, 105)]
    splits = [
        Split(name="seen", seeds=list(range(5))),
        Split(name="unseen", seeds=[100, 101, 102, 103, 104]),
    ]
    summary = summarize(runs, splits=splits)
    paths = write_report(tmp_path / "run", runs, summary)
    markdown = paths["markdown"].read_text()
    assert "- **seen**: seeds 0-4\n- **unseen**: seeds 100-104" in markdown
    gap = fmt.gap(summary.runners["agent"].split_gaps[0])
    assert gap.startswith("+60.0 pp [")
    rates = "80.0% [37.6%, 96.4%] (4/5) | 20.0% [3.6%, 62.4%] (1/5)"
    assert f"| agent | {rates} |" in markdown  # success per split
    assert f"| agent | seen | unseen | {rates} | {gap} |" in markdown
    html = paths["html"].read_text()
    assert "Generalisation: success by split" in html and gap in html
    assert "<figcaption>Success by split" in html
    assert json.loads(paths["json"].read_text())["runners"]["agent"]["by_split"]["unseen"]["n"] == 5


def test_reports_without_splits_have_no_split_view(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    paths = write_report(tmp_path / "run", attempts)
    assert "split" not in paths["markdown"].read_text().lower()
    assert "by split" not in paths["html"].read_text()


def test_the_timeline_shows_the_diagnosis_briefly_with_numbers_written_alike(
    tmp_path: Path,
) -> None:
    a = attempt(
        passed=False,
        failure_code="validation_error",
        failure_runner_up="action_no_effect",
        failure_decided_by="first_at_divergence",
        failure_step=2,
        decisive_step=1,
        progress_rate=0.5,
        fidelity=0.6090193558586564,
    )
    view = EpisodeView(
        attempt=a,
        agent_steps=[(i, f'click("e{i}")') for i in range(3)],
        evidence={"fidelity": 0.6090193558586564, "progress_rate": 0.5, "extra_steps": []},
    )
    html = report(tmp_path, [a], episodes={a.key(): view})
    evidence = html.split('<dl class="evidence">', 1)[1].split("</dl>", 1)[0]
    facts = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", evidence))
    assert facts["runner-up"] == "action_no_effect"
    assert facts["decided by"] == "first_at_divergence"
    assert facts["decisive step"] == "1"
    assert (facts["fidelity"], facts["progress"], facts["extra steps"]) == (
        "60.9%",
        "50.0%",
        "none",
    )
    assert "0.609019" not in html and "progress rate" not in facts
    decisive = [attrs for tag, attrs in tags_of(html) if "decisive" in classes(tag, attrs, "tr")]
    assert len(decisive) == 1 and "decisive step</span>" in html


def test_a_thumbnail_opens_full_size_on_click_without_a_script(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    html = failed_timeline(tmp_path, attempts)
    tags = tags_of(html)
    opened = [i for i, (tag, attrs) in enumerate(tags) if "shot" in classes(tag, attrs, "details")]
    assert opened
    for i in opened:  # details > summary > thumbnail and the enlarged view of one picture
        (summary, _), (_, thumb), (_, zoom) = tags[i + 1 : i + 4]
        assert summary == "summary"
        assert thumb["class"] == f"thumb {zoom['class'].split()[1]}" and "zoom" in zoom["class"]
    assert "details.shot[open] .zoom { display: block; position: fixed;" in html
    assert html.count("data:image/webp") == 2  # the blue agent steps and green goldens, once


def test_a_criterion_that_threw_is_shown_beside_the_failed_episode(
    tmp_path: Path, attempts: list[EvalAttempt]
) -> None:
    thrown = "js criterion 'cart.items.length > 0' threw TypeError: cart is undefined"
    attempts[0] = attempts[0].model_copy(update={"criteria_error": thrown})
    paths = write_report(tmp_path / "run", attempts)
    markdown = paths["markdown"].read_text()
    (row,) = [line for line in markdown.splitlines() if "Submit is covered" in line]
    assert f"Submit is covered (criteria_error: {thrown})" in row
    assert "criteria_error: js criterion &#39;cart.items.length" in paths["html"].read_text()

"""Re-scoring a run folder offline, and its report."""

from __future__ import annotations

from playwright.sync_api import sync_playwright

from webharness.browser.host import LAUNCH_ARGS, find_chromium
from webharness.cli import main
from webharness.runner import RunFolder, report_run, rescore, score_run

_BACKGROUND = "e => getComputedStyle(e).backgroundImage"
SCORED = (
    "passed",
    "failure_code",
    "root_cause",
    "failure_step",
    "first_divergence_step",
)


def test_rescoring_saved_traces_offline_gives_the_same_results(browser, finished_run):
    live = RunFolder(finished_run).read_attempts()
    offline = {a.key(): a for a in score_run(finished_run)}
    for attempt in live:
        again = offline[attempt.key()]
        assert [getattr(again, f) for f in SCORED] == [getattr(attempt, f) for f in SCORED]


def test_the_score_command_writes_the_rescored_attempts_beside_the_results(
    browser, finished_run, tmp_path, capsys
):
    copy = RunFolder(tmp_path / "run")
    copy.root.mkdir()
    copy.results.write_bytes(RunFolder(finished_run).results.read_bytes())
    assert main(["score", str(copy.root)]) == 0  # no traces here: every attempt kept as is
    assert copy.rescored.read_text() == "".join(
        a.model_dump_json() + "\n" for a in copy.read_attempts()
    )
    assert str(copy.rescored) in capsys.readouterr().out


def test_the_report_and_score_commands_refuse_a_folder_that_is_not_a_run(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert main(["score", str(tmp_path)]) == 2
    assert "is not a run folder: it has no results.jsonl" in capsys.readouterr().err


def test_the_html_report_renders_in_a_browser_without_errors(browser, finished_run):
    paths = report_run(finished_run)
    assert paths == {
        "json": finished_run / "summary.json",
        "markdown": finished_run / "report.md",
        "html": finished_run / "report.html",
    }
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), args=list(LAUNCH_ARGS))
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(paths["html"].resolve().as_uri())
        charts = page.locator("svg").count()
        page.locator("details.timeline-episode").first.evaluate("d => d.open = true")
        thumbnail = page.locator("details.timeline-episode[open] .thumb").first
        thumbnails, visible = page.locator(".thumb").count(), thumbnail.is_visible()
        thumbnail.click()  # opens the picture over the page, as large as it fits
        enlarged = page.locator("details.shot[open] .zoom")
        box, picture = enlarged.bounding_box(), enlarged.evaluate(_BACKGROUND)
        enlarged.click()  # and closes it
        closed = page.locator("details.shot[open]").count() == 0
        browser.close()
    assert errors == []
    assert charts >= 2 and thumbnails > 0 and visible  # success by category, steps
    assert box is not None and (box["width"], box["height"]) == (1280, 720)  # the viewport
    assert picture.startswith('url("data:image/webp;base64,') and closed
    assert paths["markdown"].read_text().startswith("#")


def test_the_tasks_trace_rules_are_scored_per_phase(browser, finished_run):
    attempts = RunFolder(finished_run).read_attempts()
    oracle = next(a for a in attempts if a.runner == "oracle" and "form" in a.scenario_id)
    quitter = next(a for a in attempts if a.runner == "heuristic" and "form" in a.scenario_id)
    good = rescore(finished_run, oracle)[1].rules
    assert (
        good is not None
        and good.score == 1.0
        and set(good.phases) == {"fill", "submit", "navigate"}
    )
    other = rescore(finished_run, quitter)[1].rules
    assert other is not None and 0.0 <= other.score <= 1.0

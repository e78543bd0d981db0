"""The pointer's position on a pointer step's screenshot: a marker placed in percent of
the screenshot, titled with what the pointer hit; none on a step without a pointer."""

from __future__ import annotations

import re
from pathlib import Path

from PIL import Image

from webharness.action_result import ActionResult, PointerHit
from webharness.reporting.records import EvalAttempt
from webharness.reporting.render import EpisodeView, StepView, write_report
from webharness.reporting.summary import summarize
from webharness.runner.rescore import _pointer_marker
from webharness.semantic import SemanticState
from webharness.trace.models import StepRecord


def test_a_pointer_step_shows_a_marker_where_the_pointer_acted(tmp_path: Path) -> None:
    shot = tmp_path / "a.png"
    Image.new("RGB", (200, 100), "blue").save(shot)
    a = EvalAttempt(
        scenario_id="WebEval/form-v0", category="form", runner="px", seed=0, passed=False
    )
    steps = [
        StepView(index=0, screenshot=shot),
        StepView(
            index=1,
            action="mouse_click(50, 25)",
            screenshot=shot,
            pointer=(50, 25),
            pointer_hit="pointer at (50, 25): button 'Save'",
        ),
    ]
    view = EpisodeView(attempt=a, agent_steps=steps)
    html = write_report(tmp_path / "run", [a], summarize([a]), episodes={a.key(): view})[
        "html"
    ].read_text(encoding="utf-8")
    markers = re.findall(r'<span class="pointer" style="([^"]*)" title="([^"]*)"', html)
    assert markers == [("left:25.0%;top:25.0%", "pointer at (50, 25): button &#39;Save&#39;")]


def test_the_marker_reads_the_recorded_hit() -> None:
    hit = PointerHit(x=10, y=20, role="button", name="Save", ref="e3", covered_by="dialog")
    step = StepRecord(index=1, state=SemanticState(), action_result=ActionResult(pointer=hit))
    assert _pointer_marker(step) == {
        "pointer": (10, 20),
        "pointer_hit": "pointer at (10, 20): button 'Save', covered by dialog",
    }
    off = ActionResult(pointer=PointerHit(x=5000, y=20, in_viewport=False))
    assert _pointer_marker(StepRecord(index=1, state=SemanticState(), action_result=off)) == {}

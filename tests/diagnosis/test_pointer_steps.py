"""A pixel step read by what its pointer hit (offline, on traces made by hand): the
recorded hit gives it the signature of a click on that element, an old trace's point is
tested against the boxes instead, a click on no control is a perception miss, a point where
an earlier observation showed a moved control is stale, and a focus click or a text
selection is no divergence."""

from __future__ import annotations

from webharness.action_result import ActionResult, PointerHit
from webharness.diagnosis.alignment import align
from webharness.diagnosis.failures import FailureCode as C
from webharness.diagnosis.failures import Stage as S
from webharness.diagnosis.failures import annotate
from webharness.semantic import Element, SemanticState
from webharness.trace.models import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance
from webharness.trace.signatures import action_signature

SAVE = Element(ref="e1", role="button", name="Save", bbox=(0, 0, 100, 40))
NAME = Element(ref="e2", role="textbox", name="Name", bbox=(0, 100, 200, 30))
START = SemanticState(url="http://x.test/", elements=[SAVE, NAME])


def trace(*steps: tuple[str, ActionResult | None, SemanticState], success: bool = False):
    records = [StepRecord(index=0, state=START)]
    records += [
        StepRecord(index=i, action=a, action_result=r, state=s)
        for i, (a, r, s) in enumerate(steps, 1)
    ]
    task = TaskInstance(task_id="t", env_id="T/t-v0", category="c", seed=0, instruction="i")
    return EpisodeTrace(task=task, steps=records, end=EpisodeEnd(success=success))


def hit(x: float, y: float, role: str | None = None, name: str | None = None, ref=None):
    return ActionResult(
        state_changed=False, pointer=PointerHit(x=x, y=y, role=role, name=name, ref=ref)
    )


def test_a_recorded_hit_gives_a_pixel_click_the_signature_of_a_ref_click():
    pixel = trace(("mouse_click(50, 20)", hit(50, 20, "button", "Save", "e1"), START))
    ref = trace(("click('e1')", ActionResult(), START))
    assert action_signature(pixel, 1).same_effect(action_signature(ref, 1))


def test_the_recorded_hit_wins_over_the_boxes_and_an_old_trace_falls_back_to_them():
    covered = hit(50, 115, "button", "Save", "e1")  # e.g. a label pointing at another control
    assert action_signature(trace(("mouse_click(50, 115)", covered, START)), 1).name == "Save"
    old = trace(("mouse_click(50, 115)", ActionResult(), START))
    assert action_signature(old, 1).name == "Name"


def test_a_click_on_no_control_is_a_perception_miss():
    report = annotate(trace(("mouse_click(600, 600)", hit(600, 600, "main", "", "e9"), START)))
    assert (report.code, report.step, report.stage) == (C.ACTION_NO_EFFECT, 1, S.PERCEPTION)
    assert report.evidence.target_interactive is False


def test_a_point_where_an_earlier_observation_showed_a_moved_control_is_stale():
    moved = SAVE.model_copy(update={"ref": "e5", "bbox": (0, 200, 100, 40)})
    after = START.model_copy(update={"elements": [moved, NAME], "text": "A notice"})
    report = annotate(
        trace(
            ("click('e2')", ActionResult(state_changed=True), after),
            ("mouse_click(50, 20)", hit(50, 20), after),
        )
    )
    assert (report.code, report.step, report.stage) == (C.STALE_INDEX, 2, S.PERCEPTION)
    assert report.evidence.element is not None and report.evidence.element.name == "Save"
    assert report.evidence.stale_point is True


def test_a_focus_click_and_a_text_selection_are_no_divergence():
    typed = START.model_copy(
        update={"elements": [SAVE, NAME.model_copy(update={"value": "Ada"})], "focused": "e2"}
    )
    focused = START.model_copy(update={"focused": "e2"})
    golden = trace(("fill('e2', 'Ada')", ActionResult(state_changed=True), typed), success=True)
    golden = golden.model_copy(update={"golden_path": "g"})
    pixel = trace(
        ("mouse_click(100, 115)", hit(100, 115, "textbox", "Name", "e2"), focused),
        ("press('Control+a')", ActionResult(), focused),
        ("keyboard_type('Ada')", ActionResult(state_changed=True), typed),
        success=True,
    )
    alignment = align(pixel, [golden])
    assert alignment.first_divergence_step is None and alignment.progress_rate == 1.0
    assert [(p.agent_step, p.golden_step, p.action_matches) for p in alignment.matched] == [
        (0, 0, True),
        (3, 1, True),
    ]

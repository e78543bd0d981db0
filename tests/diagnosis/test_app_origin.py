"""Traces recorded on two instances of one app (two ports) compare as one app: each trace's
own instance URL is read as the placeholder origin, and only that one, so the same pages
align 1:1 while a page on another origin still differs."""

from __future__ import annotations

from webharness.diagnosis.alignment import align
from webharness.diagnosis.app_origin import on_placeholder, state_on_placeholder
from webharness.semantic import Element, SemanticState
from webharness.spec.app_spec import APP_PLACEHOLDER
from webharness.trace.models import EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance

PATHS = ["/books", "/books/add", "/books?added=1"]


def _trace(
    app_url: str | None, paths: list[str] = PATHS, origin: str | None = None
) -> EpisodeTrace:
    params = {"_app_url": app_url} if app_url else {}
    task = TaskInstance(
        task_id="t", env_id="X/t-v0", category="forms", seed=0, instruction="i", params=params
    )
    base = origin or app_url or "http://127.0.0.1:8000"
    steps = [
        StepRecord(
            index=i,
            action=None if i == 0 else f"click('e{i}')",
            state=SemanticState(
                url=base + path,
                title=f"page {path}",
                elements=[Element(ref=f"e{i}", role="link", name=f"Next {i}")],
            ),
        )
        for i, path in enumerate(paths)
    ]
    return EpisodeTrace(task=task, steps=steps, end=EpisodeEnd(terminated=True, success=True))


def test_only_the_trace_s_own_instance_is_read_as_the_placeholder():
    trace = _trace("http://127.0.0.1:4912")
    trace.steps[1].state.text = "see http://127.0.0.1:49129/x and http://127.0.0.1:4913/"
    read = on_placeholder(trace)
    assert [s.state.url for s in read.steps] == [APP_PLACEHOLDER + p for p in PATHS]
    assert read.steps[1].state.text == trace.steps[1].state.text  # other ports stay
    assert trace.steps[0].state.url == "http://127.0.0.1:4912/books"  # a copy
    assert on_placeholder(_trace(None)) == _trace(None)  # no instance: as it is
    state = state_on_placeholder(trace.steps[0].state, "http://127.0.0.1:4912")
    assert state.url == f"{APP_PLACEHOLDER}/books"


def test_two_instances_align_as_one_run_and_another_origin_still_differs():
    golden, agent = _trace("http://127.0.0.1:4912"), _trace("http://127.0.0.1:5001")
    read = align(on_placeholder(agent), on_placeholder(golden))
    assert read.first_divergence_step is None and read.progress_rate == 1.0
    assert read.start_similarity == 1.0 and read.fidelity == 1.0
    as_recorded = align(agent, golden)  # every state's URL differs: a run unlike the golden
    assert as_recorded.start_similarity < 1.0 and as_recorded.fidelity < 0.5
    elsewhere = _trace("http://127.0.0.1:5001", origin="http://127.0.0.1:7000")
    assert align(on_placeholder(elsewhere), on_placeholder(golden)).fidelity < 0.5

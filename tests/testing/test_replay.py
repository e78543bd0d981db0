"""TraceReplayEnv: a saved trace played back as an env, so wrappers are tested without a
browser. The replay must give the wrappers what the live env gave them."""

from __future__ import annotations

import pytest

from webharness.action_result import ActionErrorKind, ActionResult
from webharness.diagnosis.failures import FailureCode, annotate
from webharness.semantic import Element, SemanticState
from webharness.testing.replay import ReplayError, TraceReplayEnv
from webharness.trace.io import load_trace
from webharness.trace.models import EndedBy, EpisodeEnd, EpisodeTrace, StepRecord, TaskInstance
from webharness.wrappers import FailureAnnotation, RecordTrace

TASK = TaskInstance(
    task_id="form", env_id="WebEval/form-v0", category="form", seed=4, instruction="Sign up"
)


def page(name: str = "", saved: bool = False) -> SemanticState:
    return SemanticState(
        url="http://webeval.test/" + ("done" if saved else "form"),
        elements=[
            Element(ref="e1", role="textbox", name="Name", value=name, in_viewport=True),
            Element(ref="e2", role="button", name="Save", in_viewport=True),
        ],
    )


def trace(*, refused_save: bool = False) -> EpisodeTrace:
    """Fill the name, click Save, done(); with ``refused_save`` the click is refused."""
    save = (
        ActionResult.failed(ActionErrorKind.NOT_INTERACTABLE, "covered by a popup")
        if refused_save
        else ActionResult(ok=True, state_changed=True)
    )
    return EpisodeTrace(
        task=TASK,
        steps=[
            StepRecord(index=0, state=page()),
            StepRecord(
                index=1,
                action='fill("e1", "Ada")',
                action_result=ActionResult(ok=True, state_changed=True),
                state=page("Ada"),
            ),
            StepRecord(
                index=2,
                action='click("e2")',
                action_result=save,
                state=page("Ada", not refused_save),
            ),
            StepRecord(
                index=3,
                action="done()",
                action_result=ActionResult(ok=True),
                state=page("Ada", not refused_save),
                success=not refused_save,
                reward=0.0 if refused_save else 1.0,
            ),
        ],
        end=EpisodeEnd(terminated=True, success=not refused_save, ended_by=EndedBy.DONE),
    )


def replay(env) -> list[tuple]:
    """Play the recorded actions; every step's outputs."""
    outputs = [env.reset()]
    while True:
        outputs.append(env.step(env.unwrapped.next_action))
        if outputs[-1][2] or outputs[-1][3]:
            return outputs


def test_the_replay_gives_the_recorded_states_results_and_end() -> None:
    recorded = trace(refused_save=True)
    outputs = replay(TraceReplayEnv(recorded))
    (obs, info), *steps = outputs
    assert info["semantic_state"] == recorded.steps[0].state and obs["goal"] == "Sign up"
    for (_obs, reward, _, _, info), record in zip(steps, recorded.steps[1:], strict=True):
        assert info["semantic_state"] == record.state and info["action"] == record.action
        assert info["action_result"] == record.action_result and reward == record.reward
    assert steps[1][0]["last_action_error"] == "covered by a popup"
    assert steps[-1][2] is True and steps[-1][4]["episode_end"] == recorded.end


def test_the_observations_are_in_the_observation_space() -> None:
    env = TraceReplayEnv(trace())
    for output in replay(env):
        assert env.observation_space.contains(output[0])


@pytest.mark.parametrize(
    ("misuse", "message"),
    [
        (lambda env: env.step("noop()"), "before step"),
        (lambda env: (env.reset(), env.step('click("e2")')), r"step 1 of the trace is 'fill"),
        (lambda env: env.reset(seed=5), "recorded with seed 4, not 5"),
        (lambda env: (replay(env), env.step("done()")), "ends after step 3"),
    ],
)
def test_what_the_trace_does_not_hold_is_a_clear_error(misuse, message) -> None:
    with pytest.raises(ReplayError, match=message):
        misuse(TraceReplayEnv(trace()))


@pytest.mark.parametrize("refused_save", [False, True])
def test_failure_annotation_over_a_replay_agrees_with_the_offline_annotator(refused_save) -> None:
    recorded = trace(refused_save=refused_save)
    last_info = replay(FailureAnnotation(TraceReplayEnv(recorded)))[-1][4]
    offline = annotate(recorded, None)
    assert last_info["failure"] == offline
    if refused_save:  # the refused click (not_interactable) is the fault; done() claimed success
        assert (offline.code, offline.step, offline.false_success) == (
            FailureCode.ACTION_NO_EFFECT,
            2,
            True,
        )
    else:
        assert offline.code is None and not offline.false_success


def test_record_trace_over_a_replay_writes_the_same_trace(tmp_path) -> None:
    recorded = trace(refused_save=True)
    env = RecordTrace(TraceReplayEnv(recorded), tmp_path, screenshots=False)
    replay(env)
    env.close()
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    written = load_trace(folder)
    assert [s.state for s in written.steps] == [s.state for s in recorded.steps]
    assert [s.action for s in written.steps] == [s.action for s in recorded.steps]
    assert written.end == recorded.end

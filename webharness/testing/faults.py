"""The fault library: what a ``FaultyAgent`` does instead of a golden step.

Each fault is a ``Fault`` in ``FAULTS``: garbage output, a ref that never existed, a stale
or hidden ref, a click on a heading or a disabled control, fill() on a control that takes
no text, a bad value, an early answer, an invented phone, the same useless click three
times, an early done(), a killed browser, refused actions under a popup, a detour that
comes back, a resubmit of the same rejected value, a save of unchanged data, and a vague
question followed by an invented detail, another option chosen and saved, another record
opened and acted on, a withheld detail invented.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from webharness.actions import ActionKind, parse_action
from webharness.diagnosis.failures import FailureCode as C
from webharness.diagnosis.failures import Stage as S
from webharness.golden.oracle import resolve_step
from webharness.semantic import SemanticState
from webharness.testing.detours import detour
from webharness.testing.fault_agent import Fault, FaultContext, FaultSetupError, Planned
from webharness.testing.popups import popup_hook, under_popup

__all__ = [
    "FAULTS",
    "GARBAGE",
    "INVENTED_PHONE",
    "UNKNOWN_REF",
    "bad_value",
    "bad_value_fault",
    "invent_withheld_fault",
    "wrong_option_fault",
]

UNKNOWN_REF = "e99999"
GARBAGE = "I think the next thing to do is to press the blue button on the right."
INVENTED_PHONE = "+44 7700 900123"
VAGUE_QUESTION = "Before I go on: is there anything else I should know?"
_HEADING = re.compile(r'- heading "[^"\n]*" \[level=1\][^\n]*\[ref=(e\d+)\]')
_MONEY = re.compile(r"\$[\d,]+")


def _with_ref(action: Any, ref: str) -> str:
    return str(action.model_copy(update={"ref": ref}).dsl())


def garbage(ctx: FaultContext) -> list[Planned]:
    """Prose instead of an action."""
    return [GARBAGE]


def unknown_ref(ctx: FaultContext) -> list[Planned]:
    """The golden action on a ref the page never issued."""
    action = ctx.golden_action
    if action is None or action.ref_target is None:
        return [f'click("{UNKNOWN_REF}")']
    return [_with_ref(action, UNKNOWN_REF)]


def stale_ref(ctx: FaultContext) -> list[Planned]:
    """The golden action with a ref from an earlier observation whose element has gone.

    In order: the golden target as an earlier observation named it; the previous golden
    action's target; an element of the same role seen earlier; any element seen earlier.
    """
    now = {e.ref for e in ctx.state.elements}
    earlier = ctx.agent.states[:-1]
    action = ctx.golden_action
    for state in reversed(earlier):
        old = resolve_step(ctx.golden_step, state)
        if old is not None and old.ref_target and old.ref_target not in now:
            return [old.dsl()]
    done = ctx.agent.golden_actions  # the oracle's actions so far, this golden step's last
    previous = parse_action(done[-2]) if len(done) > 1 else None
    if previous is not None and previous.ref_target and previous.ref_target not in now:
        return [previous.dsl()]
    gone = [e for s in earlier for e in s.elements if e.ref not in now]
    role = ctx.golden_step.target.role if ctx.golden_step.target else None
    same_role = [e for e in gone if e.role == role]
    if action is not None and action.ref_target and same_role:
        return [_with_ref(action, same_role[0].ref)]
    if gone:
        return [f'click("{gone[0].ref}")']
    raise FaultSetupError(f"no element has gone from the page before golden step {ctx.agent.at}")


def heading_ref(ctx: FaultContext) -> str:
    """The ref of the page's level-1 heading."""
    found = _HEADING.search(ctx.obs["axtree"])
    if found is None:
        raise FaultSetupError("no level-1 heading on the page")
    return found.group(1)


def click_heading(ctx: FaultContext) -> list[Planned]:
    """A click on the page's title instead of a control."""
    return [f'click("{heading_ref(ctx)}")']


def click_disabled(ctx: FaultContext) -> list[Planned]:
    """A click on a disabled control the page shows."""
    disabled = [e for e in ctx.state.elements if e.disabled and e.in_viewport]
    if not disabled:
        raise FaultSetupError(f"no disabled control on the page before golden step {ctx.agent.at}")
    return [f'click("{disabled[0].ref}")']


def repeat_heading(ctx: FaultContext) -> list[Planned]:
    """The same useless click three times."""
    return click_heading(ctx) * 3


def fill_control(ctx: FaultContext) -> list[Planned]:
    """fill() on the control the golden step selects, checks or opens (it takes no text)."""
    step, action = ctx.golden_step, ctx.golden_action
    if action is None or action.ref_target is None or step.target is None:
        raise FaultSetupError(f"golden step {ctx.agent.at} has no target to fill")
    text = (
        step.value
        if step.action is ActionKind.SELECT_OPTION or step.target.role == "combobox"
        else step.target.name
    )
    if step.action is ActionKind.CLICK and step.target.role == "combobox":
        text = ctx.params.get("assignee", step.target.name)
    return [f"fill({action.ref_target!r}, {str(text)!r})"]


def stop(ctx: FaultContext) -> list[Planned]:
    """done() in place of the golden step."""
    return ["done()"]


def answer_done(ctx: FaultContext) -> list[Planned]:
    """Send the word ``done`` as the answer."""
    return ['send_msg_to_user("done")']


def early_answer(ctx: FaultContext) -> list[Planned]:
    """Answer with the figure the page shows now, while the fresh report is on its way."""
    figures = _MONEY.findall(ctx.state.text)
    if not figures:
        raise FaultSetupError("no figure on the page to answer with")
    metric = ctx.params.get("metric_lc", "total")
    return [f"send_msg_to_user({f'The {metric} is {figures[0]}.'!r})"]


def invent_phone(ctx: FaultContext) -> list[Planned]:
    """Skip asking: type a made-up phone, place the order."""
    return [_invented_phone, _place_order]


def vague_then_invent(ctx: FaultContext) -> list[Planned]:
    """Ask a question that cannot bring the withheld detail, then invent it and order."""
    return [f"ask_user({VAGUE_QUESTION!r})", _invented_phone, _place_order]


def _invented_phone(ctx: FaultContext) -> str:
    return f'fill("{_ref(ctx.state, "textbox", "Delivery phone")}", "{INVENTED_PHONE}")'


def _place_order(ctx: FaultContext) -> str:
    return f'click("{_ref(ctx.state, "button", "Place order")}")'


def bad_value(text: str) -> Callable[[FaultContext], list[Planned]]:
    """The golden fill, with a value the app rejects."""

    def plan(ctx: FaultContext) -> list[Planned]:
        action = ctx.golden_action
        if action is None or action.kind != ActionKind.FILL.value:
            raise FaultSetupError(f"golden step {ctx.agent.at} is not a fill")
        return [action.model_copy(update={"text": text}).dsl()]

    return plan


def resubmit_same(ctx: FaultContext) -> list[Planned]:
    """Instead of fixing the rejected value: type it again as it stands, resubmit, stop."""
    action, submit = ctx.golden_action, ctx.resolve(ctx.agent.at + 1)
    if action is None or action.kind != ActionKind.FILL.value or submit is None:
        raise FaultSetupError(f"golden step {ctx.agent.at} is no fill followed by a submit")
    field = ctx.state.by_ref(action.ref_target)
    if field is None:
        raise FaultSetupError(f"the field of golden step {ctx.agent.at} is not on the page")
    return [action.model_copy(update={"text": field.value or ""}).dsl(), submit.dsl()]


def save_unchanged(ctx: FaultContext) -> list[Planned]:
    """Save the form as it is (nothing changed yet), then stop."""
    saves = [e for e in ctx.state.elements if e.role == "button" and e.name.startswith("Save")]
    if not saves:
        raise FaultSetupError("no Save button on the page")
    return [f'click("{saves[0].ref}")']


def wrong_choice(ctx: FaultContext) -> list[Planned]:
    """Click the neighbour of the golden step's target, then stop.

    The neighbour is the next element of its role, or the one before: another product of
    the list, another link of the menu.
    """
    action, step = ctx.golden_action, ctx.golden_step
    if action is None or action.ref_target is None or step.target is None:
        raise FaultSetupError(f"golden step {ctx.agent.at} has no target to choose instead")
    same = [e for e in ctx.state.elements if e.role == step.target.role and e.in_viewport]
    at = next((n for n, e in enumerate(same) if e.ref == action.ref_target), None)
    if at is None or len(same) < 2:
        role, n = step.target.role, ctx.agent.at
        raise FaultSetupError(f"no other {role} to choose at golden step {n}")
    neighbour = same[at + 1] if at + 1 < len(same) else same[at - 1]
    return [f'click("{neighbour.ref}")']


def wrong_option(options: Sequence[str]) -> Callable[[FaultContext], list[Planned]]:
    """The golden select_option, with the first of ``options`` that is not the golden's."""

    def plan(ctx: FaultContext) -> list[Planned]:
        action = ctx.golden_action
        if action is None or action.kind != ActionKind.SELECT_OPTION.value:
            raise FaultSetupError(f"golden step {ctx.agent.at} is not a select_option")
        other = next((o for o in options if o != action.option), None)
        if other is None:
            raise FaultSetupError(f"no option other than {action.option!r} in {options}")
        return [action.model_copy(update={"option": other}).dsl()]

    return plan


def invent_withheld(text: str) -> Callable[[FaultContext], list[Planned]]:
    """Skip the question to the user (the golden step); type ``text`` for withheld details."""

    def plan(ctx: FaultContext) -> list[Planned]:
        withheld = {str(ctx.params[n]) for n in ctx.params.get("_withheld", [])}
        steps = ctx.agent.oracle.path.steps
        rest = range(ctx.agent.at + 1, len(steps) + 1)
        return [
            _invented(n, withheld, text) for n in rest if steps[n - 1].action is not ActionKind.DONE
        ]

    return plan


def _invented(number: int, withheld: set[str], text: str) -> Planned:
    def one(ctx: FaultContext) -> str:
        action = ctx.resolve(number)
        if action is None:
            raise FaultSetupError(f"golden step {number} has no target on the page")
        if action.kind == ActionKind.FILL.value and action.text in withheld:
            action = action.model_copy(update={"text": text})
        return str(action.dsl())

    return one


def kill_browser(ctx: FaultContext) -> list[Planned]:
    """Close the browser under the env, then send the golden action into it."""
    if ctx.agent.env is None:
        raise FaultSetupError("the runtime fault needs the env")
    host = ctx.agent.env.unwrapped.runtime.host  # type: ignore[attr-defined]
    browser = host.run(host.browser(), 30)
    host.run(browser.close(), 30)
    action = ctx.golden_action
    return [action.dsl() if action is not None else 'click("e1")']


def _ref(state: SemanticState, role: str, name: str) -> str:
    found = state.find(role, name)
    if not found:
        raise FaultSetupError(f"no {role} {name!r} on the page")
    return found[0].ref


def _previous(at: int) -> int:
    return at - 1


def bad_value_fault(name: str, text: str, submit_offset: int) -> Fault:
    """A rejected value typed at golden step ``at``, submitted ``submit_offset`` steps later."""
    return Fault(
        name,
        C.VALIDATION_ERROR,
        S.UNDERSTANDING,
        bad_value(text),
        then="oracle",
        replaces=True,
        expect_golden=lambda at: at + submit_offset,
    )


def wrong_option_fault(options: Sequence[str]) -> Fault:
    """Another of ``options`` selected at golden step ``at``, then saved by the app.

    The oracle plays on after the wrong choice. No decisive step is checked: a value chosen
    is decisive only once saved, and then only where the state carries the app's data.
    """
    return Fault(
        "wrong_option",
        C.TASK_INCOMPLETE,
        S.DECISION,
        wrong_option(options),
        then="oracle",
        replaces=True,
        diverges=True,
    )


def invent_withheld_fault(text: str) -> Fault:
    """Instead of asking the user at golden step ``at``, ``text`` typed for the detail."""
    return Fault("invent_withheld", C.USER_INPUT_REQUIRED, S.DECISION, invent_withheld(text))


FAULTS: dict[str, Fault] = {
    f.name: f
    for f in [
        Fault("garbage_text", C.MODEL_PROTOCOL, S.EXECUTION, garbage),
        Fault("unknown_ref", C.OBSERVATION_MISS, S.PERCEPTION, unknown_ref),
        Fault("stale_ref", C.STALE_INDEX, S.PERCEPTION, stale_ref),
        # the same earlier ref, where the page hid its element instead of replacing it
        Fault("hidden_ref", C.OBSERVATION_MISS, S.PERCEPTION, stale_ref),
        Fault("click_disabled", C.ACTION_NO_EFFECT, S.PERCEPTION, click_disabled),
        Fault("click_heading", C.ACTION_NO_EFFECT, S.PERCEPTION, click_heading),
        Fault("fill_control", C.UNSUPPORTED_CONTROL, S.EXECUTION, fill_control),
        # the golden path submits a value the app rejects; the agent stops instead of fixing it
        Fault("never_fix", C.VALIDATION_ERROR, S.UNDERSTANDING, stop, expect_golden=_previous),
        # ... or types the rejected value again and resubmits: the same rejection, twice
        Fault("resubmit_same", C.VALIDATION_ERROR, S.UNDERSTANDING, resubmit_same, expect_offset=1),
        # the golden path got past its rejection; the agent stops before the resubmit
        Fault("stop_after_fix", C.TASK_INCOMPLETE, S.DECISION, stop, diverges=True, decisive=False),
        Fault("early_answer", C.WAITING_TIMEOUT, S.PERCEPTION, early_answer, eager=True),
        Fault("invent_phone", C.USER_INPUT_REQUIRED, S.DECISION, invent_phone),
        Fault(
            "vague_then_invent",
            C.USER_INPUT_REQUIRED,
            S.DECISION,
            vague_then_invent,
            expect_offset=1,
        ),
        Fault("repeat_heading", C.REPEATED_ACTION, S.DECISION, repeat_heading),
        Fault("stop_halfway", C.TASK_INCOMPLETE, S.DECISION, stop),
        Fault("quit_done", C.TASK_INCOMPLETE, S.DECISION, stop),
        Fault("quit_message", C.TASK_INCOMPLETE, S.DECISION, answer_done),
        # a success toast after saving what was already there: no rejection
        Fault("save_unchanged", C.TASK_INCOMPLETE, S.DECISION, save_unchanged),
        Fault(
            "idle_out",
            C.TASK_INCOMPLETE,
            S.DECISION,
            lambda ctx: ["noop()"],
            then="noop",
            claims_success=False,
        ),
        Fault("kill_browser", C.RUNTIME_ERROR, S.ENVIRONMENT, kill_browser),
        # a popup opens before golden step `at`; the agent's next actions land under it
        Fault(
            "popup_refused",
            C.ACTION_NO_EFFECT,
            S.EXECUTION,
            under_popup,
            hook=popup_hook,
            diverges=True,
        ),
        # another record opened (the neighbour of the golden target), then the golden path on
        # it: the wrong record edited or deleted; diverges where it was opened
        Fault(
            "wrong_record",
            C.TASK_INCOMPLETE,
            S.DECISION,
            wrong_choice,
            then="oracle",
            replaces=True,
            diverges=True,
        ),
        # recovered faults: the run passes and keeps a note of the fault
        Fault("garbage_then_recover", None, None, garbage, then="oracle", note=C.MODEL_PROTOCOL),
        Fault(
            "unknown_ref_then_recover",
            None,
            None,
            unknown_ref,
            then="oracle",
            note=C.OBSERVATION_MISS,
        ),
        # a harmless detour that comes back, then the golden path: passes, diverges there
        Fault("detour", None, None, detour, then="oracle", diverges=True, decisive=False),
        # an early wrong choice (another link or product), then done(): decisive there
        Fault(
            "wrong_choice",
            C.TASK_INCOMPLETE,
            S.DECISION,
            wrong_choice,
            diverges=True,
            decisive=True,
        ),
    ]
}

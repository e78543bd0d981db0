"""Golden-trace alignment on synthetic traces, edited programmatically.

Three differently shaped golden runs (a one-page form, a multi-page shop, a to-do list
with a dialog), each with a second golden path. Every edit (detour, skip, wrong value,
repeat, early stop) is applied at every position where it makes sense.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webharness.actions import parse_action
from webharness.diagnosis.alignment import Alignment, align, element_diff
from webharness.diagnosis.progress import ProgressTracker, progress_curve
from webharness.diagnosis.similarity import (
    SimilarityWeights,
    similarity_matrix,
    state_features,
    state_similarity,
)
from webharness.semantic import Element, Heading, SemanticLocator, SemanticState
from webharness.trace.models import EpisodeTrace, StepRecord, TaskInstance
from webharness.trace.signatures import ActionSignature, action_signature

ORIGIN = "http://webeval.test"

# --- a small factory: steps written against role+name, refs assigned per run ----------


@dataclass(frozen=True)
class Spec:
    """One step: the state reached and the action (kind, role, name, value) that led there."""

    state: SemanticState
    action: tuple[str, ...] | None = None


def el(role: str, name: str, value: str | None = None, checked: bool | None = None) -> Element:
    return Element(ref="", role=role, name=name, value=value, checked=checked)


def page(path: str, heading: str, elements: list[Element], **extra: object) -> SemanticState:
    return SemanticState(
        url=ORIGIN + path,
        title=heading,
        headings=[Heading(level=1, text=heading)],
        elements=elements,
        **extra,
    )


def materialise(
    specs: list[Spec], golden_path: str | None = None, ref_base: int = 0
) -> EpisodeTrace:
    """Build a trace: number refs from ``ref_base``, write actions against those refs."""
    states = [_with_refs(s.state, ref_base + 10 * n) for n, s in enumerate(specs)]
    steps = [
        StepRecord(index=n, state=state, action=_dsl(spec.action, states[n - 1]) if n else None)
        for n, (spec, state) in enumerate(zip(specs, states))
    ]
    task = TaskInstance(
        task_id="synthetic",
        env_id="WebEval/synthetic-v0",
        category="test",
        seed=0,
        instruction="do it",
    )
    return EpisodeTrace(task=task, steps=steps, golden_path=golden_path)


def _with_refs(state: SemanticState, base: int) -> SemanticState:
    elements = [e.model_copy(update={"ref": f"e{base + i}"}) for i, e in enumerate(state.elements)]
    return state.model_copy(update={"elements": elements})


def _dsl(action: tuple[str, ...] | None, before: SemanticState) -> str | None:
    if action is None:
        return None
    kind, *rest = action
    fields: dict[str, object] = {"kind": kind}
    if kind in ("click", "fill", "select_option", "check", "uncheck"):
        found = before.find(rest[0], rest[1])
        fields["ref"] = found[0].ref if found else "e9999"  # a ref the page never had
        if rest[2:]:
            fields["text" if kind == "fill" else "option"] = rest[2]
    elif kind == "press":
        fields["key"] = rest[0]
    return parse_action(fields).dsl()


# --- three golden shapes, two paths each -----------------------------------------------


def _form(first: str) -> list[Spec]:
    """Fill name and email (``first`` one first), pick a country, tick VIP, save."""
    typed = {"Full name": "Ada Lovelace", "Email": "ada@example.org"}
    second = "Email" if first == "Full name" else "Full name"

    def state(
        fields: tuple[str, ...] = (), country: str = "", vip: bool = False, saved: bool = False
    ) -> SemanticState:
        name, email = (typed[f] if f in fields else "" for f in ("Full name", "Email"))
        row = {"name": name, "email": email, "country": country, "vip": vip}
        return page(
            "/form.html",
            "New contact",
            [
                el("textbox", "Full name", name),
                el("textbox", "Email", email),
                el("combobox", "Country", country),
                el("checkbox", "VIP", checked=vip),
                el("button", "Save"),
            ],
            app={"contacts": [row] if saved else []},
            alerts=["Saved"] if saved else [],
        )

    both = (first, second)
    return [
        Spec(state()),
        Spec(state((first,)), ("fill", "textbox", first, typed[first])),
        Spec(state(both), ("fill", "textbox", second, typed[second])),
        Spec(state(both, "France"), ("select_option", "combobox", "Country", "France")),
        Spec(state(both, "France", vip=True), ("click", "checkbox", "VIP")),
        Spec(state(both, "France", vip=True, saved=True), ("click", "button", "Save")),
    ]


def _shop(via_search: bool) -> list[Spec]:
    nav = [el("link", "Products"), el("link", "Help")]
    home = page("/", "Shop", [*nav, el("searchbox", "Search")])
    chair = [*nav, el("spinbutton", "Quantity", "1"), el("button", "Add to cart")]
    cart_row = {"cart": [{"item": "chair", "qty": "2"}]}
    tail = [
        Spec(
            page(
                "/products/chair",
                "Chair",
                [*chair[:2], el("spinbutton", "Quantity", "2"), chair[3]],
            ),
            ("fill", "spinbutton", "Quantity", "2"),
        ),
        Spec(
            page(
                "/products/chair",
                "Chair",
                [*chair[:2], el("spinbutton", "Quantity", "2"), chair[3], el("link", "Cart (1)")],
                app=cart_row,
                alerts=["Added to cart"],
            ),
            ("click", "button", "Add to cart"),
        ),
        Spec(
            page("/cart", "Cart", [*nav, el("button", "Checkout")], app=cart_row),
            ("click", "link", "Cart (1)"),
        ),
        Spec(
            page(
                "/checkout/done",
                "Thank you",
                nav,
                app={"cart": [], "orders": [{"item": "chair", "qty": "2"}]},
            ),
            ("click", "button", "Checkout"),
        ),
    ]
    if via_search:
        head = [
            Spec(
                page("/", "Shop", [*nav, el("searchbox", "Search", "chair")]),
                ("fill", "searchbox", "Search", "chair"),
            ),
            Spec(
                page("/search?q=chair", "Results", [*nav, el("link", "Chair")]), ("press", "Enter")
            ),
        ]
    else:
        head = [
            Spec(
                page(
                    "/products",
                    "Products",
                    [*nav, el("link", "Lamp"), el("link", "Chair"), el("link", "Desk")],
                ),
                ("click", "link", "Products"),
            )
        ]
    return [
        Spec(home),
        *head,
        Spec(page("/products/chair", "Chair", chair), ("click", "link", "Chair")),
        *tail,
    ]


def _todo(first: str) -> list[Spec]:
    second = "eggs" if first == "milk" else "milk"

    def state(
        typed: str,
        items: list[str],
        done: tuple[str, ...] = (),
        dialog: bool = False,
        alert: str | None = None,
    ) -> SemanticState:
        boxes = [el("checkbox", item, checked=item in done) for item in items]
        buttons = [el("button", "Confirm"), el("button", "Cancel")] if dialog else []
        return page(
            "/todo",
            "Groceries",
            [
                el("textbox", "New item", typed),
                el("button", "Add"),
                el("button", "Clear done"),
                *boxes,
                *buttons,
            ],
            app={"items": [{"text": i, "done": i in done} for i in items]},
            dialogs=["Confirm clear"] if dialog else [],
            alerts=[alert] if alert else [],
        )

    both = [first, second]
    return [
        Spec(state("", [])),
        Spec(state(first, []), ("fill", "textbox", "New item", first)),
        Spec(state("", [first]), ("click", "button", "Add")),
        Spec(state(second, [first]), ("fill", "textbox", "New item", second)),
        Spec(state("", both), ("click", "button", "Add")),
        Spec(state("", both, ("milk",)), ("click", "checkbox", "milk")),
        Spec(state("", both, ("milk",), dialog=True), ("click", "button", "Clear done")),
        Spec(state("", ["eggs"], alert="1 item removed"), ("click", "button", "Confirm")),
    ]


SHAPES = {
    "form": (_form("Full name"), _form("Email")),
    "shop": (_shop(via_search=False), _shop(via_search=True)),
    "todo": (_todo("milk"), _todo("eggs")),
}
DETOUR = page("/help", "Help", [el("link", "Back"), el("link", "Contact us")])


def golden(shape: str, path: int = 0) -> EpisodeTrace:
    return materialise(SHAPES[shape][path], golden_path=f"{shape}-{'ab'[path]}")


def agent(specs: list[Spec]) -> EpisodeTrace:
    return materialise(specs, ref_base=500)  # refs differ from the golden run's


def key_states(shape: str) -> int:
    return len(SHAPES[shape][0]) - 1


def positions(kind: str) -> list[tuple[str, int]]:
    """(shape, k) pairs where an edit of this kind makes sense."""
    out = []
    for shape, (specs, _) in SHAPES.items():
        K = len(specs) - 1
        ks = {
            "detour": range(1, K + 1),
            "skip": range(1, K),
            "repeat": range(1, K + 1),
            "wrong": [
                k for k in range(1, K + 1) if specs[k].action[0] in ("fill", "select_option")
            ],
        }[kind]
        out += [(shape, k) for k in ks]
    return out


# --- programmatic edits ----------------------------------------------------------------


def with_detour(specs: list[Spec], k: int) -> list[Spec]:
    """Before golden step k: open a wrong page, then go back to where it was."""
    back = Spec(specs[k - 1].state, ("go_back",))
    return [*specs[:k], Spec(DETOUR, ("click", "link", "Help")), back, *specs[k:]]


def with_skip(specs: list[Spec], k: int) -> list[Spec]:
    return [*specs[:k], *specs[k + 1 :]]


def with_repeat(specs: list[Spec], k: int) -> list[Spec]:
    return [*specs[: k + 1], specs[k], *specs[k + 1 :]]


def with_no_op(specs: list[Spec], k: int, times: int = 1) -> list[Spec]:
    """After step k: clicks that change nothing the similarity sees (focus, a selected tab)."""
    first = specs[k].state.elements[0]
    return [
        *specs[: k + 1],
        *[Spec(specs[k].state, ("click", first.role, first.name))] * times,
        *specs[k + 1 :],
    ]


def with_wrong_value(specs: list[Spec], k: int) -> list[Spec]:
    """Step k types a wrong value; every later state carries it (fields, rows, names)."""
    right = specs[k].action[-1]
    wrong = f"WRONG {right}"

    def swap(spec: Spec) -> Spec:
        blob = spec.state.model_dump_json().replace(json.dumps(right), json.dumps(wrong))
        action = tuple(wrong if a == right else a for a in spec.action) if spec.action else None
        return Spec(SemanticState.model_validate_json(blob), action)

    return [*specs[:k], *(swap(s) for s in specs[k:])]


def with_banner(specs: list[Spec], start: int = 0) -> list[Spec]:
    """A cookie banner (a perturbation) covers the page from step ``start`` on."""

    def covered(state: SemanticState) -> SemanticState:
        return state.model_copy(
            update={
                "elements": [*state.elements, el("button", "Accept cookies")],
                "dialogs": [*state.dialogs, "Cookies"],
            }
        )

    return [*specs[:start], *(Spec(covered(s.state), s.action) for s in specs[start:])]


# --- the behaviours --------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_golden_run_aligned_with_itself_is_perfect(shape: str) -> None:
    result = align(agent(SHAPES[shape][0]), golden(shape))
    assert result.fidelity == 1.0
    assert result.progress_rate == 1.0
    assert result.first_divergence_step is None
    assert (result.extra_steps, result.skipped_golden_steps, result.wrong_actions) == ([], [], [])
    assert result.step_efficiency == 1.0
    assert all(
        p.action_matches and p.similarity == 1.0 and not p.element_diff for p in result.matched
    )


@pytest.mark.parametrize(("shape", "k"), positions("detour"))
def test_detour_is_reported_as_extra_steps_at_the_insertion(shape: str, k: int) -> None:
    result = align(agent(with_detour(SHAPES[shape][0], k)), golden(shape))
    assert result.extra_steps == [k, k + 1]
    assert result.first_divergence_step == k
    assert result.skipped_golden_steps == []
    assert result.progress_rate == 1.0
    assert result.fidelity < 1.0


@pytest.mark.parametrize(("shape", "k"), positions("skip"))
def test_skipped_step_is_reported_as_skipped_golden_step(shape: str, k: int) -> None:
    result = align(agent(with_skip(SHAPES[shape][0], k)), golden(shape))
    assert result.skipped_golden_steps == [k]
    assert result.extra_steps == []
    assert result.first_divergence_step == k  # the agent step that cut the corner
    assert result.progress_rate == pytest.approx((key_states(shape) - 1) / key_states(shape))


@pytest.mark.parametrize(("shape", "k"), positions("wrong"))
def test_wrong_value_is_a_wrong_action_and_the_first_divergence(shape: str, k: int) -> None:
    result = align(agent(with_wrong_value(SHAPES[shape][0], k)), golden(shape))
    assert min(result.wrong_actions) == k
    assert result.first_divergence_step == k
    pair = next(p for p in result.matched if p.agent_step == k)
    assert pair.golden_step == k and not pair.action_matches
    assert result.progress_rate < 1.0  # the final state holds the wrong value


@pytest.mark.parametrize(("shape", "k"), positions("repeat"))
def test_repeated_action_is_an_extra_step_at_the_repeat(shape: str, k: int) -> None:
    result = align(agent(with_repeat(SHAPES[shape][0], k)), golden(shape))
    assert result.extra_steps == [k + 1]
    assert result.first_divergence_step == k + 1
    assert result.skipped_golden_steps == []
    assert result.fidelity == 1.0  # nDTW forgives dwelling on a state ...
    assert result.step_efficiency > 1.0  # ... efficiency does not


@pytest.mark.parametrize("times", [1, 2])
@pytest.mark.parametrize(
    ("shape", "k"), [(shape, k) for shape in SHAPES for k in range(key_states(shape) + 1)]
)
def test_golden_step_that_changes_nothing_is_reached_by_a_run_leaving_it_out(
    shape: str, k: int, times: int
) -> None:
    # k == 0 is a golden path that repeats its start state (richtext's click on the selected
    # tab): the agent's start used to pair with the last copy, skipping golden step 0
    specs = SHAPES[shape][0]
    run, no_op = agent(specs), materialise(with_no_op(specs, k, times), golden_path="no-op")
    result = align(run, no_op)
    assert result.first_divergence_step is None
    assert result.progress_rate == progress_curve(run.states, no_op) == 1.0
    assert (result.fidelity, result.extra_steps, result.wrong_actions) == (1.0, [], [])
    assert result.skipped_golden_steps == list(range(k + 1, k + 1 + times))  # the later copies
    assert [p.golden_step for p in result.matched[: k + 1]] == list(
        range(k + 1)
    )  # first visits pair


@pytest.mark.parametrize("shape", SHAPES)
def test_run_stopping_half_way_has_half_progress_and_lower_fidelity(shape: str) -> None:
    K = key_states(shape)
    half = K // 2
    result = align(agent(SHAPES[shape][0][: half + 1]), golden(shape))
    assert result.progress_rate == pytest.approx(half / K)
    assert 0.4 <= result.progress_rate <= 0.6
    assert result.fidelity < 1.0
    assert result.skipped_golden_steps == list(range(half + 1, K + 1))
    assert result.first_divergence_step is None  # it never left the path; it stopped


@pytest.mark.parametrize("followed", [0, 1])
@pytest.mark.parametrize("shape", SHAPES)
def test_run_following_the_other_golden_path_picks_that_path(shape: str, followed: int) -> None:
    goldens = [golden(shape, 0), golden(shape, 1)]
    result = align(agent(SHAPES[shape][followed]), goldens)
    chosen, other = goldens[followed].golden_path, goldens[1 - followed].golden_path
    assert result.golden_path == chosen
    assert result.fidelity == 1.0
    assert result.first_divergence_step is None
    assert set(result.per_golden) == {chosen, other}
    assert result.per_golden[chosen] == 1.0 > result.per_golden[other]


@pytest.mark.parametrize("shape", SHAPES)
def test_perturbation_present_from_reset_does_not_count_as_divergence(shape: str) -> None:
    trace = agent(with_banner(SHAPES[shape][0]))
    result = align(trace, golden(shape))
    assert result.start_similarity < 1.0
    assert (result.progress_rate, result.first_divergence_step) == (1.0, None)
    assert result.fidelity < 1.0
    assert progress_curve(trace.states, golden(shape)) == 1.0


@pytest.mark.parametrize("shape", SHAPES)
def test_perturbation_appearing_mid_run_is_where_the_run_diverges(shape: str) -> None:
    k = key_states(shape) // 2
    result = align(agent(with_banner(SHAPES[shape][0], start=k)), golden(shape))
    assert result.first_divergence_step == k
    assert result.extra_steps == [] and result.wrong_actions == []


def test_fidelity_tie_between_goldens_goes_to_fewer_divergences() -> None:
    specs = SHAPES["form"][0]
    dwelling = materialise(with_repeat(specs, 2), golden_path="dwelling")  # same states, one twice
    result = align(agent(specs), [dwelling, golden("form")])
    assert result.per_golden["dwelling"] == result.per_golden["form-a"] == 1.0
    assert result.golden_path == "form-a"


def test_align_needs_a_golden_trace() -> None:
    with pytest.raises(ValueError, match="at least one golden"):
        align(golden("form"), [])


def test_empty_agent_trace_has_no_progress_and_no_fidelity() -> None:
    empty = materialise([])
    result = align(empty, golden("shop"))
    assert (result.progress_rate, result.fidelity, result.matched) == (0.0, 0.0, [])
    assert Alignment.model_validate_json(result.model_dump_json()) == result
    assert result.skipped_golden_steps == list(range(key_states("shop") + 1))


def test_alignment_round_trips_through_json() -> None:
    result = align(agent(with_detour(SHAPES["todo"][0], 3)), [golden("todo", 0), golden("todo", 1)])
    assert Alignment.model_validate_json(result.model_dump_json()) == result


# --- similarity ------------------------------------------------------------------------

ALL_STATES = [s.state for specs in SHAPES.values() for path in specs for s in path] + [DETOUR]


@pytest.mark.parametrize("state", ALL_STATES[::3])
def test_identical_states_have_similarity_one(state: SemanticState) -> None:
    renumbered = _with_refs(state, 900).model_copy(
        update={"focused": "e900", "scroll": (0.0, 300.0)}
    )
    assert state_similarity(state, renumbered) == 1.0


def test_similarity_is_symmetric_bounded_and_matches_the_matrix() -> None:
    features = [state_features(s) for s in ALL_STATES]
    matrix = similarity_matrix(features, features)
    for i, a in enumerate(features):
        for j, b in enumerate(features):
            s = state_similarity(a, b)
            assert 0.0 <= s <= 1.0
            assert s == state_similarity(b, a) == matrix[i, j]


_random_states = st.builds(
    lambda url, elements, rows, alerts: SemanticState(
        url=url,
        elements=[el(r, n, v, c) for r, n, v, c in elements],
        app={"rows": rows},
        alerts=alerts,
    ),
    st.sampled_from(
        ["http://a.test/x", "http://a.test/x?q=1", "http://b.test/x", "http://a.test/y"]
    ),
    st.lists(
        st.tuples(
            st.sampled_from(["button", "textbox", "checkbox"]),
            st.sampled_from("ABC"),
            st.sampled_from([None, "", "v"]),
            st.sampled_from([None, True, False]),
        ),
        max_size=6,
    ),
    st.lists(st.fixed_dictionaries({"n": st.integers(0, 2)}), max_size=3),
    st.lists(st.sampled_from(["Saved", "Error"]), max_size=2),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_random_states, min_size=1, max_size=5))
def test_similarity_properties_hold_on_random_states(states: list[SemanticState]) -> None:
    features = [state_features(s) for s in states]
    matrix = similarity_matrix(features, features)
    for i, a in enumerate(states):
        assert state_similarity(a, a.model_copy(deep=True)) == 1.0
        for j, b in enumerate(states):
            assert 0.0 <= matrix[i, j] == state_similarity(a, b) == state_similarity(b, a) <= 1.0


def test_similarity_ranks_a_one_field_change_above_another_page() -> None:
    form = SHAPES["form"][0]
    near = state_similarity(form[1].state, form[2].state)
    assert 0.5 < near < 1.0
    assert state_similarity(form[1].state, DETOUR) < near


def test_similarity_weights_can_ignore_a_part() -> None:
    a, b = SHAPES["form"][0][0].state, SHAPES["form"][0][1].state
    assert state_similarity(a, b, SimilarityWeights(values=0.0)) == 1.0
    with pytest.raises(ValueError, match="positive"):
        SimilarityWeights(url=0, elements=0, values=0, app=0, page=0)


def test_url_query_order_and_trailing_slash_do_not_matter_but_origin_does() -> None:
    a = SemanticState(url="http://webeval.test/search/?q=x&page=2")
    assert state_similarity(a, SemanticState(url="http://webeval.test/search?page=2&q=x")) == 1.0
    assert state_similarity(a, SemanticState(url="http://evil.test/search?page=2&q=x")) < 1.0


# --- element diff ----------------------------------------------------------------------


def test_element_diff_names_the_missing_button() -> None:
    golden_state = SHAPES["form"][0][5].state
    without_save = golden_state.model_copy(update={"elements": golden_state.elements[:-1]})
    diff = element_diff(without_save, golden_state)
    assert diff.missing == [SemanticLocator(role="button", name="Save")]
    assert "no button 'Save'" in diff.describe()


def test_element_diff_names_changed_values_and_extra_elements() -> None:
    form = SHAPES["form"][0]
    diff = element_diff(form[4].state, form[1].state)
    changed = {(c.role, c.name): c for c in diff.changed}
    assert changed[("textbox", "Email")].agent == {"value": "ada@example.org"}
    assert changed[("checkbox", "VIP")].fields == ["checked"]
    assert element_diff(DETOUR, form[0].state).extra == [
        SemanticLocator(role="link", name="Back"),
        SemanticLocator(role="link", name="Contact us"),
    ]


def test_matched_pairs_carry_the_element_diff() -> None:
    result = align(agent(with_wrong_value(SHAPES["form"][0], 2)), golden("form"))
    pair = next(p for p in result.matched if p.agent_step == 2)
    assert [c.name for c in pair.element_diff.changed] == ["Email"]


# --- action signatures -----------------------------------------------------------------


def test_action_signature_resolves_refs_through_the_state_before() -> None:
    ours, theirs = golden("form"), agent(SHAPES["form"][0])
    assert ours.steps[2].action != theirs.steps[2].action  # different refs ...
    assert action_signature(ours, 2) == action_signature(theirs, 2)  # ... same meaning
    assert action_signature(ours, 2) == ActionSignature(
        kind="fill", effect="fill", role="textbox", name="Email", value="ada@example.org"
    )
    assert action_signature(ours, 0) is None


def test_click_on_an_unchecked_checkbox_has_the_effect_of_check() -> None:
    trace = golden("form")
    sig = action_signature(trace, 4)
    assert (sig.kind, sig.effect) == ("click", "check")
    checked = replace(SHAPES["form"][0][4], action=("check", "checkbox", "VIP"))
    other = materialise([*SHAPES["form"][0][:4], checked])
    assert action_signature(other, 4).same_effect(sig)


def test_unknown_ref_and_unparseable_action_keep_their_text() -> None:
    trace = golden("form")
    trace.steps[1].action = "click('zz1')"
    trace.steps[2].action = "fly()"
    assert action_signature(trace, 1).unresolved_ref == "zz1"
    assert action_signature(trace, 2).kind == "unparseable"


def test_mouse_click_is_resolved_by_hit_testing_the_state_before() -> None:
    trace = golden("form")
    save = trace.steps[4].state.elements[-1].model_copy(update={"bbox": (10.0, 200.0, 80.0, 30.0)})
    trace.steps[4].state.elements[-1] = save
    trace.steps[5].action = "mouse_click(50, 210)"
    assert action_signature(trace, 5).same_effect(action_signature(golden("form"), 5))


def test_a_double_click_or_a_right_click_is_not_the_same_effect_as_a_click() -> None:
    trace = golden("form")
    save = trace.steps[4].state.elements[-1].model_copy(update={"bbox": (10.0, 200.0, 80.0, 30.0)})
    trace.steps[4].state.elements[-1] = save
    click = action_signature(golden("form"), 5)
    for action, effect, value in [
        ("mouse_click(50, 210, count=2)", "double_click", None),
        ("mouse_click(50, 210, button='right')", "mouse_click", "right"),
    ]:
        trace.steps[5].action = action
        sig = action_signature(trace, 5)
        assert (sig.effect, sig.value, sig.name) == (effect, value, save.name)
        assert not sig.same_effect(click)


def test_a_pointer_move_and_a_drag_are_hit_tested_where_they_start() -> None:
    trace = golden("form")
    save = trace.steps[4].state.elements[-1].model_copy(update={"bbox": (10.0, 200.0, 80.0, 30.0)})
    trace.steps[4].state.elements[-1] = save
    for action in ("mouse_move(50, 210)", "drag([[50, 210], [500, 600]])"):
        trace.steps[5].action = action
        assert (action_signature(trace, 5).role, action_signature(trace, 5).name) == (
            save.role,
            save.name,
        )
    trace.steps[5].action = "drag([[900, 900], [5, 5]])"
    assert action_signature(trace, 5).value == "900,900"  # nothing there: the point


def test_drag_and_drop_is_read_as_its_two_elements() -> None:
    trace = golden("form")
    first, last = trace.steps[4].state.elements[0], trace.steps[4].state.elements[-1]
    trace.steps[5].action = f"drag_and_drop({first.ref!r}, {last.ref!r})"
    sig = action_signature(trace, 5)
    assert (sig.role, sig.name, sig.value) == (first.role, first.name, f"{last.role} {last.name}")


# --- progress curve --------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_progress_curve_counts_golden_states_reached_so_far(shape: str) -> None:
    states = agent(SHAPES[shape][0]).states
    K = key_states(shape)
    assert [progress_curve(states[: n + 1], golden(shape)) for n in range(K + 1)] == [
        n / K for n in range(K + 1)
    ]


@pytest.mark.parametrize(("shape", "k"), positions("detour"))
def test_progress_tracker_is_monotone_and_agrees_with_the_alignment(shape: str, k: int) -> None:
    trace = agent(with_detour(SHAPES[shape][0], k))
    tracker = ProgressTracker([golden(shape, 0), golden(shape, 1)])
    curve = [tracker.update(s) for s in trace.states]
    assert curve == sorted(curve)
    assert curve[-1] == align(trace, golden(shape)).progress_rate == 1.0

"""The action DSL parser: every kind, BrowserGym spellings, and fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webharness.actions import ActionKind, ActionParseError, Fill, Press, Upload, parse_action

EXAMPLES = {
    "click('e1')": ActionKind.CLICK,
    "fill('e1', 'x')": ActionKind.FILL,
    "select_option('e1', 'Blue')": ActionKind.SELECT_OPTION,
    "check('e1')": ActionKind.CHECK,
    "uncheck('e1')": ActionKind.UNCHECK,
    "hover('e1')": ActionKind.HOVER,
    "drag_and_drop('e1', 'e2')": ActionKind.DRAG_AND_DROP,
    "press('e1', 'Enter')": ActionKind.PRESS,
    "key_down('Shift')": ActionKind.KEY_DOWN,
    "key_up('Shift')": ActionKind.KEY_UP,
    "hold_key('ArrowRight', 300)": ActionKind.HOLD_KEY,
    "scroll(0, 300)": ActionKind.SCROLL,
    "mouse_click(10, 20.5)": ActionKind.MOUSE_CLICK,
    "mouse_move(10, 20)": ActionKind.MOUSE_MOVE,
    "mouse_down()": ActionKind.MOUSE_DOWN,
    "mouse_up('right')": ActionKind.MOUSE_UP,
    "drag([[10, 20], [30, 40.5]])": ActionKind.DRAG,
    "keyboard_type('hi')": ActionKind.KEYBOARD_TYPE,
    "upload(['report.txt', 'notes/a.pdf'])": ActionKind.UPLOAD,
    "goto('/x')": ActionKind.GOTO,
    "go_back()": ActionKind.GO_BACK,
    "wait(200)": ActionKind.WAIT,
    "noop()": ActionKind.NOOP,
    "script('document.title = 1')": ActionKind.SCRIPT,
    "send_msg_to_user('42')": ActionKind.SEND_MSG_TO_USER,
    "ask_user('which?')": ActionKind.ASK_USER,
    "report_infeasible('no')": ActionKind.REPORT_INFEASIBLE,
    "done()": ActionKind.DONE,
}


def test_every_action_kind_has_an_example():
    assert set(EXAMPLES.values()) == set(ActionKind)


@pytest.mark.parametrize("text, kind", EXAMPLES.items())
def test_each_kind_parses_and_round_trips_through_dsl(text, kind):
    action = parse_action(text)
    assert action.kind == kind.value
    assert parse_action(action.dsl()) == action


def test_browsergym_keyword_spellings_are_accepted():
    assert parse_action("fill(bid='e3', value='Ada')") == Fill(ref="e3", text="Ada")
    assert parse_action("press(key_comb='Enter')") == Press(key="Enter")


def test_upload_takes_a_list_of_paths_or_one_path():
    assert parse_action("upload('a.txt')") == Upload(paths=("a.txt",))
    assert parse_action("upload(['a.txt', 'b.txt'])").dsl() == "upload(['a.txt', 'b.txt'])"
    assert parse_action("upload([])") == parse_action("upload()") == Upload()


def test_typed_actions_and_dicts_are_accepted():
    assert parse_action(Fill(ref="e1", text="x")) == Fill(ref="e1", text="x")
    assert parse_action({"kind": "fill", "ref": "e1", "text": "x"}) == Fill(ref="e1", text="x")


@pytest.mark.parametrize(
    "text, message",
    [
        ("clik('e1')", "Did you mean: 'click'"),
        ("click(e1)", "literals"),
        ("fill('e1')", "text"),
        ("hover('e1', 'e2')", "takes 1 arguments"),
        ("wait(-5)", "wait"),
        ("os.system('x')", "one call"),
        ("upload([1])", "upload.paths.0"),
    ],
)
def test_bad_actions_say_what_is_wrong(text, message):
    with pytest.raises(ActionParseError, match=message):
        parse_action(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_parses_or_is_an_action_parse_error(text):
    try:
        parse_action(text)
    except ActionParseError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(list(EXAMPLES)), st.text(max_size=50))
def test_arbitrary_string_arguments_parse_as_data(template, payload):
    if "'x'" not in template and "'hi'" not in template:
        return
    action = parse_action(template.replace("'x'", repr(payload)).replace("'hi'", repr(payload)))
    assert payload in action.dsl() or repr(payload)[1:-1] in action.dsl()


def test_deep_nesting_and_huge_strings_are_refused_cleanly():
    for text in ["[" * 100_000, "click(" + "'a'" * 50_000 + ")", "-" * 20_000 + "1"]:
        with pytest.raises(ActionParseError):
            parse_action(text)


def test_a_parser_system_error_on_deep_nesting_is_an_action_parse_error(monkeypatch):
    """CPython 3.11's parser raised SystemError ("AST constructor recursion depth mismatch")
    on `click(not not ... 1)` once in the 50,000-step soak; it escaped `step`."""
    import ast
    import types

    import webharness.actions.parse as actions_module

    def broken_parse(*args, **kwargs):
        raise SystemError("AST constructor recursion depth mismatch (before=36, after=-1323)")

    # Only the parser's own `ast` is broken: pytest parses source with the real one.
    monkeypatch.setattr(
        actions_module, "ast", types.SimpleNamespace(**{**vars(ast), "parse": broken_parse})
    )
    with pytest.raises(ActionParseError, match="SystemError"):
        parse_action("click(" + "not " * 900 + "1)")

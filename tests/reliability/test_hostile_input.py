"""Hostile input: action strings are parsed, never run; task files are a TaskSpecError or
a valid spec; text an agent types is typed, never injected into the page."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reliability.conftest import hostile_env
from webharness import TaskSpecError, load_task, task_names
from webharness import actions as A
from webharness.action_result import ActionErrorKind
from webharness.actions.parse import SIGNATURES
from webharness.diagnosis.failures import ERROR_CODES, FailureCode
from webharness.spec.catalogue import task_dir

CANARY = Path("/tmp/webharness-reliability-pwned")
PAYLOAD = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"


@pytest.fixture(scope="module")
def env(browser):
    CANARY.unlink(missing_ok=True)
    env = hostile_env()
    env.reset(seed=0)
    yield env
    env.close()
    assert not CANARY.exists(), "an action string was executed"


# --- action strings through env.step -----------------------------------------------------
_CODE = [
    f"__import__('os').system('touch {CANARY}')",
    f"click(__import__('os').system('touch {CANARY}'))",
    f"fill('e1', open('{CANARY}', 'w').write('x'))",
    f"exec(\"open('{CANARY}', 'w')\")",
    f"eval(\"open('{CANARY}', 'w')\")",
    f"click('e1') or __import__('os').system('touch {CANARY}')",
    f"[click('e1'), __import__('os').system('touch {CANARY}')]",
    f"click(\"e1\"); __import__('os').system('touch {CANARY}')",
    f"(lambda: __import__('os').system('touch {CANARY}'))()",
    f"click(*[__import__('os').system('touch {CANARY}')])",
    f"fill('e1', f\"{{__import__('os').system('touch {CANARY}')}}\")",
    "getattr(__builtins__, 'exec')('1')",
    "().__class__.__base__.__subclasses__()",
    "click.__globals__",
    "A.Click",
    "__import__",
    "breakpoint()",
    "globals()",
]
_DEEP = [
    "click(" + "not " * 2490 + "1)",  # RecursionError in the parser's error message
    "click(" + "-" * 9990 + "1)",
    "click(" + "~" * 9990 + "1)",
    "(" * 5000 + ")" * 5000,
    "[" * 4000 + "]" * 4000,
    "click(" + "a." * 4990 + "b)",
    "click(" + "[" * 3000 + "'e1'" + "]" * 3000 + ")",
    "click('e1')" + "[0]" * 3000,
    "fill('e1', " + "'a' + " * 2000 + "'a')",
    "x" * 1_000_000,
    "click('" + "e" * 200_000 + "')",
]
_UNICODE = [
    "click('e1\u202e')",
    "ｃｌｉｃｋ('e1')",
    "click('\ud800')",
    "click('e1')\u2028x",
    "\x00",
    'click("e1\x00")',
    "fill('e1', '\U0001f4a9' * 3000)",
    "\ufeffclick('e1')",
    "click('e1'  # comment",
    "click('e1')\n\nimport os",
]


def _strings() -> st.SearchStrategy[str]:
    names = st.sampled_from(
        [*SIGNATURES, "exec", "eval", "__import__", "open", "getattr", "compile"]
    )
    args = st.lists(
        st.one_of(
            st.text(max_size=30), st.integers(), st.floats(allow_nan=True), st.sampled_from(_CODE)
        ),
        max_size=3,
    )
    calls = st.builds(
        lambda n, a: f"{n}({', '.join(map(repr, a)) if not isinstance(a, str) else a})", names, args
    )
    code_args = st.builds(lambda n, c: f"{n}({c})", names, st.sampled_from(_CODE))
    return st.one_of(
        st.text(max_size=300),
        calls,
        code_args,
        st.sampled_from(_CODE + _DEEP + _UNICODE),
        st.text(alphabet=st.characters(codec="utf-8"), min_size=0, max_size=50).map(
            lambda t: f"click({t})"
        ),
    )


def _assert_clean(env, text: str) -> None:
    try:
        A.parse_action(text)
        parses = True
    except (A.ActionParseError, RecursionError, MemoryError):
        parses = False
    obs, _, terminated, truncated, info = env.step(text)
    if not parses:
        assert info["action_result"].error is ActionErrorKind.UNPARSEABLE
        assert obs["last_action_error"] and not (terminated or truncated)
    assert "episode_end" not in info or not info["episode_end"].not_executable
    if terminated or truncated:
        env.reset(seed=0)
    assert not CANARY.exists()


def _short(text: str) -> str:
    return ascii(text[:40]) + (f"...({len(text)} chars)" if len(text) > 40 else "")


@pytest.mark.parametrize("text", _CODE + _DEEP + _UNICODE, ids=_short)
def test_hostile_action_strings_come_back_unparseable_and_never_run(env, text):
    _assert_clean(env, text)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_strings())
def test_any_action_string_through_step_is_clean(env, text):
    _assert_clean(env, text)


# Random calls aimed at real pages, most of them well formed: refs the scenario hands out,
# any text, any URL path (long ones too), any number, per each action's parameters.
_ARGUMENT = {
    "ref": st.sampled_from([f"e{i}" for i in range(1, 40)]) | st.text(max_size=20),
    "url": st.builds(lambda t: "/" + t, st.text(max_size=400)) | st.text(max_size=60),
    "key": st.sampled_from(["Enter", "Tab", "Escape", "Control+a", "F5", "Alt+Left"])
    | st.text(max_size=12),
    "dx": st.integers(-(10**9), 10**9) | st.floats(allow_nan=True),
    "ms": st.integers(-(10**6), 10**6),
}
_ARGUMENT["dy"] = _ARGUMENT["x"] = _ARGUMENT["y"] = _ARGUMENT["dx"]
_ON_A_SCENARIO = st.sampled_from(sorted(SIGNATURES)).flatmap(
    lambda name: st.tuples(
        *(_ARGUMENT.get(param, st.text(max_size=200)) for param in SIGNATURES[name])
    ).map(lambda args: f"{name}({', '.join(map(repr, args))})")
)


@pytest.fixture(scope="module", params=["form", "shop"])
def scenario_env(request, browser):
    env = gym.make(f"WebEval/{request.param}-v0", obs_mode="text", max_steps=1_000)
    env.reset(seed=0)
    yield env
    env.close()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_ON_A_SCENARIO | _strings())
def test_random_actions_on_a_scenario_never_end_as_a_harness_fault(scenario_env, text):
    """Whatever an agent sends, the step is the agent's outcome: never ``browser_error``
    and never an episode that is not executable, while the browser itself is fine."""
    _, _, terminated, truncated, info = scenario_env.step(text)
    assert info["action_result"].error is not ActionErrorKind.BROWSER_ERROR, (
        text,
        info["action_result"].message,
    )
    assert "episode_end" not in info or not info["episode_end"].not_executable, text
    if terminated or truncated:
        scenario_env.reset(seed=0)


def test_an_unparseable_action_is_a_model_protocol_failure():
    assert ERROR_CODES[ActionErrorKind.UNPARSEABLE] is FailureCode.MODEL_PROTOCOL


# --- task files ---------------------------------------------------------------------------
def _load(tmp_path: Path, data: Any) -> None:
    path = tmp_path / "task.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, allow_unicode=True))
    try:
        load_task(path)
    except TaskSpecError:
        pass


_json = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
_REAL = {name: yaml.safe_load((task_dir(name) / "task.yaml").read_text()) for name in task_names()}
_FIELDS = sorted({key for spec in _REAL.values() for key in spec})


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.one_of(_json, st.dictionaries(st.sampled_from(_FIELDS), _json, max_size=8)))
def test_any_yaml_document_is_a_spec_or_a_task_spec_error(tmp_path, data):
    _load(tmp_path, data)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found += _paths(child, (*prefix, i))
    return found


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.sampled_from(sorted(_REAL)), data=st.data())
def test_mutated_real_task_files_are_a_spec_or_a_task_spec_error(tmp_path, name, data):
    spec = copy.deepcopy(_REAL[name])
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(spec)[1:]))
        parent = spec
        for key in path[:-1]:
            parent = parent[key]
        how = data.draw(st.sampled_from(["delete", "replace", "wrap", "duplicate"]))
        if how == "delete":
            del parent[path[-1]]
        elif how == "replace":
            parent[path[-1]] = data.draw(_json)
        elif how == "wrap":
            parent[path[-1]] = [parent[path[-1]]]
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[path[-1]]))
    _load(tmp_path, spec)


@pytest.mark.parametrize(
    "text",
    [
        "id: !!python/object/apply:os.system ['touch /tmp/webharness-reliability-pwned']\n",
        "a: &a [*a]\n",
        "id: x\nid: y\n",
        "- just\n- a list\n",
        "",
        "\t\x00",
        "{" * 50 + "}" * 50,
    ],
)
def test_hostile_yaml_text_is_a_task_spec_error(tmp_path, text):
    with pytest.raises(TaskSpecError):
        load_task(_write(tmp_path, text))
    assert not CANARY.exists()


_BILLION_LAUGHS = (
    "a: &a [x,x,x,x,x,x,x,x,x]\n"
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
    )
).encode()


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe\x00id: x",  # not UTF-8: UnicodeDecodeError
        b"id: x\ncategory: " + b"[" * 5000 + b"]" * 5000,  # deep nesting: RecursionError
        b"id: x\nmax_steps: " + b"9" * 5000,  # an int too long to convert: ValueError
        _BILLION_LAUGHS,  # aliases that expand to 9**8 leaves
    ],
)
def test_pathological_task_files_are_a_task_spec_error(tmp_path, content):
    path = tmp_path / "task.yaml"
    path.write_bytes(content)
    with pytest.raises(TaskSpecError):
        load_task(path)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "task.yaml"
    path.write_text(text)
    return path


# --- typed text stays text ------------------------------------------------------------------
def _ref(info, role, name):
    return info["semantic_state"].find(role, name)[0].ref


def _assert_not_injected(info):
    state = info["semantic_state"]
    assert state.title == "Hostile", "typed markup ran in the page"
    assert not any(e.role == "img" for e in state.elements)


def test_fill_types_markup_as_text(env):
    _, info = env.reset(seed=0)
    info = env.step(f"fill({_ref(info, 'textbox', 'Notes')!r}, {PAYLOAD!r})")[4]
    assert info["semantic_state"].find("textbox", "Notes")[0].value == PAYLOAD
    _assert_not_injected(info)


def test_keyboard_type_types_markup_as_text(env):
    _, info = env.reset(seed=0)
    info = env.step(f"click({_ref(info, 'textbox', 'Name')!r})")[4]
    info = env.step(f"keyboard_type({PAYLOAD!r})")[4]
    assert info["semantic_state"].find("textbox", "Name")[0].value == PAYLOAD
    _assert_not_injected(info)


def test_select_option_with_markup_picks_the_option_by_its_text(env):
    _, info = env.reset(seed=0)
    option = "<img src=x onerror=\"document.title='pwned'\">"
    info = env.step(f"select_option({_ref(info, 'combobox', 'Pick')!r}, {option!r})")[4]
    assert info["action_result"].ok
    assert info["semantic_state"].find("combobox", "Pick")[0].value == option
    info = env.step(f"select_option({_ref(info, 'combobox', 'Pick')!r}, {PAYLOAD!r})")[4]
    assert info["action_result"].error is ActionErrorKind.INVALID_ARGUMENT
    _assert_not_injected(info)


@pytest.mark.parametrize("action", ["send_msg_to_user", "ask_user", "report_infeasible"])
def test_messages_with_markup_are_kept_as_text_and_never_reach_the_page(env, action):
    obs, info = env.reset(seed=0)
    obs, _, _, _, info = env.step(f"{action}({PAYLOAD!r})")
    _assert_not_injected(info)
    assert PAYLOAD not in info["semantic_state"].text
    if action == "send_msg_to_user":
        assert env.unwrapped.episode.final_answer == PAYLOAD
    if action == "ask_user":
        assert obs["user_messages"] and PAYLOAD not in obs["user_messages"][-1]


# --- paths and history an agent asks for ----------------------------------------------------
@pytest.fixture(scope="module")
def form_env(browser):
    env = gym.make("WebEval/form-v0", obs_mode="text")
    yield env
    env.close()


def _assert_not_a_harness_fault(info) -> None:
    assert "episode_end" not in info, info.get("episode_end")
    assert info["action_result"].error is not ActionErrorKind.BROWSER_ERROR


@pytest.mark.parametrize(
    "path",
    [
        "/" + "a" * 300,  # a file name too long for the file system (ENAMETOOLONG)
        "/" + "a/" * 2100,  # a path too long for it
        "/a%00b.html",  # a NUL byte once unquoted
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",  # out of the site folder
        "/..%2ftask.yaml",
        "/no-such-page.html",
    ],
    ids=["long-name", "long-path", "nul", "dot-dot", "encoded-slash", "missing"],
)
def test_a_path_the_site_cannot_serve_is_a_404_not_a_harness_fault(form_env, path):
    form_env.reset(seed=0)
    _, _, terminated, truncated, info = form_env.step(f"goto({path!r})")
    _assert_not_a_harness_fault(info)
    assert info["action_result"].ok and not (terminated or truncated)
    state = info["semantic_state"]
    assert state.text.strip() == "Not found", state.text[:200]
    assert "root:" not in state.text
    _, _, _, _, info = form_env.step("go_back()")  # the episode goes on
    assert info["action_result"].ok and info["semantic_state"].find("button", "New contact")


def test_go_back_off_the_first_page_is_refused_and_recorded(form_env):
    _, info = form_env.reset(seed=0)
    start = info["semantic_state"].url
    _, _, terminated, truncated, info = form_env.step("go_back()")
    _assert_not_a_harness_fault(info)
    assert info["action_result"].error is ActionErrorKind.NAVIGATION_BLOCKED
    assert "about:blank" in info["action_result"].message
    assert info["semantic_state"].url == start and not (terminated or truncated)
    assert info["semantic_state"].blocked_requests[-1] == "about:blank [go_back]"


def test_go_back_within_the_task_still_works(form_env):
    _, info = form_env.reset(seed=0)
    start = info["semantic_state"].url
    info = form_env.step("goto('/index.html?second')")[4]
    assert info["semantic_state"].url.endswith("?second")
    info = form_env.step("go_back()")[4]
    assert info["action_result"].ok and info["semantic_state"].url == start

"""Every spec problem is a TaskSpecError when the spec is loaded (not at reset), naming the
file, the field path as written in the YAML, and the value."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from webharness import TaskSpecError, load_task
from webharness.spec.catalogue import task_dir
from webharness.spec.task_spec import DATA_SOURCE, TaskSpec

FORM_DIR = task_dir("form")
FORM_TEXT = (FORM_DIR / "task.yaml").read_text(encoding="utf-8")
FORM = yaml.safe_load(FORM_TEXT)


@dataclass(frozen=True)
class Bad:
    """A broken copy of the form task and the error it must give."""

    name: str
    edit: Callable[[dict[str, Any]], object]
    field: str  # the path the message must name
    value: object  # the value it must show
    problem: str  # a fragment of what it must say

    def __str__(self) -> str:
        return self.name


def _set(*path_and_value: Any) -> Callable[[dict[str, Any]], None]:
    *path, key, value = path_and_value

    def edit(data: dict[str, Any]) -> None:
        for part in path:
            data = data[part]
        data[key] = value

    return edit


def _external(url: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data.update(site=None, start_url=url)

    return edit


def _external_with(url: str, **fields: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data.update(site=None, start_url=url, **fields)

    return edit


def _js(expression: str) -> dict[str, Any]:
    return {
        "kind": "all",
        "of": [{"kind": "url", "path": "/"}, {"kind": "js", "expression": expression}],
    }


_ROWS = ("backend", "collections", "contacts", "rows")
_APP = "http://127.0.0.1:8000/"
_FAR = "http://127.0.0.1:9999/api/reset"
_SAMPLE = {"kind": "sample", "values": ["Milk", "Eggs", "Tea"], "k": 2}
_FIRST_STEP = ("golden_paths", 0, "steps", 0, "target")
BAD_SPECS = [
    Bad(
        "setup-call-elsewhere",
        _external_with(_APP, setup=[{"http": {"url": _FAR}}]),
        "setup.0.http.url",
        _FAR,
        "http://127.0.0.1:9999 is not an origin this task may reach",
    ),
    Bad(
        "setup-call-to-a-local-site",
        _set("setup", [{"http": {"url": "http://webeval.test/api/reset"}}]),
        "setup.0.http.url",
        "http://webeval.test/api/reset",
        "backend: rows",
    ),
    Bad(
        "setup-script-elsewhere",
        _external_with(_APP, setup=[{"init_script": {"url": "https://cdn.example/seed.js"}}]),
        "setup.0.init_script.url",
        "https://cdn.example/seed.js",
        "add it to allowed_origins",
    ),
    Bad(
        "setup-storage-elsewhere",
        _external_with(_APP, setup=[{"storage": {"origin": "http://other.test", "local": {}}}]),
        "setup.0.storage.origin",
        "http://other.test",
        "not an origin this task may reach",
    ),
    Bad(
        "setup-two-kinds",
        _set("setup", [{"http": {"url": "http://webeval.test/x"}, "cookies": []}]),
        "setup.0",
        None,
        "exactly one of http, cookies, storage, init_script, step",
    ),
    Bad(
        "setup-dsl-with-ref",
        _set("setup", [{"step": "click('e12')"}]),
        "setup.0.step",
        "click('e12')",
        "cannot name a ref",
    ),
    Bad(
        "setup-dsl-unparsed",
        _set("setup", [{"step": "click the button"}]),
        "setup.0.step",
        "click the button",
        "",
    ),
    Bad(
        "js-syntax",
        _set("success", _js("document.title ===")),
        "success.of.1.expression",
        "document.title ===",
        "not valid JavaScript: it ends too early",
    ),
    Bad(
        "js-in-expect",  # an expect is judged while recording, where no JS runs
        lambda d: d["golden_paths"][0]["steps"][0].update(
            expect={"kind": "js", "expression": "a b c"}
        ),
        "golden_paths.0.steps.0.expect",
        {"kind": "js", "expression": "a b c"},
        "no JavaScript runs",
    ),
    Bad(
        "init-script-syntax",
        _set("setup", [{"init_script": {"js": "window.x = ("}}]),
        "setup.0.init_script.js",
        "window.x = (",
        "not valid JavaScript",
    ),
    Bad(
        "index-of-a-plain-param",
        _set("instruction", "Add {{name[0]}}."),
        "instruction",
        "Add {{name[0]}}.",
        "only a sample parameter (a list) takes an index",
    ),
    Bad(
        "index-past-the-end",
        lambda d: d.update(
            instruction="Buy {{items[2]}}.", params={**d["params"], "items": _SAMPLE}
        ),
        "instruction",
        "Buy {{items[2]}}.",
        "past the end: 'items' holds 2 values, indexed from 0 to 1",
    ),
    Bad(
        "count-both-ways",
        _set("success", {"kind": "count", "role": "row", "selector": "tr", "count": 2}),
        "success",
        None,
        "either role (and name, within) or selector",
    ),
    Bad(
        "count-min-above-max",
        _set("success", {"kind": "count", "role": "row", "min": 3, "max": 1}),
        "success",
        None,
        "min 3 is above max 1",
    ),
    Bad(
        "count-selector-within",
        _set(
            "success",
            {"kind": "count", "selector": "li", "within": {"role": "list", "name": "A"}, "min": 1},
        ),
        "success",
        None,
        "write a selector's scope into it",
    ),
    Bad(
        "eventually-zero",
        _set("success", {"kind": "eventually", "within_ms": 0, "criterion": {"kind": "url"}}),
        "success.within_ms",
        0,
        "greater than or equal to 1",
    ),
    Bad(
        "within-without-name",
        _set(*_FIRST_STEP, "within", {"role": "list"}),
        "golden_paths.0.steps.0.target.within.name",
        None,
        "Field required",
    ),
    Bad("file-url", _external("file:///etc/passwd"), "start_url", "file:///etc/passwd", "http"),
    Bad("not-a-url", _external("not a url"), "start_url", "not a url", "http:// and https://"),
    Bad("no-host", _external("http:///index.html"), "start_url", "http:///index.html", "host"),
    Bad("bad-port", _external("http://localhost:port/"), "start_url", None, "not a URL"),
    Bad(
        "origin-with-path",
        _set("allowed_origins", ["http://localhost:8000/api"]),
        "allowed_origins.0",
        "http://localhost:8000/api",
        "use 'http://localhost:8000'",
    ),
    Bad(
        "origin-scheme",
        _set("allowed_origins", ["ftp://x"]),
        "allowed_origins.0",
        "ftp://x",
        "http",
    ),
    Bad("start-page", _set("start_page", "index.html"), "start_page", "index.html", "'^/'"),
    Bad("missing-site", _set("site", "nowhere"), "site", None, "no such folder"),
    Bad(
        "unknown-pool",
        _set("params", "first", "pool", "firstnames"),
        "params.first.pool",
        "firstnames",
        "Did you mean: 'first_names'?",
    ),
    Bad(
        "unknown-sample-pool",
        _set("params", "pick", {"kind": "sample", "pool": "citys", "k": 2}),
        "params.pick.pool",
        "citys",
        "no pool named 'citys'",
    ),
    Bad(
        "sample-without-source",
        _set("params", "pick", {"kind": "sample", "k": 2}),
        "params.pick",
        None,
        "either values",
    ),
    Bad(
        "int-min-above-max",
        _set("params", "n", {"kind": "int", "min": 9, "max": 2}),
        "params.n.max",
        2,
        "below min 9",
    ),
    Bad(
        "int-beyond-js",
        _set("params", "n", {"kind": "int", "min": 0, "max": 2**60}),
        "params.n.max",
        2**60,
        "less than or equal",
    ),
    Bad(
        "distinct-from-unknown",
        _set("params", "last", "distinct_from", ["nobody"]),
        "params.last.distinct_from",
        "nobody",
        "declared before 'last'",
    ),
    Bad(
        "url-regex",
        _set("success", {"kind": "url", "matches": "/contacts/(\\d+"}),
        "success.matches",
        "/contacts/(\\d+",
        "regular expression",
    ),
    Bad(
        "nested-url-regex",
        _set("success", {"kind": "all", "of": [{"kind": "url", "matches": "[a-"}]}),
        "success.of.0.matches",
        "[a-",
        "regular expression",
    ),
    Bad(
        "backend-pattern",
        _set("backend", "collections", "contacts", "fields", "email", "pattern", "*@"),
        "backend.collections.contacts.fields.email.pattern",
        "*@",
        "regular expression",
    ),
    Bad(
        "row-undeclared-field",
        lambda d: d["backend"]["collections"]["contacts"]["rows"][1].update(phone="555"),
        ".".join(_ROWS),
        None,
        "row 1 has 'phone', which the collection does not declare",
    ),
    Bad(
        "match-unknown-collection",
        _set(
            "backend",
            "collections",
            "contacts",
            "requires_match",
            {"collection": "users", "groups": [["email"]]},
        ),
        "backend",
        None,
        "'users', which is not declared",
    ),
    Bad("bool-for-int", _set("max_steps", True), "max_steps", True, "valid integer"),
    Bad("string-for-int", _set("max_steps", "5"), "max_steps", "5", "valid integer"),
    Bad("float-for-int", _set("max_steps", 5.0), "max_steps", 5.0, "valid integer"),
    Bad(
        "int-for-bool",
        lambda d: d["golden_paths"][0]["steps"][0]["target"].update(exact=1),
        "golden_paths.0.steps.0.target.exact",
        1,
        "valid boolean",
    ),
    Bad(
        "string-for-float",
        _set("params", "vip", "p", "0.5"),
        "params.vip.p",
        "0.5",
        "valid number",
    ),
]


def _write(folder: Path, data: dict[str, Any] | str) -> Path:
    """The spec as a task.yaml in ``folder``, with a copy of the form site next to it."""
    shutil.copytree(FORM_DIR / "site", folder / "site", dirs_exist_ok=True)
    path = folder / "task.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def test_the_unedited_copy_loads(tmp_path):
    """The table's baseline: each case below fails only because of its edit."""
    assert load_task(_write(tmp_path, FORM)).id == "form"


@pytest.mark.parametrize("bad", BAD_SPECS, ids=str)
def test_a_bad_spec_is_refused_at_load_naming_file_field_and_value(tmp_path, bad):
    data = copy.deepcopy(FORM)
    bad.edit(data)
    path = _write(tmp_path, data)
    with pytest.raises(TaskSpecError) as caught:
        load_task(path)
    error, message = caught.value, str(caught.value)
    assert error.file == str(path) and message.startswith(f"{path}: field '{bad.field}'"), message
    if bad.value is not None:
        assert error.value == bad.value and repr(bad.value) in message, message
    assert bad.problem in message


@pytest.mark.parametrize("bad", BAD_SPECS, ids=str)
def test_a_bad_spec_built_from_data_is_a_task_spec_error_too(bad):
    data = copy.deepcopy(FORM)
    data["site"] = str(FORM_DIR / "site")
    bad.edit(data)
    with pytest.raises(TaskSpecError) as caught:
        TaskSpec.model_validate(data)
    assert caught.value.file == DATA_SOURCE and caught.value.field == bad.field
    assert bad.problem in str(caught.value)


@pytest.mark.parametrize(
    "text, field, lines",
    [
        (FORM_TEXT.replace("max_steps: 15\n", "max_steps: 15\nmax_steps: 30\n"), "max_steps", ""),
        (
            FORM_TEXT.replace(
                "vip: {kind: bool}", "vip: {kind: bool}\n  vip: {kind: bool, p: 0.9}"
            ),
            "vip",
            "",
        ),
        ("id: a\ncategory: x\nid: b\n", "id", "(lines 1 and 3)"),
        ("a: {x: 1, x: 2}\n", "x", "(lines 1 and 1)"),
    ],
    ids=["top-level", "nested", "lines", "flow-mapping"],
)
def test_duplicate_keys_are_refused_naming_the_key(tmp_path, text, field, lines):
    path = _write(tmp_path, text)
    with pytest.raises(TaskSpecError) as caught:
        load_task(path)
    assert caught.value.field == field and "appears twice" in str(caught.value)
    assert lines in str(caught.value)


def test_a_merge_key_may_be_overridden(tmp_path):
    text = FORM_TEXT.replace(
        "  first: {kind: pool, pool: first_names}",
        "  first: &pool {kind: pool, pool: first_names}\n  other: {<<: *pool, pool: cities}",
    )
    spec = load_task(_write(tmp_path, text))
    assert spec.params["other"].pool == "cities"  # type: ignore[union-attr]


def test_a_relative_site_is_next_to_the_task_file(tmp_path):
    folder = tmp_path / "elsewhere" / "my_task"
    folder.mkdir(parents=True)
    spec = load_task(_write(folder, FORM))
    assert Path(spec.site or "") == (folder / "site").resolve()
    assert not str(spec.site).startswith(str(FORM_DIR))


def test_an_instance_keeps_the_resolved_site(tmp_path):
    import numpy as np

    from webharness.spec.task_spec import instantiate

    spec = load_task(_write(tmp_path, FORM))
    filled = instantiate(spec, 0, np.random.default_rng(0)).spec
    assert filled.site == spec.site == str((tmp_path / "site").resolve())

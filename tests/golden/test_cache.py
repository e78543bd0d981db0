"""The golden-trace cache: keys that change with what determines the traces, entries that
are whole or absent, damage that is found, and a size bound."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from webharness.golden.cache import GoldenCache, golden_key, link_tree
from webharness.spec.catalogue import get_task
from webharness.spec.task_spec import load_task

FORM = get_task("WebEval/form-v0")
LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library_tasks"


def key(spec=FORM, seed=0, screenshots=True, viewport=(1280, 720)) -> str | None:
    return golden_key(spec, seed, screenshots=screenshots, viewport=viewport)


def recording(text: str):
    def record(folder: Path) -> None:
        (folder / "main").mkdir(parents=True)
        (folder / "main" / "steps.jsonl").write_text(text)
        (folder / "main" / "step_0000.webp").write_bytes(text.encode() * 10)

    return record


def test_the_key_changes_with_each_thing_that_makes_the_traces_and_only_with_them():
    base = key()
    assert key() == base  # the same inputs, the same key
    others = {
        key(seed=1),
        key(screenshots=False),
        key(viewport=(800, 600)),
        key(spec=FORM.model_copy(update={"instruction": FORM.instruction + "!"})),
        key(spec=get_task("WebEval/login-v0")),
    }
    assert base not in others and len(others) == 5


def test_the_key_follows_the_bytes_of_the_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<button>Save</button>")
    spec = FORM.model_copy(update={"site": str(site)})
    before = key(spec=spec)
    (site / "index.html").write_text("<button>Store</button>")
    assert key(spec=spec) != before


def test_an_unversioned_app_of_ones_own_or_a_random_instance_is_not_cached():
    assert key(spec=FORM.model_copy(update={"start_url": "http://127.0.0.1:5173/"})) is None
    assert key(seed=None) is None


def test_an_app_is_keyed_by_its_version_and_never_gets_another_version_s_recording(tmp_path):
    external = FORM.model_copy(update={"start_url": "http://127.0.0.1:5173/", "site": None})
    v1 = key(spec=external.model_copy(update={"app_version": "1"}))
    v2 = key(spec=external.model_copy(update={"app_version": "2"}))
    assert None not in (v1, v2) and v1 != v2
    library = load_task(LIBRARY / "delete_book" / "task.yaml")
    assert library.app is not None and library.app.version == "shelfwise-1"
    shelfwise = key(spec=library)
    assert shelfwise is not None and shelfwise == key(spec=load_task(library.source))
    app_v2 = library.app.model_copy(update={"version": "shelfwise-2"})
    assert key(spec=library.model_copy(update={"app": app_v2})) not in (shelfwise, None)
    unversioned = library.app.model_copy(update={"version": None})
    assert key(spec=library.model_copy(update={"app": unversioned})) is None
    # bound to a running instance, its origin is that instance's: keyed only as loaded
    assert key(spec=library.bound_to("http://127.0.0.1:8123")) is None
    cache = GoldenCache(tmp_path)
    assert shelfwise is not None
    cache.store(shelfwise, recording("shelfwise-1"))
    assert cache.lookup(key(spec=library.model_copy(update={"app": app_v2})) or "") is None


def test_a_stored_entry_is_found_and_linked_into_a_run(tmp_path):
    cache = GoldenCache(tmp_path / "cache")
    entry = cache.store("k1", recording("one"))
    assert cache.lookup("k1") == entry
    link_tree(entry, tmp_path / "run" / "seed-0")
    linked = tmp_path / "run" / "seed-0" / "main" / "steps.jsonl"
    assert linked.read_text() == "one" and linked.stat().st_nlink == 2  # no second copy
    assert not (tmp_path / "run" / "seed-0" / "entry.json").exists()


def test_a_damaged_entry_is_dropped_never_used(tmp_path):
    cache = GoldenCache(tmp_path)
    entry = cache.store("k1", recording("one"))
    (entry / "main" / "steps.jsonl").write_text("two")  # same size class, other bytes
    assert cache.lookup("k1") is None and not entry.exists()
    entry = cache.store("k2", recording("one"))
    (entry / "main" / "extra.json").write_text("{}")
    assert cache.lookup("k2") is None
    entry = cache.store("k3", recording("one"))
    (entry / "entry.json").write_text("{not json")
    assert cache.lookup("k3") is None


def test_an_entry_another_process_stored_first_is_kept(tmp_path):
    cache = GoldenCache(tmp_path)
    first = cache.store("k1", recording("first"))
    second = cache.store("k1", recording("second"))
    assert second == first and (first / "main" / "steps.jsonl").read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["k1"]  # the second recording is gone


def test_a_recording_that_fails_leaves_nothing(tmp_path):
    def fail(folder: Path) -> None:
        recording("half")(folder)
        raise RuntimeError("the browser crashed")

    cache = GoldenCache(tmp_path)
    with pytest.raises(RuntimeError):
        cache.store("k1", fail)
    assert list(tmp_path.iterdir()) == []


def test_least_recently_used_entries_go_first_over_the_bound(tmp_path):
    cache = GoldenCache(tmp_path, max_bytes=10**9)
    for n, name in enumerate(["a", "b", "c"]):
        cache.store(name, recording(name * 100))
        os.utime(tmp_path / name / "entry.json", (n, n))
    cache.lookup("a")  # used now: the most recent
    size = cache.entries()[0].size_bytes
    removed = cache.prune(2 * size)
    assert [e.key for e in removed] == ["b"]
    assert sorted(e.key for e in cache.entries()) == ["a", "c"]
    assert [e.key for e in cache.clear()] == ["c", "a"] and cache.entries() == []


def test_every_entry_records_the_digest_of_each_of_its_files(tmp_path):
    entry = GoldenCache(tmp_path).store("k1", recording("one"))
    listed = json.loads((entry / "entry.json").read_text())
    assert listed["key"] == "k1"
    assert sorted(listed["files"]) == ["main/step_0000.webp", "main/steps.jsonl"]


def test_a_task_without_golden_paths_is_an_empty_entry_linked_as_an_empty_folder(tmp_path):
    cache = GoldenCache(tmp_path / "cache")
    entry = cache.store("k1", lambda folder: None)  # nothing to record
    assert cache.lookup("k1") == entry
    link_tree(entry, tmp_path / "run" / "seed-0")
    assert list((tmp_path / "run" / "seed-0").iterdir()) == []


def shared_start(folder: Path) -> None:
    """Two golden paths whose first frame is the same and whose second is not."""
    for path, last in (("enter-key", b"enter"), ("save-button", b"save")):
        (folder / path).mkdir()
        (folder / path / "step_0000.webp").write_bytes(b"the form, empty" * 100)
        (folder / path / "step_0001.webp").write_bytes(last * 100)


def test_equal_files_of_an_entry_are_kept_once_and_the_entry_stays_whole(tmp_path):
    cache = GoldenCache(tmp_path / "cache")
    entry = cache.store("k1", shared_start)
    first, second = (entry / p / "step_0000.webp" for p in ("enter-key", "save-button"))
    assert first.stat().st_ino == second.stat().st_ino
    assert (entry / "enter-key" / "step_0001.webp").stat().st_nlink == 1
    assert cache.lookup("k1") == entry  # each file still matches its digest
    listed = (entry / "entry.json").stat().st_size
    assert cache.entries()[0].size_bytes == 1500 + 500 + 400 + listed  # the shared one once
    link_tree(entry, tmp_path / "run")
    assert (tmp_path / "run" / "save-button" / "step_0000.webp").read_bytes() == first.read_bytes()


def test_without_hard_links_equal_files_stay_copies(tmp_path, monkeypatch):
    def no_links(source, target):
        raise OSError("this file system has no hard links")

    monkeypatch.setattr(os, "link", no_links)
    cache = GoldenCache(tmp_path)
    entry = cache.store("k1", shared_start)
    first, second = (entry / p / "step_0000.webp" for p in ("enter-key", "save-button"))
    assert first.read_bytes() == second.read_bytes() and first.stat().st_ino != second.stat().st_ino
    assert cache.lookup("k1") == entry and not list(entry.rglob("*.link"))

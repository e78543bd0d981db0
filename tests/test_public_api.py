"""The public API: every exported name resolves, every public name is exported (not only
the capitalised ones), the diagnosis API is reachable from the top, and the pre-0.2
import paths still work for one release, with a warning that names the new path."""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from pathlib import Path

import pytest

import webharness
from webharness import _moved

PACKAGES = [
    "webharness",
    "webharness.agents",
    "webharness.apps",
    "webharness.browser",
    "webharness.diagnosis.failures",
    "webharness.envs",
    "webharness.episode",
    "webharness.perturbations",
    "webharness.runner",
    "webharness.trace",
    "webharness.wrappers",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_resolves_and_every_public_name_is_exported(name: str) -> None:
    package = importlib.import_module(name)
    exported = set(package.__all__)
    assert [n for n in exported if not hasattr(package, n)] == []
    # Public: every name without an underscore defined in the package (names it imports
    # for its own use, such as typing's Any, would otherwise read as offered).
    public = {
        n
        for n, value in vars(package).items()
        if not n.startswith("_")
        and not isinstance(value, types.ModuleType)
        and str(getattr(value, "__module__", name)).startswith(name)
    }
    assert public - exported == set()


def test_the_diagnosis_api_is_public() -> None:
    for name in ("FailureCode", "Stage", "align", "annotate", "score_trace", "load_trace"):
        assert name in webharness.__all__
    assert webharness.Stage is webharness.RootCauseStage


def test_the_package_is_typed() -> None:
    assert (Path(webharness.__file__).parent / "py.typed").is_file()


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_an_old_import_path_warns_and_gives_the_new_module(old: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=_moved.MOVED[old].replace(".", r"\.")) as caught:
        __import__(old)  # as an import statement does (importlib.import_module adds a frame)
    module = sys.modules[old]
    assert caught[0].filename == __file__  # points at the importing line, not importlib
    if old in _moved.SPLIT:
        for part in _moved.SPLIT[old]:
            new = importlib.import_module(part)
            for name in getattr(new, "__all__", [n for n in vars(new) if n[0].isalpha()]):
                assert getattr(module, name) is getattr(new, name), name
    else:
        assert module is importlib.import_module(_moved.MOVED[old])


def test_an_old_name_as_an_attribute_warns_too() -> None:
    sys.modules.pop("webharness.failures", None)
    vars(webharness).pop("failures", None)  # an earlier import of the old path set it
    with pytest.warns(DeprecationWarning, match=r"webharness\.diagnosis\.failures"):
        failures = webharness.failures  # type: ignore[attr-defined]
    assert failures.FailureCode is webharness.FailureCode


def test_a_name_that_never_existed_is_still_an_attribute_error() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no_such_thing"):
            _ = webharness.no_such_thing  # type: ignore[attr-defined]

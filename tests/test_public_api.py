"""The public API: every exported name resolves, every public name is exported (not only
the capitalised ones) and the diagnosis API is reachable from the top."""

from __future__ import annotations

import importlib
import types
from pathlib import Path

import pytest

import webharness

PACKAGES = [
    "webharness",
    "webharness.agents",
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
        and n != "TYPE_CHECKING"
        and not isinstance(value, types.ModuleType)
        and str(getattr(value, "__module__", name)).startswith(name)
    }
    assert public - exported == set()


def test_the_diagnosis_api_is_public() -> None:
    for name in ("FailureCode", "Stage", "align", "annotate", "score_trace", "load_trace"):
        assert name in webharness.__all__


def test_the_package_is_typed() -> None:
    assert (Path(webharness.__file__).parent / "py.typed").is_file()

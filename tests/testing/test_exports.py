"""webharness.testing exports exactly its public names, and loads them on first use."""

from __future__ import annotations

import subprocess
import sys
import types

import webharness.testing as testing


def test_every_exported_name_resolves_and_the_list_is_complete() -> None:
    for name in testing.__all__:
        assert getattr(testing, name) is not None, name
    offered = {
        n
        for n in dir(testing)  # the names it loads on first use, and those already loaded
        if not n.startswith("_") and not isinstance(getattr(testing, n), types.ModuleType)
    }
    assert offered - {"TYPE_CHECKING", "annotations"} == set(testing.__all__)


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    try:
        testing.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("no AttributeError")


def test_importing_the_process_helpers_does_not_load_the_fault_suite() -> None:
    code = (
        "import sys, webharness.testing.processes; print('webharness.testing.suite' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]

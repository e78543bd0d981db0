"""webharness.testing exports exactly its public names, and loads them on first use."""

from __future__ import annotations

import subprocess
import sys

import webharness.testing as testing


def test_every_exported_name_resolves_and_the_list_is_complete() -> None:
    for name in testing.__all__:
        assert getattr(testing, name) is not None, name
    assert sorted(testing.__all__) == sorted(testing._MODULE_OF)


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

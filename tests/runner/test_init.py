"""The runner's public names."""

from __future__ import annotations

import importlib
import inspect

import webharness.runner

MODULES = ("config", "pool", "rescore", "run_folder", "worker")


def test_every_public_name_of_the_runner_modules_is_exported():
    exported = set(webharness.runner.__all__)
    assert all(hasattr(webharness.runner, name) for name in exported)
    defined = set()
    for name in MODULES:
        module = importlib.import_module(f"webharness.runner.{name}")
        defined |= {
            n
            for n, value in vars(module).items()
            if not n.startswith("_")
            and (inspect.isclass(value) or inspect.isfunction(value))
            and value.__module__ == module.__name__
        }
    assert defined - exported == set()

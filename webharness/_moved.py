"""Import paths of the flat layout before 0.2, kept working for one release.

``import webharness.failures`` (and ``from webharness.failures import FailureCode``) still
work: a finder on ``sys.meta_path`` answers each old name with the module that now holds
its code (or, where a module was split, a module that looks names up in its parts), after
a ``DeprecationWarning`` that names the new path. Old names that became
packages (``webharness.runner``, ``webharness.trace``, ``webharness.browser``,
``webharness.episode``) re-export what the old module did and need no entry here.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

REMOVED_IN = "0.3"

# old module -> the module that holds its code now
MOVED: dict[str, str] = {
    "webharness.shared_browser": "webharness.browser.shared",
    "webharness.runtime": "webharness.browser.runtime",
    "webharness.page_session": "webharness.browser.page_session",
    "webharness.processes": "webharness.testing.processes",
    "webharness.executor": "webharness.episode.executor",
    "webharness.observation": "webharness.episode.observation",
    "webharness.hooks": "webharness.episode.hooks",
    "webharness.site": "webharness.episode.site",
    "webharness.backend": "webharness.episode.backend",
    "webharness.task_spec": "webharness.spec.task_spec",
    "webharness.params": "webharness.spec.params",
    "webharness.templating": "webharness.spec.templating",
    "webharness.criteria": "webharness.spec.criteria",
    "webharness.catalogue": "webharness.spec.catalogue",
    "webharness.oracle": "webharness.golden.oracle",
    "webharness.play": "webharness.golden.play",
    "webharness.golden_recorder": "webharness.golden.path_recorder",
    "webharness.trace_io": "webharness.trace.io",
    "webharness.recorder": "webharness.trace.recorder",
    "webharness.alignment": "webharness.diagnosis.alignment",
    "webharness.trace_rules": "webharness.diagnosis.trace_rules",
    "webharness.scoring": "webharness.diagnosis.scoring",
    "webharness.failures": "webharness.diagnosis.failures",
    "webharness.evaluation": "webharness.reporting.records",
    "webharness.summary": "webharness.reporting.summary",
    "webharness.report": "webharness.reporting.render",
    "webharness.report_charts": "webharness.reporting.charts",
    "webharness.run_report": "webharness.runner.rescore",
    "webharness.runner_ray": "webharness.runner.ray_backend",
    "webharness.progress": "webharness.runner.progress_bar",
}
# Old modules whose names were split over several new ones, looked up in this order.
SPLIT: dict[str, tuple[str, ...]] = {
    "webharness.alignment": (
        "webharness.diagnosis.alignment",
        "webharness.diagnosis.similarity",
        "webharness.diagnosis.signatures",
        "webharness.diagnosis.progress",
    ),
}


def warn_moved(old: str, stacklevel: int) -> None:
    warnings.warn(
        f"{old} has moved to {MOVED[old]}; import it from there "
        f"(the old path is removed in webharness {REMOVED_IN})",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def load_moved(old: str) -> ModuleType:
    """The module that now holds ``old``'s code, after the deprecation warning.

    The warning points at the line that used the old name: three frames up from
    ``warn_moved``, as the import machinery's own frames are skipped by ``warnings``.
    """
    warn_moved(old, stacklevel=4)
    if old in SPLIT:
        return _joined(old, SPLIT[old])
    return importlib.import_module(MOVED[old])


def _joined(old: str, parts: tuple[str, ...]) -> ModuleType:
    """A module named ``old`` that finds each name in the first part that has it."""
    modules = [importlib.import_module(part) for part in parts]
    joined = ModuleType(old, f"Names of the pre-0.2 {old}, now in {', '.join(parts)}.")

    def lookup(name: str) -> object:
        for module in modules:
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    joined.__getattr__ = lookup  # type: ignore[method-assign]  # PEP 562: a module's own
    return joined


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the new module itself, so both names share one module."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return load_moved(spec.name)

    def exec_module(self, module: ModuleType) -> None:
        """The new module ran when it was imported; nothing more to do."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old names in ``MOVED`` (and nothing else)."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader())


def install() -> None:
    """Put the finder on ``sys.meta_path`` once per process."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())

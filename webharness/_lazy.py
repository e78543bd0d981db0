"""Names a package offers whose modules load on first use (PEP 562), so that importing the
package, or any module under it, does not load a heavy dependency such as Playwright."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_names(
    package: str, homes: Mapping[str, Iterable[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, offering each name of ``homes``
    (module path -> names) from its module, imported when the name is first read.
    """
    module_of = {name: module for module, names in homes.items() for name in names}
    namespace = vars(sys.modules[package])

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # read once: later reads are plain attribute reads
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *module_of})

    return __getattr__, __dir__

"""Label drift as text: the roles whose names drift and how a word mapping rewrites a name.

The ``label_drift`` perturbation applies the mapping in the page; the golden oracle applies
:func:`drift_text` to predict the names it will find there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

DRIFTING_ROLES = frozenset({"button", "link"})


def drift_text(text: str, mapping: Mapping[str, str]) -> str:
    """``text`` with every mapped word replaced, as the page does it."""
    if not mapping:
        return text
    lowered = {k.lower(): v for k, v in mapping.items()}
    words = "|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True))
    pattern = re.compile(rf"(?<![A-Za-z])({words})(?![A-Za-z])", re.IGNORECASE)
    return pattern.sub(lambda m: _match_case(m.group(0), lowered[m.group(0).lower()]), text)


def _match_case(found: str, target: str) -> str:
    if len(found) > 1 and found == found.upper():
        return target.upper()
    first = target[0].upper() if found[0] == found[0].upper() else target[0].lower()
    return first + target[1:]

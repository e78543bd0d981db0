"""What the examples in the package's docstrings (``--doctest-modules``) share with the
tests: the files they make go to pytest's temporary folders, which it prunes itself, not
to the system's, where every run would leave another four folders."""

from __future__ import annotations

import tempfile

import pytest
from _pytest.doctest import DoctestItem


@pytest.fixture(autouse=True)
def _doctest_files_in_tmp_path(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if isinstance(request.node, DoctestItem):
        monkeypatch.setattr(tempfile, "tempdir", str(request.getfixturevalue("tmp_path")))

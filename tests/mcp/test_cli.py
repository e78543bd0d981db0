"""``webharness mcp``'s usage errors: one ``webharness:`` line, exit code 2, nothing served."""

from __future__ import annotations

import pytest

from webharness.cli import main


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["mcp"], "webharness: mcp: name the task: webharness mcp form, or --tasks ./mytask"),
        (["mcp", "form", "--caps", "pdf"], "webharness: --caps 'pdf': the one capability"),
        (["mcp", "form", "--viewport", "wide"], "webharness: --viewport 'wide': write it WIDTHx"),
        (["mcp", "nosuch"], "webharness: task 'nosuch':"),
    ],
)
def test_a_usage_error_is_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(says) and err.count("\n") == 1

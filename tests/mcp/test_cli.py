"""``webharness mcp``'s usage errors: one ``webharness:`` line, exit code 2, nothing served."""

from __future__ import annotations

import socket

import pytest

from webharness.cli import main


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["mcp"], "webharness: mcp: name the task: webharness mcp form, or --tasks ./mytask"),
        (["mcp", "form", "--caps", "pdf"], "webharness: --caps 'pdf': the one capability"),
        (["mcp", "form", "--viewport", "wide"], "webharness: --viewport 'wide': write it WIDTHx"),
        (["mcp", "nosuch"], "webharness: task 'nosuch':"),
        (["mcp", "form", "--upload-dir", "/no/such"], "webharness: --upload-dir '/no/such': give"),
    ],
)
def test_a_usage_error_is_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(says) and err.count("\n") == 1


def test_a_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["mcp", "form", "--http", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"webharness: --port {port}: cannot listen there:")

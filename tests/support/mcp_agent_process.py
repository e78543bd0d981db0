"""A scripted external MCP agent, run by ``webharness run --agents 'mcp[command=...]'`` in the
tests: it connects to ``--mcp URL`` with the ``mcp`` SDK's streamable HTTP client, makes the
tool calls of ``--calls FILE`` (a JSON list of ``[tool, arguments]``), then ends as
``--then`` says:

- ``exit``: exit 0 (``--print TEXT`` first prints a last line, its answer);
- ``fail``: exit 3;
- ``crash``: SIGKILL itself;
- ``hang``: start a child that sleeps, write its pid to ``{episode_dir}/child.pid``, and
  wait forever (the runner's budget ends it and its group);
- ``disconnect``: close the MCP session (an HTTP DELETE), then wait forever.

Run: ``python -m tests.support.mcp_agent_process --mcp URL --calls FILE --then exit``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import anyio

from tests.support.mcp_clients import http_session, text_of


async def call_all(url: str, calls: list[list[object]], then: str) -> None:
    async with http_session(url) as session:
        for name, arguments in calls:
            result = await session.call_tool(str(name), dict(arguments))  # type: ignore[call-overload]
            print(f"{name}: {'error' if result.is_error else 'ok'}", file=sys.stderr)
            print(text_of(result), file=sys.stderr)
        if then == "hang":  # with the session open: only the budget ends it
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
            Path(os.environ["WEBHARNESS_EPISODE_DIR"], "child.pid").write_text(str(child.pid))
            await anyio.sleep_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mcp", required=True)
    parser.add_argument("--calls", required=True)
    parser.add_argument("--then", default="exit")
    parser.add_argument("--print", dest="answer")
    args = parser.parse_args()
    assert os.environ["WEBHARNESS_MCP_URL"] == args.mcp, "the URL is also in the environment"
    calls = json.loads(Path(args.calls).read_text())
    anyio.run(call_all, args.mcp, calls, args.then)  # the session ends with a DELETE
    if args.then == "disconnect":
        threading.Event().wait()  # forever: the runner ends the process group
    if args.then == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
    if args.answer:
        print(args.answer, flush=True)
    sys.exit(3 if args.then == "fail" else 0)


if __name__ == "__main__":
    main()

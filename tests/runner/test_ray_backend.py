"""The Ray backend: it joins a cluster the way Ray users expect (the order checked against a
fake Ray), its errors are one line, and a grid played on a real two-node cluster (two
``ray start`` nodes on this machine) gives the local backend's outcomes."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from webharness.apps import free_port
from webharness.runner.ray_backend import RayBackendError, connect


class FakeRay:
    """Records ``init`` calls; raises what the test scripts for each address."""

    def __init__(self, failures: dict[str | None, Exception]) -> None:
        self.failures, self.calls = failures, []

    def init(self, address: str | None = None, **options: Any) -> None:
        self.calls.append((address, options.get("num_cpus")))
        if address in self.failures:
            raise self.failures[address]


@pytest.mark.parametrize(
    ("address", "env", "failures", "expected"),
    [
        ("10.0.0.5:6379", "ignored:1", {}, [("10.0.0.5:6379", None)]),
        (None, "ray://head:10001", {}, [("ray://head:10001", None)]),
        (None, None, {}, [("auto", None)]),
        (None, None, {"auto": ConnectionError("none")}, [("auto", None), (None, 3)]),
    ],
    ids=["--address", "RAY_ADDRESS", "a running local cluster", "a new local Ray"],
)
def test_ray_is_joined_as_ray_users_expect(monkeypatch, address, env, failures, expected) -> None:
    if env is None:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    else:
        monkeypatch.setenv("RAY_ADDRESS", env)
    ray = FakeRay(failures)
    connect(ray, address, parallelism=3)
    assert ray.calls == expected  # num_cpus only for a Ray of our own


def test_a_cluster_that_cannot_be_joined_is_one_line_naming_it(monkeypatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    ray = FakeRay({"127.0.0.1:1": ConnectionError("Failed to connect to GCS\nat 127.0.0.1:1")})
    with pytest.raises(RayBackendError) as caught:
        connect(ray, "127.0.0.1:1", parallelism=2)
    message = str(caught.value)
    assert "\n" not in message and "127.0.0.1:1" in message and "Failed to connect" in message


RAY = Path(sys.executable).with_name("ray")
# Ray 2.60 turns token authentication on for `ray start --head`: the nodes and drivers of
# the cluster made here all run with it off.
NO_AUTH = {**os.environ, "RAY_AUTH_MODE": "disabled"}
STARTED = "Ray runtime started"


class _RayNode:
    """``ray start --block``, made once the node says it has started (a worker node says so
    only after joining the head); ``stop()`` terminates it, which takes the node down."""

    def __init__(self, *options: str) -> None:
        self.process = subprocess.Popen(
            [str(RAY), "start", "--block", "--disable-usage-stats", *options],
            env=NO_AUTH,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        output: list[str] = []
        deadline = time.monotonic() + 120
        while not any(STARTED in line for line in output):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.process.poll() is not None:
                self.stop()
                raise AssertionError(f"ray start {' '.join(options)} failed:\n{''.join(output)}")
            with contextlib.suppress(queue.Empty):
                output.append(self._lines.get(timeout=min(remaining, 1.0)))

    def _read(self) -> None:  # keeps the pipe drained for as long as the node runs
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)
        self._reader.join(timeout=10)
        assert self.process.stdout is not None
        self.process.stdout.close()


@pytest.fixture
def two_node_cluster() -> Iterator[str]:
    """A head node with no CPU and a second node with two, on this machine: every episode
    must run on the node that joined."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    # Ray's sessions and sockets, in a folder of its own: not pytest's, whose path (with
    # xdist's popen-gwN) makes Ray's socket paths longer than AF_UNIX's 107 bytes.
    temp = tempfile.mkdtemp(prefix="wh-ray-", dir="/tmp")
    nodes = [
        _RayNode(
            "--head",
            f"--port={port}",
            "--num-cpus=0",
            "--include-dashboard=false",
            f"--temp-dir={temp}",
        )
    ]
    try:
        nodes.append(_RayNode(f"--address={address}", "--num-cpus=2", f"--temp-dir={temp}"))
        yield address
    finally:
        for node in reversed(nodes):
            node.stop()
        shutil.rmtree(temp, ignore_errors=True)


def _cli_grid(out: Path, *backend: str) -> dict[tuple[str, int], tuple[bool, int, str | None]]:
    """``webharness run`` over a small grid; each episode's outcome by its key."""
    subprocess.run(
        [sys.executable, "-m", "webharness.cli", "run", "--agents", "oracle,random"]
        + ["--tasks", "form", "--seeds", "0-1", "--obs-mode", "text", "--out", str(out)]
        + list(backend),
        env=NO_AUTH,
        check=True,
        capture_output=True,
        timeout=600,
    )
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return {(r["runner"], r["seed"]): (r["passed"], r["steps"], r["failure_code"]) for r in rows}


@pytest.mark.slow
def test_a_grid_on_a_two_node_cluster_gives_the_local_backends_outcomes(
    browser, two_node_cluster, tmp_path
) -> None:
    on_ray = _cli_grid(tmp_path / "ray", "--backend", "ray", "--address", two_node_cluster)
    local = _cli_grid(tmp_path / "local", "--workers", "2")
    assert len(on_ray) == 4 and on_ray == local
    assert {key: outcome[0] for key, outcome in on_ray.items()} == {
        ("oracle", 0): True,
        ("oracle", 1): True,
        ("random", 0): False,
        ("random", 1): False,
    }

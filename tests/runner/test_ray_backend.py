"""The Ray backend: it joins a cluster the way Ray users expect, its errors are one line, and
a grid played on a real two-node Ray cluster (two ``ray start`` nodes on this machine, each
with its own resources) gives the local backend's outcomes.

Both Ray tests are in this one module so they never overlap (the suite gives a module's
tests to one worker): a local Ray of our own and a running cluster would find each other.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.runner.conftest import run
from tests.support.fake_openai import free_port
from tests.support.waiting import wait_until
from webharness.runner.ray_backend import RayBackendError, connect

RAY = Path(sys.executable).with_name("ray")
# Ray 2.60 turns token authentication on for `ray start --head` only: the nodes and the
# driver of a cluster made here all run with it off.
NO_AUTH = {"RAY_AUTH_MODE": "disabled"}


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


@pytest.mark.slow
def test_the_ray_backend_runs_the_same_episodes_on_a_new_local_ray(browser, tmp_path) -> None:
    _, attempts = run(
        tmp_path, agents=["oracle"], tasks=["form"], seeds=[0, 1], backend="ray", workers=2
    )
    assert sorted(a.seed for a in attempts) == [0, 1] and all(a.passed for a in attempts)


def _ray_nodes(address: str) -> list[dict[str, Any]]:
    probe = f"import json, ray; ray.init(address={address!r}, log_to_driver=False); "
    probe += "print(json.dumps([n['Resources'] for n in ray.nodes() if n['Alive']]))"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, **NO_AUTH},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(done.stdout.splitlines()[-1]) if done.returncode == 0 else []


@pytest.fixture
def two_node_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A head node and a second node with a resource of its own, on this machine; each
    ``ray start --block`` tears its node down when terminated."""
    port = free_port()
    temp = tmp_path_factory.mktemp("ray")  # Ray's sessions and sockets, not /tmp/ray
    env = {**os.environ, **NO_AUTH}
    common = ["--num-cpus=1", "--disable-usage-stats", "--block"]
    head = subprocess.Popen(
        [str(RAY), "start", "--head", f"--port={port}", "--include-dashboard=false"]
        + [f"--temp-dir={temp}", *common],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    nodes: list[subprocess.Popen[bytes]] = [head]
    try:
        assert wait_until(lambda: len(_ray_nodes(f"127.0.0.1:{port}")) == 1, 90, 1.0)
        address = f"127.0.0.1:{port}"
        nodes.append(
            subprocess.Popen(
                [str(RAY), "start", f"--address={address}", '--resources={"second_node": 1}']
                + common,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        assert wait_until(lambda: len(_ray_nodes(address)) == 2, 90, 1.0)
        yield address
    finally:
        for node in reversed(nodes):
            node.terminate()
        for node in nodes:
            node.wait(timeout=60)


def _cli_grid(out: Path, env: dict[str, str], *backend: str) -> dict[tuple, tuple]:
    """``webharness run`` over a small grid; each episode's outcome by its key."""
    subprocess.run(
        [sys.executable, "-m", "webharness.cli", "run", "--agents", "oracle,random"]
        + ["--tasks", "form", "--seeds", "0", "--obs-mode", "text", "--out", str(out)]
        + list(backend),
        env=env,
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
    nodes = _ray_nodes(two_node_cluster)
    assert len(nodes) == 2 and sum("second_node" in n for n in nodes) == 1
    env = {**os.environ, **NO_AUTH}
    env.pop("RAY_ADDRESS", None)  # found as the running cluster, as `ray start` users expect
    on_ray = _cli_grid(tmp_path / "ray", env, "--backend", "ray")
    local = _cli_grid(tmp_path / "local", env, "--workers", "2")
    assert len(on_ray) == 2 and on_ray == local

"""The Ray backend: it joins a cluster the way Ray users expect, its errors are one line, and
a run on a local Ray of its own plays the same episodes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.runner.conftest import run
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


@pytest.mark.slow
def test_the_ray_backend_runs_the_same_episodes_on_a_new_local_ray(browser, tmp_path) -> None:
    _, attempts = run(
        tmp_path, agents=["oracle"], tasks=["form"], seeds=[0, 1], backend="ray", workers=2
    )
    assert sorted(a.seed for a in attempts) == [0, 1] and all(a.passed for a in attempts)

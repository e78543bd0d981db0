"""No app outlives the interpreter that started it: every running instance is stopped at
exit, by the process that started it (not by a forked child that inherited the list)."""

from __future__ import annotations

import atexit
import os
import threading
from typing import Protocol


class Stoppable(Protocol):
    def stop(self) -> object: ...  # what it returns is not read here


_running: dict[int, tuple[int, Stoppable]] = {}  # id(instance) -> (owner pid, instance)
_lock = threading.Lock()


def watch(instance: Stoppable) -> None:
    """Stop ``instance`` at exit unless it is stopped before (``unwatch``)."""
    with _lock:
        _running[id(instance)] = (os.getpid(), instance)


def unwatch(instance: Stoppable) -> None:
    with _lock:
        _running.pop(id(instance), None)


def running() -> list[Stoppable]:
    """The instances this process started and has not stopped."""
    with _lock:
        return [inst for pid, inst in _running.values() if pid == os.getpid()]


def stop_all() -> None:
    """Stop every instance this process started (run at exit)."""
    for instance in running():
        instance.stop()


atexit.register(stop_all)

"""Free ports on 127.0.0.1 for app instances, never the same one twice in a process."""

from __future__ import annotations

import socket
import threading

HOST = "127.0.0.1"
_given: set[int] = set()  # handed out by this process: two instances never share one
_lock = threading.Lock()


def free_port(host: str = HOST) -> int:
    """A port nothing listens on now (the OS's pick), not handed out here before.

    Another process may still take it before the app binds it: the app then exits at once,
    which ``AppInstance.start`` reports with the app's own output.
    """
    with _lock:
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.bind((host, 0))
                port = int(probe.getsockname()[1])
            if port not in _given:
                _given.add(port)
                return port

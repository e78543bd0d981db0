"""A task's own app, run by the harness.

``AppInstance`` starts the command a task declares (``app:``, ``webharness.spec.app_spec``)
on a free port with a data folder of its own, waits until it is ready, resets it per
episode and stops its whole process group.
"""

from webharness.apps.instance import AppInstance
from webharness.apps.ports import free_port
from webharness.spec.app_spec import AppSpec, load_app

__all__ = ["AppInstance", "AppSpec", "free_port", "load_app"]

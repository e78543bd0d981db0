"""The pages ``bench_axtree.py`` measures: each a task spec and the paths played on it,
the tree compared with Chromium's at the start and after every step.

- the built-in scenarios, along their first golden path (seed 0);
- the suite's own pages for each case of issue #16 (tests/fixtures/modern_site), with a
  few steps that open what starts closed; the page with a frame of another origin twice
  (another site's frame, out of the page's process; the same site's, in it), its frame
  served by a server on 127.0.0.1 that the caller runs (``frame_servers``);
- demo pages of three component libraries from npm that use shadow DOM, Shoelace, Ionic
  and Fluent UI 3 (whose roles, names and states are set through ElementInternals)
  (tests/fixtures/components_site, installed by scripts/setup_components.sh), along the
  tasks' golden paths and paths that open their dialogs, selects, tabs and details.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.sites import FRAME_ARRANGEMENTS, other_origin_frame_spec
from webharness import load_task
from webharness.spec.catalogue import get_task, task_names
from webharness.spec.steps import GoldenPath
from webharness.spec.task_spec import TaskSpec

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures"
LIBRARIES = FIXTURES / "components_site" / "node_modules"


@dataclass(frozen=True)
class Page:
    """A task spec and the path the oracle plays on it (None: its first golden path)."""

    label: str
    spec: TaskSpec
    path: str | None = None


def _click(role: str, name: str) -> dict[str, Any]:
    return {"action": "click", "target": {"role": role, "name": name}}


def _with_paths(spec: TaskSpec, paths: dict[str, list[dict[str, Any]]]) -> TaskSpec:
    extra = [GoldenPath.model_validate({"id": id_, "steps": steps}) for id_, steps in paths.items()]
    return spec.model_copy(update={"golden_paths": [*spec.golden_paths, *extra]})


def _own_page(page: str, steps: list[dict[str, Any]], site: str = "modern_site") -> TaskSpec:
    spec = TaskSpec.model_validate(
        {
            "id": site.removesuffix("_site") + "_" + page.removesuffix(".html"),
            "category": "benchmark",
            "instruction": f"Look at {page}.",
            "site": str(FIXTURES / site),
            "start_page": f"/{page}",
            "success": {"kind": "text", "text": "never shown"},
            "golden_paths": [{"id": "look", "steps": [*steps, {"action": "done"}]}],
        }
    )
    return spec


def builtin_pages() -> list[Page]:
    return [Page(f"builtin/{name}", get_task(name)) for name in task_names()]


def own_pages(frame_servers: list[str]) -> list[Page]:
    """Our pages; ``frame_servers``: two origins serving modern_site (the page's and its
    frame's, for the frame of another origin)."""
    opened = {
        "shadow.html": [_click("button", "Team Choose…"), _click("button", "Show tip")],
        "hidden.html": [_click("button", "More details")],
        "frames.html": [_click("button", "Apply voucher")],
        "motion.html": [_click("button", "Close welcome")],
        "modal.html": [_click("button", "Open settings")],
        "names.html": [_click("button", "Fine print")],
        "internals.html": [_click("checkbox", "Dark mode"), _click("button", "Save preferences")],
    }
    pay = [
        {"action": "fill", "target": {"role": "textbox", "name": "Card holder"}, "value": "Ada"},
        _click("button", "Pay now"),
        {"action": "done"},
    ]
    framed = [
        Page(
            f"own/other_origin.html ({arrangement})",
            other_origin_frame_spec(
                arrangement, *frame_servers, golden_paths=[{"id": "pay", "steps": pay}]
            ),
        )
        for arrangement in FRAME_ARRANGEMENTS
    ]
    admin = [
        Page(f"own/admin_site/{page}", _own_page(page, steps, "admin_site"))
        for page, steps in ADMIN_PAGES.items()
    ]
    own = [Page(f"own/{page}", _own_page(page, steps)) for page, steps in opened.items()]
    return own + framed + admin


# A server-rendered admin (Django's layout, tests/fixtures/admin_site): the change list
# (search, a required bulk action, titles as row header cells, filters with date fields),
# the add form sent back with errors (date, select, error lists), the delete confirmation.
ADMIN_PAGES = {
    "changelist.html": [
        {"action": "fill", "target": {"role": "textbox", "name": "Search"}, "value": "salt"},
        {
            "action": "check",
            "target": {"role": "checkbox", "name": "Select this object for an action - Lanterns"},
        },
        _click("link", "Add book"),
        _click("link", "Delete"),
    ],
    "add.html": [
        {
            "action": "select_option",
            "target": {"role": "combobox", "name": "Genre:"},
            "value": "Poetry",
        },
        {
            "action": "fill",
            "target": {"role": "textbox", "name": "ISBN:"},
            "value": "9781234567890",
        },
    ],
}


def library_pages() -> list[Page]:
    for package in ("@shoelace-style/shoelace", "@ionic/core", "@fluentui/web-components"):
        if not (LIBRARIES / package).is_dir():
            raise SystemExit(
                f"{package} is missing from {LIBRARIES}: run scripts/setup_components.sh"
            )
    tasks = FIXTURES / "components_tasks"
    shoelace = _with_paths(
        load_task(tasks / "shoelace.yaml"),
        {
            "explore": [
                _click("button", "Help"),
                _click("button", "Got it"),
                _click("tab", "Pricing"),
                _click("button", "Frequently asked"),
                {"action": "done"},
            ]
        },
    )
    ionic = _with_paths(
        load_task(tasks / "ionic.yaml"),
        {"explore": [_click("button", "Language, Choose one"), {"action": "done"}]},
    )
    fluent = _with_paths(
        load_task(tasks / "fluent.yaml"),
        {
            "explore": [
                _click("switch", "Mail me updates"),
                _click("tab", "Billing"),
                _click("button", "Help"),
                {"action": "done"},
            ]
        },
    )
    return [
        Page("fluent/project", fluent),
        Page("fluent/explore", fluent, "explore"),
        Page("shoelace/form", shoelace),
        Page("shoelace/explore", shoelace, "explore"),
        Page("ionic/settings", ionic),
        Page("ionic/explore", ionic, "explore"),
    ]


def corpus(frame_servers: list[str]) -> list[Page]:
    return builtin_pages() + own_pages(frame_servers) + library_pages()

"""A built-in scenario with a required field the agent never touches after the save: a copy
of ``validation-v0`` whose "Patient registered" panel asks for a first appointment in a
``required`` select (the browser's "Please select an item in the list." from the moment it
shows). A wrong practice chosen and saved is a wrong choice (``task_incomplete``, decision),
not a rejection of the agent's input; the server's real rejection of the phone still is."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import gymnasium as gym
import pytest

from tests.support.registry import registrations_undone
from tests.support.wrong_choices import other_option, wrong_choice_saved
from webharness import register_tasks
from webharness.diagnosis.failures import FailureCode
from webharness.golden.play import golden_traces
from webharness.spec.catalogue import tasks_root

APPOINTMENT = (
    '<label for="first-visit">First appointment</label>'
    '<select id="first-visit" required><option value="">Choose…</option>'
    "<option>Next week</option><option>In two weeks</option></select>"
)


@pytest.fixture(scope="module")
def env(browser: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[gym.Env]:
    folder = tmp_path_factory.mktemp("variant") / "validation"
    shutil.copytree(tasks_root() / "validation", folder)
    page = folder / "site" / "index.html"
    html = page.read_text(encoding="utf-8")
    anchor = '<p id="done-text"></p>'
    assert anchor in html
    page.write_text(html.replace(anchor, anchor + APPOINTMENT), encoding="utf-8")
    with registrations_undone():
        (env_id,) = register_tasks(folder, "Untouched")
        made = gym.make(env_id, obs_mode="text")
        yield made
        made.close()


def test_a_wrong_choice_saved_before_an_untouched_required_field_is_task_incomplete(env):
    goldens = golden_traces(env, 3, screenshots=False)
    practice = other_option("Riverside", "Kingsway")  # golden step 5 picks the practice
    failure = wrong_choice_saved(env, goldens, practice, 5, 3, untouched="First appointment")
    # the phone the server rejected on the way, then fixed: recovered, still noted
    rejected = [n for n in failure.step_notes if n.code is FailureCode.VALIDATION_ERROR]
    assert [f.name for n in rejected for f in n.evidence.invalid_fields or []] == ["Mobile phone"]

"""How an env's next episode starts: in the last episode's document when its page
restarts its own task there (an in-place reset), else on a page made new for it, with one
browser restart after a failure."""

from __future__ import annotations

from webharness.browser.runtime import EPISODES_PER_PAGE, BrowserRuntime
from webharness.episode.episode import Episode, EpisodeOptions, Observed
from webharness.episode.hooks import EpisodeHooks
from webharness.errors import BrowserError, BrowserNotFoundError, SetupError
from webharness.spec.task_spec import InstantiatedTask


def next_episode(
    runtime: BrowserRuntime,
    finished: Episode | None,
    task: InstantiatedTask,
    hooks: EpisodeHooks,
    options: EpisodeOptions,
    timeout: float,
) -> tuple[Episode, Observed]:
    """The next episode of ``task``, started and first observed, after ``finished``.

    In place when ``restarts_in_place`` allows it and the document qualifies (the page
    agent checks: still the start page, no history of its own, no service worker); else
    ``finished``'s page is released for reuse and the episode starts on a page made new.
    """
    if finished is not None and restarts_in_place(finished, task, hooks):
        episode = Episode(task, finished.session, options, hooks)
        try:
            observed = runtime.run(episode.start(in_place=True), timeout)
        except Exception:  # NotRestartable (history, another page) or a failed restart:
            pass  # the page is wiped as usual, or replaced
        else:
            finished.session.episodes += 1
            return episode, observed
    if finished is not None:
        runtime.release(finished.session)  # the new episode reuses its page
    return start_on_a_new_page(runtime, task, hooks, options, timeout)


def restarts_in_place(finished: Episode, task: InstantiatedTask, hooks: EpisodeHooks) -> bool:
    """Whether the next episode may start in ``finished``'s document.

    Its task's page restarts itself in place (``spec.declares_in_place``; the spec has
    then no setup or app, and a backend is made new for each episode), the finished episode
    played the same task, and neither episode has hooks that act on documents as they load
    (perturbations' scripts, HTML transforms, request hooks), which an in-place start would
    skip. The page must be one a wipe could reuse: not crashed, hung or traced with
    Playwright, not past its episodes.
    """
    spec = task.spec
    same = finished.task.spec.id == spec.id and finished.task.spec.origin == spec.origin
    session = finished.session
    return (
        spec.declares_in_place
        and same
        and not _acts_on_loads(hooks)
        and not _acts_on_loads(finished.hooks)
        and finished.step_group is None
        and session.reusable
        and session.episodes < EPISODES_PER_PAGE
    )


def _acts_on_loads(hooks: EpisodeHooks) -> bool:
    on_loads = (hooks.init_scripts, hooks.agent_world_scripts, hooks.html_transforms)
    return any(on_loads) or bool(hooks.request_hooks)


def start_on_a_new_page(
    runtime: BrowserRuntime,
    task: InstantiatedTask,
    hooks: EpisodeHooks,
    options: EpisodeOptions,
    timeout: float,
) -> tuple[Episode, Observed]:
    """Open the episode's page (a wiped one or a new context's); after a browser failure,
    restart the browser once."""
    for attempt in (1, 2):
        session = None
        try:
            session = runtime.take_session(timeout)  # may launch the browser
            episode = Episode(task, session, options, hooks)
            return episode, runtime.run(episode.start(), timeout)
        except BrowserNotFoundError:
            raise
        except SetupError:  # the app refused its start state: not the browser's fault
            if session is not None:
                runtime.release(session)
            raise
        except Exception as exc:  # a crashed or hung browser: restart it once
            if attempt == 2:
                raise BrowserError(f"could not start {task.instance.env_id}: {exc}") from exc
            runtime.restart(session)
    raise AssertionError("unreachable")

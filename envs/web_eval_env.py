"""``WebEvalEnv``: the Gymnasium face of a scenario. It orchestrates; the core does the work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from webharness import actions as A
from webharness.action_result import ActionErrorKind, ActionResult
from webharness.apps import AppInstance
from webharness.browser.observe_pass import DEFAULT_TREE_LINES
from webharness.browser.runtime import BrowserRuntime
from webharness.envs.arguments import at_least, choice, folder, setup_s, sized
from webharness.envs.episode_start import next_episode
from webharness.episode.display import Display
from webharness.episode.episode import Episode, EpisodeOptions, Observed
from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.episode.observation import ObsMode, build_observation, observation_space
from webharness.episode.spaces import text_space
from webharness.errors import BrowserError
from webharness.spec.catalogue import get_task
from webharness.spec.criteria_tree import page_outcome, settle_ms
from webharness.spec.page_reward import UNFINISHED_REWARD, PageOutcome
from webharness.spec.task_spec import InstantiatedTask, TaskSpec, instantiate
from webharness.trace.models import EndedBy, EpisodeEnd

_ENDED_BY = {
    A.ActionKind.DONE: EndedBy.DONE,
    A.ActionKind.SEND_MSG_TO_USER: EndedBy.SEND_MSG_TO_USER,
    A.ActionKind.REPORT_INFEASIBLE: EndedBy.REPORT_INFEASIBLE,
}
# Browser work of one step is bounded by the action timeout and the settle cap; this is
# the slack on top before the harness declares the page hung.
_HANG_SLACK_S = 5.0


class WebEvalEnv(gym.Env[dict[str, Any], Any]):
    """A web task in a real Chromium: screenshot + accessibility tree in, DSL actions out.

    Example:
        >>> import gymnasium as gym, webharness
        >>> env = gym.make("WebEval/form-v0")
        >>> obs, info = env.reset(seed=3)
        >>> obs, reward, terminated, truncated, info = env.step("noop()")
        >>> env.close()

    ``max_tree_lines`` is the observation's budget: past half of it the accessibility tree
    keeps to what the viewport shows, at the budget it ends with a line saying how many
    elements it left out (scroll to bring them in); ``semantic_state.elements`` is bounded
    the same way.

    A task that declares its own app (``app:``) gets an instance per env: started on the
    first reset (again after it died), reset before each episode, stopped by ``close()``.
    Episodes play ``played_spec``, bound to it; ``task_spec`` keeps the placeholder origin;
    ``info["app"]`` is the instance's URL. An app that cannot start or reset makes ``reset``
    raise ``AppError`` naming its command and last lines (a not-executable episode).

    ``display=(w, h)`` is a computer-use agent's display: the screenshot is scaled to it,
    its pointer's coordinates are mapped back to the page's (``info["display"]``).

    With ``cdp=True`` the browser's protocol is served, so an agent can drive the episode's
    page itself (``webharness.attach``); each step it takes is an ``A.Performed`` step.

    ``upload_dir`` is the folder whose files ``upload(paths)`` may give the page's file
    chooser; without it ``upload`` is the agent's ``invalid_argument``.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        task: str | TaskSpec = "form",
        *,
        obs_mode: str = "both",
        render_mode: str | None = None,
        viewport: tuple[int, int] = (1280, 720),
        max_steps: int | None = None,
        auto_terminate: bool = False,
        headless: bool = True,
        action_timeout_ms: float = 5_000,
        settle_cap_ms: float = 3_000,
        max_tree_lines: int = DEFAULT_TREE_LINES,
        cdp: bool = False,
        display: tuple[int, int] | None = None,
        upload_dir: str | Path | None = None,
    ) -> None:
        self.task_spec = task if isinstance(task, TaskSpec) else get_task(task)
        self.obs_mode = choice(ObsMode, obs_mode, "obs_mode")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; use None or 'rgb_array'"
            )
        self.render_mode = render_mode
        self.viewport = viewport
        self.max_steps = max_steps or self.task_spec.max_steps
        self.auto_terminate = auto_terminate
        self.headless, self.cdp = headless, cdp
        self.options = EpisodeOptions(
            screenshots=self.obs_mode != ObsMode.TEXT,
            action_timeout_ms=action_timeout_ms,
            settle_cap_ms=settle_cap_ms,
            max_tree_lines=at_least(10, max_tree_lines, "max_tree_lines"),
            upload_dir=folder(upload_dir, "upload_dir"),
        )
        # A computer-use agent's display: screenshots at its size, its pointer mapped back.
        self.display = Display(sized(display, "display"), viewport) if display else None
        self.observation_space = observation_space(self.obs_mode, display or viewport)
        self.action_space = text_space(A.MAX_ACTION_CHARS)  # DSL strings; typed Actions too
        self.hook_factories: list[HookFactory] = []  # wrappers' perturbations, applied per episode
        self._runtime: BrowserRuntime | None = None  # launched on the first reset
        self._app: AppInstance | None = None  # the task's own app, started on the first reset
        self._spec_on_app: TaskSpec | None = None  # task_spec bound to that instance
        self._episode: Episode | None = None
        self._steps = 0
        self._ended = False

    # --- Gymnasium API ------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode: the task drawn for ``seed``, its setup, the first observation.

        The first call launches the browser (and starts the task's app: ``AppError`` if it
        cannot). The same seed and actions give the same states; ``options`` is unused.
        """
        super().reset(seed=seed)
        task = instantiate(self._episode_spec(), seed, self.np_random)
        hooks = self._episode_hooks(task)
        runtime = self._runtime or BrowserRuntime(self.viewport, self.headless, self.cdp)
        self._runtime = runtime
        finished, self._episode = self._episode, None
        timeout = self._step_timeout_s() + setup_s(task.spec, self.options.action_timeout_ms)
        episode, observed = next_episode(runtime, finished, task, hooks, self.options, timeout)
        self._episode = episode
        # After the start: a page that states its own goal has set the instruction.
        for transform in hooks.instruction_transforms:
            task.instance.instruction = transform(task.instance.instruction)
        self._steps, self._ended = 0, False
        return self._observation(episode, observed, ""), self._info(episode, observed, None, None)

    def _episode_spec(self) -> TaskSpec:
        """The spec this episode plays: the task's own, or bound to its app's instance.

        The instance is started when there is none running, and reset for the episode.

        Raises:
            AppError: the app cannot be started, become ready, or be reset.
        """
        spec = self.task_spec
        if spec.app is None or spec.app_url is not None:  # no app, or bound by the caller
            return spec
        app, bound = self._app, self._spec_on_app
        if app is None or bound is None or not app.running:
            self._stop_app()  # one that died: its group and folder go, a new one starts
            self._app = app = AppInstance(spec.app).start()
            self._spec_on_app = bound = spec.bound_to(app.url)
        app.reset()
        return bound

    def _stop_app(self) -> None:
        app, self._app, self._spec_on_app = self._app, None, None
        if app is not None:
            app.stop()

    def _episode_hooks(self, task: InstantiatedTask) -> EpisodeHooks:
        """Let each wrapper's factory set up this episode, seeded from the env's generator."""
        hooks = EpisodeHooks()
        for factory in self.hook_factories:
            factory(
                hooks, np.random.default_rng(int(self.np_random.integers(2**63))), task.instance
            )
        return hooks

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Run one action and observe the page after it.

        The action is a DSL string, a typed ``Action``, or a provider's computer-use
        action object (``webharness.actions.from_provider``); an ``actions.Performed``
        one is an action the agent took itself (CDP): observed, not acted.

        An action that fails is no exception: its error is in ``info["action_result"]`` and
        ``obs["last_action_error"]``. The reward comes at the end (see ``_reward``), with
        ``info["episode_end"]``; a dead or hung browser truncates the episode. Raises
        ``ResetNeeded`` when no episode is running.
        """
        episode = self._episode
        if episode is None or self._ended or self._runtime is None:
            raise ResetNeeded("call reset() before step(), and again after an episode has ended")
        self._steps += 1
        parsed, refused = A.step_action(action)
        if self.display is not None and not isinstance(action, A.Performed):
            parsed = self.display.to_page(parsed)  # the trace keeps the page's coordinates
        try:
            label = action if isinstance(action, str) else None
            result, observed = self._runtime.run(
                episode.step(parsed, label, isinstance(action, A.Performed)),
                self._step_timeout_s(),
            )
        except Exception as exc:  # the browser died or hung: the harness's fault
            return self._runtime_failure(episode, action, exc)
        if refused is not None:
            result = refused
        success = episode.success()
        page = page_outcome(episode.task.spec.success, episode.criteria_context())
        ended_by = _ENDED_BY.get(A.ActionKind(parsed.kind)) if refused is None else None
        if ended_by is None and self.auto_terminate and success:
            ended_by = EndedBy.CRITERIA
        if ended_by is None and page is not None and page.done:
            ended_by = EndedBy.TASK  # the page ended its own episode (MiniWoB++'s done)
        terminated = ended_by is not None
        failed = action.failed if isinstance(action, A.Performed) else None
        truncated = not terminated and (self._steps >= self.max_steps or failed is not None)
        wait_ms = settle_ms(episode.task.spec.success)
        if (terminated or truncated) and not success and wait_ms:
            try:  # an app that saves asynchronously: wait, bounded, for "eventually"
                observed = self._runtime.run(
                    episode.await_criteria(wait_ms), self._step_timeout_s() + wait_ms / 1000
                )
            except Exception as exc:  # the browser died or hung: the harness's fault
                return self._runtime_failure(episode, action, exc)
            success = episode.success()
        scaled = self.display is not None and refused is None
        shown = parsed if (isinstance(action, dict) or scaled) and refused is None else action
        info = self._info(episode, observed, shown, result, success)
        if terminated or truncated:
            self._ended = True
            info["episode_end"] = EpisodeEnd(
                terminated=terminated,
                truncated=truncated,
                success=success,
                final_answer=episode.final_answer,
                ended_by=ended_by or (EndedBy.AGENT_ERROR if failed else EndedBy.MAX_STEPS),
                asked_user=episode.asked_user,
                error=failed if not terminated else None,
                criteria_error=info["criteria_error"],
            )
        reward = _reward(terminated or truncated, success, page)
        obs = self._observation(episode, observed, result.message if not result.ok else "")
        return obs, reward, terminated, truncated, info

    def _runtime_failure(
        self, episode: Episode, action: Any, exc: Exception
    ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """The browser crashed or hung: end the episode as not executable, restart next reset."""
        if isinstance(exc, TimeoutError):
            cause = f"no answer from the browser within {self._step_timeout_s():.1f} s: a hung page"
        else:
            cause = f"{type(exc).__name__}: {str(exc)[:200]}"
        message = f"the browser failed during this step ({cause}); the episode is not executable"
        result = ActionResult.failed(ActionErrorKind.BROWSER_ERROR, message)
        self._ended = True
        if self._runtime is not None:
            self._runtime.restart(episode.session)
        self._episode = None
        observed = episode.last
        if observed is None:  # start() always observes before a step can run
            raise BrowserError(message) from exc
        info = self._info(episode, observed, action, result)
        info["episode_end"] = EpisodeEnd(
            truncated=True, ended_by=EndedBy.RUNTIME_ERROR, not_executable=True, error=message
        )
        return self._observation(episode, observed, message), 0.0, False, True, info

    def render(self) -> np.ndarray | None:
        """The page's screenshot as an RGB array, with ``render_mode="rgb_array"``, else None."""
        if self.render_mode != "rgb_array" or self._episode is None or self._runtime is None:
            return None
        last = self._episode.last
        if last is not None and last.screenshot is not None:
            return last.screenshot
        return self._runtime.run(self._episode.session.screenshot(), self._step_timeout_s())

    def close(self) -> None:
        """Close the browser and stop the task's app; the env can be reset again after."""
        try:
            if self._runtime is not None:
                self._runtime.close()
        finally:
            self._runtime = None
            self._episode = None
            self._stop_app()
        super().close()

    # --- for wrappers -------------------------------------------------------------------
    @property
    def episode(self) -> Episode | None:
        """The live episode (wrappers add perturbations and read state through it)."""
        return self._episode

    @property
    def last_timings_ms(self) -> dict[str, float]:
        """Where the last reset or step spent its time, in milliseconds per phase.

        Kept out of ``info``, which must be the same for the same seed and actions.
        """
        last = self._episode.last if self._episode else None
        return dict(last.timings_ms) if last else {}

    @property
    def runtime(self) -> BrowserRuntime | None:
        """The browser this env drives (None before the first reset and after ``close()``)."""
        return self._runtime

    @property
    def played_spec(self) -> TaskSpec:
        """The spec the episode plays: ``task_spec``, bound to the app's running instance."""
        return self._spec_on_app or self.task_spec

    @property
    def app(self) -> AppInstance | None:
        """The instance of the task's own app this env runs.

        None before the first reset, after ``close()``, or for a task without an app.
        """
        return self._app

    # --- helpers ------------------------------------------------------------------------
    def _step_timeout_s(self) -> float:
        return (self.options.action_timeout_ms + self.options.settle_cap_ms) / 1000 + _HANG_SLACK_S

    def _observation(self, episode: Episode, observed: Observed, error: str) -> dict[str, Any]:
        return build_observation(
            self.obs_mode,
            axtree=observed.axtree,
            screenshot=self.display.frame(observed.screenshot)
            if self.display
            else observed.screenshot,
            url=observed.state.url,
            goal=episode.task.instance.instruction,
            last_action_error=error,
            user_messages=episode.user_messages,
        )

    def _info(
        self,
        episode: Episode,
        observed: Observed,
        action: Any,
        result: ActionResult | None,
        success: bool | None = None,
    ) -> dict[str, Any]:
        info: dict[str, Any] = {
            "task": episode.task.instance,
            "semantic_state": observed.state,
            "action": A.action_text(action),
            "action_result": result,
            "success": episode.success() if success is None else success,
            "step": self._steps,
            "perturbations": [e.model_dump() for e in episode.hooks.events],
            # what the task's JS criteria threw on this page: the task's mistake, shown
            "criteria_error": episode.criteria_error(),
        }
        if episode.task.spec.app_url is not None:
            info["app"] = episode.task.spec.app_url  # where this episode's app instance runs
        if self.display is not None:
            info["display"] = {"size": self.display.size, "viewport": self.viewport}
        return info


def _reward(ended: bool, success: bool, page: PageOutcome | None) -> float:
    """The step's reward: 0 until the episode ends, then 1 for success, else 0.

    A page that judges its own episode gives its own reward (MiniWoB++'s raw reward, -1
    for an episode it never ended).
    """
    if not ended:
        return 0.0
    if page is None:
        return 1.0 if success else 0.0
    return page.reward if page.done else UNFINISHED_REWARD

"""An agent that is a program of its own, run by the runner once per episode.

Per episode the runner resets the env, opens the episode's door (an MCP endpoint for
``McpAgent``, a CDP WebSocket for ``CdpAgent``), starts the command with the door's values
filled in (``{goal}``, ``{episode_dir}`` and the door's own; each also a ``WEBHARNESS_*``
variable) in a process group of its own, and waits for it within ``timeout_s``. Every step
the agent takes through its door is recorded into the trace as ``play_episode`` records a
Python agent's. The episode ends by the agent's own ending (an ending tool, a step at the
step budget), or else when its process ends:

- exit status 0: the last line of its stdout is its final answer (``answer="stdout"``,
  the default), or the ``answer`` of the JSON object it wrote to ``{result_file}``
  (``answer="file"``), one ``send_msg_to_user`` step judged like any other; with
  ``answer="none"``, or no answer, the ending is ``agent_exit``; a result file that is
  not such an object is ``agent_error``, naming what is wrong with it;
- a non-zero status: ``agent_error``; a signal: ``agent_crash``;
- the budget ran out: ``agent_timeout``;
- it left its door (an MCP client closed its session) and did not exit within
  ``exit_grace_s``: ``agent_disconnect``.

Each is the agent's failure, never the harness's. The process group is always ended.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

from webharness.actions import SendMsgToUser
from webharness.agents.base import TokenUsage
from webharness.errors import ConfigError, WebHarnessError
from webharness.external.command import AgentCommand
from webharness.external.llm_proxy import LlmProxy, Meter
from webharness.external.process import AgentProcess, Exit, ProcessEnd
from webharness.external.recorded_episode import RecordedEpisode
from webharness.mcp.episodes import StepResult
from webharness.trace.models import EndedBy, EpisodeEnd, EpisodeTrace, TaskInstance
from webharness.trace.recorder import EpisodeRecorder

ANSWERS = ("stdout", "file", "none")
RESULT_FILE = "result.json"  # in the episode folder: ``{result_file}``
_ENDINGS = {
    Exit.EXITED: EndedBy.AGENT_EXIT,
    Exit.FAILED: EndedBy.AGENT_ERROR,
    Exit.KILLED: EndedBy.AGENT_CRASH,
    Exit.TIMED_OUT: EndedBy.AGENT_TIMEOUT,
    Exit.STOPPED: EndedBy.AGENT_DISCONNECT,
}


class ExternalAgent:
    """An agent that is a command; the runner plays it with ``play``. Its doors are
    ``McpAgent`` and ``CdpAgent``.

    Args:
        command: the command template, e.g. ``my-agent --goal {goal} --mcp {mcp_url}``.
        command_file: a file holding the template, instead of ``command``.
        timeout_s: the wall-time budget of one episode's process.
        answer: ``"stdout"``: without ``webharness_answer``, the last line of stdout is
            the final answer; ``"file"``: the ``answer`` of the JSON object the agent wrote
            to ``{result_file}``; ``"none"``: only the tool gives one.
        exit_grace_s: how long the process has to exit by itself once the episode has
            ended or its client has closed the session, before it is ended.
        model: the model behind the agent, for the reports; without it, the model the
            agent's requests name at the ``llm_proxy``, if any.
        cwd: the process's working folder (default: the runner's).
        llm_proxy: an OpenAI-compatible upstream URL: the process's ``OPENAI_BASE_URL``
            (and ``OPENAI_API_BASE``) is pointed at a local proxy that forwards every request
            to it unchanged and counts the episode's tokens (``webharness run --llm-proxy``).

    Raises:
        ConfigError: neither or both of ``command`` and ``command_file``, a template that
            cannot work (an unknown placeholder, a program that is not found), or an
            option out of range.
    """

    name = "external"
    kind = ""  # the door: "mcp", "cdp"; the placeholders of its command
    plays_itself = True  # the runner calls play(), not act()
    needs_cdp = False  # its env must serve CDP (gym.make(..., cdp=True))

    def __init__(
        self,
        command: str | None = None,
        command_file: str | None = None,
        timeout_s: float = 600.0,
        answer: str = "stdout",
        exit_grace_s: float = 5.0,
        model: str | None = None,
        cwd: str | None = None,
        llm_proxy: str | None = None,
    ) -> None:
        if (command is None) == (command_file is None):
            raise ConfigError(
                "command", command, "give the agent's command or command_file, exactly one"
            )
        self.command = (
            AgentCommand.parse(command, self.kind)
            if command is not None
            else AgentCommand.from_file(str(command_file), self.kind)
        )
        if not 0 < timeout_s < float("inf"):
            raise ConfigError("timeout_s", timeout_s, "give a number of seconds above 0")
        if answer not in ANSWERS:
            raise ConfigError("answer", answer, f"choose one of {', '.join(ANSWERS)}")
        if not 0 <= exit_grace_s < float("inf"):
            raise ConfigError("exit_grace_s", exit_grace_s, "give a number of seconds, 0 or more")
        self.timeout_s, self.answer = float(timeout_s), answer
        self.exit_grace_s, self.model = float(exit_grace_s), model
        self.cwd = Path(cwd) if cwd is not None else None
        self.llm_proxy = LlmProxy(llm_proxy).upstream if llm_proxy is not None else None
        self.process_end: ProcessEnd | None = None  # the last episode's
        self.usage = TokenUsage()  # the last episode's, counted at the proxy

    def reset(self, instance: TaskInstance) -> None:
        """Nothing to do: ``play`` starts the process per episode."""

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        """Not how this agent plays: it acts through its own process (``play``)."""
        raise WebHarnessError(
            f"an {self.kind} agent acts through its own process: the runner calls play()"
        )

    def play(
        self,
        env: gym.Env,
        seed: int | None,
        recorder: EpisodeRecorder,
        folder: Path,
        screenshots: bool = True,
    ) -> EpisodeTrace:
        """Play one episode: serve it, run the command, end it; returns the trace."""
        obs, info = env.reset(seed=seed)
        recorder.start(info["task"], env)
        try:
            recorder.add_step(0, env, obs, info, screenshots=screenshots)
            first = StepResult(obs, info, ended=False)
            wake = threading.Event()  # the episode ended, or the agent's client left
            episode = RecordedEpisode(env, recorder, first, self.vision, screenshots, wake)
            return recorder.finish(self._open_and_run(episode, folder, wake))
        finally:
            recorder.close()

    vision = False  # the MCP door's coordinate tools

    def door(
        self, episode: RecordedEpisode, folder: Path, wake: threading.Event
    ) -> contextlib.AbstractContextManager[dict[str, str]]:
        """Open the episode's door for the agent; its placeholders' values (less ``goal``
        and ``episode_dir``). Closing it records what the agent left unrecorded. ``wake``
        is set when the agent leaves the door."""
        raise NotImplementedError

    def _open_and_run(
        self, episode: RecordedEpisode, folder: Path, wake: threading.Event
    ) -> EpisodeEnd:
        with contextlib.ExitStack() as stack:
            values = {
                "goal": episode.goal,
                "episode_dir": str(folder.resolve()),
                "result_file": str((folder / RESULT_FILE).resolve()),
                **stack.enter_context(self.door(episode, folder, wake)),
            }
            environment = self.command.environment(values)
            if self.llm_proxy is not None:
                meter = stack.enter_context(LlmProxy(self.llm_proxy)).meter()
                stack.callback(self._count, meter, folder)
                environment |= {"OPENAI_BASE_URL": meter.base_url}
                environment |= {"OPENAI_API_BASE": meter.base_url}
            self.process_end, last = self._run(self.command.argv(values), environment, folder, wake)
        return self._ending(episode, self.process_end, last, folder / RESULT_FILE)

    def _run(
        self, argv: list[str], environment: dict[str, str], folder: Path, wake: threading.Event
    ) -> tuple[ProcessEnd, str | None]:
        """Run the command; returns how it ended and the last line of its stdout.

        It runs until it ends, the budget runs out, or ``wake`` is set (the episode ended,
        the client left) and then a moment more; its group is ended either way.
        """
        process = AgentProcess(argv, environment, folder, self.cwd).start()
        why = Exit.STOPPED  # unless the budget runs out
        try:
            if process.wait(time.monotonic() + self.timeout_s, wake):
                pass  # it ended by itself
            elif wake.is_set():  # give it a moment to exit by itself
                process.wait(time.monotonic() + self.exit_grace_s, threading.Event())
            else:
                why = Exit.TIMED_OUT
        finally:
            end = process.stop(why)
        return end, process.last_line()

    def _count(self, meter: Meter, folder: Path) -> None:
        """Take the episode's tokens (and the model its requests named) from ``meter``.

        What it counted is kept in the episode's ``llm_usage.json``.
        """
        meter.close()
        self.usage = meter.usage
        if self.model is None and meter.models:
            self.model = meter.models[0]
        counted = {
            "requests": meter.requests,
            "uncounted": meter.uncounted,  # answers whose usage could not be read
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "models": list(meter.models),
        }
        (folder / "llm_usage.json").write_text(json.dumps(counted, indent=2) + "\n", "utf-8")

    def _ending(
        self, episode: RecordedEpisode, end: ProcessEnd, last: str | None, result: Path
    ) -> EpisodeEnd:
        """The episode's end.

        The step that ended it, else the answer the process gave (its stdout's last line, or
        its result file's), else the process's own end.
        """
        if episode.end is not None:
            return episode.end
        ended_by, error = _ENDINGS[end.exit], end.describe()
        answer = last if self.answer == "stdout" else None
        if end.exit is Exit.EXITED and self.answer == "file":
            try:
                answer = _answer_in(result)
            except ValueError as exc:  # the agent's mistake: its result cannot be read
                ended_by, error = EndedBy.AGENT_ERROR, str(exc)
        if end.exit is Exit.EXITED and answer and ended_by is EndedBy.AGENT_EXIT:
            episode.step(SendMsgToUser(text=answer))
            if episode.end is not None:
                return episode.end
        return episode.finish(EpisodeEnd(truncated=True, ended_by=ended_by, error=error))


def _answer_in(result: Path) -> str | None:
    """The ``answer`` of the JSON object in ``result``; None when the agent wrote none.

    Raises:
        ValueError: the file is not JSON, or not an object with a string ``answer``.
    """
    try:
        text = result.read_text("utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(f"{result.name} could not be read: {exc}") from None
    expected = 'write {"answer": "..."}'
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{result.name} is not JSON ({exc}): {expected}") from None
    if not isinstance(data, dict) or not isinstance(data.get("answer"), str):
        raise ValueError(f"{result.name} holds {text[:80]!r}: {expected}")
    return str(data["answer"])

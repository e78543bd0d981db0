"""The steps of an agent that drives the browser itself, read from the CDP commands it sends.

What counts as one step, and why: what a person would call one action, so that a CDP
agent's trace lines up with the golden paths step for step.

- **A click**: a mouse button pressed and released at one point (``mouse_click``, with
  its button and click count; a second press there that counts 2 makes it a double
  click). Pressed at one point and released at another, it is a ``drag``.
- **A run of typing**: text inserted or typed key by key into the focus, until the agent
  sends anything but input (a script that moves the focus, a query) or does something
  else (``keyboard_type``).
- **A key**: a key that types nothing (Enter, Tab, an arrow, a combination such as
  Control+a) is a ``press``.
- **A navigation**: ``Page.navigate`` is a ``goto``; going back in the history a
  ``go_back``. A navigation the door refuses (an origin the task does not allow) is the
  env's own ``goto``, which the env refuses as it refuses any agent's: the trace has the
  blocked step a DSL agent's ``goto`` there makes.

- **A script that changes the page**: the agent's ``Runtime.evaluate`` or
  ``Runtime.callFunctionOn`` (Playwright's ``select_option`` is one) is a ``script`` step
  when the page's digest (``js/page_digest.js``: URL, title, form values, element count,
  text length) differs once the browser has answered it (before the agent has the answer)
  from what it was when the script came: a change the page makes by itself between two
  scripts (a toast going) is no step, and two scripts that each change it are two steps.
  Scripts that only read (the queries every CDP client sends) are no steps. Each script
  costs two reads of the digest; other commands none.

Pointer moves alone (a hover) are no steps. A step is recorded once it is done: when the
agent sends its next command (it has had the browser's answer by then), or when the
episode ends (``flush``). Recording lets the page settle and observes it, as ``env.step``
does after an action of its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from webharness import actions as A
from webharness.browser.cdp_mux import AfterHook

# Input.dispatchKeyEvent's modifiers bit field, and the names Playwright gives them.
_MODIFIERS = ((1, "Alt"), (2, "Control"), (4, "Meta"), (8, "Shift"))
_MODIFIER_KEYS = frozenset({"Alt", "Control", "Meta", "Shift", "AltGraph", "CapsLock"})
_BUTTONS = {"left": "left", "right": "right", "middle": "middle"}
SAME_POINT_PX = 5.0  # a release this close to the press is a click, not a drag

# a step: an action the agent performed, or one for the env to play (a refused navigation)
Record = Callable[[A.Action | A.Performed], Awaitable[None]]
Probe = Callable[[], Awaitable[int]]  # the page's digest
SCRIPT_METHODS = ("Runtime.evaluate", "Runtime.callFunctionOn")
SCRIPT_TEXT_CHARS = 200


class StepReader:
    """Reads an agent's commands (``on_command``) and records its steps with ``record``;
    ``probe`` reads the page's digest (none: scripts are never steps)."""

    def __init__(self, record: Record, probe: Probe | None = None) -> None:
        self.record, self.probe = record, probe
        self._done: A.Action | None = None  # a finished step, not recorded yet
        self._press: dict[str, Any] | None = None  # the button held down
        self._typed = ""  # the typing run going on

    async def on_command(
        self, method: str, params: dict[str, Any], session: str | None, refused: bool = False
    ) -> AfterHook | None:
        """Take one command the agent sends, before the browser runs it (``refused``: the
        door answered it with an error instead); returns what to run once the browser has
        answered it (a script's second read of the digest)."""
        if refused:
            await self._refused(method, params)
        elif not method.startswith("Input.") and not method.startswith("Page.navigat"):
            return await self._other(method, params)
        elif method == "Input.insertText":
            await self._type(str(params.get("text", "")))
        elif method == "Input.dispatchKeyEvent":
            await self._key(params)
        elif method == "Input.dispatchMouseEvent":
            await self._mouse(params)
        elif method == "Page.navigate":
            await self._step(A.Goto(url=str(params.get("url", ""))))
        elif method == "Page.navigateToHistoryEntry":
            await self._step(A.GoBack())
        return None

    async def flush(self) -> None:
        """Record what is done and not recorded yet (the episode ends)."""
        await self._end_typing()
        await self._record_done()

    async def _other(self, method: str, params: dict[str, Any]) -> AfterHook | None:
        """A script or a query: the step before it is over (its answer has come). A script
        is a step of its own when the page's digest differs once it has run."""
        await self._end_typing()
        await self._record_done()
        probe = self.probe
        if method not in SCRIPT_METHODS or probe is None:
            return None
        source = params.get("expression") or params.get("functionDeclaration") or ""
        script = A.Script(text=" ".join(str(source).split())[:SCRIPT_TEXT_CHARS])
        before = await probe()

        async def after() -> None:
            if await probe() != before:
                await self._record_done()  # a script's, done before this one's answer came
                self._done = script

        return after

    async def _refused(self, method: str, params: dict[str, Any]) -> None:
        """A refused navigation is a step at once, the env's own ``goto`` (which the env
        refuses in turn); other refused commands are none."""
        if method == "Page.navigate":
            await self._end_typing()
            await self._record_done()
            await self.record(A.Goto(url=str(params.get("url", ""))))

    # --- input -----------------------------------------------------------------------------
    async def _type(self, text: str) -> None:
        if text:
            await self._record_done()
            self._typed += text

    async def _key(self, params: dict[str, Any]) -> None:
        kind, key = params.get("type"), str(params.get("key", ""))
        modifiers, text = int(params.get("modifiers", 0)), str(params.get("text", ""))
        if kind == "char":  # after a rawKeyDown: the text it types, if any
            return await self._type(text if text not in ("\r", "\n", "\t") else "")
        if kind not in ("keyDown", "rawKeyDown") or not key or key in _MODIFIER_KEYS:
            return
        named = len(key) > 1  # Enter, Tab, ArrowDown: a key that is no character
        if text and not named and modifiers & ~8 == 0:  # a character, maybe with Shift
            return await self._type(text)
        if named or modifiers & ~8:
            held = [name for bit, name in _MODIFIERS if modifiers & bit]
            await self._step(A.Press(key="+".join([*held, key])))

    async def _mouse(self, params: dict[str, Any]) -> None:
        kind = params.get("type")
        point = (float(params.get("x", 0)), float(params.get("y", 0)))
        if kind == "mousePressed":
            await self._end_typing()
            if self._again(point, int(params.get("clickCount", 1))):
                return
            await self._record_done()
            self._press = {**params, "point": point}
        elif kind == "mouseReleased" and self._press is not None:
            start, self._press = self._press, None
            (x0, y0), (x1, y1) = start["point"], point
            if abs(x1 - x0) > SAME_POINT_PX or abs(y1 - y0) > SAME_POINT_PX:
                self._done = A.Drag(path=[[x0, y0], [x1, y1]])
                return
            button = _BUTTONS.get(str(start.get("button", "left")), "left")
            count = max(1, min(3, int(start.get("clickCount", 1))))
            self._done = A.MouseClick(x=x0, y=y0, button=button, count=count)

    def _again(self, point: tuple[float, float], count: int) -> bool:
        """A press that counts the clicks of the click just done: it becomes that click's
        count (a double or triple click), not a step of its own."""
        done = self._done
        if count < 2 or not isinstance(done, A.MouseClick):
            return False
        if abs(done.x - point[0]) > SAME_POINT_PX or abs(done.y - point[1]) > SAME_POINT_PX:
            return False
        self._done, self._press = None, {"point": (done.x, done.y), "button": done.button}
        self._press["clickCount"] = count
        return True

    # --- steps -----------------------------------------------------------------------------
    async def _step(self, action: A.Action) -> None:
        await self._end_typing()
        await self._record_done()
        self._done = action

    async def _end_typing(self) -> None:
        if self._typed:
            await self._record_done()
            self._done, self._typed = A.KeyboardType(text=self._typed), ""

    async def _record_done(self) -> None:
        done, self._done = self._done, None
        if done is not None:
            await self.record(A.Performed(done))

"""The typed actions on elements by ref, on the page and on the episode, and their base.

Actions at points of the viewport and on the keyboard are in ``webharness.actions.input``.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from webharness.actions.keys import is_modifier_combo, normalize_key

Button = Literal["left", "right", "middle"]
MAX_UPLOAD_FILES = 20


def _modifiers(value: str | None) -> str | None:
    if value is None:
        return None
    combo = normalize_key(value)
    if not is_modifier_combo(combo):
        raise ValueError(f"modifiers are Shift, Control, Alt or Meta joined by '+', not {value!r}")
    return combo


# Modifier keys held during a click or a wheel: "Shift", "Control+Shift".
Modifiers = Annotated[str | None, AfterValidator(_modifiers)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # How many fields the DSL writes positionally; the rest as ``name=value`` when they
    # differ from their default. None: every field, positionally.
    _positional: ClassVar[int | None] = None

    def dsl(self) -> str:
        """The action as a DSL string that ``parse_action`` reads back to an equal model."""
        fields = self.model_dump(exclude={"kind"}, exclude_none=True)
        names = list(fields)
        cut = len(names) if self._positional is None else self._positional
        args = [repr(fields[name]) for name in names[:cut]]
        defaults = type(self).model_fields
        args += [
            f"{name}={fields[name]!r}"
            for name in names[cut:]
            if fields[name] != defaults[name].default
        ]
        return f"{self.kind}({', '.join(args)})"  # type: ignore[attr-defined]

    @property
    def ref_target(self) -> str | None:
        """The ref the action targets, None for an action without one."""
        return getattr(self, "ref", None)


class Click(_Action):
    """``click(ref, button='left', count=1, modifiers=None)``: a click on the element.

    A trusted click at the centre of the element, after a hit test.

    ``button``, ``count`` and ``modifiers`` are as for ``mouse_click``: ``count=2`` is a
    double click, ``modifiers`` (``Shift``, ``Control+Shift``) are held during the click.
    """

    kind: Literal["click"] = "click"
    ref: str
    button: Button = "left"
    count: int = Field(default=1, ge=1, le=3)
    modifiers: Modifiers = None

    _positional: ClassVar[int | None] = 1


class Fill(_Action):
    """``fill(ref, text)``: replace the value of a text field (or contenteditable)."""

    kind: Literal["fill"] = "fill"
    ref: str
    text: str


class SelectOption(_Action):
    """``select_option(ref, option)``: choose an option by its label or value."""

    kind: Literal["select_option"] = "select_option"
    ref: str
    option: str


class Check(_Action):
    """``check(ref)``: make a checkbox, radio or switch checked."""

    kind: Literal["check"] = "check"
    ref: str


class Uncheck(_Action):
    """``uncheck(ref)``: make a checkbox or switch unchecked."""

    kind: Literal["uncheck"] = "uncheck"
    ref: str


class Hover(_Action):
    """``hover(ref)``: move the pointer over the element."""

    kind: Literal["hover"] = "hover"
    ref: str


class DragAndDrop(_Action):
    """``drag_and_drop(from_ref, to_ref)``: drag one element onto another with the mouse.

    Both refs are resolved as ``click`` resolves one (stale, unknown, hidden and covered
    elements are errors). The left button goes down at the centre of ``from_ref``, the
    pointer moves to the centre of ``to_ref`` in several steps (so HTML5 drag and drop
    and pointer-event widgets both see a drag), and the button comes up there.
    """

    kind: Literal["drag_and_drop"] = "drag_and_drop"
    from_ref: str
    to_ref: str

    @property
    def ref_target(self) -> str | None:
        """The element dragged: ``from_ref``."""
        return self.from_ref


class Upload(_Action):
    """``upload(paths)``: answer the file chooser the page opened with these files.

    A person clicks a file input or a drop area, the browser's file chooser opens, they
    pick files: ``upload`` is the picking. ``paths`` are files in the env's ``upload_dir``
    (relative to it, or absolute within it); none (``upload([])``) dismisses the chooser
    with no file chosen. The chooser stays open from the step that opened it until an
    ``upload`` answers it or the page loads a new document.
    """

    kind: Literal["upload"] = "upload"
    paths: tuple[str, ...] = Field(default=(), max_length=MAX_UPLOAD_FILES)

    def dsl(self) -> str:
        """The action as a DSL string: ``upload(['report.pdf'])``."""
        return f"upload({list(self.paths)!r})"


class Goto(_Action):
    """``goto(url)``: navigate; an origin the task does not allow is refused."""

    kind: Literal["goto"] = "goto"
    url: str


class GoBack(_Action):
    """``go_back()``: the browser's back button."""

    kind: Literal["go_back"] = "go_back"


class Wait(_Action):
    """``wait(ms)``: let the page run for ``ms`` milliseconds (at most 30 s)."""

    kind: Literal["wait"] = "wait"
    ms: int = Field(default=1000, ge=0, le=30_000)


class Noop(_Action):
    """``noop()``: do nothing; the page is observed again."""

    kind: Literal["noop"] = "noop"


class Script(_Action):
    """``script(text)``: recorded, never sent: a script that changed the page.

    An agent driving its own browser (CDP) ran it; ``text`` is the start of its source.
    ``env.step`` refuses it as an action to run.
    """

    kind: Literal["script"] = "script"
    text: str


class SendMsgToUser(_Action):
    """``send_msg_to_user(text)``: the final answer; it ends the episode."""

    kind: Literal["send_msg_to_user"] = "send_msg_to_user"
    text: str


class AskUser(_Action):
    """``ask_user(question)``: the simulated user's reply comes in ``user_messages``."""

    kind: Literal["ask_user"] = "ask_user"
    question: str


class ReportInfeasible(_Action):
    """``report_infeasible(reason)``: the agent says the task cannot be done."""

    kind: Literal["report_infeasible"] = "report_infeasible"
    reason: str


class Done(_Action):
    """``done()``: the agent says the task is done; it ends the episode."""

    kind: Literal["done"] = "done"

"""A scripted pixel agent for MiniWoB++'s drag, draw, resize and text-selection tasks.

It acts only through the pointer (and a click on Submit): each step is one ``Op``, a
click, a drag along a path of points, a pointer move, a button down or up, or a wait.
``webharness_action`` and ``browsergym_action`` write an op in each library's actions, so
the same points drive both (``benchmarks/peers/bench_miniwob.py``).

**What it reads.** The goal (``obs["goal"]``) and a read-only look at the page
(``LOOK_JS``, ``miniwob_look.js``): the boxes of the shapes, boxes, list items, the
resize handle, the first and last characters of the paragraphs, and the drag cube's
rotation. The SVG shapes, the list items' places and the characters' boxes are not in
the semantic state, so the agent asks the page for them as a person would see them on
the screenshot; nothing on the page is changed by the look.

Standard library only: the BrowserGym driver imports it with its own interpreter.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOOK_JS = (Path(__file__).with_name("miniwob_look.js")).read_text()
Point = tuple[float, float]
Op = tuple[Any, ...]  # ("click", x, y) | ("drag", points) | ("move", x, y) | ("down",) ...
Look = dict[str, Any]
Solver = Callable[[str, Look], list[Op]]
STRIDE = 8  # the longest straight move of a drag path, in pixels (the same in both libraries)


def _centre(box: dict[str, float], fy: float = 0.5) -> Point:
    return (box["x"] + box["w"] / 2, box["y"] + box["h"] * fy)


def _path(*points: Point) -> tuple[Point, ...]:
    """The points, whole pixels, with points between them at most ``STRIDE`` apart."""
    out: list[Point] = [(round(points[0][0]), round(points[0][1]))]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        parts = max(1, math.ceil(math.dist((x0, y0), (x1, y1)) / STRIDE))
        out += [
            (round(x0 + (x1 - x0) * i / parts), round(y0 + (y1 - y0) * i / parts))
            for i in range(1, parts + 1)
        ]
    return tuple(out)


def _drag(*points: Point) -> Op:
    return ("drag", _path(*points))


def _submit(look: Look) -> Op:
    return ("click", *map(round, _centre(look["submit"])))


def _direction(goal: str) -> Point:
    found = re.search(r"\b(left|right|up|down)\b", goal)
    assert found is not None, goal
    return {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}[found.group(1)]


def _grip(shape: dict[str, Any]) -> Point:
    """A point inside the shape: a triangle's box centre can miss it, lower is inside."""
    return _centre(shape, 0.65 if shape["tag"] == "polygon" else 0.5)


def drag_box(goal: str, look: Look) -> list[Op]:
    return [_drag(_centre(look["small"]), _centre(look["large"])), _submit(look)]


def drag_one_way(goal: str, look: Look) -> list[Op]:  # "Drag the circle left then press Submit."
    (shape,) = look["shapes"]
    (x, y), (dx, dy) = _grip(shape), _direction(goal)
    return [_drag((x, y), (x + 30 * dx, y + 30 * dy)), _submit(look)]


SHAPE_TAGS = {"rectangles": "rect", "circles": "circle", "triangles": "polygon"}


def _slots(box: dict[str, float], columns: int, dx: float) -> list[Point]:
    """Drop points inside a box: the page counts a shape in by its corner, left of the
    pointer by up to 0.6 of its size (17 px), so the points keep 14 px from the left."""
    return [
        (box["x"] + 14 + dx * (i % columns), box["y"] + 16 + 18 * (i // columns)) for i in range(8)
    ]


def drag_shapes(goal: str, look: Look) -> list[Op]:  # "Drag all circles into the black box."
    found = re.search(r"Drag all (\w+) into", goal)
    assert found is not None, goal
    chosen = [s for s in look["shapes"] if s["tag"] == SHAPE_TAGS[found.group(1)]]
    slots = _slots(look["containers"][0], 4, 15)
    return [_drag(_grip(s), slot) for s, slot in zip(chosen, slots)] + [_submit(look)]


def drag_shapes_2(
    goal: str, look: Look
) -> list[Op]:  # "Drag all red shapes into the left box, ..."
    found = re.search(r"Drag all (\w+)( shapes)? into", goal)
    assert found is not None, goal
    word, by_colour = found.group(1), bool(found.group(2))
    left, right = (_slots(box, 4, 13) for box in look["containers"])
    ops: list[Op] = []
    for shape in look["shapes"]:
        goes_left = shape["fill"] == word if by_colour else shape["tag"] == SHAPE_TAGS[word]
        ops.append(_drag(_grip(shape), (left if goes_left else right).pop(0)))
    return ops + [_submit(look)]


ORDINALS = {"1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
PLACES = {"top": 1, "bottom": 5}
GRID = {
    f"{row} {col}".replace("center center", "center"): 3 * r + c + 1
    for r, row in enumerate(("top", "center", "bottom"))
    for c, col in enumerate(("left", "center", "right"))
}
MOVES = {"up": -3, "down": 3, "left": -1, "right": 1}


def _sort_drag(items: list[dict[str, Any]], source: int, target: int) -> Op:
    """Drag item ``source`` to ``target`` (0-based) of a jQuery UI sortable list: over the
    target's centre and a quarter of its size past it, in the direction of the move."""
    (x0, y0), (x1, y1) = _centre(items[source]), _centre(items[target])
    past = (
        math.copysign(items[target]["w"] / 4, x1 - x0) if x1 != x0 else 0,
        math.copysign(items[target]["h"] / 4, y1 - y0) if y1 != y0 else 0,
    )
    return _drag((x0, y0), (x1 + past[0], y1 + past[1]))


def drag_items(goal: str, look: Look) -> list[Op]:  # "Drag Theodosia to the 3rd position."
    found = re.search(r"^Drag (.+?) (?:to the (.+)|(\w+) by one.*)\.$", goal)
    assert found is not None, goal
    names = [item["text"] for item in look["items"]]
    source, place, way = names.index(found.group(1)), found.group(2), found.group(3)
    if way is not None:  # up, down, left or right by one; a list's only way is up or down
        target = source + (MOVES[way] if len(names) == 9 else MOVES[way] // 3)
    elif len(names) == 9:
        target = GRID[place] - 1
    else:
        target = ORDINALS.get(place.split()[0], PLACES.get(place, 0)) - 1
    return [_sort_drag(look["items"], source, target)]


def drag_sort_numbers(goal: str, look: Look) -> list[Op]:
    """One drag at a time: the least number not yet in its place, up to its place."""
    numbers = [int(item["text"]) for item in look["items"]]
    for place, wanted in enumerate(sorted(numbers)):
        if numbers[place] != wanted:
            source = place + numbers[place:].index(wanted)
            return [_sort_drag(look["items"], source, place)]
    return [_submit(look)]


def resize_textarea(goal: str, look: Look) -> list[Op]:  # "... the width is larger than ..."
    step = 15 if "larger" in goal else -15
    x, y = _centre(look["handle"])
    return [_drag((x, y), (x + step, y + step)), _submit(look)]


def highlight_text(goal: str, look: Look) -> list[Op]:
    """Press left of the paragraph's first character, release right of its last."""
    found = re.search(r"the (1st|2nd|3rd) paragraph", goal)
    ends = look["paragraphs"][ORDINALS[found.group(1)] - 1 if found else 0]
    first, last = ends["first"], ends["last"]
    start = (first["x"] + 0.5, first["y"] + first["h"] / 2)
    end = (last["x"] + last["w"] - 0.5, last["y"] + last["h"] / 2)
    return [("drag", (start, end)), _submit(look)]


def draw_circle(goal: str, look: Look) -> list[Op]:
    """A circle of radius 20 around the marked point, drawn through 24 points."""
    cx, cy = _centre(look["mark"])
    ring = [
        (cx + 20 * math.cos(a * math.pi / 12), cy + 20 * math.sin(a * math.pi / 12))
        for a in range(25)
    ]
    return [("drag", tuple((round(x), round(y)) for x, y in ring)), _submit(look)]


def draw_line(goal: str, look: Look) -> list[Op]:
    """From the page's marked point (the dot's box corner: its ``markedPoint``) 40 px
    across or down, whichever way the drawing area has room."""
    x, y, svg = round(look["mark"]["x"]), round(look["mark"]["y"]), look["svg"]
    if "horizontal" in goal:
        end = (x + 40, y) if x + 43 < svg["x"] + svg["w"] else (x - 40, y)
    else:
        end = (x, y + 40) if y + 43 < svg["y"] + svg["h"] else (x, y - 40)
    # not densified: the page's spread counts its last point against the mean of all
    return [("drag", ((x, y), end)), _submit(look)]


# drag-cube: while the button is held the cube turns by about this many degrees a pixel
# of a move (its torque builds with each 20 ms tick's move and fades while the pointer
# rests, so a move's whole turn is nearly proportional to it); its face is read from its
# angles: 6 and 1 by the tilt, 2 to 5 by the turn (upside down while tilted 90-270 deg).
# The page's ticks run on a wall-clock timer and come late on a loaded machine (each draws
# the 3-D cube), so the agent goes by what the page shows, not by the clock: it releases
# and submits only once the cube has stopped, and presses only where the last tick saw the
# pointer (a press takes the move since that tick for a drag, and would turn the cube).
CUBE_DEG_PER_PX = 1.08
CUBE_TILT = {"6": 88, "1": 264}
CUBE_TURN = {"3": 86, "2": 177, "5": 269, "4": 358}
CUBE_TICK_MS = 20
CUBE_FADE_HELD, CUBE_FADE_FREE = 0.83, 0.93  # the torque's shrink a tick, held and released


def _turn(now: float, wanted: float) -> float:
    """The signed change of an angle (degrees, as the page wraps it) to reach ``wanted``."""
    ahead = (wanted - now) % 360
    return ahead if ahead <= 180 else ahead - 360


def _span(centre: float, pixels: float) -> tuple[int, int]:
    """A move of ``pixels`` about ``centre``, kept 5 px or more from the viewport's edge."""
    start = centre - pixels / 2
    start += max(0.0, 5 - min(start, start + pixels))
    return round(start), round(start + pixels)


def _stop_ms(torque: float, fade: float) -> int:
    """Three times as long as the cube takes to stop from ``torque`` if ticks came on time."""
    ticks = math.ceil(math.log(torque) / -math.log(fade)) + 1
    return 3 * ticks * CUBE_TICK_MS


def _press_at(cube: Look, x: int, y: int) -> bool:
    """Whether a press now at (x, y) turns nothing: the last tick saw the pointer there."""
    return cube["pointerSeen"] and math.dist(cube["pointer"], (x, y)) <= 1


def drag_cube(goal: str, look: Look) -> list[Op]:
    """One turn at a time: a press, a move, a rest while held until the cube stops, and a
    release; then the Submit button once the face wanted is active and the cube at rest."""
    found = re.search(r'"(\d)"', goal)
    assert found is not None, goal
    cube, face = look["cube"], found.group(1)
    if cube["held"]:
        still = cube["torque"] <= 1
        return [("up",)] if still else [("wait", _stop_ms(cube["torque"], CUBE_FADE_HELD))]
    if cube["torque"] > 1:  # still turning: its face is not yet the one it stops on
        return [("wait", _stop_ms(cube["torque"], CUBE_FADE_FREE))]
    if cube["active"] == face:
        x, y = map(round, _centre(look["submit"]))
        return [("click", x, y)] if _press_at(cube, x, y) else [("move", x, y)]
    cx, cy = map(round, _centre(cube))
    if face in CUBE_TILT:  # a move down lowers the tilt
        pixels = -_turn(cube["tilt"], CUBE_TILT[face]) / CUBE_DEG_PER_PX
        (y0, y1), (x0, x1) = _span(cy, pixels), (cx, cx)
    else:  # a move right turns it back while it is upside down, forward otherwise
        upside_down = 90 < cube["tilt"] < 270
        pixels = _turn(cube["turn"], CUBE_TURN[face]) / CUBE_DEG_PER_PX * (-1 if upside_down else 1)
        (x0, x1), (y0, y1) = _span(cx, pixels), (cy, cy)
    if not _press_at(cube, x0, y0):
        return [("move", x0, y0)]
    return [("down",), ("move", x1, y1)]


SOLVERS: dict[str, Solver] = {
    "drag-cube": drag_cube,
    "drag-box": drag_box,
    "drag-circle": drag_one_way,
    "drag-items": drag_items,
    "drag-items-grid": drag_items,
    "drag-shapes": drag_shapes,
    "drag-shapes-2": drag_shapes_2,
    "drag-single-shape": drag_one_way,
    "drag-sort-numbers": drag_sort_numbers,
    "draw-circle": draw_circle,
    "draw-line": draw_line,
    "resize-textarea": resize_textarea,
    "highlight-text": highlight_text,
    "highlight-text-2": highlight_text,
}
TASKS = tuple(SOLVERS)


class PointerAgent:
    """Plays one task: asks its solver for ops whenever the last ones are played."""

    def __init__(self, task: str) -> None:
        self.solver = SOLVERS[task]
        self.queue: list[Op] = []

    def reset(self) -> None:
        self.queue = []

    def act(self, goal: str, look: Look) -> Op:
        if not self.queue:
            self.queue = self.solver(goal, look)
        return self.queue.pop(0)


def webharness_action(op: Op) -> str:
    """The op in webharness's actions."""
    kind, *args = op
    if kind == "drag":
        return f"drag({[[x, y] for x, y in args[0]]})"
    if kind in ("down", "up"):
        return f"mouse_{kind}()"
    names = {"click": "mouse_click", "move": "mouse_move", "wait": "wait"}
    return f"{names[kind]}({', '.join(map(str, args))})"


def browsergym_action(op: Op, at: Point, scale: float = 1.0) -> str:
    """The op in BrowserGym's coordinate actions (several calls a step: ``multiaction``).
    ``at`` is where the pointer is, for its ``mouse_down(x, y)`` and ``mouse_up(x, y)``;
    ``scale`` is its page's ``_bgym_scale_factor`` (1.5 on MiniWoB++: its points are the
    screenshot's, which it takes at 1.5 times the page's size)."""
    kind, *args = op

    def xy(point: Point) -> str:
        return f"{point[0] * scale:g}, {point[1] * scale:g}"

    if kind == "drag":
        first, *rest = args[0]
        moves = [f"mouse_move({xy(p)})" for p in rest[:-1]]
        return "\n".join([f"mouse_down({xy(first)})", *moves, f"mouse_up({xy(rest[-1])})"])
    if kind in ("down", "up"):
        return f"mouse_{kind}({xy(at)})"
    if kind == "wait":
        return f"noop({args[0]})"
    return f"mouse_{'click' if kind == 'click' else 'move'}({xy((args[0], args[1]))})"


def pointer_after(op: Op, at: Point) -> Point:
    """Where the pointer is after the op."""
    kind, *args = op
    if kind == "drag":
        x, y = args[0][-1]
        return (x, y)
    return (args[0], args[1]) if kind in ("click", "move") else at

"""Make the before/after images of docs/perturbations.md (docs/img/perturb-<name>.png).

Run from the repository root: ``python docs/make_perturbation_images.py``. Each image
shows the same scenario and seed without (left) and with (right) one perturbation at
strength 1. Perturbations that change nothing visible get an overlay that shows what
changed (ids, rebuilt elements) or a caption (the reworded goal).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image, ImageDraw, ImageFont

import webharness  # noqa: F401  (registers the envs)
import webharness.perturbations
from webharness.wrappers import perturb

OUT = Path(__file__).parent / "img"
SEED = 4
SCALE = 0.5
FONT = "DejaVuSans.ttf"

# Overlays drawn into the page for perturbations that leave the pixels alone.
SHOW_IDS = """() => {
  const shown = 'main [id]:is(input, select, button, h2, label, tbody, section, form)';
  for (const el of document.querySelectorAll(shown)) {
    const r = el.getBoundingClientRect();
    if (!r.width) continue;
    const tag = document.createElement('div');
    tag.textContent = '#' + el.id;
    tag.style.cssText =
      `position:fixed;left:${r.left}px;top:${Math.max(0, r.top - 14)}px;` +
      'font:600 12px monospace;background:#ffe066;color:#222;padding:0 4px;' +
      'border-radius:3px;z-index:2147483647;pointer-events:none';
    document.body.appendChild(tag);
  }
}"""
MARK_ELEMENTS = "() => { window.__before = new WeakSet(document.querySelectorAll('body *')); }"
OUTLINE_NEW = """() => {
  for (const el of document.querySelectorAll('tbody > tr, nav > a, ul > li')) {
    if (!window.__before.has(el)) el.style.outline = '3px solid #e8590c';
  }
}"""


def page_call(env: gym.Env, fn: Callable[[Any], Any]) -> Any:
    base = env.unwrapped
    return base.runtime.run(fn(base.episode.session.page), 20)


def shot(env: gym.Env) -> np.ndarray:
    base = env.unwrapped
    return base.runtime.run(base.episode.session.screenshot(), 20)


def open_form(env: gym.Env, info: dict[str, Any]) -> dict[str, Any]:
    (button,) = [
        e
        for e in info["semantic_state"].elements
        if e.role == "button" and e.name in ("New contact", "Create contact")
    ]
    return env.step(f"click({button.ref!r})")[4]


def capture(name: str, env: gym.Env, perturbed: bool) -> tuple[np.ndarray, str]:
    """The screenshot showing ``name``'s effect (or the clean page), and the goal."""
    obs, info = env.reset(seed=SEED)
    if name == "latency" and perturbed:  # reload and look while the contacts API call is held back
        page_call(env, lambda page: page.reload(wait_until="domcontentloaded"))
    elif name == "layout_shift":
        env.step("mouse_click(640, 700)")  # any pointer input: the banner comes in
    elif name == "id_randomization":
        open_form(env, info)
        page_call(env, lambda page: page.evaluate(SHOW_IDS))
    elif name == "dom_replacement":
        page_call(env, lambda page: page.evaluate(MARK_ELEMENTS))
        env.step("noop()")
        page_call(env, lambda page: page.evaluate(OUTLINE_NEW))
    elif name in ("label_drift", "theme"):
        open_form(env, info)
    return shot(env), obs["goal"]


def compose(
    name: str, before: tuple[np.ndarray, str], after: tuple[np.ndarray, str]
) -> Image.Image:
    font, small = ImageFont.truetype(FONT, 18), ImageFont.truetype(FONT, 14)
    panels = [
        Image.fromarray(img).resize((int(img.shape[1] * SCALE), int(img.shape[0] * SCALE)))
        for img, _ in (before, after)
    ]
    width, height = panels[0].size
    caption_lines = 0
    if name == "paraphrase":
        caption_lines = max(len(textwrap.wrap(goal, 78)) for _, goal in (before, after))
    canvas = Image.new("RGB", (2 * width + 30, height + 50 + caption_lines * 18 + 10), "white")
    draw = ImageDraw.Draw(canvas)
    for i, (panel, label) in enumerate(zip(panels, ("before", f"after: {name}"))):
        x = 10 + i * (width + 10)
        draw.text((x, 12), label, fill="#1d2433", font=font)
        canvas.paste(panel, (x, 40))
        draw.rectangle((x - 1, 39, x + width, 40 + height), outline="#adb5bd")
        if caption_lines:
            goal = (before, after)[i][1]
            draw.multiline_text(
                (x, 48 + height),
                "\n".join(textwrap.wrap("Goal: " + goal, 78)),
                fill="#343a40",
                font=small,
            )
    return canvas


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    base = gym.make("WebEval/form-v0", obs_mode="text")
    try:
        for name in webharness.perturbations.PERTURBATIONS:
            base.unwrapped.hook_factories.clear()
            before = capture(name, base, perturbed=False)
            after = capture(name, perturb(base, name, strength=1.0), perturbed=True)
            path = OUT / f"perturb-{name}.png"
            compose(name, before, after).save(path, optimize=True)
            print("wrote", path)
    finally:
        base.close()


if __name__ == "__main__":
    main()

"""Theme: the same site in another skin, to measure generalisation across looks.

Always (strength > 0) a seeded palette and font. Then each of three changes applies
with probability ``strength``: a different *layout* (spacing, widths, header and page
head mirrored), *reordered* sections (sibling ``<section>``/``<article>`` elements in a
seeded order), and *icon* buttons (a button whose text starts with a known verb shows
an aria-hidden icon; its text stays in the DOM, visually hidden, so its accessible name
is unchanged). The set of (role, name) elements is the same as without the theme.
Logged at step 0: the palette and which changes apply.
"""

from __future__ import annotations

import numpy as np

from webharness.episode.hooks import EpisodeHooks, HookFactory
from webharness.perturbations.base import PerturbationContext, init_script, record, seed_of
from webharness.trace.models import TaskInstance

PALETTES: dict[str, dict[str, str]] = {
    "ocean": {
        "bg": "#e7f1f5",
        "panel": "#ffffff",
        "ink": "#0b2530",
        "muted": "#4a6572",
        "line": "#c4d8e0",
        "brand": "#0b7285",
        "brandInk": "#ffffff",
        "header": "#0b3d4c",
        "headerInk": "#e3f4f8",
        "radius": "4px",
        "buttonRadius": "4px",
        "font": "'DejaVu Sans', Verdana, sans-serif",
    },
    "sand": {
        "bg": "#f6efe3",
        "panel": "#fffdf8",
        "ink": "#3a2a17",
        "muted": "#7a6650",
        "line": "#e4d5bd",
        "brand": "#c2410c",
        "brandInk": "#fffaf2",
        "header": "#5b3a1a",
        "headerInk": "#fbead2",
        "radius": "18px",
        "buttonRadius": "999px",
        "font": "'DejaVu Serif', Georgia, serif",
    },
    "forest": {
        "bg": "#eaf4ec",
        "panel": "#fbfffb",
        "ink": "#14301c",
        "muted": "#4f6b56",
        "line": "#c8dfcd",
        "brand": "#2b8a3e",
        "brandInk": "#ffffff",
        "header": "#1b4d2b",
        "headerInk": "#e0f5e4",
        "radius": "0px",
        "buttonRadius": "0px",
        "font": "'Liberation Sans', Arial, sans-serif",
    },
    "violet": {
        "bg": "#f1effa",
        "panel": "#ffffff",
        "ink": "#231942",
        "muted": "#5e548e",
        "line": "#d9d3f0",
        "brand": "#6741d9",
        "brandInk": "#ffffff",
        "header": "#2d1b69",
        "headerInk": "#ece6ff",
        "radius": "14px",
        "buttonRadius": "10px",
        "font": "'Liberation Serif', 'Times New Roman', serif",
    },
}


def theme(strength: float, ctx: PerturbationContext) -> HookFactory:
    def factory(hooks: EpisodeHooks, rng: np.random.Generator, instance: TaskInstance) -> None:
        if strength <= 0:
            return
        name = sorted(PALETTES)[int(rng.integers(len(PALETTES)))]
        layout, reorder, icons = (bool(rng.random() < strength) for _ in range(3))
        config = {
            "palette": PALETTES[name],
            "layout": layout,
            "reorder": reorder,
            "icons": icons,
            "seed": seed_of(rng),
        }
        hooks.init_scripts.append(init_script("perturb_theme.js", config))
        record(hooks, 0, "theme", palette=name, layout=layout, reorder=reorder, icons=icons)

    return factory

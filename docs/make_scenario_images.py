"""Regenerate docs/scenarios.md and the start-page screenshot of every scenario.

Run: python docs/make_scenario_images.py
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
from PIL import Image

import webharness
from webharness.spec.catalogue import get_task

DOCS = Path(__file__).parent


def main() -> None:
    rows = []
    for name in webharness.task_names():
        spec = get_task(name)
        env = gym.make(spec.env_id)
        try:
            obs, info = env.reset(seed=0)
        finally:
            frame = obs["screenshot"]
            env.close()
        image = DOCS / "img" / f"scenario-{name}.jpg"
        image.parent.mkdir(exist_ok=True)
        Image.fromarray(frame).save(image, quality=85)
        paths = ", ".join(p.id for p in spec.golden_paths)
        rows.append(
            f"## `{spec.env_id}` — {spec.title}\n\n"
            f"Category **{spec.category}** · golden paths: {paths} · max {spec.max_steps} steps\n\n"
            f"> {info['task'].instruction}  *(seed 0)*\n\n"
            f"![{name} start page](img/{image.name})\n"
        )
    intro = (
        "# Scenarios\n\nEvery scenario is a registered env built from `tasks/<name>/task.yaml` "
        "and a local site. Each varies with the seed (names, values, target options, delays, "
        "which records exist); the instruction shows the instance's values. Below: the start "
        "page at seed 0. Regenerate with `python docs/make_scenario_images.py`.\n\n"
    )
    (DOCS / "scenarios.md").write_text(intro + "\n".join(rows), encoding="utf-8")


if __name__ == "__main__":
    main()

"""What a user installs: the wheel holds every file of the package folders, and a regular
(not editable) install of it into a fresh virtualenv resets every scenario and the oracle
passes each one (an editable install once hid a wheel without ``pools.yaml``). A task pack
installed beside it (entry-point group ``webharness.tasks``) registers on import, its
scenarios played too; a broken entry point of it is a warning that names it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The folders installed as the package (setuptools package-dir), and where they land.
PACKAGE_FOLDERS = {
    "webharness": "webharness",
    "envs": "webharness/envs",
    "wrappers": "webharness/wrappers",
    "tasks": "webharness/tasks",
}
# Tracked files of those folders deliberately left out of the wheel, each with why.
EXCLUDED: dict[str, str] = {}

pytestmark = pytest.mark.slow

# A task pack as a user writes one: the suite's own task folder as package data, named by
# entry points as a package (its folder), as a callable, and as one that cannot load.
PACK_PYPROJECT = """
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "notes-pack"
version = "0.1"

[project.entry-points."webharness.tasks"]
NotesPack = "notes_pack"
Called = "notes_pack:task_folder"
Broken = "notes_pack:no_such_name"

[tool.setuptools]
packages = ["notes_pack"]

[tool.setuptools.package-data]
notes_pack = ["**/*"]
"""
PACK_INIT = """
from pathlib import Path


def task_folder() -> Path:
    return Path(__file__).parent / "notes"
"""
PACKS_ON_IMPORT = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import webharness
from webharness.envs import registered_ids
print(json.dumps({
    "ids": [i for i in registered_ids() if not i.startswith("WebEval/")],
    "warnings": [f"{w.category.__name__}: {w.message}" for w in caught],
    "site": webharness.get_task("NotesPack/notes-v0").site,
}))
"""

# Played in the fresh virtualenv: every registered scenario resets, the oracle passes it.
# Each env is closed before the next, as a user's loop would; keep_browser() keeps one
# Chromium and driver for all, as the README advises (a launch costs ~1.2 s of CPU).
EVERY_SCENARIO = """
import json, sys
import gymnasium as gym
import webharness
from webharness.envs import registered_ids
from webharness.golden.oracle import OracleAgent

outcomes = {"package": webharness.__file__}
with webharness.keep_browser():
    for env_id in registered_ids():
        if env_id.startswith("WebEval/miniwob.") and not webharness.get_task(env_id).golden_paths:
            continue  # the MiniWoB++ pack (its library is in the dependencies): those with paths
        env = gym.make(env_id, obs_mode="text")
        obs, info = env.reset(seed=0)
        agent = OracleAgent()
        agent.reset(info["task"])
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
            done = terminated or truncated
        outcomes[env_id] = bool(info["success"])
        env.close()
print(json.dumps(outcomes))
"""


def _source_files() -> list[str]:
    """The files a clean clone has: tracked, plus new ones git does not ignore."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    return [name for name in listed if (REPO / name).is_file()]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the source files (a build in the checkout would pick
    up whatever an earlier build left in ``build/``)."""
    source = tmp_path_factory.mktemp("source")
    for name in _source_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, source / name)
    return _build_wheel(source, tmp_path_factory.mktemp("wheel"))


def _build_wheel(source: Path, out: Path) -> Path:
    """The one wheel pip builds from ``source`` into ``out`` (no network, no isolation)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["--disable-pip-version-check", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_holds_every_file_of_the_package_folders(wheel: Path) -> None:
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    missing = []
    for name in _source_files():
        folder, _, rest = name.partition("/")
        if folder in PACKAGE_FOLDERS and name not in EXCLUDED:
            if f"{PACKAGE_FOLDERS[folder]}/{rest}" not in in_wheel:
                missing.append(name)
    assert missing == []
    assert "webharness/spec/pools.yaml" in in_wheel  # the file the editable install hid
    assert not any(n.split("/")[0] in {"envs", "wrappers", "tasks"} for n in in_wheel)


@pytest.fixture(scope="module")
def pack_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of a task pack holding ``tests/fixtures/notes_task``."""
    source = tmp_path_factory.mktemp("pack")
    (source / "pyproject.toml").write_text(PACK_PYPROJECT)
    (source / "notes_pack").mkdir()
    (source / "notes_pack" / "__init__.py").write_text(PACK_INIT)
    shutil.copytree(REPO / "tests" / "fixtures" / "notes_task", source / "notes_pack" / "notes")
    return _build_wheel(source, tmp_path_factory.mktemp("pack-wheel"))


@pytest.fixture(scope="module")
def fresh_venv(wheel: Path, pack_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtualenv with the wheel and the task pack installed the regular way; the
    dependencies come from this environment's site-packages by a path line (no network).
    The editable install of webharness there is not seen: its finder is started by a
    ``.pth`` that a path line does not run."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
        + ["--no-index", "--disable-pip-version-check", str(wheel), str(pack_wheel)],
        check=True,
        capture_output=True,
    )
    return venv


def test_the_installed_command_lists_every_scenario(fresh_venv: Path, tmp_path: Path) -> None:
    listed = subprocess.run(
        [str(fresh_venv / "bin" / "webharness"), "list"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "WebEval/form-v0" in listed and "WebEval/shop-v0" in listed
    assert "NotesPack/notes-v0" in listed


def test_an_installed_task_pack_registers_on_import_and_a_broken_entry_warns(
    fresh_venv: Path, tmp_path: Path
) -> None:
    done = subprocess.run(
        [str(fresh_venv / "bin" / "python"), "-c", PACKS_ON_IMPORT],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["ids"] == ["Called/notes-v0", "NotesPack/notes-v0"]
    assert found["site"].startswith(str(fresh_venv)) and found["site"].endswith("notes/site")
    (warning,) = found["warnings"]
    assert warning.startswith("TaskPackWarning: webharness: task pack 'Broken'")
    assert "notes_pack:no_such_name, from notes-pack" in warning and "AttributeError" in warning


def test_every_scenario_resets_and_the_oracle_passes_it_from_the_wheel(
    browser: None, fresh_venv: Path, tmp_path: Path
) -> None:
    played = subprocess.run(
        [str(fresh_venv / "bin" / "python"), "-c", EVERY_SCENARIO],
        cwd=tmp_path,  # not the checkout, whose webharness/ folder would be imported
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    outcomes = json.loads(played.stdout.splitlines()[-1])
    assert outcomes.pop("package").startswith(str(fresh_venv))
    assert len(outcomes) >= 12 and all(outcomes.values()), outcomes
    assert outcomes["NotesPack/notes-v0"] and outcomes["Called/notes-v0"]  # the pack's too
    assert outcomes["WebEval/miniwob.click-test-v0"]  # the MiniWoB++ pack, from the wheel

"""The import layers hold: import-linter's contracts (``[tool.importlinter]`` in pyproject.toml).

import-linter (grimp) finds a package's modules by walking its folder, but the design card's
folders (``costmodel/``, ``search_spaces/``, ``optimizer/``) live at the repository root and are
mapped into ``mrtune`` by setuptools ``package-dir``. So the test lays the sources out as they
are installed (one ``mrtune`` tree, built from the same ``package-dir`` table) and runs
``lint-imports`` on that tree. Every import counts, including those inside functions, so a
cycle cannot be dodged by a late import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _installed_layout(dest: Path) -> Path:
    """Copy every package's ``.py`` files to where a wheel puts them; the tree's root."""
    tool = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    package_dir: dict[str, str] = tool["package-dir"]
    for package in tool["packages"]:
        # the longest mapped prefix decides where the package's sources are
        prefix = max(
            (p for p in package_dir if package == p or package.startswith(p + ".")), key=len
        )
        src = REPO / package_dir[prefix] / Path(*package[len(prefix) :].split(".")[1:])
        out = dest / Path(*package.split("."))
        out.mkdir(parents=True, exist_ok=True)
        for f in src.glob("*.py"):
            shutil.copy2(f, out / f.name)
    return dest


def test_every_package_is_listed_for_the_wheel() -> None:
    """A folder with an ``__init__.py`` under a mapped root is a listed package (else the
    wheel would silently lack it)."""
    tool = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(tool["packages"])
    for name, folder in tool["package-dir"].items():
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder)
            if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
                continue
            package = ".".join([name, *rel.parts])
            if any(
                package == m or package.startswith(m + ".")
                for m in tool["package-dir"]
                if m != name and m.startswith(name + ".")
            ):
                continue  # mapped separately
            assert package in listed, (
                f"{package} ({init.parent}) is not in [tool.setuptools] packages"
            )


def test_import_layers(tmp_path: Path) -> None:
    if (
        shutil.which("lint-imports") is None
        and not (Path(sys.executable).parent / "lint-imports").exists()
    ):
        pytest.fail("lint-imports is missing: install the test extra (pip install -e '.[test]')")
    root = _installed_layout(tmp_path / "src")
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.run(
        [exe, str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]

"""The bundled examples are what ``scripts/make_examples.py`` makes from their sources today.

A reader or profiling change that alters the README's example profile fails here until the
example is regenerated (``python scripts/make_examples.py``), so the README's main command
always shows what the readers really give.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _script():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location(
        "make_examples", REPO / "scripts" / "make_examples.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()


@pytest.mark.parametrize("example", SCRIPT.EXAMPLES, ids=lambda e: e.name)
def test_example_profile_is_what_the_readers_give(example, shared_data: Path) -> None:  # noqa: ANN001
    bundled = SCRIPT.PROFILES / example.name
    made = SCRIPT.render(example)
    old = json.loads(bundled.read_text("utf-8"))
    new = json.loads(made)
    changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    assert not changed, (
        f"{bundled.relative_to(REPO)} is stale (fields {changed}): run "
        "`python scripts/make_examples.py`"
    )
    assert bundled.read_text("utf-8") == made  # byte for byte: `mrtune profile -o` layout


def test_every_bundled_profile_has_a_source() -> None:
    names = {e.name for e in SCRIPT.EXAMPLES}
    bundled = {p.name for p in SCRIPT.PROFILES.glob("*.json")}
    assert bundled == names, "a bundled profile that no script regenerates"


def test_workflow_examples_are_what_make_profiles_writes() -> None:
    stale = SCRIPT.stale(SCRIPT.workflow_profiles())
    assert not stale, f"stale: {stale}; run python mrtune/examples/workflows/make_profiles.py"


def test_script_check_mode_reports_a_stale_file(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    fake = tmp_path / "wordcount-rumen.json"
    fake.write_text("{}\n")
    monkeypatch.setattr(SCRIPT, "PROFILES", tmp_path)
    monkeypatch.setattr(SCRIPT, "workflow_profiles", dict)
    assert SCRIPT.main(["--check"]) == 1
    assert fake.read_text() == "{}\n"
    assert SCRIPT.main([]) == 0 and SCRIPT.main(["--check"]) == 0


def test_readme_names_the_example_and_its_source() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    assert "mrtune/examples/profiles/wordcount-rumen.json" in readme
    assert "scripts/make_examples.py" in readme
    assert "../shared/data/rumen/wordcount-rumen.json" in readme

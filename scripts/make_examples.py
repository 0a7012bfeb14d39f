"""Regenerate the bundled example profiles from their source histories with the current readers.

Every file of ``mrtune/examples/profiles/`` is what ``mrtune profile SOURCE -o FILE`` gives for
the history named in :data:`EXAMPLES` (in ``../shared/data``, next to the repository), so the
README's main command shows what the readers really produce. ``tests/test_examples.py`` fails
when a bundled file differs from what this script writes.

    python scripts/make_examples.py           # rewrite the examples
    python scripts/make_examples.py --check   # exit 1 and name the stale files instead

The workflow examples (``mrtune/examples/workflows/profiles/``) are hand-written TPC-H-like jobs,
not histories: ``mrtune/examples/workflows/make_profiles.py`` writes them, and ``--check``
compares them with what it gives too.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Where the real histories live, as the README and the tests name it (relative to the repo).
SHARED_DATA = Path("..") / "shared" / "data"
PROFILES = REPO / "mrtune" / "examples" / "profiles"
WORKFLOWS = REPO / "mrtune" / "examples" / "workflows"


@dataclass(frozen=True)
class Example:
    """One bundled profile and the history it is made from."""

    name: str  # file name in mrtune/examples/profiles
    source: str  # path under ../shared/data
    job: str | None = None  # the job to pick from a multi-job Rumen trace
    conf: str | None = None  # the job's configuration, if not found next to a .jhist


EXAMPLES = (Example("wordcount-rumen.json", "rumen/wordcount-rumen.json"),)


@contextmanager
def _in_repo() -> Iterator[None]:
    """Run with the repository as working directory, so the profiles record the source as
    ``../shared/data/…`` (what the README shows) whatever the caller's directory."""
    old = Path.cwd()
    os.chdir(REPO)
    try:
        yield
    finally:
        os.chdir(old)


def render(example: Example) -> str:
    """The JSON text ``mrtune profile`` writes for ``example`` (same dump, same layout)."""
    from mrtune.calibration import load_profile_source

    with _in_repo():
        source = SHARED_DATA / example.source
        if not source.exists():
            raise SystemExit(f"{source}: missing (the examples are made from ../shared/data)")
        conf = SHARED_DATA / example.conf if example.conf else None
        profile = load_profile_source(source, conf, job=example.job)
    return json.dumps(profile.model_dump(mode="json"), indent=2) + "\n"


def workflow_profiles() -> dict[Path, str]:
    """What ``make_profiles.py`` writes for the workflow examples, by file."""
    spec = importlib.util.spec_from_file_location("make_profiles", WORKFLOWS / "make_profiles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return {
        WORKFLOWS / "profiles" / f"{name}.json": module.dump(prof)
        for name, prof in module.PROFILES.items()
    }


def expected() -> dict[Path, str]:
    """Every generated example file and its expected content."""
    out = {PROFILES / e.name: render(e) for e in EXAMPLES}
    out.update(workflow_profiles())
    return out


def stale(files: dict[Path, str]) -> list[Path]:
    """The files whose bundled content differs from ``files``."""
    return [p for p, text in files.items() if not p.exists() or p.read_text("utf-8") != text]


def _rel(p: Path) -> str:
    return str(p.relative_to(REPO)) if p.is_relative_to(REPO) else str(p)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    files = expected()
    old = stale(files)
    if args.check:
        for p in old:
            print(f"stale: {_rel(p)}")
        return 1 if old else 0
    for p in old:
        p.write_text(files[p], encoding="utf-8")
        print(f"wrote {_rel(p)}")
    if not old:
        print("every example is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Write the Starfish-format fixture files: ``python -m tests.readers.starfish.make_fixtures``.

The files are generated from :mod:`.cases` (reference-equation timings); the test
``test_fixtures_are_current`` fails when they drift from the generator.
"""

from __future__ import annotations

from pathlib import Path

from .cases import CASES, all_files, extra_files

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def main() -> None:
    FIXTURES.mkdir(exist_ok=True)
    files = {name: data for case in CASES.values() for name, data in all_files(case).items()}
    for name, content in {**files, **extra_files()}.items():
        (FIXTURES / name).write_bytes(content)
        print(f"wrote {FIXTURES / name}")


if __name__ == "__main__":
    main()

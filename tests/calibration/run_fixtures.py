"""The real run records kept as test fixtures (``fixtures/*.jsonl.gz``): one reader for all."""

from __future__ import annotations

import gzip
from pathlib import Path

from mrtune.readers.run_records import RunRecord

FIXTURES = Path(__file__).parent / "fixtures"


def records(name: str) -> list[RunRecord]:
    """Every run record of fixture ``name`` (a gzipped JSONL file), in file order."""
    lines = gzip.decompress((FIXTURES / name).read_bytes()).decode().splitlines()
    return [RunRecord.model_validate_json(line) for line in lines if line.strip()]


def by_label(name: str) -> dict[str, RunRecord]:
    """Fixture ``name``'s records by label (one run a label)."""
    return {r.label or r.run_id: r for r in records(name)}

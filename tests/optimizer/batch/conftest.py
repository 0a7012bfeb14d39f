"""Catalogs for the batch tests, built in ``tmp_path`` from ``../shared/data`` (nothing copied
into the repository): good ``.jhist`` files with their configurations (symlinks), the
truncated ``.jhist``, SWIM rows and a JSONL file with one valid and one impossible profile."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from mrtune.costmodel import DataflowStats, JobProfile

REPO = Path(__file__).resolve().parents[3]
DATA = (REPO / ".." / "shared" / "data").resolve()
FB2010 = DATA / "swim" / "FB-2010_samples_24_times_1hr_0.tsv"
GOOD_JHIST = (
    "job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-"
    "default-1526555648931.jhist",
    "job_1526555215992_0001_conf.xml",
    "job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-"
    "default.jhist",
    "job_1329348432655_0001_conf.xml",
)
TRUNCATED = (
    "job_1410289045532_259974-1411647985641-user35-SomeJobName-1411647999554-1-0-SUCCEEDED-"
    "root.someQueueName-1411647995323.jhist"
)


def as_written(alone: Any, got: dict[str, Any]) -> Any:
    """The job-alone tuning ``alone`` as the batch writes it: when the batch withheld the
    job's changes by the noise rule (their gain could vanish within its interval), the job
    keeps its current configuration; the withheld changes are exactly ``alone``'s."""
    held = got.get("withheld_changes") or []
    if not held:
        return alone
    assert [c["name"] for c in held] == alone.changed
    assert {c["rule"] for c in held} == {"gain_within_noise"}
    return dataclasses.replace(
        alone, best=alone.current, best_ms=alone.current_ms, best_gb_s=alone.current_gb_s
    )


def swim_rows(n: int, start: int = 0) -> str:
    if not FB2010.is_file():
        pytest.fail(f"../shared/data is missing (expected {FB2010}); CI provides it")
    lines = FB2010.read_text().splitlines(keepends=True)
    return "".join(lines[start : start + n])


def make_catalog(root: Path, n_swim: int = 120) -> Path:
    """A mixed catalog directory under ``root``."""
    cat = root / "catalog"
    (cat / "history" / "2014").mkdir(parents=True)
    for name in GOOD_JHIST:
        (cat / "history" / name).symlink_to(DATA / "jhist" / name)
    (cat / "history" / "2014" / TRUNCATED).symlink_to(DATA / "jhist" / TRUNCATED)
    (cat / "fb2010.tsv").write_text(swim_rows(n_swim))
    good = JobProfile(
        job_id="jsonl-good",
        input_bytes=20 * 2**30,
        input_files=20,
        stats=DataflowStats(map_size_sel=0.8, map_pairs_sel=0.8),
    )
    bad = json.loads(good.model_dump_json())
    bad["job_id"] = "jsonl-impossible"
    bad["input_bytes"] = -5
    (cat / "profiles.jsonl").write_text(good.model_dump_json() + "\n" + json.dumps(bad) + "\n")
    return cat


@pytest.fixture()
def catalog(tmp_path: Path) -> Path:
    return make_catalog(tmp_path)

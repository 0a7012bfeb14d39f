"""Fixtures of the regression-model tests: synthetic phase data written to a temp CSV."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrtune.costmodel.regression import PhaseObservations
from mrtune.readers.phase_data import parse_phase_csv, rows_to_observations

from .synthetic import synthetic_rows, to_csv


@pytest.fixture(scope="session")
def synthetic_csv_text() -> str:
    return to_csv(synthetic_rows(seed=0))


@pytest.fixture(scope="session")
def synthetic_data(synthetic_csv_text: str) -> PhaseObservations:
    return rows_to_observations(parse_phase_csv(synthetic_csv_text, "synthetic.csv"))


@pytest.fixture()
def synthetic_csv(tmp_path: Path, synthetic_csv_text: str) -> Path:
    path = tmp_path / "phases.csv"
    path.write_text(synthetic_csv_text)
    return path

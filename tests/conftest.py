"""Shared test fixtures (where ../shared/data lives) and the Hypothesis profiles.

Hypothesis is derandomized by default, so a run's verdict never depends on the draw (CI runs
exactly this); ``HYPOTHESIS_PROFILE=explore`` draws fresh examples when hunting for bugs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("explore", derandomize=False)
settings.register_profile("hunt", derandomize=False, max_examples=1500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"../shared/data is missing (expected at {SHARED_DATA}); CI provides it")
    return SHARED_DATA

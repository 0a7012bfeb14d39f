"""Shared test fixtures (where ../shared/data lives) and the Hypothesis profiles.

Hypothesis is derandomized by default, so a run's verdict never depends on the draw (CI runs
exactly this); ``HYPOTHESIS_PROFILE=explore`` draws fresh examples when hunting for bugs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

#: What the suite imports beyond pytest: mrtune's own dependencies and the ``test`` extra.
NEEDED = ("numpy", "scipy", "pydantic", "typer", "optuna", "hypothesis", "importlinter")


def pytest_configure(config: pytest.Config) -> None:
    """Refuse in one line, before any test module is imported, a Python that lacks mrtune or
    its test extra (a ``pytest`` run outside the environment of the README's install), then
    load the Hypothesis profile."""
    missing = [m for m in NEEDED if importlib.util.find_spec(m) is None]
    if missing:
        pytest.exit(
            f"this Python ({sys.executable}) lacks {', '.join(missing)}: install mrtune with "
            "its test extra first, as the README's second command does: "
            "pip install -e '.[test]' && pytest",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )
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


@pytest.fixture(scope="session")
def calibrated_run():
    """``profile_from_run(record)`` (calibrated), computed once per session per record.

    A calibration is seconds of CPU (the contention and slowdown grids,
    ``mrtune.calibration.cost_factors.solve_contention``) and several modules calibrate the
    same committed runs. It is pure (the record's content decides it: the key is the record's
    full JSON), it is kept in memory for this session only, and every caller gets its own deep
    copy, so no test sees another's changes.
    """
    from mrtune.calibration.run_profile import profile_from_run

    done: dict[str, object] = {}

    def calibrate(record):  # noqa: ANN001, ANN202 - a RunRecord → a JobProfile
        key = record.model_dump_json()
        if key not in done:
            done[key] = profile_from_run(record)
        return done[key].model_copy(deep=True)

    return calibrate

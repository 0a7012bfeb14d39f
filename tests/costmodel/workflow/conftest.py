"""Shared paths for the workflow tests."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "mrtune" / "examples" / "workflows"


@pytest.fixture
def examples() -> Path:
    return EXAMPLES

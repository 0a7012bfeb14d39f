"""Fuzz the readers and commands with mutated real files (fixed seed, a few thousand cases).

Every case must end in success with sane numbers or in one clean error line: never another
exception, never NaN, an infinity or a negative time in a profile or a prediction. The budget
is sized for CI (~2,000 reader cases and ~200 command runs, well under a minute of CPU on an
idle core); ``benchmarks/bench_fuzz.py`` runs the same harness on >= 10,000 cases.
"""

from __future__ import annotations

import io
import os

import pytest

from tests.fuzz.harness import campaign, report
from tests.fuzz.mutators import DATA

BUDGET = int(os.environ.get("MRTUNE_FUZZ_CASES", "1200"))

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is missing")


def test_mutated_real_files_never_crash() -> None:
    tally = campaign(BUDGET, seed=20261201, commands_every=12, hang_s=15.0)
    out = io.StringIO()
    report(tally, out)
    assert tally.total >= BUDGET, out.getvalue()
    assert tally.counts.get("clean", 0) > 0 and tally.counts.get("ok", 0) > 0, out.getvalue()
    bad = {k: tally.counts.get(k, 0) for k in ("uncaught", "wrong", "hang")}
    assert bad == {"uncaught": 0, "wrong": 0, "hang": 0}, out.getvalue()

"""A Starfish profile whose timings come from the reference equations is reproduced in Hadoop 1 mode.

The fixture profiles' ``<timings>`` were computed by :mod:`.reference_model` (the reference's
§2–§4 equations, Hadoop 1 buffer) from the profiles' own statistics and cost factors. Loading the
files with :func:`mrtune.readers.starfish.load_starfish` and running mrtune's what-if must give every
phase within 1%, for the profiled configuration and for what-if configurations written in
Hadoop 0.20 names.

The Reduce phase included: the reader sets ``reduce_includes_final_merge`` because Starfish
calibrates ``REDUCE_CPU_COST`` on the final-merge + reduce() loop (docs/starfish-differences.md,
"Final-merge charge").
"""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from .cases import CASES, all_files, extra_files
from .reference_model import reference_job
from .reproduction import WHATIFS, reproduce

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TOLERANCE = 0.01


def test_fixtures_are_current() -> None:
    """The checked-in XML files are exactly what the generator writes."""
    files = {name: data for case in CASES.values() for name, data in all_files(case).items()}
    for name, content in {**files, **extra_files()}.items():
        assert (FIXTURES / name).read_bytes() == content, (
            f"{name} is stale: run python -m tests.readers.starfish.make_fixtures"
        )


def _timings(profile_xml: Path, section: str) -> dict[str, float]:
    root = ET.parse(profile_xml).getroot()
    return {t.get("key"): float(t.get("value")) for t in root.find(f"{section}/timings")}


def test_fixture_timings_are_the_reference_equations() -> None:
    """The file's <timings> are the reference's map and reduce phases (nothing else)."""
    case = CASES["terasort"]
    m, r = reference_job(
        case.split_size, case.num_splits, False, case.conf, case.stats, case.costs
    )
    mt = _timings(FIXTURES / "terasort_profile.xml", "map_profile")
    rt = _timings(FIXTURES / "terasort_profile.xml", "reduce_profile")
    assert mt["SPILL"] == pytest.approx(m.phases_ms["spill"], rel=1e-12)
    assert rt["SORT"] == pytest.approx(r.phases_ms["merge"], rel=1e-12)
    # READ = split bytes x READ_HDFS_IO_COST (the reference's §0 check, in this job's numbers).
    assert mt["READ"] == pytest.approx(64_000_000 * 91.7 / 1e6)


@pytest.mark.parametrize(("name", "props", "ref_changes", "splits"), WHATIFS)
def test_hadoop1_whatif_reproduces_reference(
    tmp_path: Path, name: str, props: dict[str, str], ref_changes: dict, splits: int | None
) -> None:
    rep = reproduce(name, props, ref_changes, splits, tmp_path)
    assert rep.pred.num_maps[0] == rep.num_splits
    assert rep.pred.map_full.spills[0] == rep.ref_map.detail["spills"]
    for phase, ours, ref in rep.phases():
        # Every phase, Reduce included: the reader's cost convention
        # (reduce_includes_final_merge) charges the final merge as Starfish does.
        assert ours == pytest.approx(ref, rel=TOLERANCE, abs=1e-6), phase

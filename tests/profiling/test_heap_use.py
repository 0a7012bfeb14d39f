"""The maps' observed heap beyond the sort buffer (issue 14): read from real histories of every
format that records it, kept through the profile's JSON, absent where nothing records it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrtune.calibration import load_profile_source
from mrtune.costmodel import HadoopConfig, JobProfile
from mrtune.costmodel.profile import MapHeapUse
from mrtune.profiling.heap_use import map_heap_use

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
SLEEP = next((DATA / "jhist").glob("job_1329348432655_0001-*SUCCEEDED*.jhist"))
SLEEP_CONF = DATA / "jhist" / "job_1329348432655_0001_conf.xml"
QMC = next((DATA / "jhist").glob("job_1526555215992_0001-*.jhist"))
TERAGEN = DATA / "rumen" / "2jobs2min-rumen-jh.json"
EXAMPLE = Path(__file__).resolve().parents[2] / "mrtune" / "examples" / "profiles"
MIB = 2**20


def test_sleep_jhist_gives_its_largest_committed_heap_less_the_buffer() -> None:
    """Hadoop's Sleep job, 10 maps: the largest map COMMITTED_HEAP_BYTES is 181,272,576 B
    (172.875 MiB), its conf -Xmx500m and the default 100 MB buffer: 72.875 MiB beside it."""
    use = load_profile_source(SLEEP, SLEEP_CONF).map_heap_use
    assert use is not None
    assert use.committed_mb == 181_272_576 / MIB == 172.875
    assert use.sort_mb == 100 and use.heap_mb == 500 and use.attempts == 10
    assert use.need_mb == 72.875
    assert not use.saturated
    assert "COMMITTED_HEAP_BYTES" in use.source and ".jhist" in use.source


def test_quasi_monte_carlo_jhist() -> None:
    use = load_profile_source(QMC).map_heap_use
    assert use is not None and use.attempts == 1
    assert use.committed_mb == 192.0 and use.need_mb == 92.0


def test_rumen_heap_usage_of_a_map_only_job_subtracts_no_buffer() -> None:
    """TeraGen (no reduces: its maps allocate no kvbuffer): Rumen's heapUsage as it is."""
    prof = load_profile_source(TERAGEN, job="job_1369942127770_1205")
    use = prof.map_heap_use
    assert prof.map_only and use is not None
    assert use.attempts == 96 and use.sort_mb == 0.0
    assert use.need_mb == use.committed_mb == 745_406_464 / MIB
    assert "heapUsage" in use.source


def test_rest_attempt_counters_and_a_committed_heap_below_the_buffer() -> None:
    """The REST example's one map committed 54.8 MiB, less than the default buffer its
    (absent) configuration implies: a need of 0, never negative, and said why."""
    use = load_profile_source(DATA / "rest").map_heap_use
    assert use is not None and use.committed_mb == 57_475_072 / MIB
    assert use.need_mb == 0.0
    assert "does not describe the run" in use.source


def test_no_heap_counter_no_figure() -> None:
    """The Hadoop 1 WordCount trace records no heap usage: nothing is made up."""
    assert load_profile_source(DATA / "rumen" / "wordcount-rumen.json").map_heap_use is None
    assert map_heap_use([{}, {"COMMITTED_HEAP_BYTES": 0.0}], HadoopConfig(), map_only=False,
                        source_format="jhist") is None  # fmt: skip


def test_the_largest_map_counts() -> None:
    maps = [{"COMMITTED_HEAP_BYTES": mb * MIB} for mb in (150, 400, 210)]
    use = map_heap_use(maps, HadoopConfig(io_sort_mb=200), map_only=False, source_format="rest")
    assert use is not None and use.need_mb == 200.0 and use.attempts == 3


def test_json_round_trip_and_old_profiles_load() -> None:
    prof = load_profile_source(SLEEP, SLEEP_CONF)
    again = JobProfile.model_validate_json(prof.model_dump_json())
    assert again.map_heap_use == prof.map_heap_use
    assert isinstance(again.map_heap_use, MapHeapUse)
    # a profile written before the field existed loads, with no figure
    old = json.loads((EXAMPLE / "wordcount-rumen.json").read_text())
    old.pop("map_heap_use")
    assert JobProfile.model_validate(old).map_heap_use is None


def test_a_negative_need_is_refused() -> None:
    with pytest.raises(ValueError):
        MapHeapUse(
            need_mb=-1, committed_mb=1, sort_mb=2, heap_mb=10, attempts=1, source="hand-made"
        )


def test_a_committed_heap_above_the_configured_heap_gives_no_figure_and_a_warning(
    tmp_path: Path,
) -> None:
    """A JVM commits at most its -Xmx: the Sleep history with its maps' counter raised past
    the conf's 500 MB heap cannot be the run that conf describes, so no limit comes from it
    and the profile says why."""
    text = SLEEP.read_text()
    raised = text.replace('"value":181272576', f'"value":{900 * MIB}')
    assert raised != text
    path = tmp_path / SLEEP.name
    path.write_text(raised)
    prof = load_profile_source(path, SLEEP_CONF)
    assert prof.map_heap_use is None
    said = [w for w in prof.warnings if w.startswith("COMMITTED_HEAP_BYTES")]
    assert len(said) == 1 and "900 MB" in said[0] and "500 MB map heap" in said[0]
    # within the JVM's slack the figure stands (committed at the heap: the whole heap)
    path.write_text(text.replace('"value":181272576', f'"value":{500 * MIB}'))
    use = load_profile_source(path, SLEEP_CONF).map_heap_use
    assert use is not None and use.need_mb == 400

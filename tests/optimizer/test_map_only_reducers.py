"""Reducers asked of a map-only profile are refused, not answered as "no change".

The fixture is a real local Hadoop Streaming grep with mapreduce.job.reduces=0. A what-if of
2 reducers had printed "reduces 0 -> 2" over a table with 0 reduce tasks and a 1.00x speedup:
the model keeps a map-only profile map-only, and the run measured no reduce side to price.
"""

from __future__ import annotations

import pytest

from mrtune.calibration.run_profile import profile_from_run
from mrtune.calibration.run_record import run_config
from mrtune.errors import InputError
from mrtune.optimizer.whatif import apply_changes
from tests.calibration.run_fixtures import records


def test_reducers_of_a_map_only_profile_are_refused() -> None:
    (rec,) = records("streaming-grep-map-only.jsonl.gz")
    prof, base = profile_from_run(rec), run_config(rec)
    assert prof.map_only
    for changes in (
        {"mapreduce.job.reduces": "2"},
        {"mapreduce.job.reduces": "2", "mapreduce.task.io.sort.mb": "50"},
    ):
        with pytest.raises(InputError, match="map-only run") as err:
            apply_changes(base, changes, prof)
        assert "set mapreduce.job.reduces above 0" not in str(err.value)
    # reducers 0 stays a question about this job, and its split size is still answered
    assert apply_changes(base, {"mapreduce.job.reduces": "0"}, prof).num_reducers == 0
    key = "mapreduce.input.fileinputformat.split.maxsize"
    assert apply_changes(base, {key: "1000000"}, prof).split_maxsize == 1_000_000

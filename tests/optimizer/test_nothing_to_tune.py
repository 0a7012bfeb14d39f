"""optimize on a job the search has no setting for says so in one line (exit 2), not a crash.

The fixture is a real local Hadoop Streaming grep (`-mapper "grep -w w7"`, 2 input files) with
mapreduce.job.reduces=0: map-only (no sort, shuffle or codec settings), the old mapred API (its
split size is left out of the search), local mode (no container memory unless allowed) and its
output compression left as it is (optimize's default). The search space was empty and optimize
ended in "internal error: the search space has no knobs to tune".
"""

from __future__ import annotations

import pytest

from mrtune.calibration.run_profile import profile_from_run
from mrtune.calibration.run_record import local_cluster, run_config
from mrtune.errors import InputError
from mrtune.optimizer.recommend import recommend
from tests.calibration.run_fixtures import records

OUTPUT_CODEC = "mapreduce.output.fileoutputformat.compress.codec"


def test_an_empty_search_is_one_line_with_the_reasons() -> None:
    (rec,) = records("streaming-grep-map-only-old-api.jsonl.gz")
    prof = profile_from_run(rec)
    assert prof.map_only
    with pytest.raises(InputError, match="nothing to tune") as err:
        recommend(prof, run_config(rec), local_cluster(rec), n_trials=8, exclude=[OUTPUT_CODEC])
    text = str(err.value)
    assert "map-only" in text and "--allow-memory" in text and "\n" not in text

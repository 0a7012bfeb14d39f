"""Input files of unequal size: each file is cut into its own splits, so the job model keeps
them apart as map classes (:mod:`mrtune.profiling.input_classes`).

The fixture holds two real local runs of Hadoop's own examples WordCount
(``org.apache.hadoop.examples.WordCount`` of hadoop-mapreduce-examples 3.4.2, a summing
combiner) over three text files of 2, 8 and 30 MB, one with a 10 MB sort buffer (2, 5 and 16
spills a map) and one with the default 100 MB. With the files taken as three equal files of
14 MB, the model missed its own run's SPILLED_RECORDS by 25% (540,060 vs 716,164) and its
REDUCE_INPUT_RECORDS by 10%. Each run is profiled and the other predicted from it.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from mrtune.calibration.run_profile import profile_from_run
from mrtune.costmodel import ClusterSpec, ConfigBatch
from mrtune.costmodel.job import predict_job
from mrtune.costmodel.profile import JobProfile
from mrtune.profiling.baseline import profile_config
from mrtune.profiling.input_classes import EQUAL_SHARE, file_classes, files_of_maps
from mrtune.readers.run_records import RunRecord

FIXTURE = Path(__file__).parent / "fixtures" / "examples-wordcount-unequal-files.jsonl.gz"
#: What a distinct-key law misses where spills of one size hold different numbers of distinct
#: keys: the keys' order in the data decides that, and one law gives every such spill the same
#: count (issue 20's note on spill layouts). Here 16 spills of 317,216 records in one map and 4
#: in another: 0.021% on the 10 MB run's own SPILLED_RECORDS. Equal files missed by 25%.
KEY_LAW_SLACK = 5e-4


def _runs() -> dict[str, RunRecord]:
    lines = gzip.decompress(FIXTURE.read_bytes()).decode().splitlines()
    recs = [RunRecord.model_validate_json(line) for line in lines if line.strip()]
    return {r.effective_conf["mapreduce.task.io.sort.mb"]: r for r in recs}


def _counters(rec: RunRecord) -> dict[str, float]:
    names = (
        "SPILLED_RECORDS",
        "COMBINE_INPUT_RECORDS",
        "COMBINE_OUTPUT_RECORDS",
        "REDUCE_INPUT_RECORDS",
        "MAP_OUTPUT_MATERIALIZED_BYTES",
        "MAP_OUTPUT_RECORDS",
    )
    return {k: float(rec.counter(k)) for k in names}


def _predicted(prof: JobProfile, target: RunRecord) -> tuple[dict[str, float], float]:
    sort_mb = int(target.effective_conf["mapreduce.task.io.sort.mb"])
    cfg = profile_config(prof).model_copy(update={"io_sort_mb": sort_mb})
    pred = predict_job(prof, ConfigBatch.from_configs([cfg]), ClusterSpec.local())
    d = pred.counters
    return {k: float(d[k][0]) for k in _counters(target)}, float(pred.num_maps[0])


@pytest.fixture(scope="module")
def runs() -> dict[str, RunRecord]:
    return _runs()


@pytest.fixture(scope="module")
def profiles(runs: dict[str, RunRecord]) -> dict[str, JobProfile]:
    return {mb: profile_from_run(rec) for mb, rec in runs.items()}


def test_each_file_is_its_own_map_class(profiles: dict[str, JobProfile]) -> None:
    prof = profiles["10"]
    sizes = sorted(c.input_bytes / c.input_files for c in prof.map_classes)
    assert sizes == [2097179, 8388615, 31457324]
    assert sum(c.input_bytes for c in prof.map_classes) == prof.input_bytes


@pytest.mark.parametrize(("fitted", "held_out"), [("10", "10"), ("10", "100"), ("100", "10")])
def test_counters_of_the_run_and_of_the_other_sort_buffer(
    runs: dict[str, RunRecord], profiles: dict[str, JobProfile], fitted: str, held_out: str
) -> None:
    got, maps = _predicted(profiles[fitted], runs[held_out])
    assert maps == 3
    for name, real in _counters(runs[held_out]).items():
        assert got[name] == pytest.approx(real, rel=KEY_LAW_SLACK), name


def test_per_map_lists_are_compared_in_hadoops_order(
    runs: dict[str, RunRecord], profiles: dict[str, JobProfile]
) -> None:
    # Hadoop numbers the maps largest split first; the model's classes go smallest file
    # first, and validate had scored 2, 5, 16 spills against 16, 5, 2 as a mismatch
    from mrtune.calibration._fidelity_figures import measured_figures, predicted_figures
    from mrtune.calibration._fidelity_runs import same
    from mrtune.calibration.run_record import run_config

    rec = runs["10"]
    pred = predict_job(
        profiles["10"], ConfigBatch.from_configs([run_config(rec)]), ClusterSpec.local()
    )
    p, m = predicted_figures(pred), measured_figures(rec)
    assert m["spills_per_map"] == sorted(m["spills_per_map"], reverse=True)
    for key in ("spills_per_map", "map_merge_passes"):
        assert same(p[key], m[key]), (key, p[key], m[key])


def test_file_classes_group_equal_sizes_and_cap_the_count() -> None:
    assert file_classes([100.0, 100.5, 99.6]) == []  # within EQUAL_SHARE: equal files
    two = file_classes([100.0, 100.0, 300.0])
    assert [(c.input_files, c.input_bytes) for c in two] == [(2, 200.0), (1, 300.0)]
    many = file_classes([float(2**i) for i in range(20)], max_classes=4)
    assert len(many) == 4 and sum(c.input_files for c in many) == 20
    assert sum(c.input_bytes for c in many) == float(2**20 - 1)
    assert EQUAL_SHARE < 0.05


def test_files_of_maps_only_when_each_map_read_a_whole_file() -> None:
    split = 128.0
    # no map read a full split: each map is one file; sizes scaled to the job's stored bytes
    assert files_of_maps([10.0, 20.0, 70.0], 100.0, split, None) == [10.0, 20.0, 70.0]
    assert files_of_maps([10.0, 20.0, 70.0], 101.0, split, 3) == pytest.approx([10.1, 20.2, 70.7])
    # a map read a full split: the files cannot be told apart
    assert files_of_maps([128.0, 128.0, 40.0], 296.0, split, None) is None
    # but the job listed one file a map: each is whole (files of 1.0-1.1 splits)
    assert files_of_maps([130.0, 40.0], 170.0, split, 2) == [130.0, 40.0]
    # CombineFileInputFormat: more files than maps
    assert files_of_maps([10.0, 20.0], 30.0, split, 5) is None
    # per-map bytes that do not add up to the job's
    assert files_of_maps([10.0, 20.0], 60.0, split, None) is None

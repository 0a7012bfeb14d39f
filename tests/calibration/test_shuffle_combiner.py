"""The reduce's in-memory merges run the combiner only when it is the old API's.

Hadoop 2/3's ``ReduceTask.run`` gives the shuffle ``JobConf.getCombinerClass()``, which reads
``mapred.combiner.class``; a new-API combiner (``Job.setCombinerClass``) runs on the map side
alone. The model had combined every in-memory merge: a YARN WordCount (new API) with a 1%
shuffle buffer was predicted with 66.7% fewer reduce input records than it had.

The fixtures are real local runs (LocalJobRunner runs the same Shuffle and MergeManagerImpl)
over 15 MB of Zipf words in 1 MiB splits (15 maps), each a calibration run at the shuffle's
default and, held out, the same job with ``shuffle.input.buffer.percent=0.01`` on a 256 MiB
heap (one in-memory merge of 10 or 13 segments):

- the examples' WordCount (new API): Hadoop merged 1,895,098 bytes into 1,895,134, nothing
  combined, the reduce's COMBINE_INPUT_RECORDS 0;
- Hadoop Streaming with ``-combiner uniq`` (old API): the merge combined 199,865 records.
"""

from __future__ import annotations

import numpy as np
import pytest

from mrtune.calibration._fidelity_figures import measured_figures, predicted_figures
from mrtune.calibration.run_profile import profile_from_run
from mrtune.calibration.run_record import run_config
from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, predict_job
from mrtune.costmodel.profile import DataflowStats, JobProfile
from mrtune.profiling.combiner_api import old_api_combiner
from tests.calibration.run_fixtures import records

REDUCE_FIGURES = ("in_memory_merges", "REDUCE_SPILLED_RECORDS", "REDUCE_INPUT_RECORDS")


def _predicted(profile: JobProfile, rec) -> dict[str, float]:
    pred = predict_job(
        profile, ConfigBatch.from_configs([run_config(rec)]), ClusterSpec(local_mode=True)
    )
    return predicted_figures(pred)


def test_a_new_api_combiner_does_not_run_in_the_reduces_merges() -> None:
    cal, held = records("examples-wordcount-inmem-merges.jsonl.gz")
    profile = profile_from_run(cal)
    assert profile.has_combiner and profile.old_api_combiner is False
    real = measured_figures(held)
    assert real["in_memory_merges"] == 1
    assert sum(a.counter("COMBINE_INPUT_RECORDS") or 0 for a in held.reduce_attempts) == 0
    got = _predicted(profile, held)
    assert got["in_memory_merges"] == 1
    # what the maps shuffled is what the reduce read: the key law's expectation at 15 maps
    for name in ("REDUCE_SPILLED_RECORDS", "REDUCE_INPUT_RECORDS"):
        assert got[name] == pytest.approx(real[name], rel=1e-4), name
    # combining in the merge (the old rule) misses them by more than half
    old = _predicted(profile.model_copy(update={"old_api_combiner": True}), held)
    assert old["REDUCE_INPUT_RECORDS"] < 0.5 * real["REDUCE_INPUT_RECORDS"]


def test_an_old_api_combiner_runs_in_the_reduces_merges() -> None:
    cal, held = records("streaming-uniq-combiner-inmem-merges.jsonl.gz")
    profile = profile_from_run(cal)
    assert profile.has_combiner and profile.old_api_combiner is True  # mapred.combiner.class
    assert sum(a.counter("COMBINE_INPUT_RECORDS") or 0 for a in held.reduce_attempts) == 199865
    real, got = measured_figures(held), _predicted(profile, held)
    assert got["in_memory_merges"] == real["in_memory_merges"] == 1
    for name in ("REDUCE_SPILLED_RECORDS", "REDUCE_INPUT_RECORDS"):
        assert got[name] == pytest.approx(real[name], rel=1e-3), name
    new = _predicted(profile.model_copy(update={"old_api_combiner": False}), held)
    assert new["REDUCE_INPUT_RECORDS"] > 4 * real["REDUCE_INPUT_RECORDS"]


def test_the_api_comes_from_the_key_or_the_reduces_counters() -> None:
    assert old_api_combiner({"mapred.combiner.class": "PipeCombiner"}) is True
    assert old_api_combiner({"mapreduce.job.combine.class": "IntSumReducer"}) is False
    assert old_api_combiner({}) is None
    # a reduce that counted combine input ran an old-API combiner, whatever the keys say
    assert old_api_combiner({"mapreduce.job.combine.class": "(from counters)"}, 5.0) is True


def _combining_profile(old_api: bool | None) -> JobProfile:
    return JobProfile(
        input_bytes=512 * 2**20,
        has_combiner=True,
        old_api_combiner=old_api,
        stats=DataflowStats(
            input_pair_width=100.0,
            combine_pairs_sel=0.3,
            combine_size_sel=0.3,
            combine_profiled_input_records=1e5,
        ),
    )


@pytest.mark.parametrize("version", [1, 3])
def test_shuffled_records_reach_the_reduce_unless_its_merges_combine(version: int) -> None:
    """Hadoop 1's ReduceCopier combines with either API; Hadoop 3's only with the old."""
    props = {
        "mapreduce.job.combine.class": "C",
        "mapreduce.input.fileinputformat.split.maxsize": 2**24,
        "mapreduce.reduce.shuffle.input.buffer.percent": 0.1,
    }
    cfg = HadoopConfig.from_properties(props).model_copy(update={"hadoop_version": version})
    batch = ConfigBatch.from_configs([cfg])
    for old_api in (None, False, True):
        pred = predict_job(_combining_profile(old_api), batch, ClusterSpec(local_mode=True))
        assert pred.reduce.inmem_merges[0] > 0
        combines = version == 1 or old_api is True
        sent = float(pred.map_full.final_records[0] * pred.num_full_maps[0])
        sent += float(pred.map_tail.final_records[0] * pred.num_tail_maps[0])
        got = float(pred.counters["REDUCE_INPUT_RECORDS"][0])
        if combines:
            assert got < sent
        else:
            assert got == pytest.approx(sent, rel=1e-9)
    assert np.isfinite(pred.job_ms).all()

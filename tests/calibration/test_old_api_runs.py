"""Old-API (``org.apache.hadoop.mapred``) jobs: Hadoop Streaming with a combiner.

The fixture holds two real local runs of Hadoop Streaming 3.4.2 (``-mapper "tr -s ' ' '\\n'"
-combiner uniq -reducer uniq``) over one 19 MB text file: io.sort.mb 20 with 2 reduces, and
io.sort.mb 5 with 3 reduces, both recorded under the label ``streamuniq``. The old API names
its combiner ``mapred.combiner.class``, which the record's kept configuration lacked: the
profile said "combiner no" and the job model missed the run's own reduce stage by +9834%.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrtune.calibration._fidelity_figures import predicted_figures
from mrtune.calibration.fidelity import build_report
from mrtune.calibration.run_profile import profile_from_run
from mrtune.calibration.run_record import run_config
from mrtune.costmodel import ClusterSpec, ConfigBatch
from mrtune.costmodel.job import predict_job
from mrtune.errors import InputError
from mrtune.readers.run_records import RunRecord
from tests.calibration.run_fixtures import records

FIXTURE = "streaming-uniq-combiner.jsonl.gz"


def _records() -> list[RunRecord]:
    return records(FIXTURE)


def test_a_combiner_seen_only_in_the_counters_runs_in_the_model() -> None:
    cal, other = _records()
    assert "mapreduce.job.combine.class" not in cal.ran_with()
    assert run_config(cal).combine_class is not None
    prof = profile_from_run(cal)
    assert prof.has_combiner
    # the other run (a 5 MB buffer, 3 reduces) predicted from this one: spills are exact,
    # the combined records within the key law's slack, the reduce side's records exact
    pred = predict_job(prof, ConfigBatch.from_configs([run_config(other)]), ClusterSpec.local())
    figures = predicted_figures(pred)
    assert figures["spills_per_map"] == [22] == [a.num_spills for a in other.map_attempts]
    assert figures["MAP_SPILLED_RECORDS"] == pytest.approx(other.map_spilled_records, rel=5e-3)
    out = float(pred.counters["COMBINE_OUTPUT_RECORDS"][0])
    assert out == pytest.approx(other.counter("COMBINE_OUTPUT_RECORDS"), rel=5e-3)
    red = float(pred.counters["REDUCE_INPUT_RECORDS"][0])
    assert red == pytest.approx(other.counter("REDUCE_INPUT_RECORDS"), rel=5e-3)


def test_a_labels_runs_must_be_repeats_of_one_configuration() -> None:
    recs = _records()
    assert {r.label for r in recs} == {"streamuniq"}
    with pytest.raises(InputError, match="no repeats of one configuration"):
        build_report(recs, ["streamuniq:0"])
    relabelled = [recs[0], recs[1].model_copy(update={"label": "streamuniq-sortmb5"})]
    report = build_report(relabelled, ["streamuniq:0"])
    assert [c.label for c in report.compared] == ["streamuniq-sortmb5"]
    json.dumps(report.to_json())


def test_the_old_apis_splits_are_cut_as_hadoop_cut_them() -> None:
    # five real local runs of one streaming job (-mapper "tr -s ' ' '\\n'" -reducer "uniq -c",
    # 2 reduces) over one 19,000,143 B file: the default (32 MiB local block: 1 map), an
    # 8 MiB block (3 maps: 8, 8, 2.1 MiB), an 8 MiB block with split.minsize 12 MB (2 maps:
    # 12 MB and the rest), split.maxsize 4 MB (ignored by the old API: 1 map), a 4 MiB block
    # (5 maps). The profile is the default run's; the others are held out.
    runs = {r.label: r for r in records("streaming-old-api-splits.jsonl.gz")}
    cal = runs.pop("st-default")
    prof = profile_from_run(cal)
    assert prof.old_api_splits and prof.input_splittable and prof.split_units is None
    assert any("old mapred API" in w for w in prof.warnings)
    assert len(runs) == 4
    for label, rec in runs.items():
        pred = predict_job(prof, ConfigBatch.from_configs([run_config(rec)]), ClusterSpec.local())
        got = sorted(
            float(g.split_bytes[0]) for g in pred.map_groups for _ in range(int(g.count[0]))
        )
        real = sorted(float(a.split_length) for a in rec.map_attempts)
        assert got == real, label
        figures = predicted_figures(pred)
        assert figures["spills_per_map"] == [a.num_spills for a in rec.map_attempts], label
        shuffle = float(pred.counters["REDUCE_SHUFFLE_BYTES"][0])
        assert shuffle == pytest.approx(rec.counter("REDUCE_SHUFFLE_BYTES"), rel=1e-3), label


def test_the_map_count_hint_is_read_for_an_old_api_job_only() -> None:
    # mapreduce.job.maps is the old API's goal size (input / maps) on a cluster; local mode
    # sets it to 1 (LocalClientProtocolProvider); a new-API job's what-if of it is refused
    from mrtune.costmodel.config import check_property_name
    from mrtune.optimizer.whatif import apply_changes

    prof = profile_from_run(records("streaming-old-api-splits.jsonl.gz")[0])
    cfg = apply_changes(
        run_config(records("streaming-old-api-splits.jsonl.gz")[0]),
        {"mapreduce.job.maps": "4"},
        prof,
    )
    assert cfg.num_maps_hint == 4
    batch = ConfigBatch.from_configs([cfg])
    assert float(predict_job(prof, batch, ClusterSpec(num_nodes=4)).num_maps[0]) == 4
    assert float(predict_job(prof, batch, ClusterSpec.local()).num_maps[0]) == 1
    with pytest.raises(ValueError, match="only the old mapred API"):
        check_property_name("mapreduce.job.maps")
    check_property_name("mapreduce.job.maps", old_api=True)


def test_split_maxsize_is_said_to_be_ignored_and_the_search_leaves_the_split() -> None:
    from mrtune.optimizer.whatif_checks import unmodelled_split_note
    from mrtune.search_spaces.job_owned import owned_knobs
    from mrtune.search_spaces.knobs import KNOBS, Role

    prof = profile_from_run(records("streaming-old-api-splits.jsonl.gz")[0])
    note = unmodelled_split_note(prof, {"mapreduce.input.fileinputformat.split.maxsize": "4e6"})
    assert note is not None and "ignores split.maxsize" in note
    assert unmodelled_split_note(prof, {"dfs.blocksize": "8388608"}) is None  # answered
    split = next(k.name for k in KNOBS if k.role == Role.split_size)
    assert "mapreduce.job.maps" in owned_knobs(prof)[split]


def test_a_map_only_runs_map_time_is_measured() -> None:
    # a real Hadoop Streaming grep with mapreduce.job.reduces=0: its attempts log no flush,
    # and validate had measured its map segment as 0 s
    from mrtune.calibration._fidelity_figures import measured_phases

    (rec,) = records("streaming-grep-map-only.jsonl.gz")
    assert rec.num_reduces == 0
    total = sum(a.done_ms - a.start_ms for a in rec.map_attempts)
    assert measured_phases(rec)["map.map"] == pytest.approx(total) and total > 0


def test_two_streaming_jobs_are_not_one_job() -> None:
    # two real Hadoop Streaming runs, `-mapper cat -reducer cat` and `-mapper "tr …" -reducer
    # uniq`: both are job hadoopstreaming (the main class), and the second had been predicted
    # from the first's profile
    recs = records("streaming-two-jobs.jsonl.gz")
    assert {r.job for r in recs} == {"hadoopstreaming"}
    with pytest.raises(InputError, match="ran other code than its job's calibration run"):
        build_report(recs)
    alone = build_report([recs[0]])
    assert [c.label for c in alone.runs] == ["hadoopstreaming-default"]


def test_hadoop_run_warns_when_a_labels_repeat_ran_other_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mrtune.cli._hadoop_any import _warn_other_settings
    from mrtune.readers.run_records import write_jsonl

    first, second = _records()  # label streamuniq: io.sort.mb 20, then 5
    index = tmp_path / "runs.jsonl"
    write_jsonl([first], index)
    _warn_other_settings(first.model_copy(update={"repeat": 1}), index)
    assert "warning" not in capsys.readouterr().err
    _warn_other_settings(second, index)
    err = " ".join(capsys.readouterr().err.split())
    assert "streamuniq r1 ran with" in err and "-D mapreduce.task.io.sort.mb=5" in err
    assert "give other settings their own --label" in err

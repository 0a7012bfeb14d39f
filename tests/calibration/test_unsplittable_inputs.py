"""Inputs a split-size change cannot cut: each map's input is then one unit, as in the run.

The fixture is a real local run of Hadoop's examples WordCount
(``org.apache.hadoop.examples.WordCount`` of hadoop-mapreduce-examples 3.4.2) over one 9.3 MB
gzip text file with ``split.maxsize`` 4,000,000: gzip is no ``SplittableCompressionCodec``, so
``TextInputFormat.isSplitable`` gave the whole file one map. The model had cut it into 3 maps
at the run's own settings (its self-check: map tasks +200%).
"""

from __future__ import annotations

from mrtune.calibration.run_inputs import unsplittable
from mrtune.calibration.run_profile import profile_from_run
from mrtune.costmodel import ClusterSpec, ConfigBatch
from mrtune.costmodel.job import predict_job
from mrtune.profiling.baseline import profile_config
from mrtune.readers.run_records import RunRecord
from tests.calibration.run_fixtures import records


def _maps(rec: RunRecord, split_maxsize: int | None = None) -> tuple[float, list[str]]:
    prof = profile_from_run(rec)
    cfg = profile_config(prof)
    if split_maxsize is not None:
        cfg = cfg.model_copy(update={"split_maxsize": split_maxsize})
    pred = predict_job(prof, ConfigBatch.from_configs([cfg]), ClusterSpec.local())
    return float(pred.num_maps[0]), prof.warnings


def test_a_gzip_input_is_one_map_whatever_the_split_size() -> None:
    (rec,) = records("examples-wordcount-gzip-input.jsonl.gz")
    assert len(rec.map_attempts) == 1
    maps, warnings = _maps(rec)
    assert maps == 1
    assert any("codec that cannot be split" in w and "a.txt.gz" in w for w in warnings)
    how = profile_from_run(rec).provenance["stats.input_compress_ratio"]
    assert "1 compressed input file(s) (a.txt.gz)" in how and "generated" not in how
    assert _maps(rec, split_maxsize=1 << 20)[0] == 1


def test_a_map_longer_than_the_split_slop_keeps_the_runs_maps() -> None:
    # the same split under a plain name: no map of FileInputFormat reads more than 1.1 splits
    (rec,) = records("examples-wordcount-gzip-input.jsonl.gz")
    att = rec.map_attempts[0]
    plain = rec.model_copy(
        update={"map_attempts": [att.model_copy(update={"split_path": "file:/in/a.txt"})]}
    )
    cfg = profile_config(profile_from_run(plain))
    reason = unsplittable(plain, cfg)
    assert reason is not None and "more than FileInputFormat gives" in reason
    assert _maps(plain)[0] == 1


def test_plain_text_files_stay_splittable() -> None:
    for rec in records("examples-wordcount-unequal-files.jsonl.gz"):
        cfg = profile_config(profile_from_run(rec))
        assert unsplittable(rec, cfg) is None
        assert profile_from_run(rec).input_splittable


def test_split_size_is_neither_searched_nor_answered_silently() -> None:
    from mrtune.optimizer.whatif_checks import unmodelled_split_note
    from mrtune.search_spaces.space import SearchSpace

    (rec,) = records("examples-wordcount-gzip-input.jsonl.gz")
    prof = profile_from_run(rec)
    space = SearchSpace.for_job(prof, profile_config(prof))
    assert not any("split" in k.name for k in space.knobs)
    assert any("split.maxsize: split-size changes are not modelled" in w for w in space.withheld)
    note = unmodelled_split_note(prof, {"mapreduce.input.fileinputformat.split.minsize": "1"})
    assert note is not None and "codec that cannot be split (file:/tmp/gz/in/a.txt.gz))" in note
    assert unmodelled_split_note(prof, {"mapreduce.task.io.sort.mb": "50"}) is None
    plain = profile_from_run(records("examples-wordcount-unequal-files.jsonl.gz")[0])
    assert unmodelled_split_note(plain, {"dfs.blocksize": "1048576"}) is None


def test_more_input_of_unsplittable_files_is_more_files() -> None:
    """Ten times the gzip input is ten such files (ten maps of the run's one), not one 93 MB
    file read by a single map; a splittable input keeps its files and grows each."""
    (rec,) = records("examples-wordcount-gzip-input.jsonl.gz")
    prof = profile_from_run(rec)
    cfg = profile_config(prof)
    big = prof.with_input_bytes(10 * prof.input_bytes)
    assert big.input_files == 10 and big.input_bytes == 10 * prof.input_bytes
    one, ten = (
        predict_job(p, ConfigBatch.from_configs([cfg]), ClusterSpec.local()) for p in (prof, big)
    )
    assert float(ten.num_maps[0]) == 10
    assert float(ten.map_full.task_ms[0]) == float(one.map_full.task_ms[0])
    plain = prof.model_copy(update={"input_splittable": True, "split_units": None})
    assert plain.with_input_bytes(10 * prof.input_bytes).input_files == 1


def test_whatif_says_the_units_grew_in_number(tmp_path) -> None:  # noqa: ANN001
    import json

    from typer.testing import CliRunner

    from mrtune.cli import app

    (rec,) = records("examples-wordcount-gzip-input.jsonl.gz")
    prof = tmp_path / "gz.json"
    prof.write_text(profile_from_run(rec).model_dump_json())
    size = f"{10 * rec.input.bytes}B"
    text = CliRunner().invoke(app, ["whatif", str(prof), "--input-size", size])
    assert text.exit_code == 0, text.output
    assert (
        "input read as whole units: 10 of 8.9 MiB each (profiled: 1 of 8.9 MiB)" in text.output
    ), text.output
    out = CliRunner().invoke(app, ["whatif", str(prof), "--input-size", size, "--format", "json"])
    assert json.loads(out.output)["input_files"] == {"profiled": 1, "what-if": 10}

"""Containers from the history when no configuration names them (``MB_MILLIS_* / MILLIS_*``).

Found on the examples' WordMean on the mini-cluster: profiled without ``--conf``, the job was
modelled in Hadoop's default 1,024 MB containers although its history showed 256 MB, so its
GB·s came out 4× too large and ``optimize --allow-memory`` wrote 512 MB as a saving.
"""

from __future__ import annotations

from pathlib import Path

from mrtune.calibration import build_profile, load_profile_source
from mrtune.profiling import profile_config
from mrtune.readers import load_history

QMC = "job_1526555215992_0001-*.jhist"


def _with_containers(src: Path, tmp_path: Path, mb: int) -> Path:
    """The QMC history with its maps' and reduces' MB_MILLIS_* as ``mb`` MB containers."""
    text = src.read_text(encoding="utf-8")
    # 2,097 map ms and 1,024 MB: 2,147,328 MB·ms (its reduces' likewise)
    text = text.replace(
        '"MB_MILLIS_MAPS","displayName":"Total megabyte-milliseconds taken by all map tasks","value":2147328',
        f'"MB_MILLIS_MAPS","displayName":"Total megabyte-milliseconds taken by all map tasks","value":{2097 * mb}',
    )
    out = tmp_path / src.name
    out.write_text(text, encoding="utf-8")
    return out


def test_the_histories_containers_stand_in_for_a_missing_conf(
    shared_data: Path, tmp_path: Path
) -> None:
    src = next((shared_data / "jhist").glob(QMC))
    path = _with_containers(src, tmp_path, 256)
    prof = load_profile_source(path, None)
    cfg = profile_config(prof)
    assert cfg.map_container_mb == 256
    assert any("containers from the history (map 256 MB" in w for w in prof.warnings)
    # a configuration that names the container wins over the history's counters
    conf = next((shared_data / "jhist").glob("job_1526555215992_0001_conf.xml"))
    with_conf = load_profile_source(path, conf)
    assert profile_config(with_conf).map_container_mb == 1024
    assert not any("containers from the history" in w for w in with_conf.warnings)


def test_a_combine_input_format_keeps_the_runs_packing(shared_data: Path) -> None:
    # CombineTextInputFormat (Hive's CombineHiveInputFormat alike) packs files into a map: a
    # split-size change does not cut them as FileInputFormat would
    src = next((shared_data / "jhist").glob(QMC))
    fmt = "org.apache.hadoop.mapreduce.lib.input.CombineTextInputFormat"
    prof = build_profile(load_history(src), {"mapreduce.job.inputformat.class": fmt})
    assert not prof.input_splittable and prof.input_files == 1
    assert any("CombineFileInputFormat" in w for w in prof.warnings)
    plain = build_profile(load_history(src), {})
    assert plain.input_splittable


def test_maps_larger_than_a_split_keep_the_runs_maps(shared_data: Path) -> None:
    # the examples' MultiFileWordCount$MyInputFormat packs every file into one map and names no
    # Combine class: its 19 MB map at a 4 MB block had been modelled as 5 maps in 3 waves. A map
    # reading more than FileInputFormat's 1.1 splits shows the input was cut by something else
    src = next((shared_data / "jhist").glob(QMC))  # one map of 118 bytes
    fmt = "org.apache.hadoop.examples.MultiFileWordCount$MyInputFormat"
    conf = {"mapreduce.job.inputformat.class": fmt, "dfs.blocksize": "100"}
    prof = build_profile(load_history(src), conf)
    assert not prof.input_splittable and prof.input_files == 1
    note = next(w for w in prof.warnings if "more than FileInputFormat" in w)
    assert "MultiFileWordCount$MyInputFormat" in note and "118 B" in note
    # within the slop (118 <= 1.1 x 108), or with the split size a default, nothing is assumed
    assert build_profile(load_history(src), {**conf, "dfs.blocksize": "108"}).input_splittable
    assert build_profile(
        load_history(src), {"mapreduce.job.inputformat.class": fmt}
    ).input_splittable


def test_an_old_api_history_is_cut_by_the_old_apis_goal_size(shared_data: Path) -> None:
    # the old mapred API's FileInputFormat splits by mapreduce.job.maps' goal size and ignores
    # split.maxsize (a streaming job at maxsize 4 MB read its 19 MB file in one map)
    from mrtune.costmodel import ClusterSpec, ConfigBatch
    from mrtune.costmodel.job import predict_job

    src = next((shared_data / "jhist").glob(QMC))
    props = {"mapred.mapper.new-api": "false", "mapreduce.job.maps": "1"}
    prof = build_profile(load_history(src), props)
    assert prof.old_api_splits and prof.input_splittable
    assert any("old mapred API" in w for w in prof.warnings)
    new_api = build_profile(load_history(src), {"mapred.mapper.new-api": "true"})
    assert not new_api.old_api_splits and new_api.input_splittable
    cfg = profile_config(prof)
    block = cfg.dfs_blocksize
    assert prof.input_bytes < block  # one map, however many the hint asks for below the block
    cluster = ClusterSpec(num_nodes=4)
    cfgs = [cfg.with_changes({"num_maps_hint": m}) for m in (1, 2, 4)]
    cfgs.append(cfg.with_changes({"split_maxsize": 1024}))  # ignored by the old API
    maps = predict_job(prof, ConfigBatch.from_configs(cfgs), cluster).num_maps
    goal = [int(prof.input_bytes) // m for m in (1, 2, 4)]
    expected = [sum(1 for _ in _old_api_splits(prof.input_bytes, g)) for g in goal]
    assert list(maps) == [*expected, 1]
    assert expected[-1] >= 4


def _old_api_splits(length: float, split: int):  # noqa: ANN202 - a generator of sizes
    """``org.apache.hadoop.mapred.FileInputFormat.getSplits`` for one file (SPLIT_SLOP 1.1)."""
    left = int(length)
    while left / split > 1.1:
        yield split
        left -= split
    if left:
        yield left

"""Issue 14: the job's limits in the search space — task granularity and loadable codecs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.optimizer.recommend import recommend
from mrtune.search_spaces.constraints import MIN_REDUCE_BYTES, max_reducers_for, parse_release
from mrtune.search_spaces.knobs import Role
from mrtune.search_spaces.space import SearchSpace

MB = 2**20
SIXTY = ClusterSpec(num_nodes=60)
REDUCES = "mapreduce.job.reduces"
MAP_CODEC = "mapreduce.map.output.compress.codec"


def _profile(input_mb: float, **kw: object) -> JobProfile:
    kw.setdefault("stats", DataflowStats(map_size_sel=1.0, map_pairs_sel=1.0))
    return JobProfile(job_id="j", input_bytes=input_mb * MB, **kw)  # type: ignore[arg-type]


def _codecs(space: SearchSpace, role: Role = Role.map_codec) -> set[str]:
    knob = space.with_role(role)
    assert knob is not None
    return set(knob.choices)


# ---------------------------------------------------------------- task granularity
@pytest.mark.parametrize("strategy", ["tpe", "de", "exhaustive"])
def test_small_shuffle_on_sixty_nodes_keeps_one_reducer(strategy: str) -> None:
    """3.6 MB of map output on 60 nodes got 3,213 reducers; one reducer is its share."""
    prof = _profile(3.6)
    base = HadoopConfig(num_reducers=1)
    space = SearchSpace.for_job(prof, base, SIXTY)
    knob = space.with_role(Role.reducers)
    assert knob is not None and knob.high == 1
    assert space.grid(knob).max() == 1
    u = np.random.default_rng(0).random((200, len(space.knobs)))
    assert space.to_batch(space.from_unit(u)).num_reducers.max() == 1
    rec = recommend(prof, base, SIXTY, strategy=strategy, n_trials=40, only=[REDUCES, MAP_CODEC])
    assert int(rec.config.num_reducers) == 1


def test_an_oversized_current_reducer_count_is_scored_as_it_is_and_cut_back() -> None:
    prof = _profile(3.6)
    base = HadoopConfig(num_reducers=3213)
    space = SearchSpace.for_job(prof, base, SIXTY)
    assert space.current_values()[REDUCES] == 3213  # still scorable: repair keeps valid values
    row = {REDUCES: np.array([3213.0])}
    assert space.repair(row)[REDUCES][0] == 3213
    rec = recommend(prof, base, SIXTY, strategy="tpe", n_trials=40, only=[REDUCES])
    assert int(rec.config.num_reducers) <= max_reducers_for(space.map_output_bytes())


def test_large_job_still_gets_many_reducers() -> None:
    prof = _profile(200 * 1024)  # 200 GiB of map output
    base = HadoopConfig(num_reducers=1)
    space = SearchSpace.for_job(prof, base, SIXTY)
    knob = space.with_role(Role.reducers)
    assert knob is not None and knob.high == int(np.ceil(200 * 1024 * MB / MIN_REDUCE_BYTES))
    rec = recommend(prof, base, SIXTY, strategy="exhaustive", only=[REDUCES])
    assert int(rec.config.num_reducers) >= 100


def test_splits_stay_near_a_block() -> None:
    space = SearchSpace.for_job(_profile(10 * 1024), HadoopConfig(), SIXTY)
    knob = space.with_role(Role.split_size)
    assert knob is not None and knob.low == 64 * MB  # half the 128 MB block
    assert space.grid(knob).min() >= 64 * MB


# ---------------------------------------------------------------- codecs the cluster loads
HADOOP27_CODECS = (
    "org.apache.hadoop.io.compress.DefaultCodec,org.apache.hadoop.io.compress.GzipCodec,"
    "org.apache.hadoop.io.compress.BZip2Codec,org.apache.hadoop.io.compress.SnappyCodec"
)


def test_2017_hadoop27_job_never_gets_zstandard() -> None:
    prof = _profile(
        1024,
        cluster_facts={"hadoop_version": "2.7.3"},
        source_properties={"io.compression.codecs": HADOOP27_CODECS},
    )
    base = HadoopConfig(hadoop_version=2, num_reducers=8)
    for native in (False, True):
        space = SearchSpace.for_job(prof, base, SIXTY, allow_native_codecs=native)
        for role in (Role.map_codec, Role.output_codec):
            assert "zstd" not in _codecs(space, role)
            assert not {"lzo", "lzop", "unknown"} & _codecs(space, role)
        assert ("snappy" in _codecs(space)) is native  # listed, but needs libhadoop on 2.7
        assert any(w.startswith("zstd: not shipped before 2.9.0") for w in space.withheld)
    rec = recommend(prof, base, SIXTY, strategy="exhaustive", only=[MAP_CODEC])
    assert rec.config.map_output_codec != "zstd"


def test_hadoop1_mode_offers_neither_zstandard_nor_snappy_on_0_20() -> None:
    base = HadoopConfig(hadoop_version=1, num_reducers=4)
    space = SearchSpace.for_job(_profile(100), base, SIXTY, allow_native_codecs=True)
    assert _codecs(space) == {"none", "default", "gzip", "bzip2"}
    later = _profile(100, cluster_facts={"hadoop_version": "1.0.4"})
    space = SearchSpace.for_job(later, base, SIXTY, allow_native_codecs=True)
    assert "snappy" in _codecs(space) and not {"zstd", "lz4"} & _codecs(space)
    # the reason names the release line, not a version that does not exist
    assert any(w.startswith("lz4: no Hadoop 1.x release ships it") for w in space.withheld)
    assert any(w.startswith("snappy: not shipped before 1.0.2") for w in space.withheld) is False


def test_native_codecs_need_the_flag_until_pure_java() -> None:
    base = HadoopConfig(hadoop_version=3, num_reducers=8)
    p32 = _profile(100, cluster_facts={"hadoop_version": "3.2.1"})
    assert not {"snappy", "lz4", "zstd"} & _codecs(SearchSpace.for_job(p32, base, SIXTY))
    flagged = SearchSpace.for_job(p32, base, SIXTY, allow_native_codecs=True)
    assert {"snappy", "lz4", "zstd"} <= _codecs(flagged)
    p331 = _profile(100, cluster_facts={"hadoop_version": "3.3.1"})
    pure = _codecs(SearchSpace.for_job(p331, base, SIXTY))
    assert {"snappy", "lz4"} <= pure and "zstd" not in pure  # HADOOP-17125/17292; libzstd


def test_a_codec_the_job_runs_with_stays_offered() -> None:
    base = HadoopConfig(hadoop_version=2, map_output_compress=True, map_output_codec="snappy")
    assert "snappy" in _codecs(SearchSpace.for_job(_profile(100), base, SIXTY))


def test_release_strings() -> None:
    assert parse_release("2.7.3", 2) == (2, 7, 3)
    assert parse_release("3", 3) == (3, 0, 0)
    assert parse_release(None, 1) == (0, 20, 0)
    assert parse_release("0.20.203", 1) == (0, 20, 203)
    assert parse_release("3.3.1", 2) == (2, 0, 0)  # another line: the earliest of this one


def _write(tmp_path, prof: JobProfile):  # noqa: ANN001, ANN202
    path = tmp_path / "p.json"
    path.write_text(prof.model_dump_json())
    return path


def test_cli_codecs_and_allow_native_codecs(tmp_path) -> None:  # noqa: ANN001
    prof = _profile(
        2048,
        cluster_facts={"hadoop_version": "3.2.1"},
        source_properties={"mapreduce.job.reduces": "8", "mapreduce.map.output.compress": "true"},
        stats=DataflowStats(map_size_sel=3.0, map_pairs_sel=1.0),
    )
    path = _write(tmp_path, prof)
    runner = CliRunner()
    base = ["optimize", str(path), "--strategy", "exhaustive", "--only", MAP_CODEC]
    fmt = ["--format", "json"]
    r = runner.invoke(app, [*base, "--codecs", "gzip,SnappyCodec", "--allow-native-codecs", *fmt])
    assert r.exit_code == 0, r.output
    chosen = json.loads(r.stdout)["properties"].get(MAP_CODEC)
    assert chosen in (None, "org.apache.hadoop.io.compress.GzipCodec",
                      "org.apache.hadoop.io.compress.SnappyCodec")  # fmt: skip
    r = runner.invoke(app, [*base, *fmt])  # no flag: only pure-Java codecs on 3.2
    assert r.exit_code == 0, r.output
    chosen = json.loads(r.stdout)["properties"].get(MAP_CODEC, "")
    assert not any(c in chosen for c in ("Snappy", "Lz4", "ZStandard"))
    bad = runner.invoke(app, [*base, "--codecs", "gzip,brotli"])
    assert bad.exit_code == 2 and "--codecs" in bad.output and "brotli" in bad.output

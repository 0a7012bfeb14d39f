"""What-if engine, recommendation pruning/explanations and output formats."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.optimizer.outputs import (
    NameStyle,
    d_flags,
    hive_set_lines,
    mapred_site_xml,
    parse_site_xml,
    pig_set_lines,
    rename,
)
from mrtune.optimizer.recommend import recommend
from mrtune.optimizer.whatif import apply_changes, what_if

SPILLY = JobProfile(
    job_id="spilly",
    input_bytes=40 * 2**30,
    input_files=40,
    stats=DataflowStats(input_pair_width=100, map_size_sel=1.0, map_pairs_sel=1.0),
)
CLUSTER = ClusterSpec(num_nodes=10)


def test_whatif_changes_spills_and_time() -> None:
    r = what_if(SPILLY, HadoopConfig(), CLUSTER, {"io.sort.mb": "400"})
    assert r["changes"]["mapreduce.task.io.sort.mb"] == {"from": "100", "to": "400"}
    assert r["current"]["dataflow"]["spills_per_map"] > 1
    assert r["what_if"]["dataflow"]["spills_per_map"] == 1
    assert r["what_if"]["map_phases_ms"]["merge"] == 0
    assert r["speedup"] > 1


def test_whatif_input_size_and_cluster() -> None:
    r = what_if(
        SPILLY,
        HadoopConfig(),
        CLUSTER,
        {},
        input_bytes=SPILLY.input_bytes * 4,
        new_cluster=ClusterSpec(num_nodes=40),
    )
    # Both columns at the new size (the change is the cluster); the profiled size for context.
    assert r["what_if"]["num_maps"] == r["current"]["num_maps"] == 4 * r["profiled"]["num_maps"]
    assert r["input_bytes"]["profiled"] == SPILLY.input_bytes
    assert r["what_if"]["map_slots"] > r["current"]["map_slots"]


def test_split_maxsize_is_read_as_hadoop_reads_it() -> None:
    # max(minsize, min(maxsize, block)): a maxsize above the 128 MB block changes nothing (it
    # was answered as minsize=1g, 320 -> 40 maps); below the block it cuts smaller splits
    maxsize = "mapreduce.input.fileinputformat.split.maxsize"
    r = what_if(SPILLY, HadoopConfig(), CLUSTER, {maxsize: str(2**30)})
    assert list(r["changes"]) == [maxsize]
    assert r["what_if"]["num_maps"] == r["current"]["num_maps"] == 320
    small = what_if(SPILLY, HadoopConfig(), CLUSTER, {maxsize: str(64 * 2**20)})
    assert small["what_if"]["num_maps"] == 640
    minsize = what_if(SPILLY, HadoopConfig(), CLUSTER, {"mapred.min.split.size": str(2**30)})
    assert minsize["what_if"]["num_maps"] == 40


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [
        ("io.sort.mb", "5000", "integer in [1, 2047]"),
        # --set takes what Hadoop accepts (MapTask: 0 < spill percent <= 1), not the search range
        ("mapreduce.map.sort.spill.percent", "1.5", "number in (0, 1]"),
        ("mapreduce.job.reduces", "two", "integer in [0, 1000000]"),
        ("mapreduce.map.output.compress.codec", "zip", "none, default, gzip"),
    ],
)
def test_bad_set_values_name_the_allowed_range(key: str, value: str, allowed: str) -> None:
    with pytest.raises(ValueError, match=r"allowed: ") as info:
        apply_changes(HadoopConfig(), {key: value}, SPILLY)
    assert allowed in str(info.value)


@pytest.mark.parametrize(
    ("key", "value", "field", "expected"),
    [
        ("mapreduce.task.io.sort.factor", "1000", "io_sort_factor", 1000),  # searched to 500
        ("mapreduce.map.sort.spill.percent", "0.3", "sort_spill_percent", 0.3),  # from 0.5
        ("mapreduce.job.reduces", "20000", "num_reducers", 20000),  # searched to 10000
    ],
)
def test_set_takes_hadoop_valid_values_outside_the_search_range(
    key: str, value: str, field: str, expected: float
) -> None:
    cfg = apply_changes(HadoopConfig(), {key: value}, SPILLY)
    assert getattr(cfg, field) == expected


def test_set_companion_properties_are_plain_properties() -> None:
    """The Hadoop 1 switch name and split.minsize are written as the properties they are."""
    on = apply_changes(HadoopConfig(), {"mapred.compress.map.output": "true"}, SPILLY)
    assert on.map_output_compress and on.map_output_codec == "default"
    big = apply_changes(
        HadoopConfig(), {"mapreduce.input.fileinputformat.split.minsize": str(2**20)}, SPILLY
    )
    # minsize below the block leaves the split at the block size (FileInputFormat rule)
    assert big.split_minsize == 2**20 and big.split_size == big.dfs_blocksize


def test_codec_none_turns_compression_off() -> None:
    on = apply_changes(HadoopConfig(), {"mapreduce.map.output.compress.codec": "lz4"}, SPILLY)
    assert on.map_output_compress and on.map_output_codec == "lz4"
    off = apply_changes(on, {"mapreduce.map.output.compress.codec": "none"}, SPILLY)
    assert not off.map_output_compress


def test_recommendation_prunes_and_explains() -> None:
    rec = recommend(SPILLY, HadoopConfig(), CLUSTER, strategy="exhaustive", n_trials=1)
    assert rec.gain_vs_current > 0.01
    assert rec.changes
    for ch in rec.changes:
        assert ch.gain_fraction >= 0.0099  # every kept change gains at least 1%
        assert ch.effects and ch.effects[-1].startswith("job ")
    names = {c.name for c in rec.changes}
    assert "mapreduce.task.io.sort.mb" in names or "mapreduce.job.reduces" in names
    # the recommended properties are exactly the ones that differ from the current config
    cur = HadoopConfig().to_properties()
    assert all(cur.get(k) != v for k, v in rec.properties.items())
    assert rec.recommended["job_ms"] < rec.current["job_ms"]


def test_profile_at_its_optimum_gets_no_change() -> None:
    first = recommend(SPILLY, HadoopConfig(), CLUSTER, strategy="exhaustive", n_trials=1)
    again = recommend(SPILLY, first.config, CLUSTER, strategy="exhaustive", n_trials=1)
    assert again.no_change
    assert again.properties == {}
    assert np.isclose(again.recommended["job_ms"], again.current["job_ms"])


def test_outputs_parse_back() -> None:
    props = {
        "mapreduce.task.io.sort.mb": "380",
        "mapreduce.job.reduces": "24",
        "mapreduce.map.output.compress": "true",
    }
    xml = mapred_site_xml(props, {"mapreduce.task.io.sort.mb": "spills 4→1 & <fewer>"}, header="x")
    assert parse_site_xml(xml) == props
    assert d_flags(props).startswith("-D mapreduce.task.io.sort.mb=380 -D ")
    assert "SET mapreduce.job.reduces=24;" in hive_set_lines(props)
    assert "set mapreduce.job.reduces '24';" in pig_set_lines(props)
    old = rename(props, NameStyle.hadoop1)
    assert old == {
        "io.sort.mb": "380",
        "mapred.reduce.tasks": "24",
        "mapred.compress.map.output": "true",
    }


def test_cli_whatif_optimize_sweep(tmp_path) -> None:  # noqa: ANN001
    prof = tmp_path / "p.json"
    prof.write_text(SPILLY.model_dump_json())
    runner = CliRunner()
    r = runner.invoke(app, ["whatif", str(prof), "--set", "io.sort.mb=400", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert '"speedup"' in r.output
    bad = runner.invoke(app, ["whatif", str(prof), "--set", "io.sort.mb=5000"])
    assert bad.exit_code == 2
    assert "allowed: integer in [1, 2047]" in bad.output
    out = tmp_path / "mapred-site.xml"
    opt = ["optimize", str(prof), "--strategy", "exhaustive", "-o", str(out), "--storage", "none"]
    # SPILLY's cost factors are all defaulted: its gains are low-confidence, written on request
    r = runner.invoke(app, [*opt, "--include-low-confidence"])
    assert r.exit_code == 0, r.output
    assert "gain:" in r.output
    assert parse_site_xml(out.read_text())
    r = runner.invoke(app, opt)
    assert r.exit_code == 0, r.output
    assert "nothing written" in r.output and "low-confidence" in r.output
    assert not parse_site_xml(out.read_text())
    r = runner.invoke(
        app,
        [
            "sweep",
            str(prof),
            "--param",
            "io.sort.mb",
            "--range",
            "50:800",
            "--steps",
            "5",
            "--plot",
            str(tmp_path / "s.png"),
        ],
    )
    assert r.exit_code == 0, r.output
    assert (tmp_path / "s.png").stat().st_size > 1000
    missing = runner.invoke(app, ["optimize", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_cli_optimize_twice_with_a_stored_study(tmp_path) -> None:  # noqa: ANN001
    """Re-running optimize on one storage must work: the second study gets the next
    free name; an explicit name that exists is one line and exit 2 unless --resume."""
    prof = tmp_path / "p.json"
    prof.write_text(SPILLY.model_dump_json())
    db = f"sqlite:///{tmp_path / 'studies.db'}"
    runner = CliRunner()
    # 6 trials: what is checked (study names, the clash, --resume) does not depend on the budget,
    # and every stored trial costs ~0.1 s of SQLAlchemy CPU (five commands run here).
    args = ["optimize", str(prof), "--trials", "6", "--storage", db]
    for _ in range(2):
        r = runner.invoke(app, args)
        assert r.exit_code == 0, r.output
    r = runner.invoke(app, [*args, "--study-name", "mine"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, [*args, "--study-name", "mine"])
    assert r.exit_code == 2 and "--resume" in r.output
    r = runner.invoke(app, [*args, "--study-name", "mine", "--resume"])
    assert r.exit_code == 0, r.output


def test_cli_optimize_writes_no_file_by_default(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """DESIGN decision 7: the study stays in memory unless --storage is given."""
    prof = tmp_path / "p.json"
    prof.write_text(SPILLY.model_dump_json())
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    r = CliRunner().invoke(app, ["optimize", str(prof), "--trials", "8", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert list(work.iterdir()) == []
    assert '"storage": null' in r.output


def test_cli_stored_study_loads_in_optuna_with_knob_names(tmp_path) -> None:  # noqa: ANN001
    """What optuna-dashboard does: load the stored study by name and read the settings."""
    import optuna

    prof = tmp_path / "p.json"
    prof.write_text(SPILLY.model_dump_json())
    url = f"sqlite:///{tmp_path / 'dash.db'}"
    # 6 trials: the best trial's settings and the metric are checked, whatever the budget (each
    # stored trial costs ~0.1 s of SQLAlchemy CPU)
    r = CliRunner().invoke(
        app, ["optimize", str(prof), "--trials", "6", "--storage", url, "--study-name", "s"]
    )
    assert r.exit_code == 0, r.output
    assert "study s stored in" in r.output
    study = optuna.load_study(study_name="s", storage=url)
    best = study.best_trial.params
    assert "mapreduce.task.io.sort.mb" in best and isinstance(
        best["mapreduce.task.io.sort.mb"], int
    )
    assert best["mapreduce.map.output.compress.codec"] in {
        "none",
        "default",
        "gzip",
        "bzip2",
        "snappy",
        "lz4",
        "zstd",
    }
    assert study.metric_names == ["job_ms"]


def test_cli_pareto_rule_is_explicit(tmp_path) -> None:  # noqa: ANN001
    prof = tmp_path / "p.json"
    prof.write_text(SPILLY.model_dump_json())
    runner = CliRunner()
    r = runner.invoke(app, ["optimize", str(prof), "--objective", "pareto", "--trials", "100"])
    assert r.exit_code == 0, r.output
    assert "nsga2 (default for objective pareto)" in r.output
    bad = runner.invoke(app, ["optimize", str(prof), "--objective", "pareto", "--strategy", "tpe"])
    assert bad.exit_code == 2
    assert "--strategy" in bad.output and "allowed: nsga2" in bad.output


def test_cli_storage_and_resume_errors_are_one_line(tmp_path) -> None:  # noqa: ANN001
    prof = tmp_path / "p.json"
    prof.write_text(SPILLY.model_dump_json())
    runner = CliRunner()
    r = runner.invoke(app, ["optimize", str(prof), "--resume"])
    assert r.exit_code == 2 and "--storage" in r.output
    db = tmp_path / "x.db"
    r = runner.invoke(app, ["optimize", str(prof), "--strategy", "rrs", "--storage", str(db)])
    assert r.exit_code == 2 and "keeps no study" in r.output
    assert not db.exists()
    r = runner.invoke(app, ["optimize", str(prof), "--strategy", "exhaustive", "--plot", "p"])
    assert r.exit_code == 2 and "--plot" in r.output


@pytest.mark.parametrize(
    ("objective", "kinds"),
    [
        ("time", {"history", "importance"}),
        ("pareto", {"history", "importance", "pareto"}),
    ],
)
def test_cli_plot_writes_optuna_plots(tmp_path, objective: str, kinds: set[str]) -> None:  # noqa: ANN001
    prof = tmp_path / "p.json"
    prof.write_text(SPILLY.model_dump_json())
    prefix = tmp_path / "plots" / "wc"
    r = CliRunner().invoke(
        app,
        ["optimize", str(prof), "--objective", objective, "--trials", "60", "--plot", str(prefix)],
    )
    assert r.exit_code == 0, r.output
    for kind in kinds:
        png = tmp_path / "plots" / f"wc-{kind}.png"
        assert png.stat().st_size > 5000, kind
        assert f"wrote {png}" in r.output.replace("\n", "")


def test_a_setting_of_another_hadoop_or_set_twice_is_refused() -> None:
    from mrtune.errors import InputError

    # Hadoop 2/3 ignore io.sort.record.percent: it was applied and shown as no change
    with pytest.raises(InputError, match="read by Hadoop 1 only"):
        what_if(SPILLY, HadoopConfig(), CLUSTER, {"io.sort.record.percent": "0.1"})
    h1 = what_if(
        SPILLY, HadoopConfig(hadoop_version=1), CLUSTER, {"io.sort.record.percent": "0.1"}
    )
    assert h1["changes"]
    # two names of one property with two values: the last one silently won
    with pytest.raises(InputError, match="set one property"):
        what_if(
            SPILLY,
            HadoopConfig(),
            CLUSTER,
            {"io.sort.mb": "50", "mapreduce.task.io.sort.mb": "200"},
        )


def test_output_compression_only_for_an_output_format_that_reads_it() -> None:
    from mrtune.errors import InputError
    from mrtune.search_spaces import SearchSpace

    tera = "org.apache.hadoop.examples.terasort.TeraOutputFormat"
    own = SPILLY.model_copy(
        update={"source_properties": {"mapreduce.job.outputformat.class": tera}}
    )
    knobs = {k.name for k in SearchSpace.for_job(own, HadoopConfig(), CLUSTER).knobs}
    assert "mapreduce.output.fileoutputformat.compress.codec" not in knobs
    space = SearchSpace.for_job(own, HadoopConfig(), CLUSTER)
    assert any("TeraOutputFormat" in w for w in space.withheld)
    for key in ("mapreduce.output.fileoutputformat.compress", "mapred.output.compression.codec"):
        value = "true" if key.endswith("compress") else "org.apache.hadoop.io.compress.GzipCodec"
        with pytest.raises(InputError, match="TeraOutputFormat writes its own files"):
            what_if(own, HadoopConfig(), CLUSTER, {key: value})
    text = "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat"
    plain = SPILLY.model_copy(
        update={"source_properties": {"mapreduce.job.outputformat.class": text}}
    )
    knobs = {k.name for k in SearchSpace.for_job(plain, HadoopConfig(), CLUSTER).knobs}
    assert "mapreduce.output.fileoutputformat.compress.codec" in knobs


def test_reducers_are_offered_no_further_than_the_jobs_keys() -> None:
    from mrtune.search_spaces import SearchSpace

    # the examples' WordMean: two keys, offered 16 reducers (14 empty partitions)
    two_keys = SPILLY.model_copy(
        update={
            "stats": SPILLY.stats.model_copy(update={"key_vocabulary": 2.1}),
            "provenance": {"stats.key_vocabulary": "measured: fitted to the counters"},
            "observed_counters": {"REDUCE_INPUT_GROUPS": 2.0},
        }
    )

    def top(profile: JobProfile) -> float:
        space = SearchSpace.for_job(profile, HadoopConfig(), CLUSTER)
        return next(k.high for k in space.knobs if k.name == "mapreduce.job.reduces")

    assert top(two_keys) == 2
    assert top(SPILLY) > 2  # no key evidence: the bytes decide
    # a job already running more reducers than keys keeps its own count in range
    assert SearchSpace.for_job(two_keys, HadoopConfig(num_reducers=5), CLUSTER)


def test_optimize_leaves_job_output_compression_unless_asked(tmp_path) -> None:  # noqa: ANN001
    # it changes the files downstream readers get: the examples' WordMean reads part-r-00000
    # and failed once optimize wrote output compression at a 0.0% gain
    from mrtune.cli.optimize import OUTPUT_CODEC, _with_output_codec

    assert _with_output_codec([], False, []) == [OUTPUT_CODEC]
    assert _with_output_codec([], True, []) == []
    assert _with_output_codec([], False, ["io.sort.mb"]) == []
    prof = tmp_path / "p.json"
    prof.write_text(SPILLY.model_dump_json())
    runner = CliRunner()
    for flag, offered in (([], False), (["--output-compression"], True)):
        r = runner.invoke(
            app,
            ["optimize", str(prof), "--strategy", "exhaustive", "--format", "json",
             "--include-low-confidence", *flag],
        )  # fmt: skip
        assert r.exit_code == 0, r.output
        doc = json.loads(r.stdout)
        assert ("output codec" in doc["search"]["notes"]) is offered
        if not offered:
            assert "mapreduce.output.fileoutputformat.compress" not in doc["properties"]


def test_a_codec_the_job_never_ran_is_said_to_rest_on_its_prior() -> None:
    r = what_if(SPILLY, HadoopConfig(), CLUSTER, {"mapreduce.map.output.compress": "true"})
    assert len(r["codec_priors"]) == 1 and "documented prior" in r["codec_priors"][0]
    assert what_if(SPILLY, HadoopConfig(), CLUSTER, {"io.sort.mb": "200"})["codec_priors"] == []

"""Starfish's parameter space (issue 16, item 6): its knobs and ranges, and mrtune's default
strategy never worse than Starfish's own RRS inside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import HadoopConfig
from mrtune.optimizer.objective import Objective, ObjectiveKind
from mrtune.optimizer.outputs import NameStyle, changed_properties, mapred_site_xml, rename
from mrtune.optimizer.strategies import DEFAULT_STRATEGY, get_strategy
from mrtune.profiling.starfish import load_starfish
from mrtune.readers.conf import parse_conf_text
from mrtune.search_spaces import find_knob
from mrtune.search_spaces.starfish import STARFISH_PARAMETERS, starfish_space
from tests.readers.starfish.kinds import COOCCURRENCE, COOCCURRENCE_MERGE_SIDES, load_case

FIX = Path(__file__).parents[1] / "readers" / "starfish" / "fixtures"


def _fixture(name: str):  # noqa: ANN202
    return load_starfish(
        FIX / f"{name}_profile.xml",
        FIX / f"{name}_input.xml",
        FIX / f"{name}_cluster.xml",
        FIX / f"{name}_conf.xml",
    )


def test_wordcount_gets_every_starfish_parameter_with_its_range() -> None:
    prof, base, cluster = _fixture("wordcount")
    space = starfish_space(prof, base, cluster)
    assert {k.name for k in space.knobs} == {find_knob(n).name for n in STARFISH_PARAMETERS}
    by = {k.hadoop1_name: k for k in space.knobs}
    assert (by["io.sort.mb"].low, by["io.sort.mb"].high) == (50, 130)  # 0.25–0.65 of -Xmx200m
    for name, rng in STARFISH_PARAMETERS.items():
        if rng is not None:
            k = find_knob(name)
            assert (by[k.hadoop1_name].low, by[k.hadoop1_name].high) == rng
    assert by["mapred.map.output.compression.codec"].choices == ("none", "default")
    assert "mapred.reduce.slowstart.completed.maps" not in by  # Starfish comments it out


def test_reducer_range_is_starfishs_adjusted_one() -> None:
    prof, base, cluster = load_case(COOCCURRENCE, Path("/tmp") / "mrtune-starfish-space")
    k = next(
        k
        for k in starfish_space(prof, base, cluster).knobs
        if k.hadoop1_name == "mapred.reduce.tasks"
    )
    shuffle = prof.input_bytes * prof.stats.map_size_sel * prof.stats.combine_size_sel
    heap = base.reduce_heap_bytes
    assert k.low == -(-shuffle // (2 * heap))
    assert k.high == max(-(-4 * shuffle // heap), 8)  # 4 TaskTrackers × 2 reduce slots


def test_terasort_compresses_with_its_own_codec_and_has_no_combiner_knobs() -> None:
    prof, base, cluster = _fixture("terasort")
    by = {k.hadoop1_name: k for k in starfish_space(prof, base, cluster).knobs}
    assert by["mapred.map.output.compression.codec"].choices == ("none", "snappy")
    assert "min.num.spills.for.combine" not in by and "mapreduce.combine.class" not in by


def test_hadoop3_mode_drops_what_hadoop3_lacks_and_map_only_keeps_output_compression() -> None:
    prof, base, cluster = _fixture("wordcount")
    names = {
        k.name
        for k in starfish_space(prof, base.model_copy(update={"hadoop_version": 3}), cluster).knobs
    }
    assert "io.sort.record.percent" not in names
    assert "mapreduce.reduce.merge.inmem.threshold" not in names
    map_only = starfish_space(prof, base.with_changes({"mapred.reduce.tasks": 0}), cluster)
    assert [k.role.value for k in map_only.knobs] == ["output_codec"]


def test_combiner_off_is_written_as_starfishs_switch_and_reads_back_as_scored() -> None:
    prof, base, cluster = _fixture("wordcount")
    space = starfish_space(prof, base, cluster)
    off = base.with_changes({"mapreduce.job.combine.class": ""})
    with pytest.raises(ValueError):
        changed_properties(base, off)  # mrtune's own space: Hadoop has no way to write it
    props = changed_properties(base, off, combiner_switch=space.combiner_switch)
    assert props == {"starfish.use.combiner": "false"}
    xml = mapred_site_xml(rename(props, NameStyle.hadoop1))
    back = HadoopConfig.from_properties(
        {**base.to_properties(), **parse_conf_text(xml).properties}, hadoop_version=1
    )
    assert not back.use_combiner and back == off.model_copy(
        update={"other_properties": back.other_properties}
    )


@pytest.mark.parametrize("sides", [None, COOCCURRENCE_MERGE_SIDES], ids=["shared", "apart"])
def test_default_strategy_at_least_as_good_as_rrs_seeds(
    tmp_path: Path, sides: dict[str, tuple[float, float]] | None
) -> None:
    """On the constructed co-occurrence profile (also with the sample's MERGE_CPU_COST kept
    apart per side), the default strategy's best is no worse than the best of a few seeds of
    Starfish's RRS and smart RRS (benchmarks/bench_starfish_space.py runs 20 seeds on every
    profile)."""
    prof, base, cluster = load_case(COOCCURRENCE, tmp_path / "cooc", cost_sides=sides)
    assert bool(prof.costs.reduce_side) is (sides is not None)
    space = starfish_space(prof, base, cluster)

    def best(name: str, seed: int) -> float:
        s = get_strategy(name)
        obj = Objective(space, ObjectiveKind.time)
        return s.optimize(space, obj, n_trials=s.default_trials, seed=seed).best_cost

    default = best(DEFAULT_STRATEGY, 0)
    baselines = [best("rrs", 0), best("rrs", 1), best("smart-rrs", 0)]
    assert default <= min(baselines)


def test_optimize_space_starfish_writes_hadoop1_names(tmp_path: Path) -> None:
    prof_json = tmp_path / "wc.json"
    args = ["profile", "--from", "starfish", str(FIX / "wordcount_profile.xml")]
    args += [
        "--input",
        str(FIX / "wordcount_input.xml"),
        "--cluster",
        str(FIX / "wordcount_cluster.xml"),
    ]
    args += ["--conf", str(FIX / "wordcount_conf.xml"), "-o", str(prof_json), "--format", "json"]
    assert CliRunner().invoke(app, args).exit_code == 0
    out = tmp_path / "rec.xml"
    r = CliRunner().invoke(
        app, ["optimize", str(prof_json), "--space", "starfish", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    written = parse_conf_text(out.read_text()).properties
    assert written and all(not k.startswith("mapreduce.") for k in written)
    r = CliRunner().invoke(
        app, ["optimize", str(prof_json), "--space", "starfish", "--only", "io.sort.mb"]
    )
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["optimize", str(prof_json), "--space", "nope"])
    assert r.exit_code == 2 and "mrtune, starfish" in r.output

"""The trust region (issue 14, item 4; lead's follow-up): when the optimum moves a size or count
beyond ×4 of what the history ran with, the default writes the best configuration *inside*
the region the far-move rule trusts, found by a second search there and re-assessed by the
same rule; the far optimum is shown as a low-confidence option, and is what
``--include-low-confidence`` writes.

The constructed job is the mini-cluster's case: 4 MiB blocks, so 4 MiB splits and many short
maps, each paying a container launch (``task_overhead_ms``) that the history measured; its
best change is a far larger split."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mrtune.costmodel import ClusterSpec, CostFactors, DataflowStats, HadoopConfig, JobProfile
from mrtune.optimizer.lint import lint_config
from mrtune.optimizer.objective import Objective, ObjectiveKind
from mrtune.optimizer.outputs import changed_properties
from mrtune.optimizer.recommend import recommend
from mrtune.optimizer.trust import FAR, REPROFILE, trust_region
from mrtune.search_spaces import SearchSpace, find_knob

MIB = 2**20
SPLIT = "mapreduce.input.fileinputformat.split.maxsize"
SORT_MB = "mapreduce.task.io.sort.mb"
MINSIZE = "mapreduce.input.fileinputformat.split.minsize"
CLUSTER = ClusterSpec(num_nodes=2)
BASE = HadoopConfig(dfs_blocksize=4 * MIB, num_reducers=2)


def tiny_splits() -> JobProfile:
    """1 GiB in 4 MiB blocks (256 maps) with a 3 s container launch per task; every cost
    factor marked measured (no attempts: the measured factors are held as they are)."""
    prov = {f"costs.{f}": "measured: test" for f in CostFactors.model_fields}
    return JobProfile(
        job_id="tiny-splits",
        input_bytes=2**30,
        input_files=1,
        stats=DataflowStats(input_pair_width=100, map_size_sel=1.0, map_pairs_sel=1.0),
        costs=CostFactors(task_overhead_ms=3000.0),
        provenance=prov,
        source_properties={"dfs.blocksize": str(4 * MIB), "mapreduce.job.reduces": "2"},
    )


def _rec(**kw: object):  # noqa: ANN202
    return recommend(
        tiny_splits(),
        BASE,
        CLUSTER,
        strategy="exhaustive",
        only=[SPLIT, SORT_MB],
        objective=ObjectiveKind.robust,
        samples=16,
        **kw,  # type: ignore[arg-type]
    )


def _split_of(rec) -> float:  # noqa: ANN001
    return float(rec.config.split_size)


@pytest.fixture(scope="module")
def default_rec():  # noqa: ANN201
    return _rec()


def test_the_optimum_is_a_far_split_move_shown_as_a_low_confidence_option(default_rec) -> None:  # noqa: ANN001
    rec = default_rec
    (far,) = [c for c in rec.withheld if c.name == SPLIT]
    assert far.trust.far and any("beyond ×" in r for r in far.trust.reasons)
    option = rec.to_json()["low_confidence_option"]
    assert option is not None and REPROFILE in option["reason"]
    assert SPLIT in option["changes"] and option["written_with"] == "--include-low-confidence"
    sp = option["speedup"]
    assert sp["low"] <= sp["point"] <= sp["high"]
    # the option is the search's optimum: faster than the step written
    assert option["predicted_ms"] < rec.recommended["job_ms"]


def test_the_default_writes_the_best_step_inside_the_trust_region(default_rec) -> None:  # noqa: ANN001
    rec = default_rec
    split = _split_of(rec)
    assert 4 * MIB < split <= FAR * 4 * MIB  # a step, within ×4 of the history's 4 MiB
    assert {SPLIT, MINSIZE} & set(rec.properties) and rec.gain_vs_current > 0.01
    (written,) = [c for c in rec.changes if c.name == SPLIT]
    # re-assessed by the same rule: an interval, and not low-confidence (for the far reason
    # or any other)
    assert written.trust is not None and not written.trust.far and not written.trust.low
    assert written.trust.gain.low > 1
    # feasible, and nothing Hadoop would reject
    space = SearchSpace.for_job(tiny_splits(), BASE, CLUSTER, only=[SPLIT, SORT_MB])
    row = {k.name: np.array([k.encode(getattr(rec.config, k.field))]) for k in space.knobs}
    assert bool(space.feasible(row)[0])
    assert not lint_config(tiny_splits(), rec.config, CLUSTER, base=BASE).errors
    assert changed_properties(BASE, rec.config) == rec.properties


def test_the_step_is_searched_in_the_region_not_clamped(default_rec) -> None:  # noqa: ANN001
    """The step written is at least as good as every configuration of the region's grid (the
    region searched exhaustively, every knob together), and as the optimum clamped into the
    region knob by knob (what a post-hoc clamp would write)."""
    rec = default_rec
    space = SearchSpace.for_job(tiny_splits(), BASE, CLUSTER, only=[SPLIT, SORT_MB])
    cur = {k.name: k.encode(space.current_values()[k.name]) for k in space.knobs}
    region = trust_region(space, cur)
    grids = [region.grid(k) for k in region.knobs]
    mesh = np.meshgrid(*grids, indexing="ij")
    vals = {k.name: m.ravel() for k, m in zip(region.knobs, mesh, strict=True)}
    ok = region.feasible(vals)
    costs = Objective(region, ObjectiveKind.time)({n: v[ok] for n, v in vals.items()})
    written = rec.recommended["job_ms"]
    assert written <= float(costs.min()) * 1.01  # pruning may give back < 1%
    best = {k.name: k.encode(getattr(space.values_to_config(cur), k.field)) for k in space.knobs}
    for c in rec.withheld:
        best[c.name] = float(find_knob(c.name).encode(_decoded(c)))
    clamped = dict(best)
    for k in region.knobs:
        clamped[k.name] = float(np.clip(best[k.name], k.low, k.high))
    t_clamp = Objective(space, ObjectiveKind.time)({k: np.array([v]) for k, v in clamped.items()})
    assert written <= float(t_clamp[0]) * 1.01


def _decoded(change) -> float:  # noqa: ANN001
    """A change's recommended value as a number (split sizes are shown as MiB)."""
    text = str(change.recommended)
    if text.endswith("MiB"):
        return float(text.split()[0]) * MIB
    return float(text)


def test_include_low_confidence_writes_the_far_optimum(default_rec) -> None:  # noqa: ANN001
    rec = _rec(include_low_confidence=True)
    assert _split_of(rec) > FAR * 4 * MIB
    (c,) = [c for c in rec.changes if c.name == SPLIT]
    assert c.trust.far and c.trust.low
    assert rec.to_json()["low_confidence_option"] is None  # nothing withheld
    assert rec.recommended["job_ms"] == pytest.approx(
        default_rec.to_json()["low_confidence_option"]["predicted_ms"]
    )


def test_the_region_keeps_unlogged_knobs_and_pins_a_range_beyond_it() -> None:
    space = SearchSpace.for_job(tiny_splits(), BASE, CLUSTER)
    cur = {k.name: k.encode(space.current_values()[k.name]) for k in space.knobs}
    region = trust_region(space, cur)
    for k, r in zip(space.knobs, region.knobs, strict=True):
        if not k.log:
            assert r is k
            continue
        now = float(cur[k.name])
        assert r.low in r.grid and r.high in r.grid
        assert r.high <= max(now * FAR, now) and r.low >= min(now / FAR, now)
    # a split floor (half the block, 16 MiB at least) above ×4 of a 1 MiB history split: no
    # step is trusted, the knob stays where the history ran
    tiny = SearchSpace.for_job(tiny_splits(), BASE.with_changes({"dfs.blocksize": MIB}), CLUSTER)
    cur = {k.name: k.encode(tiny.current_values()[k.name]) for k in tiny.knobs}
    split = next(k for k in trust_region(tiny, cur).knobs if k.name == SPLIT)
    assert split.low == split.high == MIB


def test_the_cli_writes_the_step_and_shows_the_option(tmp_path) -> None:  # noqa: ANN001
    from typer.testing import CliRunner

    from mrtune.cli import app

    prof = tmp_path / "p.json"
    prof.write_text(tiny_splits().model_dump_json())
    out = tmp_path / "site.xml"
    args = ["optimize", str(prof), "--strategy", "exhaustive", "--only", SPLIT, "--nodes", "2"]
    args += ["--only", SORT_MB, "--samples", "16", "-o", str(out)]
    r = CliRunner().invoke(app, [*args, "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert 4 * MIB < _written_split(out) <= 16 * MIB
    assert data["low_confidence_option"]["reason"].endswith(REPROFILE)
    text = CliRunner().invoke(app, args)
    assert text.exit_code == 0 and "low-confidence option" in text.output
    r = CliRunner().invoke(app, [*args, "--include-low-confidence"])
    assert r.exit_code == 0, r.output
    assert _written_split(out) > 16 * MIB


def _written_split(path) -> int:  # noqa: ANN001
    """The split size of the job's configuration with the written file layered on top."""
    from mrtune.readers.conf import parse_conf_text

    props = {**BASE.to_properties(), **parse_conf_text(path.read_text(), "x").properties}
    return HadoopConfig.from_properties(props).split_size


def test_a_pareto_front_is_searched_inside_the_region_unless_asked() -> None:
    """The front's chosen point is written as it is (no per-change drops), so the front
    itself lies in the trust region by default; --include-low-confidence opens the space."""

    def splits(include: bool) -> list[float]:
        rec = recommend(
            tiny_splits(),
            BASE,
            CLUSTER,
            only=[SPLIT],
            objective=ObjectiveKind.pareto,
            n_trials=60,
            include_low_confidence=include,
        )
        return [float(find_knob(SPLIT).decode(p.values[SPLIT])) for p in rec.pareto.front]

    assert max(splits(False)) <= FAR * 4 * MIB
    assert max(splits(True)) > FAR * 4 * MIB


def test_the_far_option_names_the_split_as_the_change_list_does() -> None:
    """The README's main command said "the optimum moves mapreduce.input.fileinputformat.
    split.maxsize 64.0 MiB→13.2 GiB": above the block split.maxsize does nothing (the split
    knob is written through split.minsize there); the change list calls it "input split size"."""
    from types import SimpleNamespace

    from mrtune.optimizer.choose import far_option
    from mrtune.optimizer.explain import Change

    split = Change(
        "mapreduce.input.fileinputformat.split.maxsize", "64.0 MiB", "13.2 GiB", 1.0, 0.1
    )
    split.trust = SimpleNamespace(far=64.0)
    chosen = SimpleNamespace(far=True, in_region=False)
    line = far_option(chosen, [], [split])
    assert line is not None and "input split size 64.0 MiB→13.2 GiB" in line
    assert "split.maxsize" not in line

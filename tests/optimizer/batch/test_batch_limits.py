"""``mrtune batch`` obeys the capability and limit rules of ``optimize`` (issue 14, items 1-3),
per job and in the cluster-wide file, on the first 200 rows of the FB-2010 SWIM trace.

The lead's case: the cluster-wide file wrote ``ZStandardCodec`` for map output and job output
(native-only on every Hadoop 3 release), turned job-output compression on for every job, and
set ``io.sort.mb`` 600 in the default 1024 MB container (819 MB heap)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig
from mrtune.costmodel.config import MB
from mrtune.optimizer.batch import BatchSettings, discover, load_ref, run_batch
from mrtune.optimizer.batch._cluster_limits import OUTPUT_CODEC, feasible_rows
from mrtune.optimizer.batch._score import _candidate_batch
from mrtune.optimizer.batch._store import ResultStore
from mrtune.optimizer.batch._tune import PER_JOB_KNOBS
from mrtune.optimizer.outputs import NameStyle, parse_site_xml, rename
from mrtune.search_spaces import SearchSpace, find_knob
from mrtune.search_spaces.constraints import SORT_BUFFER_HEAP_SHARE
from tests.optimizer.batch.conftest import swim_rows

CLUSTER = ClusterSpec(num_nodes=10)
NATIVE_ONLY_H3 = {"ZStandardCodec", "SnappyCodec", "Lz4Codec"}  # native before 3.3.1


@functools.cache
def _batch(root: str, **options: object):  # noqa: ANN202
    """The 200-row batch under ``options`` (BatchSettings fields), run once per option set."""
    out = Path(root) / "-".join(f"{k}={v}" for k, v in sorted(options.items()))
    out.mkdir(parents=True, exist_ok=True)
    tsv = out / "fb2010-200.tsv"
    tsv.write_text(swim_rows(200))
    settings = BatchSettings(cluster=CLUSTER, **options)  # type: ignore[arg-type]
    rep = run_batch([tsv], out / "out", settings, workers=1, plots=False)
    with ResultStore(rep.db_path) as store:
        results = store.results()
    return rep, settings, results, discover([tsv])


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("limits"))


def _site(rep) -> dict[str, str]:  # noqa: ANN001
    return parse_site_xml((rep.outdir / "mapred-site.xml").read_text())


def test_the_cluster_wide_file_keeps_hadoops_limits(root: str) -> None:
    rep, _, results, _ = _batch(root)
    site = _site(rep)
    assert site == rep.summary["cluster_wide"]["properties"]
    # no native-only codec (the batch was not given --allow-native-codecs), anywhere
    for props in [site, *(r.get("properties", {}) for r in results.values())]:
        assert not {v.rsplit(".", 1)[-1] for v in props.values()} & NATIVE_ONLY_H3
    # job-output compression is the job owner's: never cluster-wide unless asked
    assert not any(k.startswith("mapreduce.output.fileoutputformat.compress") for k in site)
    assert OUTPUT_CODEC not in rep.cluster.names
    assert "left to each job" in rep.summary["cluster_wide"]["output_compression"]
    # the sort buffer within the documented share of the default 819 MB heap
    heap_mb = HadoopConfig().map_heap_bytes / MB
    sort_mb = int(site.get("mapreduce.task.io.sort.mb", HadoopConfig().io_sort_mb))
    assert sort_mb <= SORT_BUFFER_HEAP_SHARE * heap_mb < 600
    lint = rep.summary["cluster_wide"]["lint"]
    assert "codec-availability" in lint["rules_checked"] and lint["errors"] == 0


def test_stated_capabilities_reach_every_job_and_the_file(root: str) -> None:
    """``--codecs`` bounds every job; ``--allow-native-codecs`` with a release that ships
    ZStandard offers it (and the file's codec lint accepts it)."""
    rep, _, results, _ = _batch(root, codecs="gzip")
    allowed = {"GzipCodec", "DefaultCodec", "BZip2Codec"}  # core codecs: always loadable
    for props in [_site(rep), *(r.get("properties", {}) for r in results.values())]:
        codecs = {v.rsplit(".", 1)[-1] for k, v in props.items() if k.endswith(".codec")}
        assert codecs <= allowed
    rep, settings, results, refs = _batch(root, allow_native_codecs=True, hadoop_version="3.3.6")
    profile, _ = load_ref(refs[0], settings)
    assert profile.cluster_facts["hadoop_version"] == "3.3.6"
    key = "mapreduce.map.output.compress.codec"  # map-only jobs have no map output codec
    offered = [r["choices"][key] for r in results.values() if key in r.get("choices", {})]
    zstd = float(find_knob(key).encode("zstd"))
    assert offered and all(zstd in c for c in offered)
    assert rep.summary["cluster_wide"]["lint"]["errors"] == 0


def test_output_compression_is_offered_cluster_wide_only_when_asked(root: str) -> None:
    rep, *_ = _batch(root, cluster_output_compression=True)
    assert OUTPUT_CODEC in rep.cluster.names
    assert rep.summary["cluster_wide"]["output_compression"].startswith("offered")


def test_a_candidate_that_breaks_a_constraint_as_written_is_never_chosen() -> None:
    names = [
        "mapreduce.reduce.shuffle.memory.limit.percent",
        "mapreduce.reduce.shuffle.merge.percent",
    ]
    cand = np.array([[0.25, 0.66], [0.7, 0.66], [0.5, 0.9]])
    assert feasible_rows(cand, names, 3).tolist() == [True, False, True]
    assert feasible_rows(cand, names, 1).all()  # Hadoop 1's ReduceCopier has no such rule


# ------------------------------------------------------------------ written = scored
def _columns(batch: ConfigBatch) -> dict[str, object]:
    return {k: np.asarray(v)[0].item() for k, v in vars(batch).items()}


@pytest.mark.parametrize("version", [None, "1.2.1"])
def test_written_equals_scored_per_job_and_cluster_wide(root: str, version: str | None) -> None:
    """Per job: the job's configuration with its written properties read back is the one its
    search scored. Cluster-wide: the job's configuration, the site file and its per-job
    settings read back are what the cluster-wide stage scored for it. Both Hadoop lines,
    each under its own property names."""
    rep, settings, results, refs = _batch(root, **({"hadoop_version": version} if version else {}))
    style = NameStyle.hadoop1 if version else NameStyle.hadoop2
    site = _site(rep)
    names, chosen = rep.cluster.names, rep.cluster.values
    row = np.array([[chosen[n] for n in names]])
    checked = 0
    for ref in refs[:60]:
        r = results[ref.key]
        if r["status"] != "tuned":
            continue
        profile, base = load_ref(ref, settings)
        assert base.hadoop_version == (1 if version else 3)
        own = rename(base.to_properties(), style)
        if version:  # every written name is one Hadoop 1 reads
            assert not [k for k in (*r["properties"], *site) if k.startswith("mapreduce.")]
        space = SearchSpace.for_job(profile, base, CLUSTER)
        best = {k: np.array([v]) for k, v in r["best_encoded"].items()}
        scored = space.to_batch(best, repair=False)
        back = HadoopConfig.from_properties(
            {**own, **r["properties"]}, hadoop_version=base.hadoop_version
        )
        assert _columns(ConfigBatch.from_configs([back])) == _columns(scored)
        per_job = {
            k: v
            for k, v in r["properties"].items()
            if find_knob(k).name in PER_JOB_KNOBS or find_knob(k).name not in names
        }
        wide = HadoopConfig.from_properties(
            {**own, **site, **per_job}, hadoop_version=base.hadoop_version
        )
        _, cluster_scored = _candidate_batch(ref, r["best_encoded"], settings, names, row)
        # a knob that does not act on the job (a map-only job's sort buffer) is scored at its
        # base value: the file sets it, the job never reads it
        unread = {find_knob(n).column for n in names if n not in space.names}
        got, want = _columns(ConfigBatch.from_configs([wide])), _columns(cluster_scored)
        assert {k: v for k, v in got.items() if k not in unread} == {
            k: v for k, v in want.items() if k not in unread
        }
        checked += 1
    assert checked > 20


def test_the_cluster_wide_file_stays_in_the_trust_region_unless_asked(root: str) -> None:
    """Hadoop 1's catalog: the file moved io.sort.factor 10 -> 500 (x50) before; a size or
    count now stays within x4 of the catalog's current value, as optimize's far-move rule
    keeps each job, and --include-low-confidence lifts that."""

    def ratios(rep) -> dict[str, float]:  # noqa: ANN001
        c = rep.cluster
        return {n: c.values[n] / c.baseline[n] for n in c.changed if find_knob(n).log}

    rep, *_ = _batch(root, hadoop_version="1.2.1")
    assert all(0.25 <= r <= 4 for r in ratios(rep).values()), ratios(rep)
    far, *_ = _batch(root, hadoop_version="1.2.1", include_low_confidence=True)
    assert any(not 0.25 <= r <= 4 for r in ratios(far).values()), ratios(far)

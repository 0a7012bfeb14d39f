"""``mrtune batch``: each job's sort-buffer limit comes from its own observed heap, and the
cluster-wide file's grid stays below the tightest of them (issue 14); SWIM rows have none."""

from __future__ import annotations

from pathlib import Path

from mrtune.costmodel import ClusterSpec, DataflowStats, HadoopConfig, JobProfile
from mrtune.costmodel.profile import MapHeapUse
from mrtune.optimizer.batch import BatchSettings, discover, load_ref, run_batch
from mrtune.optimizer.batch._cluster_limits import knob_grid, tightest_caps
from mrtune.optimizer.batch._store import ResultStore
from mrtune.search_spaces.constraints import HEAP_NEED_HEADROOM
from tests.optimizer.batch.conftest import swim_rows

SORT_MB = "mapreduce.task.io.sort.mb"
SETTINGS = BatchSettings(cluster=ClusterSpec(num_nodes=10))
HEAP_MB = 820.0  # Hadoop 3's default map heap: 1024 MB x 0.8


def big_maps(i: int, need_mb: float | None) -> JobProfile:
    """Maps that emit 2.5x their split: each job wants the largest buffer it may have."""
    use = None
    if need_mb is not None:
        use = MapHeapUse(
            need_mb=need_mb,
            committed_mb=need_mb + 100,
            sort_mb=100,
            heap_mb=HEAP_MB,
            attempts=160,
            source="constructed",
        )
    return JobProfile(
        job_id=f"big-{i}",
        input_bytes=20e9 * (i + 1),
        stats=DataflowStats(input_pair_width=100, map_size_sel=2.5, map_pairs_sel=1.0),
        map_heap_use=use,
    )


def _tuned(root: Path, need_mb: float | None) -> dict[str, dict]:
    root.mkdir()
    cat = root / "profiles.jsonl"
    jobs = [big_maps(0, need_mb), big_maps(1, None), big_maps(2, None)]
    cat.write_text("".join(j.model_dump_json() + "\n" for j in jobs))
    rep = run_batch([cat], root / "out", SETTINGS, workers=1, plots=False)
    with ResultStore(rep.db_path) as store:
        return store.results()


def test_each_job_is_limited_by_its_own_evidence_and_the_file_by_the_tightest(
    tmp_path: Path,
) -> None:
    free = _tuned(tmp_path / "free", None)
    held = _tuned(tmp_path / "held", 500.0)
    bound = HEAP_MB - HEAP_NEED_HEADROOM * 500  # 195 MB, below half the heap (410)
    limit = {k.rsplit(":", 1)[1]: r["limits"][SORT_MB] for k, r in held.items()}
    assert limit["1"] == bound < limit["2"] == limit["3"]  # only the job that took 500 MB
    assert all(r["limits"][SORT_MB] > bound for r in free.values())
    base = HadoopConfig()  # the line's defaults, as the cluster-wide search starts from
    grid_free = knob_grid(SORT_MB, list(free.values()), 100.0, base, {})
    grid_held = knob_grid(SORT_MB, list(held.values()), 100.0, base, {})
    assert grid_free.max() > bound >= grid_held.max()
    # the summary names the job whose evidence bounds the file
    cap = tightest_caps(list(held.values()))[SORT_MB]
    assert cap["cap"] == bound and cap["job"] == "big-0"


def test_swim_rows_carry_no_observed_heap(tmp_path: Path) -> None:
    tsv = tmp_path / "fb.tsv"
    tsv.write_text(swim_rows(3))
    for ref in discover([tsv]):
        profile, _ = load_ref(ref, SETTINGS)
        assert profile.map_heap_use is None


def test_the_site_files_sort_buffer_fits_the_lines_default_heap(shared_data: Path) -> None:
    # the 0.20 folder trace's jobs could hold 300 MB in their own heaps, and the file had been
    # chosen at io.sort.mb 300, then refused by its lint (150% of Hadoop 1's 200 MB default
    # heap, which a job setting none gets) with nothing written
    from mrtune.optimizer.batch._cluster_limits import site_sort_buffer_cap

    base1 = HadoopConfig(hadoop_version=1)
    assert site_sort_buffer_cap(base1) == 100.0
    assert site_sort_buffer_cap(HadoopConfig()) == 410.0
    big = [{"limits": {SORT_MB: 600.0}, "key": "a"}]
    assert knob_grid(SORT_MB, big, 100.0, base1, {}).max() <= 100.0
    assert knob_grid(SORT_MB, big, 100.0, HadoopConfig(), {}).max() > 100.0

"""The batch's fast path (lockstep chunks, stacked calls, caches) gives exactly what the plain
per-job path gives (issue 18, item 2): every job's chosen configuration and predicted figures,
and the cluster-wide choice with its totals.

The reference is computed live in the test, not stored: each job tuned alone by
:func:`tune_job` from freshly built search spaces (the module caches emptied first), and the
cluster-wide stage run with a job-by-job scorer (one plain model call per job on the
configurations :func:`~mrtune.optimizer.batch._score._candidate_batch` builds for it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from mrtune.costmodel import ClusterSpec, evaluate
from mrtune.optimizer.batch import BatchSettings, _score, discover, run_batch, tune_job
from mrtune.optimizer.batch._cluster import choose_cluster_config
from mrtune.optimizer.batch._worker import load_ref
from tests.optimizer.batch.conftest import as_written, swim_rows

N_JOBS = 320


#: Every cache the fast path fills (module, name): emptied before each reference step.
CACHES = (
    ("mrtune.search_spaces.space", "_GRIDS"),
    ("mrtune.search_spaces.space", "_OFFERED"),
    ("mrtune.search_spaces.space", "_SLOTS"),
    ("mrtune.optimizer.batch._score", "_CHUNK_CACHE"),
    ("mrtune.optimizer.batch._score", "_SCORING_CACHE"),
)


def _clear_caches() -> None:
    """Empty every cache of :data:`CACHES`, so the reference builds everything anew."""
    import importlib

    for module, name in CACHES:
        getattr(importlib.import_module(module), name).clear()


class _PerJobScorer:
    """An executor for :func:`choose_cluster_config` that ignores the stacked scorer it is
    given and costs every job alone: its own candidate batch, one plain model call."""

    description = "per-job reference"

    def __init__(self, settings: BatchSettings) -> None:
        self.settings = settings

    def map_unordered(
        self, fn: Callable[..., Any], chunks: Sequence[Any], **kwargs: Any
    ) -> Iterator[tuple[int, Any]]:
        names, cands = kwargs["names"], kwargs["candidates"]
        resources = self.settings.objective == "resources"
        for i, chunk in enumerate(chunks):
            out = []
            for ref, best in chunk:
                _clear_caches()
                profile, batch = _score._candidate_batch(ref, best, self.settings, names, cands)
                job, gbs = evaluate(profile, batch, self.settings.cluster)
                out.append((ref.key, gbs if resources else job))
            yield i, out

    def close(self) -> None:
        return None


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory):
    """``N_JOBS`` FB-2010 rows from across the trace (every k-th row: map-only jobs, jobs
    with reducers, tiny and large inputs, zero-input rows)."""
    lines = swim_rows(30_000).splitlines(keepends=True)
    step = max(1, len(lines) // N_JOBS)
    path = tmp_path_factory.mktemp("identity") / "spread.tsv"
    path.write_text("".join(lines[::step][:N_JOBS]))
    return path


@pytest.mark.parametrize("objective", ["time", "resources"])
def test_batch_equals_the_per_job_path(catalog, tmp_path, objective: str) -> None:
    settings = BatchSettings(cluster=ClusterSpec(num_nodes=3000), objective=objective)
    _clear_caches()
    rep = run_batch([catalog], tmp_path / "out", settings, workers=1, plots=False)
    from mrtune.optimizer.batch._store import ResultStore

    with ResultStore(rep.db_path) as store:
        stored = store.results()
    refs = discover([catalog])
    results = [stored[r.key] for r in refs]
    tuned = withheld = 0
    for ref, got in zip(refs, results, strict=True):
        if float(ref.payload.split("\t")[3]) == 0:
            assert got["status"] == "skipped"
            continue
        _clear_caches()
        profile, base = load_ref(ref, settings)
        alone = tune_job(profile, base, settings.cluster, objective=objective)
        assert got["status"] == "tuned", got.get("reason")
        assert got["current_encoded"] == alone.current
        withheld += bool(got["withheld_changes"])
        alone = as_written(alone, got)  # the noise rule may keep the job as it runs
        assert got["best_encoded"] == alone.best
        assert (got["recommended_ms"], got["current_ms"]) == (alone.best_ms, alone.current_ms)
        assert (got["recommended_gb_s"], got["current_gb_s"]) == (
            alone.best_gb_s,
            alone.current_gb_s,
        )
        assert got["evaluations"] == alone.evaluations
        assert got["limits"] == alone.limits
        tuned += 1
    assert tuned > N_JOBS * 0.9 and withheld < tuned * 0.2
    ref_choice = choose_cluster_config(
        results, {r.key: r for r in refs}, settings, _PerJobScorer(settings)
    )
    assert rep.cluster is not None and ref_choice is not None
    assert rep.cluster.values == ref_choice.values
    assert rep.cluster.total_chosen == ref_choice.total_chosen
    assert rep.cluster.total_baseline == ref_choice.total_baseline
    assert rep.cluster.marginal == ref_choice.marginal
    assert rep.cluster.passes == ref_choice.passes
    assert np.isfinite(rep.cluster.total_chosen)

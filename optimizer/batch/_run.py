"""``run_batch``: tune every job of a catalog, choose the cluster-wide config, write outputs.

The driver discovers the catalog, skips jobs whose results are already stored (``resume``),
sends the others to the executor in chunks and commits each chunk's results to SQLite as it
arrives (:mod:`mrtune.optimizer.batch._store`). The cluster-wide configuration is then chosen from the
stored results and cached under a hash of them, so re-running a finished batch recomputes
nothing: it reads the store and rewrites the outputs.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mrtune.errors import InputError
from mrtune.optimizer.batch._catalog import (
    JHIST,
    PROFILE,
    REST,
    RUMEN,
    RUN,
    SWIM,
    JobRef,
    discover,
)
from mrtune.optimizer.batch._cluster import ClusterChoice, choose_cluster_config
from mrtune.optimizer.batch._executors import Executor, make_executor
from mrtune.optimizer.batch._report import summarize, write_outputs
from mrtune.optimizer.batch._store import ResultStore
from mrtune.optimizer.batch._worker import BatchSettings, tune_chunk

ProgressFn = Callable[[str, int, int], None]
#: Jobs per chunk by kind: a SWIM row or profile tunes in milliseconds, a history takes longer
#: to parse; chunks amortise the inter-process round trip and each is one SQLite commit.
#: a run record is calibrated as a history is (scipy fits): small chunks like theirs
CHUNK_BY_KIND = {SWIM: 64, PROFILE: 32, JHIST: 2, RUMEN: 2, RUN: 2, REST: 2}
DB_NAME = "batch.sqlite"


@dataclass
class BatchReport:
    """What a batch did (the files it wrote are under ``outdir``)."""

    outdir: Path
    db_path: Path
    jobs: int
    computed: int
    reused: int
    interrupted: bool
    wall_s: float
    executor: str
    summary: dict[str, Any] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    cluster: ClusterChoice | None = None
    cluster_cached: bool = False


class _Lazy:
    """Creates the executor only when work needs it (a finished batch starts no pool)."""

    def __init__(self, workers: int | None, scheduler: str | None) -> None:
        self.workers, self.scheduler = workers, scheduler
        self.executor: Executor | None = None

    def get(self) -> Executor:
        if self.executor is None:
            self.executor = make_executor(self.workers, self.scheduler)
        return self.executor

    def map_unordered(self, fn: Any, chunks: Sequence[Any], **kwargs: Any) -> Any:
        return self.get().map_unordered(fn, chunks, **kwargs)

    @property
    def description(self) -> str:
        if self.executor is not None:
            return self.executor.description
        return "none needed (all results stored)"

    def close(self) -> None:
        if self.executor is not None:
            self.executor.close()


def make_chunks(refs: Sequence[JobRef], workers: int) -> list[list[JobRef]]:
    """Chunks of the same kind, sized by :data:`CHUNK_BY_KIND`, at least ~4 per worker."""
    chunks: list[list[JobRef]] = []
    kinds = {**CHUNK_BY_KIND, **{r.kind: 1 for r in refs if r.kind not in CHUNK_BY_KIND}}
    for kind, size in kinds.items():  # a kind without a size is never left out
        part = [r for r in refs if r.kind == kind]
        if not part:
            continue
        size = max(1, min(size, math.ceil(len(part) / (4 * max(workers, 1)))))
        chunks.extend(part[i : i + size] for i in range(0, len(part), size))
    return chunks


def check_outdir(out: Path) -> None:
    """Refuse an output path that exists and is not a directory (or lies under a file)."""
    for p in (out, *out.parents):
        if p.exists():
            if not p.is_dir():
                raise InputError(
                    "is a file, not a directory" if p == out else f"{p} is a file",
                    path=str(out),
                    allowed="a directory (created if it does not exist)",
                )
            return


def _results_hash(fingerprint: str, results: Sequence[dict[str, Any]]) -> str:
    h = hashlib.sha256(fingerprint.encode())
    for r in results:
        if r["status"] == "tuned":
            h.update(r["key"].encode())
            h.update(json.dumps(r["best_encoded"], sort_keys=True).encode())
    return h.hexdigest()[:24]


def _catalog_jobs(
    catalog: Sequence[str | Path], note: Callable[[str], None] | None
) -> list[JobRef]:
    """The catalog's jobs (:func:`discover`); each file it skipped goes to ``note``, and a
    catalog without a job is refused."""
    skipped: list[str] = []
    refs = discover(catalog, skipped)
    for line in skipped if note is not None else ():
        note(line)
    if not refs:
        raise InputError(
            "no jobs found in the catalog",
            path=", ".join(map(str, catalog)),
            allowed=".jhist files, SWIM .tsv traces, .jsonl profiles, Rumen traces "
            "(.json, .json.gz)",
        )
    return refs


def run_batch(
    catalog: Sequence[str | Path],
    outdir: str | Path,
    settings: BatchSettings,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    overwrite: bool = False,
    db_path: str | Path | None = None,
    stop_after: int | None = None,
    progress: ProgressFn | None = None,
    plots: bool = True,
    note: Callable[[str], None] | None = None,
) -> BatchReport:
    """Tune the catalog (module docstring).

    Args:
        catalog: files and directories (see :func:`mrtune.optimizer.batch.discover`).
        outdir: where the outputs (and by default the SQLite store) go.
        settings: cluster, objective, base profile.
        workers: local worker processes (default: one per CPU; 1 = in this process).
        scheduler: a Dask scheduler address; overrides ``workers``.
        resume: reuse the stored results of an earlier run of the same batch.
        overwrite: discard stored results and start over.
        db_path: the SQLite file (default ``outdir/batch.sqlite``).
        stop_after: stop (as if killed) once at least this many jobs were committed in this
            run: a hook for tests and demonstrations of ``resume``; no outputs are written.
        progress: called as ``progress(stage, done, total)``.
        plots: write the PNG plots.
        note: called with each line of :func:`discover`'s ``skipped`` (a catalog directory's
            ``.json`` that is not taken), before any job is tuned.
    """
    t0 = time.perf_counter()
    out = Path(outdir)
    check_outdir(out)
    refs = _catalog_jobs(catalog, note)
    db = Path(db_path) if db_path is not None else out / DB_NAME
    fingerprint = settings.fingerprint()
    lazy = _Lazy(workers, scheduler)
    with ResultStore(db) as store:
        store.prepare(fingerprint, resume=resume, overwrite=overwrite)
        done = store.done_keys()
        todo = [r for r in refs if r.key not in done]
        reused = len(refs) - len(todo)
        try:
            computed, interrupted = _tune_todo(
                store, todo, lazy, settings, workers, scheduler, progress, stop_after
            )
            if interrupted:
                elapsed = time.perf_counter() - t0
                return BatchReport(
                    out, db, len(refs), computed, reused, True, elapsed, lazy.description
                )
            stored = store.results()
            results = [stored[r.key] for r in refs]
            choice, cached = _cluster_choice(
                store, results, refs, fingerprint, settings, lazy, progress
            )
        finally:
            lazy.close()
    files, summary = _write(out, results, choice, settings, plots)
    return BatchReport(
        outdir=out,
        db_path=db,
        jobs=len(refs),
        computed=computed,
        reused=reused,
        interrupted=False,
        wall_s=time.perf_counter() - t0,
        executor=lazy.description,
        summary=summary,
        files=files,
        cluster=choice,
        cluster_cached=cached,
    )


def _write(
    out: Path,
    results: list[dict[str, Any]],
    choice: ClusterChoice | None,
    settings: BatchSettings,
    plots: bool,
) -> tuple[dict[str, Path], dict[str, Any]]:
    """Summarise and write the outputs; the cluster-wide file is linted first, and a lint
    error writes nothing."""
    summary = summarize(results, choice, settings.objective)
    if choice is not None:
        lint = choice.lint(settings.cluster)
        if lint.errors:
            raise InputError(f"cluster-wide file: lint: {lint.errors[0].line()}; nothing written")
        summary["cluster_wide"]["lint"] = lint.to_json()
    files = write_outputs(out, results, summary, choice, plots=plots)
    return files, summary | {"files": {k: str(v) for k, v in files.items()}}


def _tune_todo(
    store: ResultStore,
    todo: Sequence[JobRef],
    lazy: _Lazy,
    settings: BatchSettings,
    workers: int | None,
    scheduler: str | None,
    progress: ProgressFn | None,
    stop_after: int | None,
) -> tuple[int, bool]:
    """Tune the jobs not stored yet, committing each chunk as it arrives; returns how many
    were committed and whether ``stop_after`` interrupted the run."""
    computed = 0
    if not todo:
        return 0, False
    n_workers = workers or 0
    executor = lazy.get()
    if scheduler is None and n_workers == 0:
        import os

        n_workers = os.cpu_count() or 1
    chunks = make_chunks(todo, n_workers or 4)
    if progress is not None:
        progress("tuning jobs", 0, len(todo))
    for _, part in executor.map_unordered(tune_chunk, chunks, settings=settings):
        computed += store.add(part)
        if progress is not None:
            progress("tuning jobs", computed, len(todo))
        if stop_after is not None and computed >= stop_after:
            return computed, True
    return computed, False


def _cluster_choice(
    store: ResultStore,
    results: list[dict[str, Any]],
    refs: Sequence[JobRef],
    fingerprint: str,
    settings: BatchSettings,
    lazy: _Lazy,
    progress: ProgressFn | None,
) -> tuple[ClusterChoice | None, bool]:
    """The cluster-wide choice, read from the store when these results were seen before
    (cached under a hash of them), else chosen and stored; and whether it was cached."""
    cache_key = "cluster:" + _results_hash(fingerprint, results)
    cached = store.get_meta(cache_key)
    if cached is not None:
        data = json.loads(cached)
        return (ClusterChoice(**data) if data else None), True
    choice = choose_cluster_config(
        results,
        {r.key: r for r in refs},
        settings,
        lazy,
        min_gain=settings.min_gain,
        progress=progress,
    )
    store.set_meta(cache_key, json.dumps(choice.__dict__ if choice else None))
    return choice, False

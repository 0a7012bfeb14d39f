"""Batch benchmark: the FB-2010 SWIM catalog (24,442 jobs) through ``run_batch``.

Goals (issue 18): ≤ 2.5 ms of CPU per job (driver and workers together) and ≤ 60 s of wall
time on 2 workers on a quiet machine (issue 6 asked for ≤ 5 minutes). Prints jobs per second,
wall time (total, and of each stage), CPU time of the driver and every worker process
(sampled from the process tree with psutil), peak memory (summed RSS of the tree), and the
time to re-run the finished batch (``resume``: everything read from the store). Other work on
the machine slows the wall time, not the CPU time: both are printed, with the load average.

``--quality N`` also measures the lean per-job tuner, searching the whole space, against
``recommend(..., strategy="exhaustive")`` on N jobs of the catalog (half drawn uniformly,
half the largest inputs), as the ratio of predicted job times (tuner / exhaustive; 1.0 = as
good, below 1.0 = better than the exhaustive recommendation after its pruning), and what the
default's trust region gives up against the same tuner on the whole space
(``region_ratio_*``: predicted time in the region / on the whole space).

Figures (issue 18, December 2026, full FB-2010 on 2 workers, 24,024 tuned, 418 skipped, 0
failed; base = 6b7aa05, alternated with this code, CPU per job / wall / peak RSS):
base 3.27 ms / 76.3 s / 781 MB (load 1.9-3.2) and 2.91 ms / 44.9 s / 763 MB (load 3.3-3.1);
this code 2.68 ms / 46.0 s / 895 MB (load 3.2-2.9), 2.61 ms / 58.8 s / 894 MB (load 2.7-3.3)
and 2.49 ms / 52.3 s / 902 MB (load 3.4). The goal of 2.5 ms is for a quiet machine, where
the base measured 2.83 ms; the extra memory is the workers' job cache, which now holds the
whole catalog (``SCORING_CACHE_JOBS``). With each job's moves in the trust region (TUNER_VERSION
4, 2 December 04:47, nothing else running, load 0.82 -> 1.28): 1.93 ms / 26.0 s / 917 MB, 24,024
tuned, 418 skipped, 0 failed; ``--quality 40``: the tuner on the whole space equals exhaustive
on all 40 jobs, and the region gives up nothing on 72.5% of them and at most x1.57 of
predicted time on the others (far moves left to the next history). The trace is read from ``../shared/data`` beside the
repository (``--trace`` for another place).

Run from the repository root::

    python benchmarks/bench_batch.py                        # full FB-2010, 2 workers
    python benchmarks/bench_batch.py --limit 2000 --workers 1
    python benchmarks/bench_batch.py --limit 0 --quality 60 # quality only
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mrtune.costmodel import ClusterSpec  # noqa: E402
from mrtune.optimizer.batch import BatchSettings, run_batch  # noqa: E402

FB2010 = ROOT / ".." / "shared" / "data" / "swim" / "FB-2010_samples_24_times_1hr_0.tsv"
GOAL_S = 60.0
GOAL_CPU_MS_PER_JOB = 2.5


class TreeSampler(threading.Thread):
    """Samples CPU time and RSS of this process and all its descendants."""

    def __init__(self, interval: float = 0.25) -> None:
        super().__init__(daemon=True)
        import psutil

        self.psutil = psutil
        self.interval = interval
        self.cpu: dict[int, float] = {}
        self.peak_rss = 0
        self.stop = threading.Event()

    def sample(self) -> None:
        me = self.psutil.Process()
        procs = [me, *me.children(recursive=True)]
        rss = 0
        for p in procs:
            try:
                t = p.cpu_times()
                self.cpu[p.pid] = t.user + t.system
                rss += p.memory_info().rss
            except self.psutil.Error:
                continue
        self.peak_rss = max(self.peak_rss, rss)

    def run(self) -> None:
        while not self.stop.is_set():
            self.sample()
            self.stop.wait(self.interval)

    def total_cpu(self) -> float:
        return sum(self.cpu.values())


def quality(path: Path, n: int, nodes: int) -> dict[str, float]:
    import numpy as np

    from mrtune.optimizer.batch import parse_swim_line, swim_profile, tune_job
    from mrtune.optimizer.recommend import recommend
    from mrtune.profiling import profile_config

    rows = [parse_swim_line(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.map_input_bytes > 0]
    rng = np.random.default_rng(0)
    by_size = sorted(range(len(rows)), key=lambda i: -rows[i].map_input_bytes)
    pick = list(
        dict.fromkeys(list(rng.choice(len(rows), n - n // 2, replace=False)) + by_size[: n // 2])
    )
    cluster = ClusterSpec(num_nodes=nodes)
    ratios, t_lean, t_ex, cur_lean, cur_ex = [], 0.0, 0.0, 0.0, 0.0
    region_ratios: list[float] = []
    for i in pick:
        p = swim_profile(rows[i])
        base = profile_config(p)
        t = time.process_time()
        lean = tune_job(p, base, cluster, region=False)  # the whole space, as exhaustive's
        t_lean += time.process_time() - t
        t = time.process_time()
        ex = recommend(p, base, cluster, strategy="exhaustive")
        t_ex += time.process_time() - t
        ratios.append(lean.best_ms / ex.recommended["job_ms"])
        cur_lean += lean.best_ms
        cur_ex += ex.recommended["job_ms"]
        near = tune_job(p, base, cluster)  # the default: moves within the trust region
        region_ratios.append(near.best_ms / lean.best_ms)
    r = np.array(ratios)
    rr = np.array(region_ratios)
    return {
        # what the default's trust region gives up against the whole space (the same tuner):
        # the far moves a per-job file leaves to the next history
        "region_ratio_median": float(np.median(rr)),
        "region_ratio_max": float(rr.max()),
        "region_equal_share": float((rr <= 1.0 + 1e-12).mean()),
        "jobs": len(r),
        "ratio_mean": float(r.mean()),
        "ratio_median": float(np.median(r)),
        "ratio_max": float(r.max()),
        "ratio_min": float(r.min()),
        "within_1pct": float((r <= 1.01).mean()),
        "total_time_ratio": cur_lean / cur_ex,
        "lean_cpu_ms_per_job": 1e3 * t_lean / len(r),
        "exhaustive_cpu_s_per_job": t_ex / len(r),
    }


def _parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    ap.add_argument("--trace", type=Path, default=FB2010)
    ap.add_argument("--limit", type=int, default=None, help="first N jobs only (0 = skip run)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--nodes", type=int, default=3000, help="cluster size (FB-2010: 3000)")
    ap.add_argument("--objective", default="time")
    ap.add_argument("--quality", type=int, default=0, help="jobs compared with exhaustive")
    ap.add_argument("--json", type=Path, default=None, help="append the figures here")
    return ap.parse_args()


def run_once(args: argparse.Namespace, tmp: Path) -> dict[str, object]:
    """The batch on the trace (its first ``--limit`` rows) and a re-run of the finished
    batch, with the figures of the module docstring."""
    trace = args.trace
    if args.limit:
        trace = tmp / "trace.tsv"
        lines = args.trace.read_text().splitlines(keepends=True)[: args.limit]
        trace.write_text("".join(lines))
    stages: dict[str, float] = {}
    started: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        started.setdefault(stage, now)
        stages[stage] = now - started[stage]

    settings = BatchSettings(cluster=ClusterSpec(num_nodes=args.nodes), objective=args.objective)
    sampler = TreeSampler()
    sampler.start()
    t0 = time.perf_counter()
    rep = run_batch([trace], tmp / "out", settings, workers=args.workers, progress=progress)
    wall = time.perf_counter() - t0
    sampler.sample()
    sampler.stop.set()
    # Re-running the finished batch: everything comes from the store.
    t1 = time.perf_counter()
    again = run_batch([trace], tmp / "out", settings, workers=args.workers, resume=True)
    rerun = time.perf_counter() - t1
    assert again.computed == 0 and again.cluster_cached
    db_mb = (tmp / "out" / "batch.sqlite").stat().st_size / 2**20
    return _figures(rep, wall, stages, sampler, rerun, db_mb)


def _figures(
    rep: Any,
    wall: float,
    stages: dict[str, float],
    sampler: TreeSampler,
    rerun: float,
    db_mb: float,
) -> dict[str, object]:
    s = rep.summary
    cpu_ms = 1e3 * sampler.total_cpu() / rep.jobs
    tuning_s = stages.get("tuning jobs", 0.0)
    return {
        "jobs": rep.jobs,
        "tuned": s["tuned"],
        "skipped": s.get("skipped", 0),
        "failed": s["failed"],
        "skipped_by_reason": s.get("skipped_by_reason", {}),
        "failed_by_reason": s.get("failed_by_reason", {}),
        "wall_s": round(wall, 2),
        "jobs_per_s": round(rep.jobs / wall, 1),
        "tuning_stage_s": round(tuning_s, 2),
        "tuning_jobs_per_s": round(rep.jobs / max(tuning_s, 1e-9), 1),
        "stage_wall_s": {k: round(v, 2) for k, v in stages.items()},
        "cpu_s_tree": round(sampler.total_cpu(), 1),
        "cpu_ms_per_job": round(cpu_ms, 2),
        "peak_rss_mb_tree": round(sampler.peak_rss / 2**20, 1),
        "goal_wall_met": wall <= GOAL_S,
        "goal_cpu_met": cpu_ms <= GOAL_CPU_MS_PER_JOB,
        "rerun_finished_batch_s": round(rerun, 2),
        "sqlite_mb": round(db_mb, 1),
        "hours_saved": round(s["predicted_hours_saved"], 2),
        "changed": s.get("changed", 0),
        "changed_by_interval": s.get("changed_by_interval", {}),
        "withheld_by_rule": s.get("withheld_by_rule", {}),
        "cluster_wide": s.get("cluster_wide", {}).get("settings"),
        "load_average_at_end": os.getloadavg(),
    }


def main() -> None:
    args = _parse_args()
    out: dict[str, object] = {
        "trace": args.trace.name,
        "workers": args.workers,
        "nodes": args.nodes,
        "cpu_count": os.cpu_count(),
        "load_average_at_start": os.getloadavg(),
    }
    if args.limit != 0:
        with tempfile.TemporaryDirectory() as tmp:
            out.update(run_once(args, Path(tmp)))
    if args.quality:
        out["quality_vs_exhaustive"] = quality(args.trace, args.quality, args.nodes)
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        with args.json.open("a") as fh:
            fh.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()

"""Diagnosis of MapReduce jobs: Dr. Elephant's heuristics, each priced by the what-if model.

Dr. Elephant (linkedin/dr-elephant) rates a job with about a dozen MapReduce heuristics; their
semantics and default thresholds are kept here (cited in each module) and rewritten from
scratch. What Dr. Elephant cannot say, mrtune adds: each finding's *price*, the settings that
fix it and the saving the what-if model predicts, with an interval from the evidence
(:mod:`mrtune.diagnose.price`).

Entry points: :func:`load_jobs` (any history, profile, run-record file or catalog directory →
:class:`JobView` list), :func:`diagnose_view` (one job → :class:`Diagnosis`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mrtune.costmodel import ClusterSpec, JobProfile
from mrtune.diagnose._core import Finding, JobView, Price, Severity
from mrtune.diagnose.load import is_catalog, iter_catalog, load_file
from mrtune.diagnose.price import Progress, price_findings, worst
from mrtune.diagnose.reduce_side import job_state, shuffle_sort, slow_start
from mrtune.diagnose.resources import gc, memory
from mrtune.diagnose.skew import data_skew, time_skew
from mrtune.diagnose.tasks import mapper_speed, mapper_spill, small_splits, task_time
from mrtune.errors import InputError

#: Every heuristic, in the order findings are shown: (key, function of a JobView).
HEURISTICS: tuple[tuple[str, Callable[[JobView], Finding]], ...] = (
    ("job_state", job_state),
    ("map_data_skew", lambda j: data_skew(j, "map")),
    ("map_time_skew", lambda j: time_skew(j, "map")),
    ("map_gc", lambda j: gc(j, "map")),
    ("map_memory", lambda j: memory(j, "map")),
    ("map_speed", mapper_speed),
    ("map_spill", mapper_spill),
    ("map_time", lambda j: task_time(j, "map")),
    ("small_splits", small_splits),
    ("reduce_data_skew", lambda j: data_skew(j, "reduce")),
    ("reduce_time_skew", lambda j: time_skew(j, "reduce")),
    ("reduce_gc", lambda j: gc(j, "reduce")),
    ("reduce_memory", lambda j: memory(j, "reduce")),
    ("shuffle_sort", shuffle_sort),
    ("reduce_time", lambda j: task_time(j, "reduce")),
    ("slow_start", slow_start),
)

#: Three-letter codes for the catalog table (jobs × findings), with the legend.
CODES: dict[str, str] = {
    "job_state": "JOB",
    "map_data_skew": "MDS",
    "map_time_skew": "MTS",
    "map_gc": "MGC",
    "map_memory": "MMM",
    "map_speed": "MSP",
    "map_spill": "SPL",
    "map_time": "MTM",
    "small_splits": "SML",
    "reduce_data_skew": "RDS",
    "reduce_time_skew": "RTS",
    "reduce_gc": "RGC",
    "reduce_memory": "RMM",
    "shuffle_sort": "SHS",
    "reduce_time": "RTM",
    "slow_start": "SLW",
}


@dataclass
class Diagnosis:
    """One job's findings, worst first within the heuristic order."""

    view: JobView
    findings: list[Finding] = field(default_factory=list)

    @property
    def severity(self) -> Severity:
        return worst(self.findings)

    def to_json(self) -> dict[str, Any]:
        v = self.view
        return {
            "job_id": v.job_id,
            "job_name": v.job_name,
            "source": v.source,
            "state": v.status,
            "profiled": v.profile is not None,
            "why_not_profiled": v.problem,
            # a price from a profile whose model misses its own run says so (DESIGN decision 10)
            "calibration": None
            if v.profile is None or v.profile.calibration is None
            else v.profile.calibration.brief(),
            "cluster": v.cluster_note or None,
            "tasks": {"map": len(v.side("map")), "reduce": len(v.side("reduce"))},
            "severity": self.severity.label,
            "findings": [f.to_json() for f in self.findings],
            "warnings": v.warnings,
        }


def run_heuristics(view: JobView) -> list[Finding]:
    """Every heuristic on one job (those that cannot run say why)."""
    return [fn(view) for _, fn in HEURISTICS]


def diagnose_view(
    view: JobView,
    cluster_for: Callable[[JobProfile], tuple[ClusterSpec, str]] | None = None,
    *,
    resamples: int = 100,
    seed: int = 0,
    progress: Progress | None = None,
) -> Diagnosis:
    """Run the heuristics and price their findings on the job's profile and cluster."""
    if view.profile is not None and view.cluster is None:
        if cluster_for is not None:
            view.cluster, view.cluster_note = cluster_for(view.profile)
        else:
            view.cluster, view.cluster_note = ClusterSpec(num_nodes=10), "10 nodes (default)"
    findings = run_heuristics(view)
    price_findings(view, findings, resamples=resamples, seed=seed, progress=progress)
    return Diagnosis(view, findings)


def load_jobs(path: Path, conf: Path | None = None) -> list[JobView]:
    """The jobs of one history, profile or run-record file (not a catalog directory)."""
    if not path.exists():
        raise InputError("no such file or directory", path=str(path))
    return load_file(path, conf)


__all__ = [
    "CODES",
    "HEURISTICS",
    "Diagnosis",
    "Finding",
    "JobView",
    "Price",
    "Severity",
    "diagnose_view",
    "is_catalog",
    "iter_catalog",
    "load_jobs",
    "run_heuristics",
]

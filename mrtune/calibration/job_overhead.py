"""The job's own fixed time, outside every task: measured from the history it ran in.

A MapReduce job's duration is more than its tasks. Before the first task starts, YARN launches
the ``MRAppMaster`` (a container and a JVM), which reads the splits, runs the job's
``OutputCommitter.setupJob`` and asks for containers; after the last task it runs
``commitJob`` (``FileOutputCommitter`` moves the task outputs) and writes the history. Under
``LocalJobRunner`` the driver does the same work in the client JVM. None of it depends on the
settings the optimizer searches, but it is part of the time the user sees, so a prediction
without it overstates every speedup: on this project's local sort job the driver holds 1.25 s of
a 5.2 s run, and a change predicted ×1.23 on the task span is ×1.17 on the job.

The history measures it directly: the job duration (``JobHistory`` launch→finish; a run
record's submit→done) minus the task span (first attempt start → last attempt finish). The
queue wait before launch is left out: it is the cluster's load, not the job's.
:attr:`~mrtune.costmodel.CostFactors.job_overhead_ms` carries it, and
:func:`mrtune.costmodel.job.predict_job` adds it to every configuration's job time.
"""

from __future__ import annotations

from mrtune.costmodel.profile import JobProfile

#: Provenance key of the factor.
KEY = "costs.job_overhead_ms"


def measured_job_overhead_ms(profile: JobProfile) -> float | None:
    """Job duration minus task span, from the profile's own facts and attempts (None when the
    history does not time the job, or holds no attempt).

    A run record states it already (``cluster_facts["job_overhead_ms"]``,
    :func:`mrtune.calibration.run_profile.job_overhead_ms`); a history gives the job's
    launch→finish as ``cluster_facts["job_ms"]``. A negative difference (clocks of different
    hosts, or a duration the source rounds) is clipped at 0.
    """
    facts = profile.cluster_facts
    direct = facts.get("job_overhead_ms")
    if isinstance(direct, float):
        return max(direct, 0.0)
    job_ms = facts.get("job_ms")
    if not isinstance(job_ms, float) or job_ms <= 0 or not profile.observed:
        return None
    span = max(o.finish_ms for o in profile.observed) - min(o.start_ms for o in profile.observed)
    return max(job_ms - float(span), 0.0)


def with_job_overhead(profile: JobProfile) -> JobProfile:
    """``profile`` with :attr:`CostFactors.job_overhead_ms` measured from its history, when the
    history times the job; otherwise unchanged (the factor keeps its value and provenance)."""
    ovh = measured_job_overhead_ms(profile)
    if ovh is None:
        return profile
    return profile.model_copy(
        update={
            "costs": profile.costs.model_copy(update={"job_overhead_ms": ovh}),
            "provenance": {
                **profile.provenance,
                KEY: "measured: job duration (launch→finish) − task span "
                "(first attempt start → last attempt finish)",
            },
        }
    )

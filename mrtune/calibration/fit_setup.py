"""The fit setup a profile is calibrated with: the cluster's priors and the spill overlap.

One definition, read by the first fit (:mod:`mrtune.calibration.profiles`) and by every refit of
a resample (:mod:`mrtune.calibration.resample`), so a bootstrap refits exactly the fit the
profile was calibrated with.
"""

from __future__ import annotations

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.profile import CostFactors, JobProfile


def cluster_fit_setup(profile: JobProfile) -> tuple[CostFactors, bool]:
    """The priors and spill overlap a cluster history's fit uses (issue 20).

    Priors: :meth:`~mrtune.costmodel.cluster.ClusterSpec.cost_priors` of the inferred
    cluster (container and JVM start, the read intercept, per-spill and per-fetch costs, the
    shuffle floor), kept for what the history cannot separate. Spill overlap: Hadoop's
    SpillThread runs beside the map on every cluster, as the job model predicts it; not
    for per-phase tables, whose spill phase times every spill (serial rows).
    """
    spec = ClusterSpec(**profile.cluster.spec_fields()) if profile.cluster else ClusterSpec()
    per_phase = any("spill" in t.phases_ms for t in profile.observed if t.kind == "map")
    return spec.cost_priors(), not per_phase

"""Cost factors the calibration history cannot separate, given from OTHER runs.

A YARN calibration run at the cluster's defaults spills once per map and merges nothing, so
its history cannot price an extra spill: the fit keeps the documented YARN prior for it
(:data:`mrtune.costmodel.cluster.YARN_COST_PRIORS`: ``spill_file_ns`` 300 ms, "a new spill
file and its index, the SpillThread hand-off and, in a fresh JVM, the sort code's first
compilation"). :func:`fit_profile` fits the same profile as
:func:`mrtune.calibration.profiles.build_profile` with some of those priors replaced by values
measured elsewhere (another setting's runs, another round: never the scored label's), the
way ``--reduce-fixed-ms`` gives the reduce's fixed time. The study that chooses them under
leave-one-label-out is ``benchmarks/yarn_repeat_study.py``.
"""

from __future__ import annotations

from collections.abc import Mapping

from mrtune.calibration.cost_factors import fit_cost_factors
from mrtune.calibration.fit_setup import cluster_fit_setup
from mrtune.calibration.job_overhead import with_job_overhead
from mrtune.calibration.profiles import build_profile
from mrtune.calibration.resample import with_bootstrap
from mrtune.calibration.self_check import with_self_check
from mrtune.costmodel import JobProfile
from mrtune.costmodel.profile import CostFactors
from mrtune.errors import InputError
from mrtune.profiling.build import build_statistics
from mrtune.readers.conf import ConfFile
from mrtune.readers.history import JobHistory


def fit_profile(
    history: JobHistory, conf: ConfFile, priors: Mapping[str, float] | None = None
) -> JobProfile:
    """:func:`~mrtune.calibration.profiles.build_profile`, its YARN priors updated with
    ``priors`` (cost factor → value, measured on other runs; the provenance says so)."""
    if not priors:
        return build_profile(history, conf)
    unknown = sorted(set(priors) - set(CostFactors.model_fields))
    if unknown:
        raise InputError("not a cost factor", field="priors", value=", ".join(unknown))
    profile, cfg = build_statistics(history, conf)
    prior, overlap = cluster_fit_setup(profile)
    source = "given: measured on other runs (" + ", ".join(f"{k}={v:g}" for k, v in priors.items())
    fitted = fit_cost_factors(
        profile,
        cfg,
        prior=prior.model_copy(update=dict(priors)),
        prior_source=f"prior: YARN cluster (ClusterSpec.cost_priors); {source})",
        spill_overlap=overlap,
    )
    prov = dict(fitted.profile.provenance)
    for k, v in priors.items():  # kept as given where the history could not separate it
        if getattr(fitted.profile.costs, k) == v:
            prov[f"costs.{k}"] = f"{source}); {prov.get(f'costs.{k}', '')}"
    out = fitted.profile.model_copy(update={"provenance": prov})
    return with_bootstrap(with_self_check(with_job_overhead(out), cfg), cfg)

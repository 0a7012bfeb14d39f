"""History → calibrated :class:`~mrtune.costmodel.JobProfile`: the whole ``mrtune profile`` path.

Readers (:mod:`mrtune.readers`) give a :class:`~mrtune.readers.history.JobHistory`; profiling
(:mod:`mrtune.profiling`) turns its counters into dataflow statistics; this module fits the cost
factors to the observed task times (:mod:`mrtune.calibration.cost_factors`). It sits in the
calibration layer because it is the first place where all three meet.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mrtune.calibration.cost_factors import fit_cost_factors
from mrtune.calibration.cost_units import COST_UNIT_KEY, cost_unit_statement
from mrtune.calibration.fit_setup import cluster_fit_setup
from mrtune.calibration.job_overhead import with_job_overhead
from mrtune.calibration.resample import with_bootstrap
from mrtune.calibration.self_check import with_self_check
from mrtune.costmodel.profile import CalibrationCheck, CostFactors, JobProfile
from mrtune.profiling.build import build_statistics
from mrtune.readers import SourceFormat, load_history
from mrtune.readers.conf import ConfFile, find_conf_for, load_conf
from mrtune.readers.history import JobHistory


def build_profile(
    history: JobHistory,
    conf: ConfFile | Mapping[str, str] | None = None,
    *,
    calibrate: bool = True,
) -> JobProfile:
    """Turn a job history (and its configuration) into a :class:`JobProfile`.

    With ``calibrate`` the cost factors are fitted to the history's task times; without it they
    stay at their defaults and the provenance says so. Either way the job model is then run
    under the inferred cluster and compared with the run (:mod:`mrtune.calibration.self_check`).
    """
    profile, cfg = build_statistics(history, conf)
    if calibrate:
        prior, overlap = cluster_fit_setup(profile)
        fitted = fit_cost_factors(
            profile,
            cfg,
            prior=prior,
            prior_source="prior: YARN cluster (ClusterSpec.cost_priors)",
            spill_overlap=overlap,
        )
        stated = fitted.profile.model_copy(
            update={
                "provenance": {
                    **fitted.profile.provenance,
                    COST_UNIT_KEY: cost_unit_statement(fitted.profile),
                }
            }
        )
        return with_bootstrap(with_self_check(with_job_overhead(stated), cfg), cfg)
    prov = dict(profile.provenance)
    for name in CostFactors.model_fields:
        prov.setdefault(f"costs.{name}", "defaulted: calibration not run")
    not_run = CalibrationCheck(status="not_run", reason="cost factors are defaults")
    return with_self_check(
        with_job_overhead(profile.model_copy(update={"provenance": prov, "calibration": not_run})),
        cfg,
    )


def load_profile_source(
    path: str | Path,
    conf: str | Path | ConfFile | None = None,
    *,
    fmt: SourceFormat = "auto",
    job: str | None = None,
    find_conf: bool = True,
) -> JobProfile:
    """A :class:`~mrtune.costmodel.JobProfile` from a history file (and optionally its configuration).

    Without ``conf``, a ``<job id>_conf.xml`` next to a ``.jhist`` is used when present
    (``find_conf``), as the JobHistory server stores them side by side.
    """
    history = load_history(path, fmt=fmt, job=job)
    conf_file: ConfFile | None
    if isinstance(conf, ConfFile):
        conf_file = conf
    elif conf is not None:
        conf_file = load_conf(conf)
    else:
        conf_file = None
        if find_conf and history.source_format == "jhist":
            found = find_conf_for(path, history.job_id)
            if found is not None:
                conf_file = load_conf(found)
    return build_profile(history, conf_file)


__all__ = ["build_profile", "cluster_fit_setup", "load_profile_source"]

"""Self-consistency check: the model's job time for the job's own run vs what the history shows.

Calibration (:mod:`mrtune.calibration.cost_factors`) fits the cost factors to the task times,
so the per-phase check beside it says how well the *task* model reproduces the attempts. This
check asks the question a user asks next: run the job-level model (waves, slow-start overlap,
reduce ramp-up; :func:`mrtune.costmodel.job.predict_job`) under the cluster inferred from the
history (:mod:`mrtune.profiling.cluster_facts`) and the job's own configuration, and compare with
the run itself, stage by stage:

* **map tasks**: the attempts that ran vs the profile's split layout (they differ when each map
  read more than one split of the configuration: unsplittable input, or a split size the
  recorded configuration does not hold);
* **map waves**: ``ceil(maps / peak concurrent maps)`` observed, ``ceil(maps / map slots)``
  modelled;
* **map stage**: first map start → last map finish;
* **reduce stage**: last map finish → last reduce finish (the model's job time − its map stage);
* **task span**: first attempt start → last attempt finish, which is what the model's job time
  covers; and the **job duration** (launch → finish), which adds the MRAppMaster's start-up,
  its container requests before the first task, and the job commit: the model holds them as
  one measured constant (``CostFactors.job_overhead_ms``, :mod:`mrtune.calibration.job_overhead`).

Results go into ``profile.cluster_facts`` as ``self_check.<what>.{observed,model}[_ms]`` (and
``.error`` = model / observed − 1), beside the calibration's ``fit.<segment>.*`` facts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.job import predict_job
from mrtune.costmodel.profile import JobProfile

PREFIX = "self_check."
#: Rows of the check, in the order they are shown: (key, label, unit).
ROWS = (
    ("job", "job duration (launch→finish)", "ms"),
    ("tasks", "task span (first start→last finish)", "ms"),
    ("maps", "map tasks", ""),
    ("map_waves", "map waves", ""),
    ("map_stage", "map stage", "ms"),
    ("reduce_waves", "reduce waves", ""),
    ("reduce_stage", "reduce stage", "ms"),
)


@dataclass(frozen=True)
class CheckRow:
    """One compared quantity (``model`` is the job model's, ``observed`` the history's)."""

    key: str
    label: str
    unit: str
    observed: float
    model: float

    @property
    def error(self) -> float | None:
        """model / observed − 1 (None when nothing was observed)."""
        return self.model / self.observed - 1.0 if self.observed > 0 else None


def _observed(profile: JobProfile) -> dict[str, float]:
    """Stage times and waves of the run, from its successful attempts."""
    maps = [o for o in profile.observed if o.kind == "map"]
    reds = [o for o in profile.observed if o.kind == "reduce"]
    out: dict[str, float] = {}
    if not maps:
        return out
    first = min(o.start_ms for o in profile.observed)
    last_map = max(o.finish_ms for o in maps)
    last = max(o.finish_ms for o in profile.observed)
    out["tasks"] = float(last - first)
    # the maps the job ran: an attempt whose times alone are impossible is left out of the
    # timings but not of the job (profiling.task_checks), so the history's count, not theirs
    ran = profile.cluster_facts.get("successful_map_attempts")
    out["maps"] = float(ran) if isinstance(ran, int | float) and ran > 0 else float(len(maps))
    out["map_stage"] = float(last_map - min(o.start_ms for o in maps))
    job_ms = profile.cluster_facts.get("job_ms")
    if isinstance(job_ms, float) and job_ms > 0:
        out["job"] = job_ms
    c = profile.cluster
    if c is not None and c.peak_maps.value > 0:
        out["map_waves"] = float(math.ceil(len(maps) / c.peak_maps.value))
    if reds:
        out["reduce_stage"] = float(max(last - last_map, 0))
        if c is not None and c.peak_reduces.value > 0:
            out["reduce_waves"] = float(math.ceil(len(reds) / c.peak_reduces.value))
    return out


def self_check_facts(
    profile: JobProfile, cfg: HadoopConfig, cluster: ClusterSpec | None = None
) -> dict[str, float | str]:
    """The check's facts for a profile built from a history (empty without a cluster or
    observed attempts, or when the model cannot evaluate the job's configuration).

    ``cluster``: where the run ran, when the profile infers none from a history (a local run
    record: ``LocalJobRunner`` as :meth:`ClusterSpec.local`); waves are then not compared
    (one task at a time: as many waves as tasks on both sides)."""
    if (profile.cluster is None and cluster is None) or not profile.observed:
        return {}
    obs = _observed(profile)
    if not obs:
        return {}
    spec = cluster if cluster is not None else ClusterSpec(**profile.cluster.spec_fields())
    pred = predict_job(profile, ConfigBatch.from_configs([cfg]), spec)
    job = float(pred.job_ms[0])
    tasks = job - float(profile.costs.job_overhead_ms)
    model = {
        "job": job,
        "tasks": tasks,
        "maps": float(pred.num_maps[0]),
        "map_waves": float(pred.map_waves[0]),
        "map_stage": float(pred.map_stage_ms[0]),
        "reduce_waves": float(pred.reduce_waves[0]),
        # observed: last map finish → last reduce finish, inside the task span; the job's
        # launch and commit overhead is not part of it
        "reduce_stage": tasks - float(pred.map_stage_ms[0]),
    }
    facts: dict[str, float | str] = {}
    for key, _, unit in ROWS:
        if key not in obs:
            continue
        suffix = "_ms" if unit == "ms" else ""
        facts[f"{PREFIX}{key}.observed{suffix}"] = obs[key]
        facts[f"{PREFIX}{key}.model{suffix}"] = model[key]
        if obs[key] > 0:
            facts[f"{PREFIX}{key}.error"] = model[key] / obs[key] - 1.0
    return facts


def check_rows(facts: dict[str, float | str]) -> list[CheckRow]:
    """The stored check, row by row (for display); empty when the profile has none."""
    rows = []
    for key, label, unit in ROWS:
        suffix = "_ms" if unit == "ms" else ""
        o, m = (
            facts.get(f"{PREFIX}{key}.observed{suffix}"),
            facts.get(f"{PREFIX}{key}.model{suffix}"),
        )
        if isinstance(o, float) and isinstance(m, float):
            rows.append(CheckRow(key, label, unit, o, m))
    return rows


def with_self_check(
    profile: JobProfile, cfg: HadoopConfig, cluster: ClusterSpec | None = None
) -> JobProfile:
    """``profile`` with the check's facts added (a warning instead when the model cannot run).

    ``cluster``: see :func:`self_check_facts` (local run records,
    :func:`mrtune.calibration.run_profile.profile_from_run`)."""
    try:
        facts = self_check_facts(profile, cfg, cluster)
    except (ValueError, ArithmeticError) as exc:
        msg = f"self-consistency check not run: {' '.join(str(exc).split())[:160]}"
        return profile.model_copy(update={"warnings": [*profile.warnings, msg]})
    if not facts:
        return profile
    warnings = list(profile.warnings)
    obs, model = facts.get(f"{PREFIX}maps.observed"), facts.get(f"{PREFIX}maps.model")
    if isinstance(obs, float) and isinstance(model, float) and obs != model:
        why = (
            "each map read more than one split of the recorded configuration (unsplittable "
            "input, or a larger split size than it says)"
            if cluster is None
            else f"the model cuts {profile.input_files} equal files (input_files) of the run's "
            "input into other splits than the run's own files gave"
        )
        warnings.append(
            f"the profile's input layout gives {model:g} maps where the job ran {obs:g}: {why}; "
            "job-level predictions carry that difference"
        )
    return profile.model_copy(
        update={"cluster_facts": {**profile.cluster_facts, **facts}, "warnings": warnings}
    )


#: A job-level miss of the task span beyond this share is said in every command that uses the
#: profile (:func:`job_model_miss`), beside the calibration's per-segment verdict.
JOB_MISS_TOLERANCE = 0.25


def job_model_miss(profile: JobProfile) -> str | None:
    """One line when the job model misses the run's own task span by more than
    :data:`JOB_MISS_TOLERANCE`, naming the stage that misses most; else ``None``.

    The calibration checks each phase of each task; the job model adds waves, slow-start and
    the cluster inferred from the history, and can miss where every phase passed (the 2009
    production trace's job 0004: every segment but one within 15%, task span 251 s observed
    vs 75 s modelled). Predictions carry that difference, so it is never left unsaid."""
    rows = {r.key: r for r in check_rows(profile.cluster_facts)}
    span = rows.get("tasks")
    if span is None or span.error is None or abs(span.error) <= JOB_MISS_TOLERANCE:
        return None
    stages = [rows[k] for k in ("map_stage", "reduce_stage") if k in rows]
    worst = max(stages, key=lambda r: abs(r.error or 0.0), default=None)
    where = (
        f"; worst the {worst.label} {worst.observed / 1000:.1f} s vs {worst.model / 1000:.1f} s "
        f"({worst.error:+.0%})"
        if worst is not None and worst.error is not None
        else ""
    )
    return (
        f"the job model misses this run's task span: {span.observed / 1000:.1f} s observed vs "
        f"{span.model / 1000:.1f} s modelled ({span.error:+.0%}){where}; job-level predictions "
        "carry that difference"
    )

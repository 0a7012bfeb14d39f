"""A job fit's result: the calibrated profile, each segment's reproduction and the
provenance of every factor (split from :mod:`mrtune.calibration.cost_factors`).

The fitted values are turned back into :class:`~mrtune.costmodel.profile.CostFactors` with a
provenance line each (measured, or why defaulted), and each observed segment is compared with
the model at the fitted costs (its mean), which ``profile.cluster_facts`` keeps as
``fit.<segment>.*`` for the calibration check (:mod:`mrtune.calibration.check`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mrtune.calibration.check import MissHint
from mrtune.calibration.fixed_costs import FIXED_COST_COLUMNS
from mrtune.calibration.rows import UNIT_FACTORS
from mrtune.calibration.solve import _Fit
from mrtune.costmodel.profile import PER_BYTE_FACTORS, CalibrationCheck, CostFactors, JobProfile


@dataclass
class SegmentFit:
    """One segment's observations and the model's reproduction of them."""

    name: str
    n: int
    observed_mean_ms: float
    model_mean_ms: float
    fitted: list[str] = field(default_factory=list)


@dataclass
class CalibrationResult:
    profile: JobProfile
    segments: list[SegmentFit]
    #: the calibrated model against the observed phase times (:mod:`mrtune.calibration.check`)
    check: CalibrationCheck | None = None


def miss_hints(fit: _Fit) -> dict[str, str | MissHint]:
    """Per segment, what in the fit explains a miss there: in a segment of fixed time (the
    volume terms small), a model above the observation is a fixed-cost prior larger than this
    cluster shows and a model below is fixed time it has no term for; elsewhere, the factors
    that price it pushed to their 0 bound."""
    hints: dict[str, str | MissHint] = {}
    at_zero = [
        i
        for i, f in enumerate(fit.columns)
        if f in UNIT_FACTORS
        and fit.theta[i] <= 1e-9 * max(getattr(CostFactors(), f), 1.0)
        and getattr(CostFactors(), f) > 0
    ]
    for s in fit.present:
        if s in fit.fixed_share:
            share = f"the model's volume terms give {fit.fixed_share[s]:.1%} of it at prior costs"
            priors = _fixed_priors(fit, s)
            hints[s] = MissHint(
                above=f"{share}: a fixed-cost prior larger than this cluster shows"
                + (f" ({priors})" if priors else ""),
                below=f"{share}: fixed time it has no term for",
            )
            continue
        V = np.vstack(fit.obs[s].rows)
        zero = [fit.columns[i] for i in at_zero if np.abs(V[:, i]).sum() > 0]
        if zero:
            bound = f"factor(s) pricing it fitted to their 0 bound: {', '.join(zero[:4])}"
            priors = _fixed_priors(fit, s)
            hints[s] = MissHint(
                above=f"fixed-cost prior(s) larger than this cluster shows ({priors}); {bound}"
                if priors
                else bound,
                below=bound,
            )
    return hints


#: Below this share of a CPU a task was starved: its phase times hold waits for the CPU.
STARVED_CPU_SHARE = 0.5


def cpu_share(profile: JobProfile) -> float | None:
    """The observed attempts' CPU time (``CPU_MILLISECONDS``) over their elapsed time, or None
    when no attempt recorded it."""
    cpu = elapsed = 0.0
    for t in profile.observed:
        ms = t.counters.get("CPU_MILLISECONDS")
        if ms is None or t.finish_ms <= t.start_ms:
            continue
        cpu += float(ms)
        elapsed += float(t.finish_ms - t.start_ms)
    return cpu / elapsed if elapsed > 0 else None


def with_starved_cpu(hints: dict[str, str | MissHint], profile: JobProfile) -> dict:
    """``hints`` whose "no term for" side also names a starved CPU when the tasks used less
    than :data:`STARVED_CPU_SHARE` of one: SecondarySort's final spill (13.7 s observed, 0.3 s
    modelled) ran at 18-28% CPU on a host at load 8-11, which "fixed time the model has no
    term for" did not say."""
    share = cpu_share(profile)
    if share is None or share >= STARVED_CPU_SHARE:
        return hints
    note = f"; the tasks used {share:.0%} of a CPU over their run (a busy host: waits)"
    out: dict[str, str | MissHint] = {}
    for seg, h in hints.items():
        if isinstance(h, MissHint):
            out[seg] = MissHint(above=h.above, below=h.below + note)
        else:
            out[seg] = h + note
    return out


def _fixed_priors(fit: _Fit, segment: str) -> str:
    """The fixed costs the fit kept at a prior (not measured) and charges in ``segment``,
    each with its mean time there: ``spill_file_ns 300 ms``."""
    V = np.vstack(fit.obs[segment].rows)
    out = []
    for i, f in enumerate(fit.columns):
        if f not in FIXED_COST_COLUMNS or fit.prov.get(f"costs.{f}", "").startswith("measured"):
            continue
        ms = float(np.mean(V[:, i])) * float(fit.theta[i])
        if ms > 0:
            out.append(f"{f} {ms:.4g} ms")
    return ", ".join(out)


def finish(profile: JobProfile, fit: _Fit) -> CalibrationResult:
    costs, prov = fit_costs_dict(fit)
    seg_fits = segment_fits(fit)
    facts = dict(profile.cluster_facts)
    for seg_name, v in fit.warmup_ms.items():
        # the first tasks' extra time in the shared JVM: a job constant, not a cost factor
        facts[f"jvm_warmup.{seg_name}_ms"] = v
    for name, ref in fit.shape_reference.items():
        # what the shape factor's grid search started from: the evidence's span
        # (mrtune.optimizer.priors.shape_spans)
        facts[f"fit.{name}.reference"] = ref
    for sf in seg_fits:
        facts[f"fit.{sf.name}.observed_ms"] = sf.observed_mean_ms
        facts[f"fit.{sf.name}.model_ms"] = sf.model_mean_ms
        facts[f"fit.{sf.name}.n"] = float(sf.n)
    new = profile.model_copy(
        update={
            "costs": CostFactors(**costs),
            "provenance": {**profile.provenance, **prov},
            "warnings": [*profile.warnings, *fit.warnings],
            "cluster_facts": facts,
            "codecs": {**profile.codecs, **fit.codecs},
        }
    )
    return CalibrationResult(new, seg_fits)


def fit_costs_dict(fit: _Fit) -> tuple[dict[str, float], dict[str, str]]:
    """The fitted :class:`CostFactors` values and their provenance (codec columns excluded)."""
    defaults = CostFactors()
    prov = dict(fit.prov)
    factors = (*UNIT_FACTORS, *PER_BYTE_FACTORS)
    costs = {f: float(fit.theta[i]) for i, f in enumerate(fit.columns) if f in factors}
    costs["task_overhead_ms"] = fit.fixed
    costs["spill_contention"] = fit.contention
    costs["sort_cache_slowdown"] = fit.slowdown
    costs["sort_cache_bytes"] = fit.cache_bytes
    prov["costs.sort_cache_slowdown"] = fit.slowdown_how or (
        "defaulted: n·log n comparisons at one cost (reference §2.3)"
        if fit.slowdown == 0
        else "prior"
    )
    prov["costs.sort_cache_bytes"] = "defaulted: 16 MiB, the knee measured on local runs"
    prov["costs.spill_contention"] = fit.contention_how or (
        "defaulted: spills not taken to overlap the map function on this cluster (serial "
        "phases, reference §2.3)"
    )
    costs["setup_ms"] = defaults.setup_ms
    costs["cleanup_ms"] = defaults.cleanup_ms
    prov.setdefault(
        "costs.task_overhead_ms",
        fit.fixed_how or "defaulted: not separable from volume terms (task sizes too alike)",
    )
    for f in ("setup_ms", "cleanup_ms"):
        prov[f"costs.{f}"] = "defaulted: not timed apart in histories (in task_overhead_ms)"
    prov["costs.shapes_on_cluster"] = (
        "defaulted: false, spill_contention and sort_cache_slowdown are local-mode terms"
    )
    prov["costs.reduce_includes_final_merge"] = (
        "defaulted: false, reduce_cpu is fitted with the final merge charged apart"
    )
    prov["costs.reduce_side"] = (
        "defaulted: none, a history's phase times do not separate a factor's map-side and "
        "reduce-side values: one shared value each"
    )
    for f in UNIT_FACTORS:
        prov.setdefault(f"costs.{f}", "defaulted: its phase was not observed")
    for f in PER_BYTE_FACTORS:
        prov.setdefault(
            f"costs.{f}",
            "defaulted: 0, CPU priced per record (these phase times do not separate a "
            "per-byte share; mrtune.calibration.cost_units)",
        )
    return costs, prov


def segment_fits(fit: _Fit) -> list[SegmentFit]:
    """Observed vs model mean time of each segment at the fitted costs."""
    out = []
    for s in fit.present:
        o = fit.obs[s]
        pred = np.vstack(o.rows) @ fit.theta + np.array(o.offset) + fit.fixed * np.array(o.fixed_w)
        if s in fit.warmup_ms and o.warm_w:
            pred = pred + fit.warmup_ms[s] * np.array(o.warm_w)
        out.append(SegmentFit(s, len(o.y), float(np.mean(o.y)), float(np.mean(pred))))
    return out

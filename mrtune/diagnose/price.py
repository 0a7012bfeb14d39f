"""The price of each finding: the settings that fix it and what the what-if model says fixing
it saves, with a 90% interval built from the evidence.

How a fix is found: a finding names the knobs that act on it (``fix_knobs``); the optimizer's
exhaustive strategy searches those knobs alone on the job's profile
(:func:`mrtune.optimizer.recommend.recommend` with ``only=``; changes gaining < 1% are
dropped, as for ``optimize``). A finding with a concrete fix from its evidence
(``fix_settings``, e.g. the smallest container that holds the largest task) is priced by
:func:`mrtune.optimizer.whatif.apply_changes` directly. Time fixes are priced in job time, the
memory and slow-start fixes in container GB·s (they free containers, not time).

The interval: the profile's observed tasks are resampled with
replacement (maps and reduces separately, so each resample keeps both kinds), the cost factors
are refitted on each resample (:func:`mrtune.calibration.resample.refit_resamples`), and
current vs fixed configuration are re-predicted in one vectorised call per resample
(:func:`mrtune.optimizer.confidence.evaluate_profiles`); the interval is the 5th–95th percentile
of the saving, shifted so that it centres on the profile's own estimate (the refit on all
tasks can differ from how the profile was fitted, e.g. on a machine benchmark). Findings the model has no term for (skew, GC) are priced by their observed bound,
and the same task resampling gives that bound's interval.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mrtune.costmodel import HadoopConfig
from mrtune.diagnose._core import Finding, JobView, Price, Severity
from mrtune.errors import MrtuneError

Progress = Callable[[int, int], None]
#: settings LocalJobRunner does not honour (``SearchSpace.for_job(local_mode_honoured=True)``)
LOCAL_IGNORED = {
    "mapreduce.reduce.shuffle.parallelcopies",
    "mapreduce.job.reduce.slowstart.completedmaps",
    "mapreduce.map.memory.mb",
    "mapreduce.reduce.memory.mb",
    "mapreduce.map.java.opts",
    "mapreduce.reduce.java.opts",
}
_UNIT = {"time": "ms", "resources": "GB·s"}
_METRIC = {"time": "job_ms", "resources": "container_gb_s"}


@dataclass
class _Fix:
    finding: Finding
    config: HadoopConfig
    #: what the trust rule left out of the fix, and why ('' when nothing)
    withheld: str = ""


def _withheld_note(rec: object) -> str:
    """The fix's changes the trust rule left out, and why (``mrtune optimize``'s rule): a
    far move's in-region step is priced instead, the far value named as the option."""
    option = getattr(rec, "far_option", None)
    if option:
        return option
    parts = []
    for c in getattr(rec, "withheld", []):
        why = "; ".join(c.trust.reasons) if c.trust is not None else "low confidence"
        parts.append(f"{c.name} → {c.recommended} left out ({why})")
    return "; ".join(parts)


def _search_fix(view: JobView, f: Finding) -> tuple[dict[str, str], HadoopConfig, str] | str:
    """Best values of the finding's knobs alone, as ``optimize`` would write them (the trust
    rule: a far move replaced by the best step inside the trust region, low-confidence
    changes left out and named), or why there is none."""
    from mrtune.optimizer.objective import ObjectiveKind
    from mrtune.optimizer.recommend import recommend
    from mrtune.optimizer.whatif import apply_changes

    assert view.profile is not None and view.config is not None and view.cluster is not None
    local = bool(view.cluster.local_mode)
    if local and set(f.fix_settings) | set(f.fix_knobs) <= LOCAL_IGNORED:
        return "Hadoop's LocalJobRunner ignores these settings (the job ran in local mode)"
    if f.fix_settings:
        try:
            cfg = apply_changes(view.config, f.fix_settings, view.profile)
        except (ValueError, MrtuneError) as exc:
            return f"the fix is not a valid configuration: {exc}"
        return dict(f.fix_settings), cfg, ""
    try:
        rec = recommend(
            view.profile,
            view.config,
            view.cluster,
            strategy="exhaustive",
            objective=ObjectiveKind(f.objective),
            only=list(f.fix_knobs),
            allow_memory=False,
            local_mode_honoured=local,
            confidence=True,  # the trust rule and its region, as optimize applies them
        )
    except (KeyError, ValueError, MrtuneError) as exc:
        return f"its settings do not apply to this job ({exc})"
    return dict(rec.properties), rec.config, _withheld_note(rec)


def bootstrap_savings(
    view: JobView,
    configs: list[HadoopConfig],
    metrics: list[str],
    resamples: int,
    seed: int = 0,
    progress: Progress | None = None,
) -> list[np.ndarray]:
    """Per configuration: the re-predicted saving (current − config, in ``metrics[i]``: job_ms
    or container_gb_s) on each bootstrap resample of the profile's observed tasks, with the
    cost factors refitted on each resample (:func:`mrtune.calibration.resample.refit_resamples`,
    the resampling core shared with the optimizer's intervals), shifted by the profile's own
    estimate minus the refit on all tasks (so the draws centre on the reported saving).
    Every resample × configuration is one vectorised model call
    (:func:`mrtune.optimizer.confidence.evaluate_profiles`). Empty arrays when the profile has
    no observed tasks."""
    from mrtune.calibration.resample import refit_resamples
    from mrtune.optimizer.confidence import evaluate_profiles

    prof, base, cluster = view.profile, view.config, view.cluster
    assert prof is not None and base is not None and cluster is not None
    if not prof.observed or resamples < 2 or not configs:
        return [np.array([]) for _ in configs]
    refits = refit_resamples(prof, base, resamples, seed, progress)
    if refits.full is None:
        return [np.array([]) for _ in configs]
    job_ms, gb_s = evaluate_profiles(
        [prof, refits.full, *refits.samples], [base, *configs], cluster
    )
    out = []
    for i, m in enumerate(metrics):
        v = job_ms if m == "job_ms" else gb_s
        saving = v[:, 0] - v[:, i + 1]
        # centred on the profile's own estimate: the refit on all tasks may differ from how
        # the profile was fitted (e.g. a run profile on machine costs)
        out.append(saving[0] + saving[2:] - saving[1])
    return out


def _bootstrap_model(
    view: JobView, fixes: list[_Fix], resamples: int, seed: int, progress: Progress | None
) -> dict[int, tuple[float, float]]:
    """Per fix (by index): the 5th and 95th percentile of the re-predicted saving."""
    draws = bootstrap_savings(
        view,
        [fx.config for fx in fixes],
        [_METRIC[fx.finding.objective] for fx in fixes],
        resamples,
        seed,
        progress,
    )
    return {
        i: (float(np.percentile(s, 5)), float(np.percentile(s, 95)))
        for i, s in enumerate(draws)
        if len(s) >= 2
    }


def _observed_price(view: JobView, f: Finding, resamples: int, seed: int) -> Price:
    """Price by the observed bound, its interval by resampling the side's tasks."""
    tasks = view.side(f.side) if f.side in {"map", "reduce"} else view.tasks
    span = (
        float(max(t.finish_ms for t in view.tasks) - min(t.start_ms for t in view.tasks))
        if view.tasks
        else 0.0
    )
    rng = np.random.default_rng(seed)
    gc = f.key.endswith("_gc")
    vals = np.array(
        [t.counters.get("GC_TIME_MILLIS", 0.0) if gc else t.finish_ms - t.start_ms for t in tasks],
        dtype=float,
    )
    interval = None
    if len(vals) >= 2 and resamples >= 2:
        draws = rng.choice(vals, size=(resamples, len(vals)), replace=True)
        stat = draws.mean(axis=1) if gc else draws.max(axis=1) - draws.mean(axis=1)
        interval = (float(np.percentile(stat, 5)), float(np.percentile(stat, 95)))
    what = "mean GC time per task" if gc else "slowest − mean task runtime"
    return Price(
        settings={},
        basis=f"observed bound ({what}); the cost model has no term for this effect",
        unit="ms",
        current=span,
        saving=float(f.observed_bound_ms or 0.0),
        interval=interval,
        interval_method=f"{resamples} bootstrap resamples of the {len(vals)} observed "
        f"{f.side} tasks; 5th–95th percentile"
        if interval
        else "too few tasks to resample",
        note="a larger heap or less garbage (fewer objects per record) recovers it"
        if gc
        else "fix the key distribution (partitioner, salting) or split sizes; the model "
        "assumes equal tasks",
    )


def price_findings(
    view: JobView,
    findings: list[Finding],
    *,
    resamples: int = 100,
    seed: int = 0,
    progress: Progress | None = None,
) -> None:
    """Set ``finding.price`` on every computable finding that has a fix or an observed bound."""
    from mrtune.optimizer.whatif import Scenario, evaluate_scenarios

    can_model = view.profile is not None and view.config is not None and view.cluster is not None
    fixes: list[_Fix] = []
    settings: dict[str, dict[str, str]] = {}
    for f in findings:
        if not f.computable:
            continue
        if f.observed_bound_ms is not None and not (f.fix_knobs or f.fix_settings):
            f.price = _observed_price(view, f, resamples, seed)
            continue
        if not (f.fix_knobs or f.fix_settings):
            continue
        if not can_model:
            f.price = _no_price(f, view.problem or "no profile to price it on")
            continue
        found = _search_fix(view, f)
        if isinstance(found, str):
            f.price = _no_price(f, found)
            continue
        settings[f.key] = found[0]
        fixes.append(_Fix(f, found[1], found[2]))
    if not fixes:
        return
    assert view.profile is not None and view.config is not None and view.cluster is not None
    scen = [Scenario("current", view.profile, view.config, view.cluster)]
    scen += [Scenario(fx.finding.key, view.profile, fx.config, view.cluster) for fx in fixes]
    rows = evaluate_scenarios(scen)
    wanted = [i for i, fx in enumerate(fixes) if settings[fx.finding.key]]
    boot = _bootstrap_model(view, [fixes[i] for i in wanted], resamples, seed, progress)
    n_obs = len(view.profile.observed)
    for j, fx in enumerate(fixes):
        f, m = fx.finding, _METRIC[fx.finding.objective]
        k = wanted.index(j) if j in wanted else None
        iv = boot.get(k) if k is not None else None
        f.price = Price(
            settings={view.property_name(k): v for k, v in settings[f.key].items()},
            basis="what-if model",
            unit=_UNIT[f.objective],
            current=rows[0][m],
            saving=rows[0][m] - rows[j + 1][m],
            interval=iv,
            interval_method=(
                f"{resamples} bootstrap resamples of the profile's {n_obs} observed tasks, cost "
                "factors refitted on each, the same settings re-predicted, centred on the profile's "
                "own estimate; 5th–95th percentile"
            )
            if iv
            else (
                "no setting to change" if not settings[f.key] else "no observed tasks to resample"
            ),
            note=fx.withheld
            or (
                ""
                if settings[f.key]
                else "the model finds no change of "
                f"{', '.join(map(view.property_name, f.fix_knobs)) or 'these settings'} that "
                "gains 1% or more"
            ),
        )
        if f.observed_bound_ms is not None:
            f.evidence.setdefault("observed bound", f"{f.observed_bound_ms:,.0f} ms")


def _no_price(f: Finding, why: str) -> Price:
    return Price(
        settings={}, basis="not priced", unit=_UNIT[f.objective], current=0.0, saving=0.0, note=why
    )


def total_task_ms(view: JobView) -> float:
    """Observed task time of the job (for context in reports)."""
    return sum(float(t.finish_ms - t.start_ms) for t in view.tasks)


def worst(findings: list[Finding]) -> Severity:
    return max((f.severity for f in findings), default=Severity.NONE)

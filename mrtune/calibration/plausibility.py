"""A fitted cost factor far outside anything physical is not a measurement.

Least squares on a few phase times will move a factor as far as the rows let it when the time
it explains belongs to a term the model lacks, or to a partner factor the rows cannot tell
apart. The examples' TeraSort on the mini-cluster fitted ``segment_seek_ns`` at 6.0 s a segment
(×2,980 its 2 ms prior) to carry the reduce's HDFS write and commit, and a what-if then promised
−6.0 s a reduce from ``reduce.input.buffer.percent`` that a real run did not show; the gain was
said to rest on a "measured" factor.

A rate fitted beyond :data:`SPAN` times its prior range (``mrtune.costmodel.factor_priors.PRIORS``,
relative to the prior the fit started from), or a fixed cost above its physical ceiling
(:data:`FIXED_COST_CEILINGS`), keeps its
fitted value (the phase times it reproduces are real) but is labelled ``implausible`` instead
of ``measured``: every gain resting on it then counts as resting on a guess.
"""

from __future__ import annotations

from mrtune.costmodel.factor_priors import PRIORS
from mrtune.costmodel.profile import CostFactors, JobProfile

#: How far beyond its prior range (a ratio) a fitted factor may go and still be "measured".
SPAN = 10.0
IMPLAUSIBLE = "implausible"


#: Fixed costs have no relative span: a real 8-node cluster showed ~300 ms a spill against a
#: 0.5 ms prior (issue 20), and local mode none at all. A ceiling in absolute terms stands
#: instead: no spill file, merge segment or fetch takes 2 s of fixed time, and no task 30 s to
#: start (the mini-cluster's busiest containers took 12 s).
FIXED_COST_CEILINGS = {
    "spill_file_ns": 2e9,
    "segment_seek_ns": 2e9,
    "fetch_ns": 2e9,
    "task_overhead_ms": 30_000.0,
}


def _bounds(factor: str, start: float) -> tuple[float, float] | None:
    """The plausible values of ``factor`` fitted from ``start`` (its prior)."""
    if factor in FIXED_COST_CEILINGS:
        return 0.0, FIXED_COST_CEILINGS[factor]
    prior = PRIORS.get(factor)
    if prior is None or not prior.relative or start <= 0:
        return None
    return start * prior.low / SPAN, start * prior.high * SPAN


def flag_implausible(profile: JobProfile, prior: CostFactors) -> JobProfile:
    """``profile`` with each measured factor beyond its plausible span relabelled (module
    doc); unchanged when none is."""
    prov = dict(profile.provenance)
    changed = False
    for factor in CostFactors.model_fields:
        key = f"costs.{factor}"
        how = str(prov.get(key, ""))
        start = float(getattr(prior, factor) or 0.0)
        bounds = _bounds(factor, start)
        if not how.startswith("measured") or bounds is None:
            continue
        value = float(getattr(profile.costs, factor))
        lo, hi = bounds
        if lo <= value <= hi:
            continue
        where = (
            f"above {hi:g}, the most it can physically be"
            if factor in FIXED_COST_CEILINGS
            else f"at ×{value / start:.3g} its prior, beyond ×{lo / start:g}–×{hi / start:g}"
        )
        prov[key] = (
            f"{IMPLAUSIBLE}: fitted {where}: it likely carries time of a term the model "
            f"lacks, so it is not counted as measured ({how.removeprefix('measured: ')})"
        )
        changed = True
    return profile.model_copy(update={"provenance": prov}) if changed else profile

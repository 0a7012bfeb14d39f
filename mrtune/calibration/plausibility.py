"""A fitted cost factor far outside anything physical is not a measurement.

Least squares on a few phase times will move a factor as far as the rows let it when the time
it explains belongs to a term the model lacks, or to a partner factor the rows cannot tell
apart. The examples' TeraSort on the mini-cluster fitted ``segment_seek_ns`` at 6.0 s a segment
(×2,980 its 2 ms prior) to carry the reduce's HDFS write and commit, and a what-if then promised
−6.0 s a reduce from ``reduce.input.buffer.percent`` that a real run did not show; the gain was
said to rest on a "measured" factor.

A factor fitted beyond :data:`SPAN` times its prior range (``mrtune.costmodel.factor_priors.PRIORS``,
relative to the prior the fit started from), or below it where it is a rate (a fixed cost may
be 0: :data:`FIXED_COSTS`), keeps its
fitted value (the phase times it reproduces are real) but is labelled ``implausible`` instead
of ``measured``: every gain resting on it then counts as resting on a guess.
"""

from __future__ import annotations

from mrtune.costmodel.factor_priors import PRIORS
from mrtune.costmodel.profile import CostFactors, JobProfile

#: How far beyond its prior range (a ratio) a fitted factor may go and still be "measured".
SPAN = 10.0
IMPLAUSIBLE = "implausible"


#: Fixed costs (a task's overhead, a spill file's or a fetch's): near 0 is physical where the
#: run had none to pay (local mode: no container to start, files in the page cache), so only
#: their upper bound is checked.
FIXED_COSTS = frozenset(
    {"task_overhead_ms", "spill_file_ns", "segment_seek_ns", "fetch_ns", "sort_cache_bytes"}
)


def _bounds(factor: str) -> tuple[float, float] | None:
    prior = PRIORS.get(factor)
    if prior is None or not prior.relative:
        return None
    return (0.0 if factor in FIXED_COSTS else prior.low / SPAN), prior.high * SPAN


def flag_implausible(profile: JobProfile, prior: CostFactors) -> JobProfile:
    """``profile`` with each measured factor beyond its plausible span relabelled (module
    doc); unchanged when none is."""
    prov = dict(profile.provenance)
    changed = False
    for factor in CostFactors.model_fields:
        key = f"costs.{factor}"
        how = str(prov.get(key, ""))
        bounds = _bounds(factor)
        start = float(getattr(prior, factor) or 0.0)
        if not how.startswith("measured") or bounds is None or start <= 0:
            continue
        ratio = float(getattr(profile.costs, factor)) / start
        lo, hi = bounds
        if lo <= ratio <= hi:
            continue
        span = f"above ×{hi:g}" if lo <= 0 else f"beyond ×{lo:g}–×{hi:g}"
        prov[key] = (
            f"{IMPLAUSIBLE}: fitted at ×{ratio:.3g} its prior, {span}: it "
            f"likely carries time of a term the model lacks, so it is not counted as measured "
            f"({how.removeprefix('measured: ')})"
        )
        changed = True
    return profile.model_copy(update={"provenance": prov}) if changed else profile

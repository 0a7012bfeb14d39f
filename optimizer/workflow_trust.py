"""``optimize``'s trust rules for the workflow tuner: the trust region and the failed
calibration's miss.

The workflow tuner (:mod:`mrtune.optimizer.workflow_tuning`) had picked each job's setting from
its candidates' Pareto front with neither rule: it presented 20 → 2 reducers as the tuned
setting of a job whose calibration failed, where ``mrtune optimize`` on the same profile
marks the move low-confidence (×0.0426 of the history's value, beyond ×1/4–×4) and writes
nothing. Now:

* **trust region** (:func:`~mrtune.optimizer.trust.trust_region`, DESIGN decision 10): a
  candidate that moves a size or count (a log-scale knob: buffer MB, merge factor, reducers,
  split size) beyond ×1/:data:`~mrtune.optimizer.trust.FAR`–×FAR of the job's value in the
  workflow (its profiled run, or the file's setting: optimize's origin for a replayed
  configuration) is not a candidate the tuner may pick (:func:`region_mask`); the job's own
  strategy optimum is searched again inside the region, as ``optimize`` writes the best
  configuration inside it. A far optimum is said in a note (:func:`far_note`), with
  :data:`~mrtune.optimizer.trust.REPROFILE`, as ``optimize``'s low-confidence option;
* **calibration miss** (:func:`~mrtune.optimizer.trust.calibration_miss`,
  :mod:`mrtune.optimizer.model_miss`): a job whose calibration failed materially keeps its
  current setting unless the change's gain in its own job time, sampled over its evidence and
  widened by the miss and the run-to-run noise, still brings
  :data:`~mrtune.optimizer.trust.MIN_GAIN` at its p10 (:func:`miss_withheld`: ``batch``'s
  calibration rule, ``optimize``'s on the whole change). A workflow pick may trade a job's own
  time for the makespan; with a failed calibration that trade rests on the miss too, and is
  withheld alike.

The rules that ``optimize`` applies besides (a gain resting on defaulted factors, within the
noise of a job whose calibration passed) are the workflow's speedup interval's to say
(:mod:`mrtune.optimizer.workflow_confidence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.optimizer.choose import space_current
from mrtune.optimizer.trust import FAR, REPROFILE, calibration_miss, trust_region
from mrtune.optimizer.workflow_candidates import within_limits
from mrtune.readers.workflow_file import WorkflowSpec
from mrtune.search_spaces import SearchSpace


def region_mask(space: SearchSpace, configs: list[HadoopConfig]) -> np.ndarray:
    """For each of ``configs`` (index 0: the job's current configuration), whether it lies in
    the trust region around the current one (module doc); the current one always does."""
    region = trust_region(space, space_current(space))
    inside = {id(c) for c in within_limits(region, configs)}
    mask = np.array([id(c) in inside for c in configs], dtype=bool)
    if mask.size:
        mask[0] = True
    return mask


def far_note(space: SearchSpace, best: HadoopConfig) -> str:
    """``optimize``'s low-confidence option for a job whose own optimum lies beyond the trust
    region: which sizes or counts it moves, and by how much."""
    cur, row = space.base_row(), ConfigBatch._columns_of(best)
    moves = []
    for k in space.knobs:
        a, b = float(cur[k.column]), float(row[k.column])
        if k.log and a > 0 and b > 0 and not 1 / FAR <= b / a <= FAR:
            moves.append(f"{k.name} {k.decode(a)}→{k.decode(b)} (×{b / a:.3g})")
    return (
        f"its own optimum moves {', '.join(moves)} beyond the trust region (×1/{FAR:g}–×{FAR:g} "
        f"of the value it starts from): low confidence, not a candidate; {REPROFILE}"
    )


def config_diff(before: HadoopConfig, after: HadoopConfig) -> dict[str, tuple[str | None, str]]:
    """The properties ``after`` changes, ``{name: (before's value, after's)}``."""
    old = before.to_properties()
    return {k: (old.get(k), v) for k, v in after.to_properties().items() if old.get(k) != v}


def diff_text(before: HadoopConfig, after: HadoopConfig) -> str:
    """``config_diff`` as ``name old→new, …``."""
    return ", ".join(f"{k} {a}→{b}" for k, (a, b) in config_diff(before, after).items())


def miss_withheld(
    profile: JobProfile, base: HadoopConfig, chosen: HadoopConfig, cluster: ClusterSpec
) -> str | None:
    """Why the change ``base`` → ``chosen`` is withheld for the profile's failed calibration,
    or ``None`` (module doc): ``batch``'s rule on the job time's gain interval."""
    miss = calibration_miss(profile)
    if miss is None or chosen is base:
        return None
    from mrtune.optimizer.batch._confidence import gain_interval
    from mrtune.optimizer.batch._written import noise_miss

    props = {k: new for k, (_, new) in config_diff(base, chosen).items()}
    if not props:
        return None
    interval = gain_interval(profile, base, props, cluster, "time")
    return noise_miss(interval, miss)


def withhold_misses(
    spec: WorkflowSpec,
    stage: Sequence[str],
    choices: dict[str, Any],
    trust: dict[str, list[str]],
) -> bool:
    """Hold at its current setting each job of ``stage`` whose picked change (``choices``:
    the tuner's :class:`~.workflow_tuning.JobChoice` per job, its ``workflow`` and ``alone``
    picks) could be its failed calibration's miss (:func:`miss_withheld`), its reason in
    ``trust``; whether a workflow pick was withheld (its front is then the current setting
    alone, and the stage is searched again)."""
    again = False
    for name in stage:
        c = choices[name]
        profile = spec.job(name).profile
        if profile is None or not c.configs:
            continue
        for pick in ("workflow", "alone"):
            i = getattr(c, pick)
            why = i and miss_withheld(profile, c.configs[0], c.configs[i], spec.cluster)
            if not why:
                continue
            line = f"{diff_text(c.configs[0], c.configs[i])} withheld: {why}"
            if line not in trust.setdefault(name, []):
                trust[name].append(line)
            c = replace(c, **{pick: 0})
            if pick == "workflow":
                c, again = replace(c, pareto=np.array([0], dtype=np.intp)), True
        choices[name] = c
    return again

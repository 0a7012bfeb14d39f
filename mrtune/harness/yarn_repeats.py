"""Repeats in the YARN report: runs with the same label are one setting measured again.

As the local report does (:mod:`mrtune.calibration.fidelity`): a label's measured times are
the medians over its repeats, its counters those of its first repeat (Hadoop's record counters
are deterministic; repeats that disagree are flagged), and the calibration run is the default
label's repeat with the median job time. On YARN the default label's OTHER repeats are held out
as well: the model predicts them with the calibration run's own configuration, so their error
is the referee's run-to-run noise, the floor under every other label's error.

The repeats also say what a perfect model could score at all (:func:`noise_ceiling`): with
each run's job time carrying the multiplicative noise the repeats show (pooled within-label
spread of log job times), a model that knew every setting's true time would still be scored
against medians of noisy runs, and calibrated on one noisy run. The rank study
(``benchmarks/yarn_rank_study.py``) drew the same ceiling from two rounds; here it comes from
the round's own repeats.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, Protocol, TypeVar

import numpy as np

from mrtune.harness.yarn_check import RECORD_COUNTERS

#: Figures that must agree across repeats (Hadoop's counters and the job's shape); the
#: waves are read off each run's timeline, so a disagreement there is the scheduler's.
SAME_ACROSS_REPEATS = (*RECORD_COUNTERS, "num_maps", "num_reduces", "map_waves")
#: Per-run figures that are times: reduced by the median over repeats.
_TIMES = ("job_ms", "am_setup_ms", "job_commit_ms")


class _Repeated(Protocol):
    label: str
    repeat: int


R = TypeVar("R", bound=_Repeated)


def parse_calibration(spec: str) -> tuple[str, int | None]:
    """``LABEL`` or ``LABEL:REPEAT`` (the local ``--calibrate`` form)."""
    label, sep, rep = spec.rpartition(":")
    if sep and rep.isdigit():
        return label, int(rep)
    return spec, None


def by_label(runs: Sequence[R]) -> dict[str, list[R]]:
    """Runs grouped by label (in order of first appearance), each group by repeat."""
    out: dict[str, list[R]] = {}
    for r in runs:
        out.setdefault(r.label, []).append(r)
    return {k: sorted(v, key=lambda r: r.repeat) for k, v in out.items()}


def median_repeat(runs: Sequence[R], job_ms: Callable[[R], float]) -> R:
    """The repeat with the median job time; of an even count the faster middle one, ties by
    repeat number (the local report's rule, ``fidelity._median_repeat``)."""
    ordered = sorted(runs, key=lambda r: (job_ms(r), r.repeat))
    return ordered[(len(ordered) - 1) // 2]


def _median(values: Sequence[float]) -> float:
    vals = [v for v in values if v is not None and not math.isnan(v)]
    return statistics.median(vals) if vals else math.nan


def combine(measured: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One label's measurement from its repeats' (each as ``_measure`` gives it): counters,
    maps, reduces and waves of the first repeat; job, phase, container-start and AM times as
    medians over the repeats; and each repeat's job time (``repeat_job_ms``)."""
    first = measured[0]
    out = {k: v for k, v in first.items() if k not in (*_TIMES, "phases", "container_start")}
    for k in _TIMES:
        if any(k in m for m in measured):
            out[k] = _median([m[k] for m in measured if k in m])
    out["phases"] = {p: _median([m["phases"][p] for m in measured]) for p in first["phases"]}
    keys = sorted({k for m in measured for k in m.get("container_start", {})})
    out["container_start"] = {
        k: _median([m["container_start"][k] for m in measured if k in m["container_start"]])
        for k in keys
    }
    out["repeat_job_ms"] = [m["job_ms"] for m in measured]
    return out


def disagreements(measured: Sequence[dict[str, Any]]) -> dict[str, list[Any]]:
    """The figures of :data:`SAME_ACROSS_REPEATS` on which the repeats differ, with each
    repeat's value (empty: the repeats agree)."""
    out = {}
    for k in SAME_ACROSS_REPEATS:
        vals = [m.get(k) for m in measured]
        if len({repr(v) for v in vals}) > 1:
            out[k] = vals
    return out


def spread(times: Sequence[float]) -> float:
    """(max − min) / median of a label's repeat job times; 0 for one run."""
    if len(times) < 2 or statistics.median(times) <= 0:
        return 0.0
    return (max(times) - min(times)) / statistics.median(times)


# ---------------------------------------------------------------------- the noise ceiling


def _label_times(rows: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
    """Every repeat's job time per label (the calibration row and the default label's other
    repeats are one label)."""
    out: dict[str, list[float]] = {}
    for r in rows:
        out.setdefault(r["label"], []).extend(r["measured"].get("repeat_job_ms", []))
    return out


def noise_sigma(rows: Sequence[dict[str, Any]]) -> tuple[float, int]:
    """Pooled within-label standard deviation of log job time (per run), and the number of
    labels with repeats it pools."""
    ss, dof, n = 0.0, 0, 0
    for times in _label_times(rows).values():
        logs = [math.log(t) for t in times if t > 0]
        if len(logs) >= 2:
            mean = statistics.fmean(logs)
            ss += sum((x - mean) ** 2 for x in logs)
            dof += len(logs) - 1
            n += 1
    return (math.sqrt(ss / dof) if dof else math.nan), n


def _rank_rho(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's rho row by row (continuous draws: no ties), as numpy."""
    ra = np.argsort(np.argsort(a, axis=1), axis=1).astype(float)
    rb = np.argsort(np.argsort(b, axis=1), axis=1).astype(float)
    ra -= ra.mean(axis=1, keepdims=True)
    rb -= rb.mean(axis=1, keepdims=True)
    return (ra * rb).sum(axis=1) / np.sqrt((ra**2).sum(axis=1) * (rb**2).sum(axis=1))


def _p90(errs: np.ndarray) -> np.ndarray:
    """The summary's p90 (``errs[ceil(0.9 n) − 1]`` of the sorted errors), per draw."""
    n = errs.shape[1]
    return np.sort(errs, axis=1)[:, min(n - 1, math.ceil(0.9 * n) - 1)]


def _simulate(
    rows: Sequence[dict[str, Any]], truth: dict[str, float], sigma: float, draws: int, seed: int
) -> dict[str, Any]:
    """A perfect model scored as the report scores: per job, the default label's repeats are
    drawn, its median one calibrates (the overhead absorbs its noise, added to every label of
    the job) and the others are held out; every other label is the median of its repeats."""
    rng = np.random.default_rng(seed)
    held = [r for r in rows if not r["calibration"]]
    cal = {r["job"]: r for r in rows if r["calibration"]}
    n_all = {k: len(v) for k, v in _label_times(rows).items()}
    pred = np.empty((draws, len(held)))
    meas = np.empty((draws, len(held)))
    cal_factor = {}
    for job, c in cal.items():
        f = np.sort(np.exp(rng.normal(0.0, sigma, (draws, n_all[c["label"]]))), axis=1)
        i = (f.shape[1] - 1) // 2
        rest = np.median(np.delete(f, i, axis=1), axis=1) if f.shape[1] > 1 else f[:, i]
        cal_factor[job] = (f[:, i], rest)
    for j, r in enumerate(held):
        t, c = truth[r["label"]], cal.get(r["job"])
        c_f, rest = cal_factor.get(r["job"], (np.ones(draws), np.ones(draws)))
        if c is not None and r["label"] == c["label"]:
            meas[:, j] = t * rest
        else:
            k = max(1, len(r["measured"].get("repeat_job_ms", [])))
            meas[:, j] = t * np.median(np.exp(rng.normal(0.0, sigma, (draws, k))), axis=1)
        t_cal = truth[c["label"]] if c is not None else t
        pred[:, j] = t + t_cal * (c_f - 1.0)
    errs = np.abs(pred / meas - 1.0)
    rho = _rank_rho(pred, meas)
    return {
        "spearman": {
            "median": float(np.median(rho)),
            "p10": float(np.quantile(rho, 0.1)),
            "p90": float(np.quantile(rho, 0.9)),
            "share_reaching_0.9": float(np.mean(rho >= 0.9)),
        },
        "job_time_median_error": float(np.median(np.median(errs, axis=1))),
        "job_time_p90_error": float(np.median(_p90(errs))),
    }


def repeat_vs_repeat(rows: Sequence[dict[str, Any]]) -> float:
    """Spearman of one repeat's job times against another's over the held-out labels (the
    median over the pairs of repeat positions every label has): how well a single run ranks
    the settings, the empirical counterpart of the round-vs-round figure of the rank study."""
    from scipy.stats import spearmanr

    labels = {r["label"] for r in rows if not r["calibration"]}
    times = {k: v for k, v in _label_times(rows).items() if k in labels}
    if len(times) < 3:
        return math.nan
    n = min(len(v) for v in times.values())
    rhos = [
        float(spearmanr([v[a] for v in times.values()], [v[b] for v in times.values()]).statistic)
        for a, b in combinations(range(n), 2)
    ]
    return statistics.median(rhos) if rhos else math.nan


def noise_ceiling(
    rows: Sequence[dict[str, Any]], draws: int = 4000, seed: int = 21
) -> dict[str, Any]:
    """What a perfect model would score under the repeats' noise (see the module doc), with
    two truths: the labels' measured medians (the matrix's real effect sizes) and the
    model's predictions (its spread of settings). Empty without repeats."""
    sigma, labels = noise_sigma(rows)
    held = [r for r in rows if not r["calibration"]]
    if not labels or math.isnan(sigma) or len(held) < 3:
        return {}
    measured = {k: statistics.median(v) for k, v in _label_times(rows).items() if v}
    predicted = {r["label"]: r["predicted"]["job_ms"] for r in rows if r["calibration"]}
    predicted |= {r["label"]: r["predicted"]["job_ms"] for r in held}
    return {
        "noise_sigma_log": sigma,
        "labels_with_repeats": labels,
        "draws": draws,
        "spearman_repeat_vs_repeat": repeat_vs_repeat(rows),
        "perfect_model_on_measured_medians": _simulate(rows, measured, sigma, draws, seed),
        "perfect_model_on_predictions": _simulate(rows, predicted, sigma, draws, seed + 1),
    }

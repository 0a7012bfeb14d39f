"""Held-out check of the fixed-cost prior caps (issue 20, :mod:`mrtune.calibration.prior_caps`).

Every figure is a prediction of something the profile was not fitted on, made with the cap
("after") and without it ("before": :func:`~mrtune.calibration.prior_caps.prior_caps` finding
nothing), on the shared-data histories where a cap binds:

* **across runs**: the three QuasiMonteCarlo histories are one job at one configuration on one
  cluster; each calibrates a profile that predicts the other two (per-segment means of their
  attempts, and the job time under the other run's inferred cluster);
* **across attempts**: a history with at least 4 maps is fitted on every other attempt (even
  positions by start time) and predicts the held-out ones (odd positions), as
  ``scripts/heldout_cluster_terms.py`` does; the map attempt's total is compared too, since
  where ``mapFinishTime`` falls inside an attempt moves time between its two segments;
* **the packed YARN rounds** (``benchmarks/results``): round 3 as ``mrtune validate`` reports
  it (each job calibrated on its default label's median repeat), and the trust-region
  recommendation round, whose calibration runs predict its paired default and recommended
  runs (``reduce_fixed_ms`` 900 ms as that round was recommended with): the summary figures
  that move, and the predicted vs measured speedup of each recommendation.

Run from the repository root:  python scripts/heldout_prior_caps.py
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

from mrtune.calibration.check import check_calibration
from mrtune.calibration.cost_factors import fit_cost_factors
from mrtune.calibration.fit_setup import cluster_fit_setup
from mrtune.calibration.fixed_costs import (
    reduce_fixed_from_history,
    reduce_ramp_ms,
    without_reduce_fixed,
)
from mrtune.calibration.profiles import build_profile
from mrtune.costmodel import ClusterSpec, ConfigBatch, predict_job
from mrtune.harness.yarn_codecs import load_codec_runs
from mrtune.harness.yarn_fidelity import history_report, load_history_runs
from mrtune.profiling.build import build_statistics
from mrtune.readers import load_history
from mrtune.readers.conf import find_conf_for, load_conf

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "jhist"
RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
QMC = ("0001", "0002", "0004")


@contextmanager
def caps(on: bool):  # noqa: ANN201 - a context manager
    """The cap as built (``on``), or off: no prior is found contradicted."""
    if on:
        yield
        return
    with mock.patch("mrtune.calibration.prior_caps.prior_caps", return_value=[]):
        yield


def _history(path: Path) -> tuple[Any, Any]:
    h = load_history(path)
    conf = find_conf_for(path, h.job_id)
    return h, load_conf(conf) if conf else None


def _segments(profile: Any, observed: list, cfg: Any) -> dict[str, tuple[float, float]]:
    test = profile.model_copy(update={"observed": observed})
    chk = check_calibration(test, cfg, spill_overlap=cluster_fit_setup(profile)[1])
    return {s.segment: (s.observed_ms, s.predicted_ms) for s in chk.segments}


def _job_terms(history: Any, profile: Any, cfg: Any) -> dict[str, float]:
    """The job-level terms ``mrtune validate`` measures on the calibration history alone
    (:mod:`mrtune.calibration.fixed_costs`): the reduce's fixed time after its merge and the
    reduces' launch delay after slow-start."""
    spec = ClusterSpec(**profile.cluster.spec_fields())
    cores = spec.num_nodes * float(spec.node_cores or spec.node_vcores)
    terms = {"reduce_fixed_ms": reduce_fixed_from_history(history, cores)[0]}
    ramp = reduce_ramp_ms(history, cfg.reduce_slowstart)
    if ramp is not None:
        terms["reduce_ramp_ms"] = ramp
    return terms


def _stages(profile: Any, cfg: Any, spec: ClusterSpec) -> dict[str, float]:
    pred = predict_job(profile, ConfigBatch.from_configs([cfg]), spec)
    job, maps = float(pred.job_ms[0]), float(pred.map_stage_ms[0])
    return {"job": job, "map_stage": maps, "reduce_stage": job - maps}


def across_runs(on: bool) -> list[tuple[str, str, str, float]]:
    """(calibrated on, predicted, what, error) for each QMC pair: segments; the stages and
    job time of the profile alone (as ``mrtune profile``'s self-check); and the job time
    with the job-level terms ``mrtune validate`` measures on the calibration history
    ("job+terms", :func:`_job_terms`, the reduce's fixed time taken out before the fit)."""
    runs = {n: _history(next(DATA.glob(f"job_1526555215992_{n}-*.jhist"))) for n in QMC}
    out = []
    with caps(on):
        prof = {n: build_profile(*runs[n]) for n in QMC}
        terms, prof_t = {}, {}
        for n, (h, conf) in runs.items():
            _, cfg = build_statistics(h, conf)
            terms[n] = _job_terms(h, prof[n], cfg)
            prof_t[n] = build_profile(without_reduce_fixed(h, terms[n]["reduce_fixed_ms"]), conf)
    for a in QMC:
        for b in QMC:
            if a == b:
                continue
            other, cfg_b = build_statistics(*runs[b])
            for seg, (obs, pred) in _segments(prof[a], other.observed, cfg_b).items():
                out.append((a, b, seg, pred / obs - 1.0))
            facts = prof[b].cluster_facts  # what B's history shows (no fitted value)
            seen = {
                "job": float(facts["job_ms"]),
                "map_stage": facts["self_check.map_stage.observed_ms"],
                "reduce_stage": facts["self_check.reduce_stage.observed_ms"],
            }
            spec = ClusterSpec(**other.cluster.spec_fields())
            for what, v in _stages(prof[a], cfg_b, spec).items():
                out.append((a, b, what, v / seen[what] - 1.0))
            spec_t = spec.model_copy(update=terms[a])
            job_t = _stages(prof_t[a], cfg_b, spec_t)["job"]
            out.append((a, b, "job+terms", job_t / seen["job"] - 1.0))
    return out


def across_attempts(path: Path, on: bool) -> list[tuple[str, float]]:
    """(segment, error) of the held-out attempts of one history (module doc)."""
    h, conf = _history(path)
    profile, cfg = build_statistics(h, conf)
    fit, held = [], []
    for kind in ("map", "reduce"):
        ts = sorted((t for t in profile.observed if t.kind == kind), key=lambda t: t.start_ms)
        fit += ts[0::2]
        held += ts[1::2]
    prior, overlap = cluster_fit_setup(profile)
    with caps(on):
        fitted = fit_cost_factors(
            profile.model_copy(update={"observed": fit}), cfg, prior=prior, spill_overlap=overlap
        ).profile
    segs = _segments(fitted, held, cfg)
    out = [(s, p / o - 1.0) for s, (o, p) in segs.items()]
    if "map.map" in segs and "map.sort" in segs:
        o = segs["map.map"][0] + segs["map.sort"][0]
        p = segs["map.map"][1] + segs["map.sort"][1]
        out.append(("map attempt", p / o - 1.0))
    return out


def _round(on: bool, trust: bool) -> dict[str, Any]:
    codecs = load_codec_runs([RESULTS / "runs-codec-probe.jsonl", RESULTS / "runs-codecs.jsonl"])
    with caps(on):
        if not trust:
            r3 = RESULTS / "runs-matrix.jsonl", RESULTS / "runs-codecs.jsonl"
            runs = load_history_runs(RESULTS / "yarn-r3" / "runs.jsonl")
            return history_report(runs, None, load_codec_runs(list(r3)))
        tr = RESULTS / "yarn-rec-trust-region"
        runs = load_history_runs(tr / "calibration" / "runs.jsonl")
        runs += load_history_runs(tr / "pairs" / "runs.jsonl")
        cal = [f"{j}-calibration" for j in ("sort", "wc", "pst")]
        return history_report(runs, cal, codecs, 900.0)


def yarn_rounds() -> None:
    """The packed YARN rounds' held-out figures that the cap moves (module doc)."""
    for name, trust in (("YARN round 3", False), ("YARN trust-region round", True)):
        b, a = _round(False, trust), _round(True, trust)
        print(f"{name}: held-out summary figures that move (before -> after)")
        for k, v in b["summary"].items():
            if isinstance(v, float) and v != a["summary"][k]:
                print(f"  {k:32} {v:8.4f} -> {a['summary'][k]:8.4f}")
        if not trust:
            continue
        for job in ("sort", "wc", "pst"):
            row = {
                tag: {x["label"]: x for x in r["runs"] if not x["calibration"]}
                for tag, r in (("before", b), ("after", a))
            }
            for tag, rows in row.items():
                d, rec = rows[f"{job}-hadoop-defaults"], rows[f"{job}-recommended"]
                ps = d["predicted"]["job_ms"] / rec["predicted"]["job_ms"]
                ms = d["measured"]["job_ms"] / rec["measured"]["job_ms"]
                print(f"  {job} {tag:6} speedup predicted x{ps:.3f}, measured x{ms:.3f}")


def main() -> int:
    before, after = across_runs(False), across_runs(True)
    print("QuasiMonteCarlo: calibrated on one run, predicting another (model / observed - 1)")
    for (a, b, what, e0), (*_, e1) in zip(before, after, strict=True):
        print(f"  {a} -> {b} {what:15} before {e0:+8.1%} after {e1:+8.1%}")
    for what in sorted({w for _, _, w, _ in before}):
        e0 = [abs(e) for _, _, w, e in before if w == what]
        e1 = [abs(e) for _, _, w, e in after if w == what]
        print(f"  {what:15} median |error| before {np.median(e0):6.1%} after {np.median(e1):6.1%}")
    sleep = next(DATA.glob("job_1329348432655_0001-*.jhist"))
    print("Sleep job: fitted on even attempts, predicting the odd ones")
    b, a = across_attempts(sleep, False), across_attempts(sleep, True)
    for (s, e0), (_, e1) in zip(b, a, strict=True):
        print(f"  {s:15} before {e0:+8.1%} after {e1:+8.1%}")
    yarn_rounds()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Held-out check of the cluster-scale terms (issue 20) on the shared-data histories.

For each shared history with at least 4 successful maps: fit the cost factors on every other
map and reduce attempt (even positions by start time), then model the held-out attempts
(odd positions) with the fitted profile and compare each segment's mean time. "before" is
the fit as it was (CostFactors' defaults as priors, serial phases); "after" uses the
cluster-type priors (ClusterSpec.cost_priors) and the SpillThread overlap. Run from the
repository root:  python scripts/heldout_cluster_terms.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mrtune.calibration.check import check_calibration
from mrtune.calibration.cost_factors import fit_cost_factors
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.profiling.build import build_statistics
from mrtune.readers import load_history
from mrtune.readers.rumen import load_rumen

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _jobs() -> list[tuple[Path, str | None]]:
    out: list[tuple[Path, str | None]] = [
        (f, None) for f in sorted((DATA / "jhist").glob("*.jhist"))
    ]
    for f in sorted((DATA / "rumen").glob("*.json*")):
        try:
            out += [(f, h.job_id) for h in load_rumen(f)]
        except Exception:  # noqa: BLE001 - a trace the reader refuses is not this script's test
            continue
    return out


def _halves(profile):  # noqa: ANN001, ANN202
    fit, held = [], []
    for kind in ("map", "reduce"):
        ts = sorted((t for t in profile.observed if t.kind == kind), key=lambda t: t.start_ms)
        fit += ts[0::2]
        held += ts[1::2]
    return profile.model_copy(update={"observed": fit}), held


def _errors(path: Path, job: str | None, after: bool) -> dict[str, float] | None:
    history = load_history(path, job=job)
    profile, cfg = build_statistics(history, None)
    maps = [t for t in profile.observed if t.kind == "map"]
    if len(maps) < 4:
        return None
    fit_p, held = _halves(profile)
    kw = {}
    if after:
        spec = ClusterSpec(**profile.cluster.spec_fields()) if profile.cluster else ClusterSpec()
        kw = {"prior": spec.cost_priors(), "spill_overlap": True}
    fitted = fit_cost_factors(fit_p, cfg, **kw).profile
    test = fitted.model_copy(update={"observed": held})
    chk = check_calibration(test, cfg, spill_overlap=after)
    return {s.segment: s.error for s in chk.segments}


def main() -> int:
    rows = []
    for path, job in _jobs():
        try:
            b = _errors(path, job, False)
            a = _errors(path, job, True)
        except Exception as e:  # noqa: BLE001
            print(f"{path.name} {job}: skipped ({type(e).__name__}: {e})"[:100])
            continue
        if b is None or a is None:
            continue
        for seg in sorted(set(a) & set(b)):
            rows.append((abs(b[seg]), abs(a[seg])))
            print(
                f"{path.name[:28]:28} {str(job)[-12:]:12} {seg:15} before {b[seg]:+7.1%} after {a[seg]:+7.1%}"
            )
    if rows:
        arr = np.array(rows)
        print(
            f"segments {len(arr)}: median |err| before {np.median(arr[:, 0]):.1%} after "
            f"{np.median(arr[:, 1]):.1%}; p90 before {np.quantile(arr[:, 0], 0.9):.1%} after "
            f"{np.quantile(arr[:, 1], 0.9):.1%}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

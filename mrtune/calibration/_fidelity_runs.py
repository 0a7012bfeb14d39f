"""One configuration predicted and measured: the comparison behind each row of the report.

A record counter is deterministic in Hadoop, so it must be equal, not close (:func:`same`);
byte counters and times are compared by their relative error (:func:`rel_error`).
:class:`RunComparison` holds one label's figures (repeats reduced to one time) and derives the
matches and errors the summary (:mod:`mrtune.calibration._fidelity_summary`) aggregates. Used by
:mod:`mrtune.calibration.fidelity` (``mrtune validate``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from mrtune.calibration._fidelity_figures import BYTE_COUNTERS, PHASES, RECORD_COUNTERS


def same(pred: Any, meas: Any) -> bool:
    """Exact equality of a counter (model floats are rounded to the nearest integer)."""
    if isinstance(meas, list):
        return isinstance(pred, list) and [round(p) for p in pred] == list(meas)
    return round(float(pred)) == int(meas)


def _within(pred: Any, meas: Any, tol: float) -> bool:
    """|pred − meas| ≤ tol·|meas| (element by element for per-map lists)."""
    if isinstance(meas, list):
        return (
            isinstance(pred, list)
            and len(pred) == len(meas)
            and all(_within(p, m, tol) for p, m in zip(pred, meas, strict=True))
        )
    return abs(float(pred) - float(meas)) <= tol * abs(float(meas)) or same(pred, meas)


def rel_error(pred: float, meas: float) -> float:
    """(pred − meas) / meas; 0 when both are 0, inf when only meas is 0."""
    if meas == 0:
        return 0.0 if pred == 0 else math.inf
    return (pred - meas) / meas


@dataclass
class RunComparison:
    """One label (a configuration, run ``repeats`` times) predicted and measured."""

    label: str
    job: str
    settings: dict[str, str]
    repeats: int
    calibration: bool
    predicted: dict[str, Any]
    measured: dict[str, Any]
    predicted_times: dict[str, float]
    measured_times: dict[str, float]
    job_time_spread: float
    load_avg: float
    deterministic: bool
    per_map: list[dict[str, Any]] = field(default_factory=list)
    codec_source: str | None = None
    """Where the map-output codec's ratio came from (``measured: …`` or a prior), when the run
    compressed its map output."""
    ignored: dict[str, str | None] = field(default_factory=dict)
    """The label's ``-D`` settings the job did not run with (key → what its staged job.xml
    had): a driver that builds its own configuration drops them, and the run is compared at
    what Hadoop ran."""

    @property
    def codec_measured(self) -> bool:
        return self.codec_source is not None and self.codec_source.startswith("measured")

    @property
    def record_matches(self) -> dict[str, bool]:
        return {k: same(self.predicted[k], self.measured[k]) for k in RECORD_COUNTERS}

    @property
    def byte_errors(self) -> dict[str, float]:
        return {k: rel_error(self.predicted[k], self.measured[k]) for k in BYTE_COUNTERS}

    @property
    def job_time_error(self) -> float:
        return rel_error(self.predicted_times["job"], self.measured_times["job"])

    @property
    def phase_errors_ms(self) -> dict[str, float]:
        """Predicted − measured per phase, and the rest of the job-time error ("other")."""
        out = {p: self.predicted_times[p] - self.measured_times.get(p, 0.0) for p in PHASES}
        total = self.predicted_times["job"] - self.measured_times["job"]
        out["other"] = total - sum(out.values())
        return out

    @property
    def per_map_matches(self) -> tuple[int, int]:
        """(equal, compared) record counters in the per-map check."""
        keys = ("spills", "SPILLED_RECORDS", "COMBINE_INPUT_RECORDS", "COMBINE_OUTPUT_RECORDS")
        pairs = [m[k] for m in self.per_map for k in keys]
        return sum(round(p) == round(q) for p, q in pairs), len(pairs)

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "job": self.job,
            "settings": self.settings,
            "repeats": self.repeats,
            "calibration": self.calibration,
            "deterministic": self.deterministic,
            "load_avg_1m": self.load_avg,
            "job_time_spread": self.job_time_spread,
            "predicted": self.predicted,
            "measured": self.measured,
            "record_matches": self.record_matches,
            "byte_rel_errors": self.byte_errors,
            "predicted_times_ms": self.predicted_times,
            "measured_times_ms": self.measured_times,
            "job_time_rel_error": self.job_time_error,
            "phase_errors_ms": self.phase_errors_ms,
            "per_map": [{k: list(v) for k, v in m.items()} for m in self.per_map],
            "codec_source": self.codec_source,
            "settings_not_applied": self.ignored,
        }

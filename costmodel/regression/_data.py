"""Phase-time observations in memory: one entry per task phase, as the paper's long format.

Readers (``mrtune.readers.phase_data``) build this from CSV files or from the real-Hadoop harness's
run records; the fitting code only sees arrays. No I/O here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mrtune.costmodel.regression._drivers import BASE_QUANTITIES, MEASURED_OVERRIDES
from mrtune.costmodel.regression._phases import PHASES


@dataclass(frozen=True)
class PhaseObservations:
    """Measured phase durations with the job quantities that drive them.

    Attributes:
        operation: ndarray of str, shape (n_rows,) -- the phase of each row (``read`` ...).
        duration_ms: ndarray of float, shape (n_rows,) -- the phase's duration in one task.
        base: the driver base quantities (``D``, ``M_t``, ``M_sel``, ``R_t``, ``R_sel``), the
            optional measured per-task ``d``, ``M_d``, ``S_d``, ``R_d`` (NaN where not measured)
            and extra numeric columns, each an ndarray of shape (n_rows,).
        run_id: ndarray of str, shape (n_rows,) -- which job run a row came from ("" if
            unknown); used to hold out whole runs.
        extra_columns: names in ``base`` that are raw data columns, usable as drivers.
    """

    operation: np.ndarray
    duration_ms: np.ndarray
    base: dict[str, np.ndarray]
    run_id: np.ndarray = field(default_factory=lambda: np.array([], dtype=str))
    extra_columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.operation)
        if len(self.run_id) == 0 and n:
            object.__setattr__(self, "run_id", np.full(n, "", dtype=object))
        for name in BASE_QUANTITIES:
            if name not in self.base:
                raise ValueError(f"PhaseObservations.base lacks {name!r}")
        for name in MEASURED_OVERRIDES:
            if name not in self.base:
                self.base[name] = np.full(n, np.nan)
        lengths = {len(self.duration_ms), len(self.run_id)} | {len(v) for v in self.base.values()}
        if lengths != {n}:
            raise ValueError(f"PhaseObservations columns differ in length: {sorted(lengths)}")
        unknown = set(np.unique(self.operation).tolist()) - set(PHASES)
        if unknown:
            raise ValueError(f"unknown phases {sorted(unknown)}; known: {', '.join(PHASES)}")

    def __len__(self) -> int:
        return len(self.operation)

    @property
    def phases(self) -> tuple[str, ...]:
        """Phases present, in execution order."""
        present = set(self.operation.tolist())
        return tuple(p for p in PHASES if p in present)

    def select(self, mask: np.ndarray) -> PhaseObservations:
        """The rows where ``mask`` is true (a boolean array or an index array)."""
        return PhaseObservations(
            operation=self.operation[mask],
            duration_ms=self.duration_ms[mask],
            base={k: v[mask] for k, v in self.base.items()},
            run_id=self.run_id[mask],
            extra_columns=self.extra_columns,
        )

    def for_phase(self, phase: str) -> PhaseObservations:
        """The rows of one phase."""
        return self.select(self.operation == phase)

    @classmethod
    def concat(cls, parts: list[PhaseObservations]) -> PhaseObservations:
        """Stack several data sets; extra columns missing from a part are NaN there."""
        if not parts:
            raise ValueError("no phase observations to combine")
        if len(parts) == 1:
            return parts[0]
        extras = tuple(dict.fromkeys(c for p in parts for c in p.extra_columns))
        keys = tuple(BASE_QUANTITIES) + tuple(MEASURED_OVERRIDES) + extras
        base = {
            k: np.concatenate([p.base.get(k, np.full(len(p), np.nan)) for p in parts])
            for k in keys
        }
        return cls(
            operation=np.concatenate([p.operation for p in parts]),
            duration_ms=np.concatenate([p.duration_ms for p in parts]),
            base=base,
            run_id=np.concatenate([p.run_id for p in parts]),
            extra_columns=extras,
        )

"""Fitted (or published) phase models and job-time prediction by waves (eqs. 15-17).

A :class:`RegressionModel` holds one linear model per phase; it evaluates the phase times of
one task from the inputs of the paper's Table II and combines them as eq. 17::

    T_job = M_t/N_c * [sum of map-side phases + T_map] + R_t/N_c * [sum of reduce-side phases + T_reduce]

``M_t/N_c`` and ``R_t/N_c`` are the numbers of waves of containers. The paper writes the plain
ratio (section III-D: "100 map tasks on 20 containers ... five rounds"); ``waves="ceil"`` uses
whole waves instead, which is what a scheduler actually runs when tasks do not divide evenly.
Models serialise to and from JSON text (pydantic); callers do the file I/O.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

import numpy as np
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from mrtune.costmodel.regression._drivers import DERIVED_DRIVERS, compute_drivers
from mrtune.costmodel.regression._phases import MAP_PHASES, PHASES, REDUCE_PHASES

#: The map phases of the sort (``MapOutputBuffer``), which a map-only job's maps do not run.
MAP_SORT_PHASES = ("spill", "merge")

MODEL_FORMAT = "mrtune-regression-model"
MODEL_VERSION = 1

#: Largest size in MB: 8 EiB, a Java ``long`` of bytes (Hadoop counts bytes and sets
#: ``dfs.blocksize`` in longs), the cap ``--input-size`` has too.
MAX_MB = float(1 << 43)
#: Most tasks, reducers or containers: a Java ``int`` (``JobConf.setNumMapTasks`` /
#: ``setNumReduceTasks`` and ``TaskID``'s task number are ints).
MAX_TASKS = (1 << 31) - 1
#: Largest selectivity in percent: 8 EiB of output (a ``long`` of bytes) from one byte of input.
MAX_PCT = 100.0 * (1 << 63)
#: Longest user map()/reduce() time per task in ms: a Java ``long`` of milliseconds.
MAX_MS = float((1 << 63) - 1)


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class JobInputs(BaseModel):
    """The inputs of one prediction, named after the paper's Table II (aliases accepted).

    Required: the input size, the number of map tasks (or the block size it follows from), the
    map selectivity, the numbers of reducers and containers. ``T_map``/``T_reduce`` are the
    user's map() and reduce() time per task as they enter the brackets of eq. 15/16 (0 if the
    user code is negligible). The per-task data sizes follow from eq. 3, 7 and 10 unless given
    (``map_output_mb`` = M_d, ``shuffle_mb`` = S_d, ``reduce_output_mb`` = R_d, ``split_mb`` = d),
    so measured values such as the paper's Table III can be used verbatim.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    data_size_mb: float = Field(
        gt=0, le=MAX_MB, allow_inf_nan=False, validation_alias=_alias("data_size_mb", "D")
    )
    block_size_mb: float | None = Field(
        None,
        gt=0,
        le=MAX_MB,
        allow_inf_nan=False,
        validation_alias=_alias("block_size_mb", "B_size"),
    )
    mappers: int | None = Field(
        None, ge=1, le=MAX_TASKS, validation_alias=_alias("mappers", "M_t")
    )
    map_selectivity_pct: float = Field(
        ge=0,
        le=MAX_PCT,
        allow_inf_nan=False,
        validation_alias=_alias("map_selectivity_pct", "selectivity", "M_sel"),
    )
    reducers: int = Field(ge=0, le=MAX_TASKS, validation_alias=_alias("reducers", "R_t"))
    containers: int = Field(ge=1, le=MAX_TASKS, validation_alias=_alias("containers", "N_c"))
    t_map_ms: float = Field(
        0.0, ge=0, le=MAX_MS, allow_inf_nan=False, validation_alias=_alias("t_map_ms", "T_map")
    )
    t_reduce_ms: float = Field(
        0.0,
        ge=0,
        le=MAX_MS,
        allow_inf_nan=False,
        validation_alias=_alias("t_reduce_ms", "T_reduce"),
    )
    reduce_selectivity_pct: float = Field(
        100.0,
        ge=0,
        le=MAX_PCT,
        allow_inf_nan=False,
        validation_alias=_alias("reduce_selectivity_pct", "R_sel"),
    )
    split_mb: float | None = Field(
        None, ge=0, le=MAX_MB, allow_inf_nan=False, validation_alias=_alias("split_mb", "d")
    )
    map_output_mb: float | None = Field(
        None, ge=0, le=MAX_MB, allow_inf_nan=False, validation_alias=_alias("map_output_mb", "M_d")
    )
    shuffle_mb: float | None = Field(
        None, ge=0, le=MAX_MB, allow_inf_nan=False, validation_alias=_alias("shuffle_mb", "S_d")
    )
    reduce_output_mb: float | None = Field(
        None,
        ge=0,
        le=MAX_MB,
        allow_inf_nan=False,
        validation_alias=_alias("reduce_output_mb", "R_d"),
    )
    extra_drivers: dict[str, Annotated[float, Field(allow_inf_nan=False)]] = Field(
        default_factory=dict
    )
    """Raw data columns a fitted model names; finite, as every other input is bounded, so that
    a prediction is a finite time (:meth:`RegressionModel.predict_job` checks it as well)."""

    @model_validator(mode="after")
    def _mappers_from_block_size(self) -> JobInputs:
        if self.mappers is None:
            if self.block_size_mb is None:
                raise ValueError("give mappers (M_t) or block_size_mb to derive it from")
            # Table II: M_t = D / BlockSize, whole tasks (the last split may be partial)
            ratio = self.data_size_mb / self.block_size_mb
            if ratio > MAX_TASKS:
                raise ValueError(
                    f"data_size_mb / block_size_mb = {ratio:.4g} map tasks; allowed: at most "
                    f"{MAX_TASKS} (a Java int, JobConf.setNumMapTasks)"
                )
            object.__setattr__(self, "mappers", max(1, math.ceil(ratio)))
        return self

    @property
    def n_mappers(self) -> int:
        assert self.mappers is not None  # set by the validator
        return self.mappers

    def base(self) -> dict[str, float]:
        """The driver base quantities (see :mod:`mrtune.costmodel.regression._drivers`)."""

        def opt(v: float | None) -> float:
            return float("nan") if v is None else float(v)

        return {
            "D": self.data_size_mb,
            "M_t": float(self.n_mappers),
            "M_sel": self.map_selectivity_pct,
            "R_t": float(self.reducers),
            "R_sel": self.reduce_selectivity_pct,
            "d": opt(self.split_mb),
            "M_d": opt(self.map_output_mb),
            "S_d": opt(self.shuffle_mb),
            "R_d": opt(self.reduce_output_mb),
            **self.extra_drivers,
        }


class PhaseModel(BaseModel):
    """``T_phase = intercept + sum(coefficients[driver] * driver)`` in ms for one task."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    phase: str
    intercept: float
    coefficients: dict[str, float] = Field(default_factory=dict)
    p_values: dict[str, float] = Field(default_factory=dict)
    metrics: dict[str, float] = Field(default_factory=dict)

    @field_validator("phase")
    @classmethod
    def _known_phase(cls, v: str) -> str:
        if v not in PHASES:
            raise ValueError(f"unknown phase {v!r}; known: {', '.join(PHASES)}")
        return v

    def predict(self, base: dict) -> np.ndarray:
        """Phase time(s) in ms for the base quantities ``base`` (scalars or arrays)."""
        drivers = compute_drivers(base, tuple(self.coefficients))
        total = np.asarray(self.intercept, dtype=float)
        # an overflow is refused by the caller (RegressionModel.predict_job), not warned about
        with np.errstate(over="ignore", invalid="ignore"):
            for name, coef in self.coefficients.items():
                total = total + coef * drivers[name]
        return total


class JobPrediction(BaseModel):
    """The result of eq. 15-17 for one job."""

    phases_ms: dict[str, float]
    map_task_ms: float
    reduce_task_ms: float
    map_waves: float
    reduce_waves: float
    map_ms: float
    reduce_ms: float
    total_ms: float


class RegressionModel(BaseModel):
    """One linear model per phase plus how waves are counted; JSON round-trips exactly."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["mrtune-regression-model"] = MODEL_FORMAT
    version: Literal[1] = MODEL_VERSION
    name: str
    description: str = ""
    waves: Literal["fractional", "ceil"] = "fractional"
    phases: dict[str, PhaseModel]

    @model_validator(mode="after")
    def _keys_match(self) -> RegressionModel:
        for key, pm in self.phases.items():
            if key != pm.phase:
                raise ValueError(f"phases[{key!r}] holds the model of phase {pm.phase!r}")
        return self

    def required_extra_drivers(self) -> tuple[str, ...]:
        """Drivers that are raw data columns, which a prediction must supply explicitly."""
        names = {n for pm in self.phases.values() for n in pm.coefficients}
        return tuple(sorted(names - set(DERIVED_DRIVERS)))

    def predict_phases(self, inputs: JobInputs) -> dict[str, float]:
        """Per-task time of every modelled phase, in execution order (ms)."""
        missing = [n for n in self.required_extra_drivers() if n not in inputs.extra_drivers]
        if missing:
            raise ValueError(f"model {self.name!r} needs extra_drivers {missing}")
        base = inputs.base()
        return {p: float(self.phases[p].predict(base)) for p in PHASES if p in self.phases}

    def waves_of(self, tasks: int, containers: int) -> float:
        """Waves of ``tasks`` on ``containers`` (eq. 15/16: M_t/N_c, or its ceiling)."""
        if tasks <= 0:
            return 0.0
        ratio = tasks / containers
        return float(math.ceil(ratio)) if self.waves == "ceil" else ratio

    def predict_job(self, inputs: JobInputs) -> JobPrediction:
        """Job time by eq. 17 (ms). A map-only job (``R_t = 0``) has no sort: its maps write
        through ``NewDirectOutputCollector``, so they neither spill nor merge, and those
        phases are 0 whatever the fitted equations give (the white-box model refuses sort
        settings for such a job)."""
        phases = self.predict_phases(inputs)
        if inputs.reducers == 0:
            phases.update({p: 0.0 for p in MAP_SORT_PHASES if p in phases})
        map_task = sum(v for p, v in phases.items() if p in MAP_PHASES) + inputs.t_map_ms
        reduce_task = sum(v for p, v in phases.items() if p in REDUCE_PHASES) + inputs.t_reduce_ms
        map_waves = self.waves_of(inputs.n_mappers, inputs.containers)
        reduce_waves = self.waves_of(inputs.reducers, inputs.containers)
        if inputs.reducers == 0:
            reduce_task = 0.0
        prediction = JobPrediction(
            phases_ms=phases,
            map_task_ms=map_task,
            reduce_task_ms=reduce_task,
            map_waves=map_waves,
            reduce_waves=reduce_waves,
            map_ms=map_waves * map_task,
            reduce_ms=reduce_waves * reduce_task,
            total_ms=map_waves * map_task + reduce_waves * reduce_task,
        )
        _check_finite(self.name, prediction)
        return prediction

    def to_json(self) -> str:
        """JSON text of the model (write it with any file API)."""
        return self.model_dump_json(indent=2)

    @classmethod
    def from_json(cls, text: str) -> RegressionModel:
        """Parse and validate a model written by :meth:`to_json` (pydantic ``ValidationError``)."""
        return cls.model_validate_json(text)


def _check_finite(name: str, prediction: JobPrediction) -> None:
    """Refuse a time that is not a finite number (``ValueError``): bounded inputs keep every
    driver finite, but a model's coefficients are the user's (``mrtune fit -o`` files), and an
    infinite or NaN job time is never an answer."""
    times = {**prediction.phases_ms, "job": prediction.total_ms}
    times.update(map=prediction.map_ms, reduce=prediction.reduce_ms)
    bad = next((k for k, v in times.items() if not math.isfinite(v)), None)
    if bad is not None:
        raise ValueError(
            f"model {name!r} gives a non-finite {bad} time ({times[bad]}) for these inputs; "
            "allowed: inputs for which every phase time is a finite number"
        )

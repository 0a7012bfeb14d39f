"""The parts of a workflow file that stand on their own: the capacity the workflow runs
with, a job given by its tasks, and the extrapolation baseline.

Split from :mod:`mrtune.readers.workflow_file` (which re-exports these names) by what it
holds: values checked on their own, apart from the jobs, their profiles and their settings.
A task time is at most a Java ``long`` of milliseconds (:data:`MAX_TASK_MS`, as
``run_records.MsFloat``) and a task count at most a Java ``int`` (:data:`MAX_TASKS`): a
``map_task_ms: 1e308`` had overflowed the workflow models to ``inf s`` and ``nan%``.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: Longest task time: a Java ``long`` of milliseconds, like the instants Hadoop logs
#: (``TaskAttemptFinishedEvent``'s finish time) and ``run_records.MsFloat``.
MAX_TASK_MS = float((1 << 63) - 1)
#: Most tasks of one kind: a Java ``int`` (``JobConf.setNumMapTasks`` /
#: ``setNumReduceTasks`` and ``TaskID``'s task number are ints).
MAX_TASKS = (1 << 31) - 1


class Capacity(BaseModel):
    """Map and reduce capacity of the workflow: slots, or YARN containers and their split.

    Give either ``map_slots`` and ``reduce_slots``, or ``containers`` with one of
    ``map_containers``, ``reduce_containers`` or ``map_fraction`` (the share of containers that
    run maps while reduces run beside them). YARN has no fixed slots; the split stands for the
    seed's allocation ``(S_M^W, S_R^W)``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    map_slots: int | None = Field(None, ge=1)
    reduce_slots: int | None = Field(None, ge=1)
    containers: int | None = Field(None, ge=2)
    map_containers: int | None = Field(None, ge=1)
    reduce_containers: int | None = Field(None, ge=1)
    map_fraction: float | None = Field(None, gt=0, lt=1)

    @model_validator(mode="after")
    def _one_form(self) -> Capacity:
        slots = self.map_slots is not None or self.reduce_slots is not None
        yarn = self.containers is not None
        split = [
            x
            for x in (self.map_containers, self.reduce_containers, self.map_fraction)
            if x is not None
        ]
        if slots and (yarn or split):
            raise ValueError("give either map_slots/reduce_slots or containers, not both")
        if slots:
            if self.map_slots is None or self.reduce_slots is None:
                raise ValueError("map_slots and reduce_slots go together")
            return self
        if not yarn:
            raise ValueError("give map_slots and reduce_slots, or containers")
        if len(split) != 1:
            raise ValueError(
                "with containers, give exactly one of map_containers, reduce_containers, "
                "map_fraction"
            )
        if self.map_containers is not None and self.map_containers >= self.containers:
            raise ValueError(f"map_containers must be below containers ({self.containers})")
        if self.reduce_containers is not None and self.reduce_containers >= self.containers:
            raise ValueError(f"reduce_containers must be below containers ({self.containers})")
        return self

    @property
    def map_capacity(self) -> int:
        if self.map_slots is not None:
            return self.map_slots
        assert self.containers is not None
        if self.map_containers is not None:
            return self.map_containers
        if self.reduce_containers is not None:
            return self.containers - self.reduce_containers
        assert self.map_fraction is not None
        return min(self.containers - 1, max(1, round(self.containers * self.map_fraction)))

    @property
    def reduce_capacity(self) -> int:
        if self.reduce_slots is not None:
            return self.reduce_slots
        assert self.containers is not None
        return self.containers - self.map_capacity

    @property
    def description(self) -> str:
        if self.map_slots is not None:
            return f"{self.map_slots} map x {self.reduce_slots} reduce slots"
        return (
            f"{self.containers} YARN containers: {self.map_capacity} for maps, "
            f"{self.reduce_capacity} for reduces"
        )


class TaskSpec(BaseModel):
    """A job given by its tasks instead of a profile (measured, or from another tool).

    Task times are bounded by a Java ``long`` of ms and counts by a Java ``int`` (module
    doc): what no Hadoop job can record is refused at read, in one line, rather than
    overflowing the workflow models."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    maps: int = Field(ge=1, description="number of map tasks")
    reduces: int = Field(ge=0, description="number of reduce tasks (0: map-only)")
    map_task_ms: float = Field(ge=0, description="mean map task time")
    reduce_task_ms: float = Field(0.0, ge=0, description="mean reduce task time")
    map_max_ms: float | None = Field(None, ge=0, description="longest map task (default: mean)")
    reduce_max_ms: float | None = Field(None, ge=0, description="longest reduce task")

    @field_validator("maps", "reduces")
    @classmethod
    def _int_count(cls, v: int) -> int:
        if v > MAX_TASKS:
            raise ValueError(
                f"more tasks than a Java int holds; allowed: at most {MAX_TASKS} "
                "(JobConf.setNumMapTasks / setNumReduceTasks, TaskID's task number)"
            )
        return v

    @field_validator("map_task_ms", "reduce_task_ms", "map_max_ms", "reduce_max_ms")
    @classmethod
    def _long_ms(cls, v: float | None) -> float | None:
        if v is not None and v > MAX_TASK_MS:
            raise ValueError(
                f"a task time beyond a Java long of milliseconds; allowed: 0 to {MAX_TASK_MS:.6g} ms"
            )
        return v

    @model_validator(mode="after")
    def _check(self) -> TaskSpec:
        if self.map_max_ms is not None and self.map_max_ms < self.map_task_ms:
            raise ValueError("map_max_ms cannot be below map_task_ms (the mean)")
        if self.reduce_max_ms is not None and self.reduce_max_ms < self.reduce_task_ms:
            raise ValueError("reduce_max_ms cannot be below reduce_task_ms (the mean)")
        if self.reduces > 0 and self.reduce_task_ms == 0:
            raise ValueError("reduce_task_ms is needed when reduces > 0")
        return self


class Baseline(BaseModel):
    """The seed's linear-extrapolation baseline: fit on smaller inputs, predict a larger one.

    ``scales`` multiply every job's input (TPC-H scale factors 5 and 10 relative to the
    profiled size, say 0.25 and 0.5 with a profile at scale 20). ``measured_ms`` are the
    workflow's measured completion times at those scales; without them the fit uses the
    model's own predictions, which shows how far a straight line drifts from it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    scales: list[float] = Field(min_length=2)
    target_scale: float = Field(gt=0)
    measured_ms: list[float] | None = None
    measured_target_ms: float | None = Field(None, gt=0)

    @field_validator("scales")
    @classmethod
    def _scales(cls, v: list[float]) -> list[float]:
        if any(s <= 0 for s in v):
            raise ValueError("scales must be > 0")
        if len(set(v)) < 2:
            raise ValueError("scales need at least two distinct values")
        return v

    @model_validator(mode="after")
    def _lengths(self) -> Baseline:
        if self.measured_ms is not None and len(self.measured_ms) != len(self.scales):
            raise ValueError("measured_ms needs one time per scale")
        return self


def scaled_tasks(tasks: TaskSpec, scale: float) -> TaskSpec:
    """A tasks-only job on ``scale`` times its input: as many more splits of the same size (map
    tasks ×scale, same map task time) and the same reducers each reading ×scale (reduce task
    time ×scale). Used by the extrapolation baseline."""
    return tasks.model_copy(
        update={
            "maps": max(1, math.ceil(tasks.maps * scale)),
            "reduce_task_ms": tasks.reduce_task_ms * scale,
            "reduce_max_ms": None if tasks.reduce_max_ms is None else tasks.reduce_max_ms * scale,
        }
    )

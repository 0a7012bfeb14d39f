"""Read and validate a workflow description (YAML or JSON) for ``mrtune workflow``.

A workflow is a DAG of MapReduce jobs, e.g. a compiled Pig or Hive query (workflow seed §3.3).
The file names each job, where its profile comes from, its configuration overrides and the jobs
it depends on, plus the capacity the workflow runs with: map and reduce slots (Hadoop 1, the
seed's ``(S_M^W, S_R^W)``) or YARN containers split into a map and a reduce share.

Example (YAML)::

    name: three concurrent jobs
    capacity: {map_slots: 64, reduce_slots: 32}
    defaults: {mapreduce.task.io.sort.mb: 200}      # every job, before its own overrides
    jobs:
      - name: j1
        profile: profiles/scan.json                  # path, relative to this file
        config: {mapreduce.job.reduces: 32}
      - name: j2
        profile: {input_bytes: 2.0e9, ...}           # or an inline JobProfile
      - name: j3
        tasks: {maps: 40, reduces: 8, map_task_ms: 21000, reduce_task_ms: 60000}
        depends_on: [j1, j2]

``tasks`` gives measured (or hand-written) task counts and times instead of a profile; such a
job is not re-predicted by the cost model and is not tuned.

A ``defaults:`` entry that a map-only job cannot use (reducers, a sort buffer) is not applied to
it (:meth:`WorkflowSpec.unusable_defaults`); every other setting is checked per job as ``whatif
--set`` checks it, by :mod:`mrtune.optimizer.workflow_checks`.

Every mistake is reported as one :class:`~mrtune.errors.InputError` naming the file and field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig, check_property_name, config_error_line
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.workflow import pig_stages
from mrtune.errors import InputError
from mrtune.readers import safe_io
from mrtune.readers._workflow_parts import (
    MAX_TASK_MS,
    MAX_TASKS,
    Baseline,
    Capacity,
    TaskSpec,
    scaled_tasks,
)
from mrtune.search_spaces.knobs import Role, find_knob

_NAME_PATTERN = r"^[A-Za-z0-9_.:-]+$"


class WorkflowJob(BaseModel):
    """One job of the workflow."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    name: str = Field(pattern=_NAME_PATTERN, max_length=100)
    profile: JobProfile | None = Field(
        None, description="a JobProfile (inline; load_workflow resolves a path to one)"
    )
    tasks: TaskSpec | None = None
    config: dict[str, Any] = Field(
        default_factory=dict, description="Hadoop property overrides for this job"
    )
    depends_on: list[str] = Field(default_factory=list)
    tune: bool = Field(True, description="let --optimize change this job's configuration")

    @field_validator("config", mode="before")
    @classmethod
    def _config_strings(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {str(k): v2 for k, v2 in v.items()}
        return v

    @model_validator(mode="after")
    def _one_source(self) -> WorkflowJob:
        if (self.profile is None) == (self.tasks is None):
            raise ValueError("give exactly one of profile (inline or path) and tasks")
        if self.tasks is not None and self.config:
            raise ValueError("config overrides need a profile; a tasks job is not re-predicted")
        return self


class WorkflowSpec(BaseModel):
    """A validated workflow file, with every profile loaded."""

    model_config = ConfigDict(extra="forbid")

    name: str = "workflow"
    description: str = ""
    capacity: Capacity | None = Field(
        None, description="map/reduce capacity; default: what the cost model's cluster provides"
    )
    cluster: ClusterSpec = Field(default_factory=ClusterSpec)
    hadoop_version: Literal[1, 2, 3] = 3
    defaults: dict[str, Any] = Field(default_factory=dict, description="overrides for every job")
    estimate: Literal["waves", "lower", "upper", "average"] = Field(
        "average", description="how a job's map/reduce stage duration is computed"
    )
    order: Literal["given", "best"] = Field(
        "given", description="job order inside a stage: as listed, or the best refined order"
    )
    jobs: list[WorkflowJob] = Field(min_length=1)
    baseline: Baseline | None = None
    _source: str | None = PrivateAttr(None)  # the file it was read from, for error lines

    @property
    def source(self) -> str | None:
        """The workflow file this spec was read from (``None`` when built in code)."""
        return self._source

    @model_validator(mode="after")
    def _graph(self) -> WorkflowSpec:
        seen: set[str] = set()
        for job in self.jobs:
            if job.name in seen:
                raise ValueError(f"job name {job.name!r} appears twice")
            seen.add(job.name)
        # pig_stages checks unknown names, self-dependencies and cycles.
        pig_stages({j.name: j.depends_on for j in self.jobs})
        if self.capacity is None and any(j.tasks is not None for j in self.jobs):
            raise ValueError("jobs given by tasks need an explicit capacity")
        return self

    @property
    def stages(self) -> list[tuple[str, ...]]:
        """Pig's stages (a stage: jobs whose predecessors are all in earlier stages)."""
        return pig_stages({j.name: j.depends_on for j in self.jobs})

    def job(self, name: str) -> WorkflowJob:
        for job in self.jobs:
            if job.name == name:
                return job
        raise KeyError(name)

    def job_properties(self, name: str) -> dict[str, str]:
        """The job's Hadoop properties: profiled configuration < file defaults < job config.

        A default the job cannot use (:meth:`unusable_defaults`) is left out."""
        job = self.job(name)
        props: dict[str, str] = {}
        if isinstance(job.profile, JobProfile):
            props.update(job.profile.source_properties)
        skip = set(self.unusable_defaults(name))
        props.update({k: str(v) for k, v in self.defaults.items() if k not in skip})
        props.update({k: str(v) for k, v in job.config.items()})
        return props

    def unusable_defaults(self, name: str) -> list[str]:
        """The ``defaults:`` a map-only job cannot use, which it is not given.

        ``defaults:`` speaks for every job, and a workflow mixing map-only jobs with jobs that
        have reducers (a scan before a join) rightly sets reducers or a sort buffer there. A
        map-only run's profile has no reduce side to price (``whatif`` refuses reducers asked
        of it), and with no reducers ``MapTask`` hands the map output straight to the output
        format (``NewDirectOutputCollector``): no sort buffer, spill, combiner, map-output
        codec, shuffle or merge. So such a default (reducers above 0, or a setting of the
        reduce side or one that needs it: :class:`~mrtune.search_spaces.knobs.Knob`'s
        ``side``/``needs_reduce``, ``whatif``'s map-only rule) is not applied to a job profiled
        map-only, and ``mrtune workflow`` says so in a note
        (:func:`~mrtune.optimizer.workflow_checks.check_workflow_settings`); the same setting
        in the job's own ``config:`` is asked of that job alone, and refused."""
        job = self.job(name)
        if not isinstance(job.profile, JobProfile) or not job.profile.map_only:
            return []
        return [k for k, v in self.defaults.items() if _needs_reduce_side(k, v)]


def _needs_reduce_side(key: str, value: Any) -> bool:
    """Whether setting ``key`` to ``value`` needs a reduce side (:meth:`~WorkflowSpec.
    unusable_defaults`): reducers above 0, or a knob of the reduce side or one that acts only
    with reducers (the sort buffer, spill, merge factor, combiner, map-output codec)."""
    try:
        knob = find_knob(key)
    except KeyError:
        return False
    if knob.role == Role.reducers:
        try:
            return int(str(value).strip()) != 0
        except ValueError:
            return False  # not a count: kept, so HadoopConfig's own check refuses it
    return knob.side == "reduce" or knob.needs_reduce


def _one_line(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(file)"
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        value = err.get("input")
        shown = "" if isinstance(value, dict | list) else f" (got {value!r})"
        parts.append(f"{loc}: {msg}{shown}")
    return "; ".join(parts)


def _read_mapping(path: Path) -> dict[str, Any]:
    text = safe_io.read_text(path)
    if path.suffix.lower() == ".json":
        data = safe_io.json_loads(text, str(path))
    else:  # YAML is a superset of JSON, so any other extension is parsed as YAML
        data = safe_io.yaml_loads(text, str(path))
    if not isinstance(data, dict):
        raise InputError(
            "a workflow file must be a mapping with a 'jobs' list",
            path=str(path),
            value=type(data).__name__,
        )
    return data


def load_profile(path: Path, *, job: str | None = None, source: Path | None = None) -> JobProfile:
    """A :class:`JobProfile` JSON file, validated; errors name the file (and the job)."""
    field = f"jobs.{job}.profile" if job else None
    where = str(source) if source is not None else str(path)
    try:
        found = path.is_file()
    except OSError:  # e.g. a name longer than the file system allows
        found = False
    if not found:
        raise InputError("profile file not found", path=where, field=field, value=str(path)[:200])
    try:
        profile = JobProfile.model_validate(
            safe_io.json_loads(safe_io.read_bytes(path), str(path))
        )
    except ValidationError as exc:
        raise InputError(f"invalid job profile: {_one_line(exc)}", path=str(path)) from None
    safe_io.check_profile_numbers(profile, str(path))
    return profile


def load_workflow(path: str | Path) -> WorkflowSpec:
    """Parse and validate a workflow file; profile paths are relative to the file."""
    path = Path(path)
    data = _read_mapping(path)
    jobs = data.get("jobs")
    if isinstance(jobs, list):
        resolved = []
        for i, job in enumerate(jobs):
            if isinstance(job, dict) and isinstance(job.get("profile"), str):
                name = job.get("name", f"#{i}")
                profile_path = Path(job["profile"]).expanduser()
                if not profile_path.is_absolute():
                    profile_path = path.parent / profile_path
                job = {**job, "profile": load_profile(profile_path, job=str(name), source=path)}
            resolved.append(job)
        data = {**data, "jobs": resolved}
    try:
        spec = WorkflowSpec.model_validate(data)
    except ValidationError as exc:
        raise InputError(_one_line(exc), path=str(path)) from None
    safe_io.check_finite_tree(
        spec.model_dump(mode="python", exclude={"jobs": {"__all__": {"profile"}}}), str(path)
    )
    spec._source = str(path)
    check_job_settings(spec, str(path))
    return spec


def check_job_settings(spec: WorkflowSpec, path: str) -> None:
    """Refuse a ``defaults:`` or ``config:`` property the model does not read, or a value
    :class:`HadoopConfig` refuses, in one line naming the file, the job, the key and the value.

    ``job_properties`` hands these names to :meth:`HadoopConfig.from_properties`, which keeps an
    unknown name aside as a property the model does not read: a misspelt
    ``mapreduce.task.io.sortmb`` would be a silent no-op, where ``whatif --set`` refuses it.
    """
    scopes = [("defaults", spec.defaults)]
    scopes += [(f"jobs.{j.name}.config", j.config) for j in spec.jobs]
    for scope, mapping in scopes:
        for key in mapping:
            if str(key).strip() == "hadoop_version":
                raise InputError(
                    "hadoop_version is not a job property",
                    path=path,
                    field=f"{scope}.{key}",
                    allowed="hadoop_version at the top of the workflow file",
                )
            try:
                check_property_name(str(key))
            except ValueError as exc:
                raise InputError(str(exc), path=path, field=f"{scope}.{key}") from None
    for job in spec.jobs:
        if not isinstance(job.profile, JobProfile):
            continue
        try:
            HadoopConfig.from_properties(
                spec.job_properties(job.name), hadoop_version=spec.hadoop_version
            )
        except ValidationError as exc:
            raise InputError(config_error_line(exc), path=path, field=f"jobs.{job.name}") from None
        except ValueError as exc:
            raise InputError(str(exc), path=path, field=f"jobs.{job.name}") from None


__all__ = [
    "MAX_TASKS",
    "MAX_TASK_MS",
    "Baseline",
    "Capacity",
    "TaskSpec",
    "WorkflowJob",
    "WorkflowSpec",
    "check_job_settings",
    "load_profile",
    "load_workflow",
    "scaled_tasks",
]

"""The settings a workflow file gives its jobs, checked per job as ``whatif`` checks ``--set``.

A workflow's ``defaults:`` and each job's ``config:`` are configuration changes of that job's
profiled run, so they take :func:`~mrtune.optimizer.whatif.apply_changes`, the route of
``whatif --set``: a setting the job's Hadoop does not read by that name
(``io.sort.record.percent`` on Hadoop 2/3, MAPREDUCE-64), a codec its release cannot load,
one property set twice under two names, reducers or a sort buffer asked of a map-only profile
(:func:`~mrtune.optimizer.whatif_checks.refuse_map_only`). The reader
(:mod:`mrtune.readers.workflow_file`) checks only that a property name is one the model reads
and that the merged configuration validates; without these checks ``mrtune workflow`` had
answered such a file with exit 0 and the results of the file without the setting.

The refusal is one line naming the file, the job, the property (``jobs.NAME.config.KEY`` or
``defaults.KEY``), the value and what is allowed. A ``defaults:`` entry that a map-only job
cannot use is not applied to it (:meth:`~mrtune.readers.workflow_file.WorkflowSpec.
unusable_defaults`: the defaults speak for every job of a workflow that mixes map-only jobs
with jobs that have reducers) and :func:`check_workflow_settings` returns a note saying so.
"""

from __future__ import annotations

from pydantic import ValidationError

from mrtune.costmodel.config import HadoopConfig, config_error_line
from mrtune.errors import InputError
from mrtune.optimizer.whatif import apply_changes
from mrtune.readers.workflow_file import WorkflowJob, WorkflowSpec
from mrtune.search_spaces.knobs import canonical_name


def check_workflow_settings(spec: WorkflowSpec) -> list[str]:
    """Check every profiled job's ``defaults:`` and ``config:`` (module doc); raise the first
    refusal as one :class:`InputError`, return the notes of defaults a job is not given."""
    notes = []
    for job in spec.jobs:
        if job.profile is None:
            continue  # a job given by its tasks takes no settings (the reader refuses them)
        skipped = spec.unusable_defaults(job.name)
        if skipped:
            shown = ", ".join(f"{k}={spec.defaults[k]}" for k in skipped)
            notes.append(
                f"job {job.name}: defaults {shown} not applied: its profile is of a map-only "
                "run (mapreduce.job.reduces=0), whose maps write straight to the output "
                "format (NewDirectOutputCollector) with no reduce side for them to act on"
            )
        _check_job(spec, job, skipped)
    return notes


def _check_job(spec: WorkflowSpec, job: WorkflowJob, skipped: list[str]) -> None:
    """``whatif``'s checks of the job's settings against its profiled configuration."""
    assert job.profile is not None
    own = {canonical_name(k) for k in job.config}
    changes = {
        k: str(v)
        for k, v in spec.defaults.items()
        if k not in skipped and canonical_name(k) not in own  # the job's own config wins
    }
    changes.update({k: str(v) for k, v in job.config.items()})
    if not changes:
        return
    try:
        base = HadoopConfig.from_properties(
            job.profile.source_properties, hadoop_version=spec.hadoop_version
        )
    except ValueError:  # the profiled settings alone break a limit the job's config fixes
        base = HadoopConfig(hadoop_version=spec.hadoop_version)
    try:
        apply_changes(base, changes, job.profile)
    except InputError as exc:
        raise InputError(
            exc.message,
            path=spec.source,
            field=_where(spec, job, exc.value),
            value=exc.value,
            allowed=exc.allowed,
        ) from None
    except ValidationError as exc:
        raise InputError(
            config_error_line(exc), path=spec.source, field=f"jobs.{job.name}"
        ) from None
    except ValueError as exc:
        raise InputError(
            " ".join(str(exc).split()), path=spec.source, field=f"jobs.{job.name}"
        ) from None


def _where(spec: WorkflowSpec, job: WorkflowJob, shown: object) -> str:
    """Where a refused setting was given: ``jobs.NAME.config.KEY``, or ``defaults.KEY`` with
    the job it was refused for; ``shown`` is the refusal's ``key=value`` (or key)."""
    key = canonical_name(str(shown or "").split("=", 1)[0].strip())
    for k in job.config:
        if canonical_name(k) == key:
            return f"jobs.{job.name}.config.{k}"
    for k in spec.defaults:
        if canonical_name(k) == key:
            return f"defaults.{k} (for job {job.name})"
    return f"jobs.{job.name}"

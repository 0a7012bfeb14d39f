"""The Hadoop properties of a batch job's tuned values (what each job's file writes): the
changed knobs through :func:`~mrtune.search_spaces.knob_to_properties`, and only the properties
whose formatted value differs from the job's current configuration."""

from __future__ import annotations

from typing import Any

from mrtune.costmodel import HadoopConfig, JobProfile
from mrtune.costmodel.config import field_versions, format_property_value
from mrtune.optimizer.batch._tune import JobTuning
from mrtune.search_spaces import find_knob, knob_to_properties


def changed_properties(
    tuning: JobTuning, profile: JobProfile, base: HadoopConfig
) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
    """Hadoop properties that realise the tuned values, and readable current/recommended
    values of the changed knobs."""
    changes: dict[str, object] = {}
    cur_vals: dict[str, Any] = {}
    rec_vals: dict[str, Any] = {}
    for name in tuning.changed:
        knob = find_knob(name)
        rec = knob.decode(tuning.best[name])
        cur_vals[name] = knob.decode(tuning.current[name])
        rec_vals[name] = rec
        changes.update(knob_to_properties(knob, rec, base, profile))
    if not changes:
        return {}, cur_vals, rec_vals
    return _property_diff(base, base.with_changes(changes)), cur_vals, rec_vals


def _property_diff(old: HadoopConfig, new: HadoopConfig) -> dict[str, str]:
    """``{k: v for k, v in new.to_properties().items() if old.to_properties().get(k) != v}``
    with only the fields whose values differ formatted (a job's properties are ~70 fields;
    formatting all of them twice per job was a visible share of a batch job)."""
    a, b = old.model_dump(), new.model_dump()
    out: dict[str, str] = {}
    for name, fld in HadoopConfig.model_fields.items():
        v = b.get(name)
        if not fld.alias or v is None or new.hadoop_version not in field_versions(name):
            continue
        u = a.get(name)
        if type(u) is type(v) and u == v:
            continue
        text = format_property_value(name, v)
        if u is not None and old.hadoop_version in field_versions(name):
            if format_property_value(name, u) == text:
                continue
        out[fld.alias] = text
    return out

"""The what-if engine: a profile, a configuration change (and optionally a new input size or
cluster) → predicted job time, per-phase times, dataflow and resource use, side by side with the
current configuration.

All scenarios of one question are evaluated in one call of the vectorised model
(:func:`mrtune.costmodel.predict_job`), then summarised per scenario by :func:`summarize`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from mrtune.costmodel import (
    ClusterSpec,
    ConfigBatch,
    HadoopConfig,
    JobProfile,
    predict_job,
)
from mrtune.costmodel.config import (
    check_property_name,
    config_error_line,
    followed_heap_changes,
)
from mrtune.errors import InputError
from mrtune.optimizer.confidence import (
    Evidence,
    evaluate_profiles,
    interval_of,
    ratio_interval,
    with_run_noise,
)
from mrtune.optimizer.model_miss import miss_band
from mrtune.optimizer.noise import run_noise
from mrtune.optimizer.whatif_checks import (
    codec_priors,
    refuse_aliases,
    refuse_map_only,
    refuse_unread_output_codec,
)
from mrtune.optimizer.whatif_summary import summarize
from mrtune.profiling import profile_config
from mrtune.search_spaces import find_knob, knob_to_properties
from mrtune.search_spaces.codecs import Release, codec_verdicts, parse_release
from mrtune.search_spaces.knobs import (
    CODEC_AVAILABILITY,
    MEMORY_ROLES,
    Role,
    canonical_name,
    unknown_properties,
    unread_reasons,
)


def parse_setting(text: str) -> tuple[str, str]:
    """``"k=v"`` → ``(k, v)``; raise ``ValueError`` for anything else."""
    if "=" not in text:
        raise ValueError(f"--set {text!r} is not of the form property=value")
    key, value = text.split("=", 1)
    key, value = key.strip(), value.strip()
    if not key:
        raise ValueError(f"--set {text!r} has no property name")
    return key, value


def job_release(base: HadoopConfig, profile: JobProfile | None) -> Release:
    """The job's release as ``optimize`` reads it for codecs (the line's earliest if unknown)."""
    raw = profile.cluster_facts.get("hadoop_version") if profile is not None else None
    return parse_release(raw, base.hadoop_version)


def unshipped_codec(
    config: HadoopConfig, base: HadoopConfig, release: Release, profile: JobProfile | None = None
) -> tuple[str, str, str] | None:
    """``(property=codec, why, allowed)`` for a codec ``config`` uses that the job's release
    cannot load ("Compression codec ... was not found", ``JobConf.getMapOutputCompressorClass``)
    by ``optimize``'s rule (:func:`~mrtune.search_spaces.codecs.codec_verdicts`: no Lz4Codec in
    Hadoop 1.x, HADOOP-7657); not the cluster's list or native libraries, which a what-if may
    assume. ``None``: every codec it uses ships, or ``base`` or the profiled run used it."""
    runs = [base] + ([profile_config(profile)] if profile is not None else [])
    in_use = {c.map_output_codec for c in runs if c.map_output_compress}
    in_use |= {c.output_codec for c in runs if c.output_compress}
    found = codec_verdicts(release, CODEC_AVAILABILITY, listed=set(CODEC_AVAILABILITY),
                           in_use=in_use, allow_native=True)  # fmt: skip
    verdicts = {v.codec: v for v in found}
    for field in ("map_output_codec", "output_codec"):
        on = config.map_output_compress if field == "map_output_codec" else config.output_compress
        v = verdicts.get(getattr(config, field))
        if on and v is not None and not v.offered:
            return (
                f"{HadoopConfig.model_fields[field].alias}={v.codec}",
                f"{v.codec}: {v.reason}; this job's Hadoop {'.'.join(map(str, release))} cannot "
                "load it",
                ", ".join([c.codec for c in found if c.offered] + ["none"]),
            )
    return None


def apply_changes(
    base: HadoopConfig,
    changes: Mapping[str, Any],
    profile: JobProfile | None = None,
    *,
    allow_unknown: bool = False,
) -> HadoopConfig:
    """``base`` with ``changes`` applied, each validated against the knob registry's range.

    Tunable settings are checked by their :class:`~mrtune.search_spaces.Knob` (the message names the
    allowed range); any other Hadoop property is passed to :class:`HadoopConfig` validation.
    Codec knobs accept ``none`` (turn compression off) or a codec name. A property the model does
    not read raises ``ValueError`` naming the closest known ones (a typo must not become a
    silent no-op change); ``allow_unknown`` passes it through instead: it cannot move the
    prediction, and :func:`what_if` lists it as such. A setting the job's Hadoop does not read
    by that name (:func:`~mrtune.search_spaces.knobs.unread_reasons`), or a codec its release
    lacks (:func:`unshipped_codec`), is one :class:`InputError`: it was priced or dropped.
    """
    props: dict[str, Any] = {}
    skip = set(unknown_properties(changes, profile)) if allow_unknown else set()
    old_api = profile is not None and profile.old_api_splits
    release = job_release(base, profile)
    refuse_aliases(changes)
    for key, raw in changes.items():
        if key in skip:
            continue
        for why, ok in unread_reasons({key: raw}, base.hadoop_version, release).values():
            raise InputError(why, field="--set", value=f"{key}={raw}", allowed=ok)
        try:
            knob = find_knob(key)
        except KeyError:
            check_property_name(key, old_api=old_api)  # a typo must not be a silent no-op
            props[key] = raw
            continue
        if knob.role == Role.output_codec:
            refuse_unread_output_codec(profile, key, raw)
        if knob.companion is not None and canonical_name(key) == knob.companion:
            # The knob's second property itself (a codec's on/off switch, split.minsize):
            # HadoopConfig validates it as the plain property it is.
            props[key] = raw
            continue
        if knob.role == Role.split_size:
            # split.maxsize as Hadoop reads it: max(minsize, min(maxsize, block)), so a maxsize
            # above the block changes nothing. The search's split-size knob (written through
            # minsize above the block) answered "maxsize=1g" as minsize=1g: 1,600 -> 100 maps
            # for a setting that leaves a real job as it was.
            props[key] = raw
            continue
        value = knob.parse(raw)
        heap = (f"mapreduce.{knob.side}.java.opts", "mapred.child.java.opts")
        if knob.role in MEMORY_ROLES and any(canonical_name(k) in heap for k in changes):
            # the heap asked in the same what-if stays (it was rewritten to the container's
            # ratio or not by the order of the --sets); HadoopConfig checks that it fits
            props[knob.name] = value
        elif profile is not None:
            props.update(knob_to_properties(knob, value, base, profile))
        else:
            props[knob.name] = value
    proposed = base.with_changes(props)
    if (bad := unshipped_codec(proposed, base, release, profile)) is not None:
        raise InputError(bad[1], field="--set", value=bad[0], allowed=bad[2])
    refuse_map_only(changes, proposed, profile)
    return proposed


def replay_conf(
    base: HadoopConfig,
    props: Mapping[str, str],
    profile: JobProfile,
    *,
    source: str = "--conf",
) -> tuple[HadoopConfig, list[str]]:
    """``base`` with a whole configuration file layered over it, as Hadoop would read it.

    This replays a configuration as written (a Starfish recommendation, a ``mapred-site.xml``):
    every property is set literally, in Hadoop 1 or 2/3 names, and any Hadoop-valid value is
    taken, search range or not (``io.sort.spill.percent=0.277``,
    ``min.num.spills.for.combine=9999``, ``mapred.reduce.tasks=0``). Unlike :func:`apply_changes`
    a codec class does not switch compression on: in Hadoop only
    ``mapred.compress.map.output`` / ``mapred.output.compress`` do (``JobConf.getCompressMapOutput``),
    and a file that names a codec with the switch false runs uncompressed. Starfish's
    ``starfish.use.combiner`` is its combiner switch (``MapProfileOracle``: a combiner class and
    the flag not false); ``true`` restores the profiled job's combiner. Properties the model
    does not read are returned, in order, as not modelled: a job's full ``*_conf.xml`` holds
    hundreds; so are those the job's Hadoop does not read (:func:`~mrtune.search_spaces.knobs.
    unread_reasons`: a Hadoop 1 job never reads a file's ``shuffle.memory.limit.percent``). A
    value Hadoop would refuse, or a codec its release lacks, is one :class:`InputError` naming
    the file and key.
    """
    skip, release = set(unknown_properties(props, profile)), job_release(base, profile)
    try:
        skip |= set(unread_reasons(props, base.hadoop_version, release))
    except ValidationError as exc:
        raise InputError(config_error_line(exc), path=source) from None
    plain: dict[str, Any] = {}
    switches: dict[str, Any] = {}
    for key, raw in props.items():
        if key in skip:
            continue
        try:
            knob = find_knob(key)
        except KeyError:
            plain[key] = raw
            continue
        if knob.role == Role.combiner and canonical_name(key) != knob.name:
            try:  # Starfish's on/off flag, not the class name
                on = knob.parse(raw)
            except ValueError:
                raise InputError(
                    "invalid value", path=source, field=key, value=raw, allowed=knob.allowed()
                ) from None
            switches.update(knob_to_properties(knob, on, base, profile))
            continue
        if knob.kind in {"int", "float", "categorical"} and canonical_name(key) == knob.name:
            try:
                knob.parse(raw)
            except ValueError:
                raise InputError(
                    "invalid value", path=source, field=key, value=raw, allowed=knob.allowed()
                ) from None
        plain[key] = raw
    try:
        replayed = base.with_changes({**plain, **switches})
    except ValidationError as exc:  # by property name and value, never pydantic's own text
        raise InputError(config_error_line(exc), path=source) from None
    except ValueError as exc:
        raise InputError(" ".join(str(exc).split()), path=source) from None
    if (bad := unshipped_codec(replayed, base, release, profile)) is not None:
        raise InputError(
            bad[1], path=source, field=bad[0].split("=")[0], value=bad[0], allowed=bad[2]
        )
    return replayed, [k for k in props if k in skip]


@dataclass
class Scenario:
    """One column of a what-if table."""

    name: str
    profile: JobProfile
    config: HadoopConfig
    cluster: ClusterSpec


def evaluate_scenarios(scenarios: list[Scenario]) -> list[dict[str, Any]]:
    """Summaries of every scenario; scenarios sharing profile and cluster share one model call."""
    out: list[dict[str, Any] | None] = [None] * len(scenarios)
    groups: dict[tuple[int, int], list[int]] = {}
    for i, s in enumerate(scenarios):
        groups.setdefault((id(s.profile), id(s.cluster)), []).append(i)
    for idx in groups.values():
        first = scenarios[idx[0]]
        pred = predict_job(
            first.profile,
            ConfigBatch.from_configs([scenarios[i].config for i in idx]),
            first.cluster,
        )
        for j, i in enumerate(idx):
            out[i] = {"name": scenarios[i].name, **summarize(pred, j)}
    return [o for o in out if o is not None]


def limit_findings(profile: JobProfile, base: HadoopConfig, proposed: HadoopConfig) -> list[Any]:
    """The lint's ``sort-buffer-heap`` findings (:func:`~mrtune.optimizer.lint_memory.
    sort_buffer_findings`) when the question moves the sort buffer or the map heap: a
    ``--set`` that leaves the map function less than the heap the profiled maps took beside
    their buffer is flagged as ``optimize`` flags a value it writes. A buffer at or above the
    heap never gets here: :class:`HadoopConfig` refuses it (one line, exit 2)."""
    if (proposed.io_sort_mb, proposed.map_heap_bytes) == (base.io_sort_mb, base.map_heap_bytes):
        return []
    from mrtune.optimizer.lint_memory import sort_buffer_findings
    from mrtune.optimizer.severity import Severity

    found = sort_buffer_findings(proposed, profile.map_heap_use)
    return [f for f in found if f.severity > Severity.NONE]


def what_if(
    profile: JobProfile,
    base: HadoopConfig,
    cluster: ClusterSpec,
    changes: Mapping[str, Any] | None = None,
    *,
    input_bytes: float | None = None,
    new_cluster: ClusterSpec | None = None,
    allow_unknown: bool = False,
    evidence: Evidence | None = None,
    replay: Mapping[str, str] | None = None,
    replay_source: str = "--conf",
) -> dict[str, Any]:
    """Answer one what-if question: current vs changed (configuration, cluster) at one size.

    With ``input_bytes`` both the current and the changed configuration are predicted at that
    size, so the comparison isolates the change (comparing the profiled size with the new one
    would report the growth of the input as the change's effect); the current configuration at
    the profiled size is returned as ``profiled``, for context. ``allow_unknown``: see
    :func:`apply_changes`; the names passed through are listed under ``not_modelled``.
    ``evidence`` (:func:`~mrtune.optimizer.confidence.gather_evidence` on ``profile``) adds
    ``interval``: the speedup's interval, current ÷ what-if taken per sample
    (:func:`whatif_interval`).
    ``replay``: a configuration file's properties, layered over ``base`` first
    (:func:`replay_conf`), then ``changes`` over them. ``lint``: :func:`limit_findings`.
    """
    changes = changes or {}
    start, unread, by_version = base, [], {}
    if replay:  # of its unread settings, those this job's Hadoop never reads, with the reason
        start, unread = replay_conf(base, replay, profile, source=replay_source)
        by_version = unread_reasons(
            {k: replay[k] for k in unread}, base.hadoop_version, job_release(base, profile)
        )
    proposed = apply_changes(start, changes, profile, allow_unknown=allow_unknown)
    (new_cluster or cluster).check_fits(proposed)  # containers YARN would refuse: one line
    limits = limit_findings(profile, base, proposed)
    new_profile = profile
    if input_bytes is not None:
        new_profile = profile.with_input_bytes(float(input_bytes))
    scen = [
        Scenario("current", new_profile, base, cluster),
        Scenario("what-if", new_profile, proposed, new_cluster or cluster),
    ]
    if input_bytes is not None:
        scen.append(Scenario("profiled", profile, base, cluster))
    rows = evaluate_scenarios(scen)
    cur, new = rows[:2]
    # each side's properties once: to_properties dumps and formats every field (it was called
    # twice per property here, 61 times per question)
    before, after = base.to_properties(), proposed.to_properties()
    changed = {k: {"from": v, "to": after.get(k)} for k, v in before.items() if after.get(k) != v}
    for k, v in after.items():
        if k not in before:
            changed[k] = {"from": None, "to": v}
    changed.update(followed_heap_changes(base, proposed))  # the heap a container moved
    return {
        "job_id": profile.job_id,
        "changes": changed,
        "input_bytes": {
            "profiled": profile.input_bytes,
            "current": new_profile.input_bytes,
            "what-if": new_profile.input_bytes,
        },
        "input_files": {"profiled": profile.input_files, "what-if": new_profile.input_files},
        "profiled": rows[2] if input_bytes is not None else None,
        "not_modelled": unread + (unknown_properties(changes, profile) if allow_unknown else []),
        "not_read_by_version": {k: f"{w}; allowed: {a}" for k, (w, a) in by_version.items()},
        "cluster": {
            "current": cluster.model_dump(),
            "what-if": (new_cluster or cluster).model_dump(),
        },
        "current": cur,
        "what_if": new,
        "speedup": cur["job_ms"] / new["job_ms"] if new["job_ms"] > 0 else float("inf"),
        "lint": [f.to_json() for f in limits],
        "codec_priors": codec_priors(profile, base, proposed),
        "interval": None
        if evidence is None
        else whatif_interval(evidence, base, proposed, cluster, new_cluster, input_bytes),
    }


def whatif_interval(
    evidence: Evidence,
    base: HadoopConfig,
    proposed: HadoopConfig,
    cluster: ClusterSpec,
    new_cluster: ClusterSpec | None = None,
    input_bytes: float | None = None,
) -> dict[str, Any]:
    """Intervals of the current and what-if job times and of their ratio, per evidence sample
    (the samples at ``input_bytes`` when given, like both columns of :func:`what_if`); one
    model call per cluster."""
    profiles = [*evidence.samples, evidence.point]
    if input_bytes is not None:
        profiles = [p.with_input_bytes(float(input_bytes)) for p in profiles]
    if new_cluster is None:
        both, _ = evaluate_profiles(profiles, [base, proposed], cluster)
        cur, new = both[:, 0], both[:, 1]
    else:
        cur = evaluate_profiles(profiles, [base], cluster)[0][:, 0]
        new = evaluate_profiles(profiles, [proposed], new_cluster)[0][:, 0]
    model = {
        "speedup": ratio_interval(cur[:-1], new[:-1], cur[-1], new[-1]),
        "current_ms": interval_of(cur[:-1], float(cur[-1])),
        "what_if_ms": interval_of(new[:-1], float(new[-1])),
    }
    # the same intervals as `optimize` gives: widened by the run-to-run noise a measurement of
    # them has and by a failed calibration's material miss (the model's own stay under
    # `<name>_model`)
    miss = miss_band(evidence.point)
    widened = with_run_noise(model, run_noise(evidence.point), miss)
    return {
        **{name: iv.to_json() for name, iv in widened.items()},
        "run_noise": run_noise(evidence.point).to_json(),
        "calibration_miss_band": float(np.expm1(miss)),
        "method": evidence.method,
        "measured_factors": evidence.measured,
        "defaulted_factors": evidence.defaulted,
    }

"""What a what-if says about its own changes before and after the model: a codec priced at
its documented prior, one property set twice, a setting the job's Hadoop no longer reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.errors import InputError
from mrtune.search_spaces.job_owned import split_units_reason
from mrtune.search_spaces.knobs import Role, canonical_name, find_knob
from mrtune.search_spaces.output_format import ignores_output_codec


def codec_priors(profile: JobProfile, base: HadoopConfig, proposed: HadoopConfig) -> list[str]:
    """One line for each codec the what-if uses that the job never ran, priced at its
    documented prior: the examples' TeraSort was told its shuffle would shrink 64% on zlib's
    prior ratio 0.36, where its data compressed to 0.163."""
    out = []
    sides = (
        ("map output", "map_output_compress", "map_output_codec"),
        ("job output", "output_compress", "output_codec"),
    )
    for what, switch, codec in sides:
        on, name = getattr(proposed, switch), getattr(proposed, codec)
        stats = profile.codec(name)
        was = (getattr(base, switch), getattr(base, codec))
        if on and (on, name) != was and stats.source.startswith("prior"):
            out.append(
                f"{what} codec {name}: ratio {stats.ratio:g} and its CPU are the documented "
                f"prior ({stats.source.removeprefix('prior: ')}), not measured on this job's data"
            )
    return out


#: Settings Hadoop 2/3 no longer read at all, and what replaced them.
IGNORED_SINCE_HADOOP2 = {
    "io.sort.record.percent": "MAPREDUCE-64: the sort buffer sizes its record share itself",
}


def refuse_aliases(changes: Mapping[str, str]) -> None:
    """Two names of one property (``io.sort.mb`` and ``mapreduce.task.io.sort.mb``) with
    different values: which one Hadoop takes depends on its deprecation table, so neither is
    guessed (the last one silently won)."""
    seen: dict[str, tuple[str, str]] = {}
    for key, raw in changes.items():
        name = canonical_name(key)
        if name in seen and seen[name][1].strip() != str(raw).strip():
            first, value = seen[name]
            raise InputError(
                f"{first}={value} and {key}={raw} set one property ({name}) twice",
                field="--set",
                value=key,
                allowed="one value per property",
            )
        seen.setdefault(name, (key, str(raw)))


def refuse_unread_output_codec(profile: JobProfile | None, key: str, raw: str) -> None:
    """One line when the job's OutputFormat never reads the output codec settings
    (:func:`~mrtune.search_spaces.output_format.ignores_output_codec`)."""
    why = ignores_output_codec(profile.source_properties) if profile is not None else None
    if why:
        raise InputError(
            f"{key}: {why}; Hadoop would not compress this job's output",
            field="--set",
            value=f"{key}={raw}",
        )


#: The properties that set the split size (``FileInputFormat.computeSplitSize``), by their
#: current names (``canonical_name``).
SPLIT_PROPERTIES = frozenset(
    {
        "mapreduce.input.fileinputformat.split.minsize",
        "mapreduce.input.fileinputformat.split.maxsize",
        "dfs.blocksize",
    }
)


#: The split setting the old mapred API's FileInputFormat does not read.
OLD_API_IGNORED = "mapreduce.input.fileinputformat.split.maxsize"


def unmodelled_split_note(profile: JobProfile, changes: Mapping[str, str]) -> str | None:
    """A line for a split-size change on a job whose maps are kept as the run's units (packed
    files, an unsplittable codec, its own input format, the old API): the answer keeps the
    run's maps, which is exact where Hadoop ignores the change (a gzip file, the old API's
    split.maxsize) and not modelled where it does not, and must say so rather than show a
    silent "no change"."""
    reason = split_units_reason(profile)
    keys = [k for k in changes if canonical_name(k) in SPLIT_PROPERTIES]
    if reason is None and profile.old_api_splits:
        maxsize = [k for k in keys if canonical_name(k) == OLD_API_IGNORED]
        if maxsize:
            return (
                f"{', '.join(maxsize)}: the job's old mapred API ignores split.maxsize (its "
                "FileInputFormat cuts by input / mapreduce.job.maps), so the maps stay as they "
                "are, as on Hadoop"
            )
    if reason is None or not keys:
        return None
    return f"{', '.join(keys)}: {reason}; the answer keeps the maps as those units"


def refuse_map_only(
    changes: Mapping[str, Any], proposed: HadoopConfig, profile: JobProfile | None = None
) -> None:
    """A change that cannot act on a map-only job is refused in one line, never answered as
    "no change": with no reducers ``MapTask`` hands the map output straight to the output
    format (``NewDirectOutputCollector``): no sort buffer, spill, combiner pass, map-output
    codec, shuffle or merge. Reducers asked of a map-only profile are refused too: the run
    measured no reduce side (what its reduce function does, emits and costs), and the model,
    which keeps a map-only profile map-only, had answered "0 -> 2 reducers" as no change.
    A what-if that makes a job with reducers map-only (a replayed Starfish smart-RRS file:
    reduces 0 and a sort buffer) is answered."""
    if profile is not None and profile.map_only:
        _refuse_reducers_of_map_only(changes, proposed, profile)
    if proposed.num_reducers != 0 or any(_is_reducers(k) for k in changes):
        return  # a job with a reduce side, or a what-if that makes one map-only (a whole
        # configuration replayed, like Starfish's smart-RRS TeraSort: reduces 0 and a sort
        # buffer) is answered; only a setting asked of a job that stays map-only is refused
    for key in changes:
        try:
            knob = find_knob(key)
        except KeyError:
            continue
        if knob.role != Role.reducers and (knob.side == "reduce" or knob.needs_reduce):
            raise InputError(
                f"{key} has no effect on a map-only job (mapreduce.job.reduces=0): the maps "
                "write straight to the output format (NewDirectOutputCollector), with no sort "
                "buffer, spill, map-output codec, shuffle or merge",
                field="--set",
                value=f"{key}={changes[key]}",
                allowed="the job's split size, containers and output settings (a job with "
                "reducers needs the profile of a run that had them)",
            )


def _refuse_reducers_of_map_only(
    changes: Mapping[str, Any], proposed: HadoopConfig, profile: JobProfile
) -> None:
    """Reducers asked of a map-only profile: refused, unless the job's code sets them (its
    ``setNumReduceTasks(0)`` overrides the -D, which the what-if then says and keeps)."""
    keys = [k for k in changes if _is_reducers(k)]
    if not keys or proposed.num_reducers == 0:
        return
    if any(_is_reducers(k) for k in profile.fixed_by_job):
        return
    raise InputError(
        f"the profile is of a map-only run: it measured no reduce side (what the reduce "
        f"function reads, emits and costs), so {proposed.num_reducers} reducer(s) cannot be "
        "priced",
        field="--set",
        value=f"{keys[0]}={changes[keys[0]]}",
        allowed="the profile of a run of the job with reducers; on this one, the split size, "
        "containers and output settings",
    )


def saturated_key_law_note(
    profile: JobProfile, current: Mapping[str, Any], proposed: Mapping[str, Any]
) -> str | None:
    """A line when the what-if's spills are smaller than the profiled run's and the
    profile's key law is saturated (every profiled spill held every key, so its exponent is
    not identified and uniform keys are assumed): the combine counts of the smaller spills are
    an upper bound, not an estimate. WordCount over Zipf text at io.sort.mb 5 had been told
    958,486 map SPILLED_RECORDS with no caveat; Hadoop spilled 775,878."""
    from mrtune.profiling.combine_fit import SATURATED_NOTE

    if not profile.has_combiner:
        return None
    how = profile.provenance_of("stats.key_zipf_exponent")
    a = float(current.get("records_per_spill", 0.0))
    b = float(proposed.get("records_per_spill", 0.0))
    if SATURATED_NOTE not in how or not 0 < b < a * (1 - 1e-9):
        return None
    return (
        f"combine counts at {b:,.0f} records a spill (the profiled run: {a:,.0f}) rest on an "
        "unidentified key law: every profiled spill held every key, so uniform keys are "
        "assumed, the most a smaller spill can hold; data with frequent keys (Zipf-like text) "
        "combines to fewer records, so the combined and spilled records are an upper bound"
    )


def skewed_partitions_note(profile: JobProfile, changes: Mapping[str, Any]) -> str | None:
    """The profile's skew line (:mod:`mrtune.profiling.partition_skew`) when a what-if changes
    the reduce side: the model prices the hot partition's reduce apart, and its share at
    another number of reducers follows the hot-key law, an assumption the line states."""
    skew = next((w for w in profile.warnings if w.startswith("partitions are skewed")), None)
    if skew is None:
        return None
    for key in changes:
        try:
            knob = find_knob(key)
        except KeyError:
            continue
        if knob.side == "reduce":
            return skew
    return None


def _is_reducers(key: str) -> bool:
    try:
        return find_knob(key).role == Role.reducers
    except KeyError:
        return False

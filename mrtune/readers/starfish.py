"""Read Starfish's XML job profiles and what-if inputs (issue 9).

Starfish (Duke; Herodotou's What-if Engine, the system the reference model comes from) keeps a
job's profile and the inputs of a what-if question in four XML files. This module turns them into
mrtune's :class:`~mrtune.costmodel.profile.JobProfile`, a Hadoop 1 :class:`~mrtune.costmodel.config.HadoopConfig`
and a slot-based :class:`~mrtune.costmodel.cluster.ClusterSpec`:

``job profile`` (:func:`read_job_profile`)::

    <job_profile id="job_…" num_mappers="8" num_reducers="2">
      <inputs><input>hdfs://…/part-0</input></inputs>
      <map_profile id="…" input_index="0" num_tasks="8">
        <counters>     <counter     key="MAP_INPUT_RECORDS" value="…"/> …</counters>
        <statistics>   <statistic   key="MAP_SIZE_SEL"      value="…"/> …</statistics>
        <cost_factors> <cost_factor key="READ_HDFS_IO_COST" value="…"/> …</cost_factors>
        <timings>      <timing      key="READ"              value="…"/> …</timings>
      </map_profile>
      <reduce_profile id="…" num_tasks="2"> … the same four sections … </reduce_profile>
    </job_profile>

Counters, statistics and timings are per-task averages (Starfish builds a job profile by
averaging its task profiles); cost factors are ns per byte or per record (reference §1.3);
timings are ms per task.

``input specification`` (:func:`read_input_spec`, Starfish's ``XMLInputSpecsParser``, in
:mod:`mrtune.readers.starfish_input`):
``<input>`` → ``<split input_index num_splits size compress/>``, sizes in bytes, one element per
group of equal splits (Starfish's TeraSort sample: 200 × 128 MB and 100 × 30 MB); other root
names are accepted too. ``cluster specification`` (:func:`read_cluster_spec`, in
:mod:`mrtune.readers.starfish_cluster`): racks of ``master_host`` / ``slave_host`` →
``task_tracker``, the compact ``<specs>`` form, or mrtune's older ``<host>`` form. ``job
configuration`` (:func:`read_job_conf`): a Hadoop ``<configuration>`` file whose Hadoop 0.20
names (``io.sort.mb`` …) are mapped through the deprecation table (reference §8.5) by
:meth:`HadoopConfig.from_properties`, which also honours ``starfish.use.combiner``.

Where things land (so nothing in a file is lost):

* statistics → :class:`~mrtune.costmodel.profile.DataflowStats` (reference Table 2); a missing
  statistic is derived from the counters by its Table 2 definition, else Starfish's default;
* cost factors → :class:`~mrtune.costmodel.profile.CostFactors` (Table 3); a factor both profiles
  carry (local I/O, merge, combine, setup, cleanup) takes the map profile's value, and the
  reduce profile's, when it differs, is its reduce-side override (``CostFactors.reduce_side``),
  which only the reduce task reads, as Starfish's What-if Engine prices each task at its own
  profile's factors; the intermediate codec costs likewise
  (``CodecStats.reduce_*_ns_per_byte``);
* ``INTERM_COMPRESS_RATIO`` with the intermediate (un)compress costs, and ``OUT_COMPRESS_RATIO``
  with the output compress cost, → ``profile.codecs`` for the codec the configuration names
  (Starfish has one ratio per job, whatever the codec);
* every profile section verbatim → one :class:`~mrtune.costmodel.profile.TaskTiming` per
  ``map_profile``/``reduce_profile`` in ``profile.observed``: ``phases_ms`` holds the timings
  under mrtune's phase names (Starfish's reduce ``SORT`` is mrtune's ``merge``) and their sum
  as ``total``; ``counters`` holds the counters under their own names, statistics as
  ``statistic:KEY``, cost factors as ``cost_factor:KEY``, and ``num_tasks``; job totals
  (average × tasks) go to ``profile.observed_counters``;
* unknown keys and attributes are kept there too and reported in ``profile.warnings``;
* the configuration travels with the profile: ``source_properties`` holds its properties and
  ``cluster_facts`` says ``hadoop_version=1`` and the reducer count, so
  :func:`mrtune.profiling.build.profile_config` rebuilds the same Hadoop 1 configuration from a saved
  ``profile.json``; the cluster file's racks, hosts, trackers and slots are in
  ``cluster_facts`` too.

The cluster gets Starfish's scheduler delays (1.5 s before and 1.5 s inside each task,
reference §6.2) so job times compare with Starfish's; docs/starfish-differences.md lists
where mrtune's model departs from Starfish and what each departure does to predictions.

Starfish's sizes are ``MAP_OUTPUT_BYTES``-based (serialized key and value bytes without IFile's
per-record vint lengths), so the profile sets ``ifile_record_overhead = 0``. Malformed XML or a
missing section is an :class:`~mrtune.errors.InputError` naming the file and the element.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import Element

from mrtune.errors import InputError
from mrtune.readers._starfish_keys import (
    CODEC_COSTS,
    COST_FIELDS,
    HADOOP1_BLOCK_SIZE,
    KNOWN_COSTS,
    KNOWN_COUNTERS,
    KNOWN_STATISTICS,
    MAP_COUNTERS,
    MAP_TIMINGS,
    MB,
    NS_PER_MS,
    OTHER_STATISTICS,
    REDUCE_COUNTERS,
    REDUCE_TIMINGS,
    SHARED_COUNTERS,
    STATISTIC_FIELDS,
    TASK_COSTS,
)
from mrtune.readers._starfish_xml import _number, _parse, _unknown_attributes
from mrtune.readers.starfish_cluster import (
    STARFISH_HEARTBEAT_MS,
    ClusterFile,
    read_cluster_spec,
)
from mrtune.readers.starfish_input import InputSpec, SplitGroup, read_input_spec

# The key tables (:mod:`mrtune.readers._starfish_keys`) and the input specification
# (:mod:`mrtune.readers.starfish_input`) live apart; they are re-exported here so the job
# profile's reader stays the one place to import Starfish's formats from.

__all__ = [
    "CODEC_COSTS",
    "COST_FIELDS",
    "HADOOP1_BLOCK_SIZE",
    "KNOWN_COSTS",
    "KNOWN_COUNTERS",
    "KNOWN_STATISTICS",
    "MAP_COUNTERS",
    "MAP_TIMINGS",
    "MB",
    "NS_PER_MS",
    "OTHER_STATISTICS",
    "REDUCE_COUNTERS",
    "REDUCE_TIMINGS",
    "SHARED_COUNTERS",
    "STARFISH_HEARTBEAT_MS",
    "STATISTIC_FIELDS",
    "TASK_COSTS",
    "ClusterFile",
    "InputSpec",
    "JobConf",
    "SplitGroup",
    "StarfishJobProfile",
    "TaskProfile",
    "read_cluster_spec",
    "read_input_spec",
    "read_job_conf",
    "read_job_profile",
]

_SECTIONS = (
    ("counters", "counter"),
    ("statistics", "statistic"),
    ("cost_factors", "cost_factor"),
    ("timings", "timing"),
)


# ----------------------------------------------------------------------------- job profile
@dataclass
class TaskProfile:
    """One ``<map_profile>`` or ``<reduce_profile>``: per-task averages, as in the file."""

    kind: str
    id: str
    num_tasks: int
    input_index: int
    counters: dict[str, float]
    statistics: dict[str, float]
    cost_factors: dict[str, float]
    timings: dict[str, float]
    where: str

    def total(self, counter: str) -> float:
        """Job total of a per-task counter (average × tasks)."""
        return self.counters.get(counter, 0.0) * self.num_tasks


@dataclass
class StarfishJobProfile:
    """A parsed ``<job_profile>`` file."""

    path: Path
    id: str
    name: str
    num_mappers: int
    num_reducers: int
    inputs: list[str]
    maps: list[TaskProfile]
    reduce: TaskProfile | None
    warnings: list[str] = field(default_factory=list)


def _read_section(
    el: Element,
    section: str,
    entry: str,
    known: frozenset[str],
    path: Path,
    where: str,
    warnings: list[str],
    *,
    required: bool,
) -> dict[str, float]:
    sections = el.findall(section)
    if not sections:
        if required:
            raise InputError(
                f"missing <{section}> section (every profile needs <{section}> with "
                f"<{entry} key=… value=…/> entries)",
                path=str(path),
                field=where,
            )
        warnings.append(f"{path}: {where}: no <{section}> section")
        return {}
    if len(sections) > 1:
        raise InputError(f"more than one <{section}> section", path=str(path), field=where)
    values: dict[str, float] = {}
    for i, child in enumerate(sections[0]):
        loc = f"{where}/{section}/{child.tag}[{i}]"
        if child.tag != entry:
            raise InputError(
                f"unexpected element <{child.tag}>",
                path=str(path),
                field=loc,
                allowed=f"<{entry}>",
            )
        key = (child.get("key") or "").strip()
        if not key:
            raise InputError("missing attribute 'key'", path=str(path), field=loc)
        loc = f"{where}/{section}/{entry}[@key={key!r}]"
        if key in values:
            raise InputError("duplicate key", path=str(path), field=loc)
        _unknown_attributes(child, ("key", "value"), path, loc, warnings)
        values[key] = _number(child.get("value"), path, loc + "/@value", minimum=-math.inf)
        if values[key] < 0:
            raise InputError(
                "must be >= 0", path=str(path), field=loc + "/@value", value=child.get("value")
            )
        if key not in known:
            warnings.append(
                f"{path}: {where}: unknown {entry} {key}={values[key]:g} kept in "
                f"profile.observed but not used by the model"
            )
    return values


def _read_task_profile(
    el: Element, kind: str, index: int, path: Path, warnings: list[str]
) -> TaskProfile:
    pid = el.get("id") or f"{kind}_profile[{index}]"
    where = f"job_profile/{kind}_profile[{index}]"
    _unknown_attributes(el, ("id", "input_index", "num_tasks"), path, where, warnings)
    num_tasks = int(
        _number(el.get("num_tasks"), path, where + "/@num_tasks", integer=True, minimum=1)
    )
    input_index = int(
        _number(el.get("input_index", "0"), path, where + "/@input_index", integer=True)
    )
    timing_names = MAP_TIMINGS if kind == "map" else REDUCE_TIMINGS
    sections = {}
    for section, entry in _SECTIONS:
        known = {
            "counters": KNOWN_COUNTERS,
            "statistics": KNOWN_STATISTICS,
            "cost_factors": KNOWN_COSTS,
            "timings": frozenset(timing_names),
        }[section]
        sections[section] = _read_section(
            el, section, entry, known, path, where, warnings, required=section != "timings"
        )
    for child in el:
        if child.tag not in {s for s, _ in _SECTIONS}:
            warnings.append(f"{path}: {where}: unknown element <{child.tag}> ignored")
    return TaskProfile(
        kind=kind,
        id=pid,
        num_tasks=num_tasks,
        input_index=input_index,
        counters=sections["counters"],
        statistics=sections["statistics"],
        cost_factors=sections["cost_factors"],
        timings=sections["timings"],
        where=where,
    )


def read_job_profile(path: str | Path) -> StarfishJobProfile:
    """Parse a Starfish ``<job_profile>`` file (see the module docstring for the format)."""
    path = Path(path)
    root = _parse(path, "job_profile")
    warnings: list[str] = []
    _unknown_attributes(
        root,
        ("id", "name", "job_name", "num_mappers", "num_reducers", "cluster_name"),
        path,
        "job_profile",
        warnings,
    )
    num_mappers = int(
        _number(root.get("num_mappers"), path, "job_profile/@num_mappers", integer=True)
    )
    num_reducers = int(
        _number(root.get("num_reducers"), path, "job_profile/@num_reducers", integer=True)
    )
    inputs = [(i.text or "").strip() for i in root.findall("inputs/input")]
    map_els = root.findall("map_profile")
    if not map_els:
        raise InputError(
            "missing <map_profile> (a job profile has one per input)",
            path=str(path),
            field="job_profile",
        )
    maps = [_read_task_profile(el, "map", i, path, warnings) for i, el in enumerate(map_els)]
    red_els = root.findall("reduce_profile")
    if len(red_els) > 1:
        raise InputError("more than one <reduce_profile>", path=str(path), field="job_profile")
    reduce = _read_task_profile(red_els[0], "reduce", 0, path, warnings) if red_els else None
    if num_reducers > 0 and reduce is None:
        raise InputError(
            f"missing <reduce_profile> although num_reducers={num_reducers}",
            path=str(path),
            field="job_profile",
        )
    for child in root:
        if child.tag not in {"inputs", "map_profile", "reduce_profile"}:
            warnings.append(f"{path}: job_profile: unknown element <{child.tag}> ignored")
    seen = sorted({m.input_index for m in maps})
    if len(seen) != len(maps):
        raise InputError(
            "two <map_profile> elements have the same input_index",
            path=str(path),
            field="job_profile/map_profile/@input_index",
        )
    if inputs and max(seen) >= len(inputs):
        raise InputError(
            f"input_index {max(seen)} has no matching <inputs>/<input> ({len(inputs)} given)",
            path=str(path),
            field="job_profile/map_profile/@input_index",
        )
    tasks = sum(m.num_tasks for m in maps)
    if tasks != num_mappers:
        warnings.append(
            f"{path}: job_profile: num_mappers={num_mappers} but the map profiles hold "
            f"{tasks} tasks; using the map profiles"
        )
    if reduce is not None and reduce.num_tasks != num_reducers:
        warnings.append(
            f"{path}: job_profile: num_reducers={num_reducers} but <reduce_profile> has "
            f"num_tasks={reduce.num_tasks}; using num_reducers"
        )
    return StarfishJobProfile(
        path=path,
        id=root.get("id") or path.stem,
        name=root.get("name") or root.get("job_name") or "",
        num_mappers=num_mappers,
        num_reducers=num_reducers,
        inputs=inputs,
        maps=maps,
        reduce=reduce,
        warnings=warnings,
    )


# ----------------------------------------------------------------------------- job conf
@dataclass
class JobConf:
    """A parsed Hadoop ``<configuration>`` file: ``{name: value}`` in file order."""

    path: Path
    properties: dict[str, str]


def read_job_conf(path: str | Path) -> JobConf:
    """Parse a Hadoop configuration XML with the project's reader (:mod:`mrtune.readers.conf`).

    That reader refuses DTDs and entities, and expands ``${var}`` references as Hadoop's
    ``Configuration`` does.
    """
    from mrtune.readers.conf import load_conf

    conf = load_conf(path)
    return JobConf(path=Path(path), properties=dict(conf.properties))

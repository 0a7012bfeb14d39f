"""Read Starfish's XML job profiles and what-if inputs (issue 9).

Starfish (Duke; Herodotou's What-if Engine, the system the reference model comes from) keeps a
job's profile and the inputs of a what-if question in four XML files. This module turns them into
mrtune's :class:`~costmodel.profile.JobProfile`, a Hadoop 1 :class:`~costmodel.config.HadoopConfig`
and a slot-based :class:`~costmodel.cluster.ClusterSpec`:

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

``input specification`` (:func:`read_input_spec`): ``<split input_index num_splits size
compress/>`` elements under any root, sizes in bytes. ``cluster specification``
(:func:`read_cluster_spec`): ``<cluster>`` → ``<rack>`` → ``<host>`` → ``<task_tracker
map_slots reduce_slots/>``. ``job configuration`` (:func:`read_job_conf`): a Hadoop
``<configuration>`` file whose Hadoop 0.20 names (``io.sort.mb`` …) are mapped through the
deprecation table (reference §8.5) by :meth:`HadoopConfig.from_properties`.

Where things land (so nothing in a file is lost):

* statistics → :class:`~costmodel.profile.DataflowStats` (reference Table 2); a missing
  statistic is derived from the counters by its Table 2 definition, else Starfish's default;
* cost factors → :class:`~costmodel.profile.CostFactors` (Table 3); a factor both profiles carry
  (local I/O, merge, combine) is averaged weighted by the work each side measured it on, because
  mrtune's model has one value;
* ``INTERM_COMPRESS_RATIO`` with the intermediate (un)compress costs, and ``OUT_COMPRESS_RATIO``
  with the output compress cost, → ``profile.codecs`` for the codec the configuration names
  (Starfish has one ratio per job, whatever the codec);
* every profile section verbatim → one :class:`~costmodel.profile.TaskTiming` per
  ``map_profile``/``reduce_profile`` in ``profile.observed``: ``phases_ms`` holds the timings
  under mrtune's phase names (Starfish's reduce ``SORT`` is mrtune's ``merge``) and their sum
  as ``total``; ``counters`` holds the counters under their own names, statistics as
  ``statistic:KEY``, cost factors as ``cost_factor:KEY``, and ``num_tasks``; job totals
  (average × tasks) go to ``profile.observed_counters``;
* unknown keys and attributes are kept there too and reported in ``profile.warnings``;
* the configuration travels with the profile: ``source_properties`` holds its properties and
  ``cluster_facts`` says ``hadoop_version=1`` and the reducer count, so
  :func:`profiler.build.profile_config` rebuilds the same Hadoop 1 configuration from a saved
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
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException
from pydantic import ValidationError

from costmodel.cluster import ClusterSpec
from costmodel.config import HadoopConfig
from costmodel.profile import (
    CODEC_PRIORS,
    CodecStats,
    CostFactors,
    DataflowStats,
    JobProfile,
    TaskTiming,
)
from costmodel.properties import DEPRECATED_NAMES
from mrtune.errors import InputError

__all__ = [
    "STARFISH_HEARTBEAT_MS",
    "ClusterFile",
    "InputSpec",
    "JobConf",
    "StarfishJobProfile",
    "TaskProfile",
    "load_starfish",
    "read_cluster_spec",
    "read_input_spec",
    "read_job_conf",
    "read_job_profile",
]

MB = 2**20
NS_PER_MS = 1e6
#: Starfish's ``BasicFIFOScheduler`` starts every task half a heartbeat (1.5 s) after its slot
#: frees and adds another 1.5 s to its duration (reference §6.2). A cluster read from a Starfish
#: file uses both, so job times are comparable with Starfish's; see docs/starfish-differences.md.
STARFISH_HEARTBEAT_MS = 1500.0
STARFISH_TASK_DELAY_MS = 1500.0
#: Hadoop 1 ``dfs.block.size`` default (64 MB).
HADOOP1_BLOCK_SIZE = 64 * MB

# ----------------------------------------------------------------------------- known keys
MAP_COUNTERS = frozenset(
    {
        "MAP_INPUT_RECORDS",
        "MAP_INPUT_BYTES",
        "MAP_OUTPUT_RECORDS",
        "MAP_OUTPUT_BYTES",
        "MAP_SKIPPED_RECORDS",
        "MAP_NUM_SPILLS",
        "MAP_NUM_SPILL_MERGES",
        "MAP_RECS_PER_BUFF_SPILL",
        "MAP_SPILL_SIZE",
        "MAP_MAX_UNIQUE_GROUPS",
    }
)
REDUCE_COUNTERS = frozenset(
    {
        "REDUCE_SHUFFLE_BYTES",
        "REDUCE_INPUT_GROUPS",
        "REDUCE_INPUT_RECORDS",
        "REDUCE_INPUT_BYTES",
        "REDUCE_OUTPUT_RECORDS",
        "REDUCE_OUTPUT_BYTES",
        "REDUCE_SKIPPED_GROUPS",
        "REDUCE_SKIPPED_RECORDS",
    }
)
SHARED_COUNTERS = frozenset(
    {
        "COMBINE_INPUT_RECORDS",
        "COMBINE_OUTPUT_RECORDS",
        "SPILLED_RECORDS",
        "FILE_BYTES_READ",
        "FILE_BYTES_WRITTEN",
        "HDFS_BYTES_READ",
        "HDFS_BYTES_WRITTEN",
        "S3N_BYTES_READ",
        "S3N_BYTES_WRITTEN",
    }
)
KNOWN_COUNTERS = MAP_COUNTERS | REDUCE_COUNTERS | SHARED_COUNTERS

#: Starfish statistic → DataflowStats field (reference Table 2).
STATISTIC_FIELDS: dict[str, str] = {
    "INPUT_PAIR_WIDTH": "input_pair_width",
    "MAP_SIZE_SEL": "map_size_sel",
    "MAP_PAIRS_SEL": "map_pairs_sel",
    "REDUCE_SIZE_SEL": "reduce_size_sel",
    "REDUCE_PAIRS_SEL": "reduce_pairs_sel",
    "REDUCE_PAIRS_PER_GROUP": "reduce_pairs_per_group",
    "COMBINE_SIZE_SEL": "combine_size_sel",
    "COMBINE_PAIRS_SEL": "combine_pairs_sel",
    "INPUT_COMPRESS_RATIO": "input_compress_ratio",
    "OUT_COMPRESS_RATIO": "out_compress_ratio",
}
#: Statistics mrtune reads but keeps elsewhere (codecs) or only records (memory feasibility).
OTHER_STATISTICS = frozenset(
    {
        "INTERM_COMPRESS_RATIO",
        "STARTUP_MEM",
        "SETUP_MEM",
        "MAP_MEM_PER_RECORD",
        "REDUCE_MEM_PER_RECORD",
        "CLEANUP_MEM",
    }
)
KNOWN_STATISTICS = frozenset(STATISTIC_FIELDS) | OTHER_STATISTICS
#: Which profile measures a statistic (looked up there first, then in the other one).
_STAT_OWNER = {
    "REDUCE_SIZE_SEL": "reduce",
    "REDUCE_PAIRS_SEL": "reduce",
    "REDUCE_PAIRS_PER_GROUP": "reduce",
    "OUT_COMPRESS_RATIO": "reduce",
}

#: Starfish cost factor → CostFactors field (reference Table 3).
COST_FIELDS: dict[str, str] = {
    "READ_HDFS_IO_COST": "hdfs_read",
    "WRITE_HDFS_IO_COST": "hdfs_write",
    "READ_LOCAL_IO_COST": "local_read",
    "WRITE_LOCAL_IO_COST": "local_write",
    "NETWORK_COST": "network",
    "MAP_CPU_COST": "map_cpu",
    "REDUCE_CPU_COST": "reduce_cpu",
    "COMBINE_CPU_COST": "combine_cpu",
    "PARTITION_CPU_COST": "partition_cpu",
    "SERDE_CPU_COST": "serde_cpu",
    "SORT_CPU_COST": "sort_cpu",
    "MERGE_CPU_COST": "merge_cpu",
    "INPUT_UNCOMPRESS_CPU_COST": "input_uncompress",
}
CODEC_COSTS = frozenset(
    {"INTERM_UNCOMPRESS_CPU_COST", "INTERM_COMPRESS_CPU_COST", "OUTPUT_COMPRESS_CPU_COST"}
)
TASK_COSTS = frozenset({"SETUP_CPU_COST", "CLEANUP_CPU_COST"})
KNOWN_COSTS = frozenset(COST_FIELDS) | CODEC_COSTS | TASK_COSTS
#: Who measures a cost factor: "map", "reduce", or "both" (then averaged by ``_COST_WEIGHT``).
_COST_OWNER: dict[str, str] = {
    "READ_HDFS_IO_COST": "map",
    "MAP_CPU_COST": "map",
    "PARTITION_CPU_COST": "map",
    "SERDE_CPU_COST": "map",
    "SORT_CPU_COST": "map",
    "INPUT_UNCOMPRESS_CPU_COST": "map",
    "WRITE_HDFS_IO_COST": "reduce",
    "NETWORK_COST": "reduce",
    "REDUCE_CPU_COST": "reduce",
    "OUTPUT_COMPRESS_CPU_COST": "reduce",
    "READ_LOCAL_IO_COST": "both",
    "WRITE_LOCAL_IO_COST": "both",
    "MERGE_CPU_COST": "both",
    "COMBINE_CPU_COST": "both",
    "INTERM_COMPRESS_CPU_COST": "both",
    "INTERM_UNCOMPRESS_CPU_COST": "both",
}
#: The counter a shared cost factor was measured per (the weight of each side's value).
_COST_WEIGHT: dict[str, str] = {
    "READ_LOCAL_IO_COST": "FILE_BYTES_READ",
    "WRITE_LOCAL_IO_COST": "FILE_BYTES_WRITTEN",
    "MERGE_CPU_COST": "SPILLED_RECORDS",
    "COMBINE_CPU_COST": "COMBINE_INPUT_RECORDS",
    "INTERM_COMPRESS_CPU_COST": "FILE_BYTES_WRITTEN",
    "INTERM_UNCOMPRESS_CPU_COST": "FILE_BYTES_READ",
}
#: Starfish timing → mrtune phase name, per task kind.
MAP_TIMINGS = {
    "READ": "read",
    "MAP": "map",
    "COLLECT": "collect",
    "SPILL": "spill",
    "MERGE": "merge",
    "WRITE": "write",
    "SETUP": "setup",
    "CLEANUP": "cleanup",
}
REDUCE_TIMINGS = {
    "SHUFFLE": "shuffle",
    "SORT": "merge",
    "REDUCE": "reduce",
    "WRITE": "write",
    "SETUP": "setup",
    "CLEANUP": "cleanup",
}
_SECTIONS = (
    ("counters", "counter"),
    ("statistics", "statistic"),
    ("cost_factors", "cost_factor"),
    ("timings", "timing"),
)


# ----------------------------------------------------------------------------- XML helpers
def _parse(path: Path, root_tag: str | tuple[str, ...] | None) -> Element:
    """Parse ``path`` with defusedxml (no entities, no DTDs) and check the root element."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=str(path)) from None
    try:
        root = SafeET.fromstring(data)
    except ParseError as exc:
        raise InputError(f"not well-formed XML: {exc}", path=str(path)) from None
    except DefusedXmlException as exc:
        raise InputError(
            f"unsafe XML refused ({type(exc).__name__}): entity and DTD declarations are "
            "not allowed",
            path=str(path),
        ) from None
    if root_tag is not None:
        tags = (root_tag,) if isinstance(root_tag, str) else root_tag
        if root.tag not in tags:
            raise InputError(
                f"root element is <{root.tag}>",
                path=str(path),
                field="/",
                allowed=" or ".join(f"<{t}>" for t in tags),
            )
    return root


def _number(
    raw: str | None, path: Path, where: str, *, integer: bool = False, minimum: float = 0.0
) -> float:
    if raw is None or not raw.strip():
        raise InputError("missing value", path=str(path), field=where)
    try:
        value = float(raw.strip())
    except ValueError:
        raise InputError("not a number", path=str(path), field=where, value=raw) from None
    if not math.isfinite(value):
        raise InputError("not a finite number", path=str(path), field=where, value=raw)
    if value < minimum:
        raise InputError(
            f"must be >= {minimum:g}", path=str(path), field=where, value=raw, allowed=None
        )
    if integer:
        if not value.is_integer():
            raise InputError("must be a whole number", path=str(path), field=where, value=raw)
        return float(int(value))
    return value


def _bool(raw: str | None, path: Path, where: str) -> bool:
    s = (raw or "").strip().lower()
    if s in {"true", "1", "yes"}:
        return True
    if s in {"false", "0", "no", ""}:
        return False
    raise InputError("not a boolean", path=str(path), field=where, value=raw, allowed="true|false")


def _unknown_attributes(
    el: Element, known: Iterable[str], path: Path, where: str, warnings: list[str]
) -> dict[str, str]:
    extra = {k: v for k, v in el.attrib.items() if k not in set(known)}
    for k, v in extra.items():
        warnings.append(f"{path}: {where}: unknown attribute {k}={v!r} ignored")
    return extra


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


# ----------------------------------------------------------------------------- input spec
@dataclass(frozen=True)
class SplitGroup:
    """``<split input_index num_splits size compress/>``: ``num_splits`` splits of ``size`` bytes."""

    input_index: int
    num_splits: int
    size: float
    compress: bool


@dataclass
class InputSpec:
    """A parsed input specification."""

    path: Path
    splits: list[SplitGroup]
    warnings: list[str] = field(default_factory=list)

    @property
    def total_bytes(self) -> float:
        return sum(s.num_splits * s.size for s in self.splits)

    @property
    def num_splits(self) -> int:
        return sum(s.num_splits for s in self.splits)


def read_input_spec(path: str | Path) -> InputSpec:
    """Parse a Starfish input specification: ``<split …/>`` elements (sizes in bytes)."""
    path = Path(path)
    root = _parse(path, None)
    warnings: list[str] = []
    groups: list[SplitGroup] = []
    for i, el in enumerate(root.iter("split")):
        where = f"{root.tag}/split[{i}]"
        _unknown_attributes(
            el, ("input_index", "num_splits", "size", "compress"), path, where, warnings
        )
        groups.append(
            SplitGroup(
                input_index=int(
                    _number(
                        el.get("input_index", "0"), path, where + "/@input_index", integer=True
                    )
                ),
                num_splits=int(
                    _number(
                        el.get("num_splits"), path, where + "/@num_splits", integer=True, minimum=1
                    )
                ),
                size=_number(el.get("size"), path, where + "/@size", minimum=1),
                compress=_bool(el.get("compress"), path, where + "/@compress"),
            )
        )
    if not groups:
        raise InputError(
            "no <split input_index=… num_splits=… size=… compress=…/> element",
            path=str(path),
            field=root.tag,
        )
    return InputSpec(path=path, splits=groups, warnings=warnings)


# ----------------------------------------------------------------------------- cluster spec
@dataclass
class ClusterFile:
    """A parsed cluster specification: hosts with their task trackers' slots."""

    path: Path
    name: str
    racks: int
    host_slots: dict[str, tuple[int, int]]
    trackers: int
    facts: dict[str, float | str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def read_cluster_spec(path: str | Path) -> ClusterFile:
    """Parse a Starfish cluster specification (racks → hosts → task trackers)."""
    path = Path(path)
    root = _parse(path, "cluster")
    warnings: list[str] = []
    _unknown_attributes(root, ("name",), path, "cluster", warnings)
    racks = root.findall("rack")
    if not racks:
        raise InputError(
            "missing <rack> (cluster → rack → host → task_tracker)",
            path=str(path),
            field="cluster",
        )
    host_slots: dict[str, tuple[int, int]] = {}
    trackers = 0
    memory: list[float] = []
    for r, rack in enumerate(racks):
        rwhere = f"cluster/rack[{r}]"
        _unknown_attributes(rack, ("name",), path, rwhere, warnings)
        hosts = rack.findall("host")
        if not hosts:
            raise InputError("missing <host>", path=str(path), field=rwhere)
        for h, host in enumerate(hosts):
            hwhere = f"{rwhere}/host[{h}]"
            _unknown_attributes(host, ("name", "ip"), path, hwhere, warnings)
            name = host.get("name") or hwhere
            tts = host.findall("task_tracker")
            if not tts:
                raise InputError("missing <task_tracker>", path=str(path), field=hwhere)
            maps = reds = 0
            for t, tt in enumerate(tts):
                twhere = f"{hwhere}/task_tracker[{t}]"
                _unknown_attributes(
                    tt,
                    ("name", "map_slots", "reduce_slots", "max_slot_memory", "max_task_memory"),
                    path,
                    twhere,
                    warnings,
                )
                maps += int(
                    _number(tt.get("map_slots"), path, twhere + "/@map_slots", integer=True)
                )
                reds += int(
                    _number(tt.get("reduce_slots"), path, twhere + "/@reduce_slots", integer=True)
                )
                for attr in ("max_slot_memory", "max_task_memory"):
                    if tt.get(attr) is not None:
                        memory.append(_number(tt.get(attr), path, f"{twhere}/@{attr}"))
                trackers += 1
            if name in host_slots:
                raise InputError(f"host {name!r} appears twice", path=str(path), field=hwhere)
            host_slots[name] = (maps, reds)
    facts: dict[str, float | str] = {
        "cluster_name": root.get("name") or path.stem,
        "racks": float(len(racks)),
        "hosts": float(len(host_slots)),
        "task_trackers": float(trackers),
        "map_slots": float(sum(m for m, _ in host_slots.values())),
        "reduce_slots": float(sum(r for _, r in host_slots.values())),
    }
    if memory:
        facts["max_slot_memory"] = min(memory)
    return ClusterFile(
        path=path,
        name=str(facts["cluster_name"]),
        racks=len(racks),
        host_slots=host_slots,
        trackers=trackers,
        facts=facts,
        warnings=warnings,
    )


def _cluster_spec(cluster: ClusterFile) -> ClusterSpec:
    """Slots per node for mrtune's uniform-node cluster model (totals are preserved or warned)."""
    nodes = len(cluster.host_slots)
    maps = [m for m, _ in cluster.host_slots.values()]
    reds = [r for _, r in cluster.host_slots.values()]
    total_m, total_r = sum(maps), sum(reds)
    if total_m < 1:
        raise InputError("the cluster has no map slots", path=str(cluster.path), field="cluster")
    per_m = max(1, round(total_m / nodes))
    per_r = max(1, round(total_r / nodes)) if total_r > 0 else 1
    if len(set(maps)) > 1 or len(set(reds)) > 1:
        cluster.warnings.append(
            f"{cluster.path}: hosts have different slot counts (map {sorted(set(maps))}, reduce "
            f"{sorted(set(reds))}); mrtune models identical nodes with {per_m} map and {per_r} "
            f"reduce slots each ({nodes * per_m} and {nodes * per_r} in total, file: "
            f"{total_m} and {total_r})"
        )
    return ClusterSpec(
        num_nodes=nodes,
        map_slots_per_node=per_m,
        reduce_slots_per_node=per_r,
        heartbeat_ms=STARFISH_HEARTBEAT_MS,
        task_startup_ms=STARFISH_TASK_DELAY_MS,
    )


# ----------------------------------------------------------------------------- job conf
@dataclass
class JobConf:
    """A parsed Hadoop ``<configuration>`` file: ``{name: value}`` in file order."""

    path: Path
    properties: dict[str, str]


def read_job_conf(path: str | Path) -> JobConf:
    """Parse a Hadoop configuration XML with the project's reader (:mod:`profiler.confxml`).

    That reader refuses DTDs and entities, and expands ``${var}`` references as Hadoop's
    ``Configuration`` does.
    """
    from profiler.confxml import load_conf

    conf = load_conf(path)
    return JobConf(path=Path(path), properties=dict(conf.properties))


# ----------------------------------------------------------------------------- assembly
class _Assembler:
    """Turns the parsed files into mrtune's models, recording provenance and warnings."""

    def __init__(self, job: StarfishJobProfile) -> None:
        self.job = job
        self.src = job.path.name
        self.provenance: dict[str, str] = {}
        self.warnings: list[str] = list(job.warnings)

    # -- per-side lookups
    def _map_value(self, section: str, key: str) -> float | None:
        """Task-weighted mean over the map profiles that carry ``key``."""
        vals = [
            (getattr(m, section)[key], m.num_tasks)
            for m in self.job.maps
            if key in getattr(m, section)
        ]
        if not vals:
            return None
        w = sum(n for _, n in vals)
        if len({v for v, _ in vals}) > 1:
            self.warnings.append(
                f"{self.job.path}: {section[:-1]} {key} differs between the inputs' map profiles "
                f"({', '.join(f'{v:g}' for v, _ in vals)}); mrtune models one input and uses the "
                "task-weighted mean"
            )
        return sum(v * n for v, n in vals) / w

    def _reduce_value(self, section: str, key: str) -> float | None:
        r = self.job.reduce
        if r is None:
            return None
        return getattr(r, section).get(key)

    def _map_counter(self, key: str) -> float | None:
        return self._map_value("counters", key)

    # -- statistics (Table 2)
    def _derived_stat(self, key: str) -> tuple[float, str] | None:
        """A statistic from the counters, by its Table 2 definition."""

        def ratio(num: float | None, den: float | None) -> float | None:
            if num is None or den is None or den <= 0:
                return None
            return num / den

        m, r = self._map_counter, lambda k: self._reduce_value("counters", k)
        defs: dict[str, tuple[float | None, str]] = {
            "INPUT_PAIR_WIDTH": (
                ratio(m("MAP_INPUT_BYTES"), m("MAP_INPUT_RECORDS")),
                "MAP_INPUT_BYTES / MAP_INPUT_RECORDS",
            ),
            "MAP_SIZE_SEL": (
                ratio(m("MAP_OUTPUT_BYTES"), m("MAP_INPUT_BYTES")),
                "MAP_OUTPUT_BYTES / MAP_INPUT_BYTES",
            ),
            "MAP_PAIRS_SEL": (
                ratio(m("MAP_OUTPUT_RECORDS"), m("MAP_INPUT_RECORDS")),
                "MAP_OUTPUT_RECORDS / MAP_INPUT_RECORDS",
            ),
            "COMBINE_PAIRS_SEL": (
                ratio(m("COMBINE_OUTPUT_RECORDS"), m("COMBINE_INPUT_RECORDS")),
                "COMBINE_OUTPUT_RECORDS / COMBINE_INPUT_RECORDS (map side)",
            ),
            "REDUCE_PAIRS_SEL": (
                ratio(r("REDUCE_OUTPUT_RECORDS"), r("REDUCE_INPUT_RECORDS")),
                "REDUCE_OUTPUT_RECORDS / REDUCE_INPUT_RECORDS",
            ),
            "REDUCE_SIZE_SEL": (
                ratio(r("REDUCE_OUTPUT_BYTES"), r("REDUCE_INPUT_BYTES")),
                "REDUCE_OUTPUT_BYTES / REDUCE_INPUT_BYTES",
            ),
            "REDUCE_PAIRS_PER_GROUP": (
                ratio(r("REDUCE_INPUT_RECORDS"), r("REDUCE_INPUT_GROUPS")),
                "REDUCE_INPUT_RECORDS / REDUCE_INPUT_GROUPS",
            ),
            "INPUT_COMPRESS_RATIO": (
                ratio(m("HDFS_BYTES_READ"), m("MAP_INPUT_BYTES")),
                "HDFS_BYTES_READ / MAP_INPUT_BYTES",
            ),
        }
        value, how = defs.get(key, (None, ""))
        return None if value is None else (value, how)

    def statistic(self, key: str) -> tuple[float, str] | None:
        """``(value, provenance)`` of a Starfish statistic, or None when neither given nor derivable."""
        owner = _STAT_OWNER.get(key, "map")
        first, second = (
            (self._reduce_value, self._map_value)
            if owner == "reduce"
            else (self._map_value, self._reduce_value)
        )
        for getter, side in ((first, owner), (second, "map" if owner == "reduce" else "reduce")):
            v = getter("statistics", key)
            if v is not None:
                return v, f"measured: Starfish statistic {key} ({self.src}, {side} profile)"
        derived = self._derived_stat(key)
        if derived is not None:
            return derived[
                0
            ], f"measured: derived from Starfish counters {derived[1]} ({self.src})"
        return None

    def stats(self, has_combiner: bool) -> DataflowStats:
        values: dict[str, Any] = {}
        for key, fname in STATISTIC_FIELDS.items():
            got = self.statistic(key)
            if got is None:
                continue
            v, prov = got
            if fname in {"combine_pairs_sel", "combine_size_sel"} and not has_combiner:
                continue
            values[fname] = v
            self.provenance[f"stats.{fname}"] = prov
        if has_combiner:
            per_spill = self._map_counter("MAP_RECS_PER_BUFF_SPILL")
            if per_spill:
                # The combiner's selectivity was measured on one spill buffer (reference §2.3).
                values["combine_profiled_input_records"] = per_spill
                self.provenance["stats.combine_profiled_input_records"] = (
                    f"measured: Starfish counter MAP_RECS_PER_BUFF_SPILL ({self.src})"
                )
        # Starfish's byte counts are MAP_OUTPUT_BYTES-based: no IFile vint lengths per record.
        values["ifile_record_overhead"] = 0.0
        self.provenance["stats.ifile_record_overhead"] = (
            "defaulted: 0, Starfish sizes are MAP_OUTPUT_BYTES-based (no IFile vint lengths)"
        )
        try:
            return DataflowStats(**values)
        except ValidationError as exc:
            err = exc.errors()[0]
            fname = str(err["loc"][0]) if err.get("loc") else "statistics"
            key = next((k for k, f in STATISTIC_FIELDS.items() if f == fname), fname)
            raise InputError(
                err.get("msg", "invalid value"),
                path=str(self.job.path),
                field=f"statistic {key}",
                value=err.get("input"),
            ) from None

    # -- cost factors (Table 3)
    def cost(self, key: str) -> tuple[float, str] | None:
        owner = _COST_OWNER.get(key, "map")
        mv = self._map_value("cost_factors", key)
        rv = self._reduce_value("cost_factors", key)
        if owner == "map" or (owner == "reduce" and rv is None and self.job.reduce is None):
            if mv is not None:
                return mv, f"measured: Starfish cost factor {key} ({self.src}, map profile)"
            if rv is not None:
                return rv, f"measured: Starfish cost factor {key} ({self.src}, reduce profile)"
            return None
        if owner == "reduce":
            if rv is not None:
                return rv, f"measured: Starfish cost factor {key} ({self.src}, reduce profile)"
            if mv is not None:
                return mv, f"measured: Starfish cost factor {key} ({self.src}, map profile)"
            return None
        if mv is None and rv is None:
            return None
        if rv is None:
            return mv, f"measured: Starfish cost factor {key} ({self.src}, map profile)"  # type: ignore[return-value]
        if mv is None:
            return rv, f"measured: Starfish cost factor {key} ({self.src}, reduce profile)"
        if math.isclose(mv, rv, rel_tol=1e-9):
            return (
                mv,
                f"measured: Starfish cost factor {key} ({self.src}, map and reduce profiles)",
            )
        weight_key = _COST_WEIGHT[key]
        wm = sum(m.total(weight_key) for m in self.job.maps)
        wr = self.job.reduce.total(weight_key) if self.job.reduce else 0.0
        if wm + wr <= 0:
            wm = wr = 1.0
        value = (mv * wm + rv * wr) / (wm + wr)
        self.warnings.append(
            f"{self.job.path}: cost factor {key} is {mv:g} in the map profile and {rv:g} in the "
            f"reduce profile; mrtune has one value and uses their mean weighted by "
            f"{weight_key} ({value:g})"
        )
        return value, (
            f"measured: Starfish cost factor {key}, map {mv:g} and reduce {rv:g} weighted by "
            f"{weight_key} ({self.src})"
        )

    def _task_ms(self, timing: str, cost: str) -> tuple[float, str] | None:
        """Setup or cleanup ms per task: the timing if given, else the cost factor (ns)."""
        vals: list[tuple[float, int]] = []
        for tp in [*self.job.maps, *([self.job.reduce] if self.job.reduce else [])]:
            if timing in tp.timings:
                vals.append((tp.timings[timing], tp.num_tasks))
            elif cost in tp.cost_factors:
                vals.append((tp.cost_factors[cost] / NS_PER_MS, tp.num_tasks))
        if not vals:
            return None
        n = sum(k for _, k in vals)
        value = sum(v * k for v, k in vals) / n
        if len({round(v, 9) for v, _ in vals}) > 1:
            self.warnings.append(
                f"{self.job.path}: {timing} time differs between map and reduce profiles "
                f"({', '.join(f'{v:g}' for v, _ in vals)} ms); mrtune has one per-task value and "
                f"uses the task-weighted mean {value:g} ms"
            )
        return value, f"measured: Starfish timing {timing} / cost factor {cost} ({self.src})"

    def costs(self) -> CostFactors:
        values: dict[str, float] = {}
        for key, fname in COST_FIELDS.items():
            got = self.cost(key)
            if got is not None:
                values[fname], self.provenance[f"costs.{fname}"] = got
        for timing, cost, fname in (
            ("SETUP", "SETUP_CPU_COST", "setup_ms"),
            ("CLEANUP", "CLEANUP_CPU_COST", "cleanup_ms"),
        ):
            got = self._task_ms(timing, cost)
            if got is not None:
                values[fname], self.provenance[f"costs.{fname}"] = got
        # Starfish's scheduler charges per-task delays on the cluster (see ClusterSpec), and
        # its profiles time setup and cleanup apart, so no extra fixed time per task.
        values.setdefault("task_overhead_ms", 0.0)
        self.provenance["costs.task_overhead_ms"] = (
            "defaulted: 0, Starfish's per-task delays are on the cluster specification"
        )
        # Starfish's equations have no per-spill, per-segment or per-fetch fixed costs.
        for fixed in ("spill_file_ns", "segment_seek_ns", "fetch_ns"):
            values.setdefault(fixed, 0.0)
            self.provenance[f"costs.{fixed}"] = "defaulted: 0, not in Starfish's cost model"
        values["reduce_includes_final_merge"] = True
        self.provenance["costs.reduce_includes_final_merge"] = (
            "defaulted: Starfish calibrates REDUCE_CPU_COST on the final-merge + reduce loop"
        )
        return CostFactors(**values)

    # -- codecs
    def codecs(self, config: HadoopConfig, has_conf: bool) -> dict[str, CodecStats]:
        """Starfish's single intermediate and output ratios, filed under the configured codecs."""
        out: dict[str, CodecStats] = {}
        interm = self.statistic("INTERM_COMPRESS_RATIO")
        if interm is not None:
            name = config.map_output_codec
            if not (has_conf and config.map_output_compress):
                self.warnings.append(
                    f"{self.job.path}: INTERM_COMPRESS_RATIO={interm[0]:g} is filed under codec "
                    f"{name!r}; the configuration does not compress map output, so it applies "
                    "only if a what-if turns compression on with that codec"
                )
            prior = CODEC_PRIORS[name]
            comp = self.cost("INTERM_COMPRESS_CPU_COST")
            unc = self.cost("INTERM_UNCOMPRESS_CPU_COST")
            out[name] = CodecStats(
                ratio=interm[0],
                compress_ns_per_byte=comp[0] if comp else prior.compress_ns_per_byte,
                uncompress_ns_per_byte=unc[0] if unc else prior.uncompress_ns_per_byte,
                source=(
                    f"{interm[1]}; compress {'measured' if comp else 'prior'}, "
                    f"uncompress {'measured' if unc else 'prior'}"
                ),
            )
            self.provenance[f"codecs.{name}"] = out[name].source
        outr = self.statistic("OUT_COMPRESS_RATIO")
        if outr is not None:
            name = config.output_codec
            comp = self.cost("OUTPUT_COMPRESS_CPU_COST")
            if name in out:
                if not math.isclose(out[name].ratio, outr[0], rel_tol=1e-6):
                    self.warnings.append(
                        f"{self.job.path}: map output and job output both use codec {name!r} "
                        f"with different Starfish ratios (INTERM_COMPRESS_RATIO="
                        f"{out[name].ratio:g}, OUT_COMPRESS_RATIO={outr[0]:g}); mrtune keeps one "
                        "ratio per codec and uses the intermediate one"
                    )
            else:
                prior = CODEC_PRIORS[name]
                out[name] = CodecStats(
                    ratio=outr[0],
                    compress_ns_per_byte=comp[0] if comp else prior.compress_ns_per_byte,
                    uncompress_ns_per_byte=prior.uncompress_ns_per_byte,
                    source=f"{outr[1]}; compress {'measured' if comp else 'prior'}",
                )
                self.provenance[f"codecs.{name}"] = out[name].source
        return out

    # -- observations
    def observed(self) -> tuple[list[TaskTiming], dict[str, float]]:
        tasks: list[TaskTiming] = []
        totals: dict[str, float] = {}
        for tp in [*self.job.maps, *([self.job.reduce] if self.job.reduce else [])]:
            names = MAP_TIMINGS if tp.kind == "map" else REDUCE_TIMINGS
            phases = {names.get(k, k.lower()): v for k, v in tp.timings.items()}
            # ``total`` as in profiler.history's attempts: the task's whole time.
            phases["total"] = float(sum(tp.timings.values()))
            counters: dict[str, float] = dict(tp.counters)
            counters.update({f"statistic:{k}": v for k, v in tp.statistics.items()})
            counters.update({f"cost_factor:{k}": v for k, v in tp.cost_factors.items()})
            counters["num_tasks"] = float(tp.num_tasks)
            counters["input_index"] = float(tp.input_index)
            tasks.append(
                TaskTiming(
                    attempt_id=tp.id,
                    kind=tp.kind,  # type: ignore[arg-type]
                    start_ms=0,
                    finish_ms=round(sum(tp.timings.values())),
                    phases_ms=phases,
                    counters=counters,
                )
            )
            for k, v in tp.counters.items():
                totals[k] = totals.get(k, 0.0) + v * tp.num_tasks
        return tasks, totals


def _validation_input_error(
    exc: ValidationError, path: str, what: str, used: Iterable[str] = ()
) -> InputError:
    """One InputError from a pydantic error: the property as the file spells it, and the value."""
    err = exc.errors()[0]
    loc = err.get("loc", ())
    msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    if not loc:  # a cross-field check: the message names the properties itself
        return InputError(msg, path=path, field=what)
    name = str(loc[0])
    alias = HadoopConfig.model_fields[name].alias if name in HadoopConfig.model_fields else None
    field_name = ".".join(str(p) for p in loc) if alias is None else alias
    if alias is not None:
        old = [k for k in used if k != alias and DEPRECATED_NAMES.get(k) == alias]
        if old:
            field_name = f"{old[0]} ({alias})"
    return InputError(msg, path=path, field=field_name, value=err.get("input"))


def _has_combiner(job: StarfishJobProfile) -> bool:
    """Whether the profiled job ran a combiner.

    The COMBINE_INPUT_RECORDS counter decides when a profile has it; otherwise a
    COMBINE_PAIRS_SEL statistic below 1 (Starfish writes the default 1 for jobs without one).
    """
    profiles = [*job.maps, *([job.reduce] if job.reduce else [])]
    counted = [
        tp.counters["COMBINE_INPUT_RECORDS"]
        for tp in profiles
        if "COMBINE_INPUT_RECORDS" in tp.counters
    ]
    if counted:
        return any(v > 0 for v in counted)
    return any(tp.statistics.get("COMBINE_PAIRS_SEL", 1.0) < 1.0 for tp in profiles)


def _config(
    job: StarfishJobProfile,
    conf: JobConf | None,
    inputs: InputSpec | None,
    has_combiner: bool,
) -> HadoopConfig:
    props: dict[str, Any] = dict(conf.properties) if conf else {}
    source = str(conf.path) if conf else str(job.path)
    names = set(props)
    if not names & {"mapred.reduce.tasks", "mapreduce.job.reduces"}:
        props["mapred.reduce.tasks"] = str(job.num_reducers)
    combine_names = {
        "mapred.combiner.class",
        "mapreduce.combine.class",
        "mapreduce.job.combine.class",
    }
    if has_combiner and not names & combine_names:
        props["mapred.combiner.class"] = f"(combiner of Starfish profile {job.id})"
    if not names & {"dfs.block.size", "dfs.blocksize"}:
        # The input spec's splits were cut by the cluster's block size, so it is at least the
        # largest split (Hadoop 1 default 64 MB); the model then keeps one map per split.
        largest = max((s.size for s in inputs.splits), default=0.0) if inputs else 0.0
        props["dfs.block.size"] = str(int(max(HADOOP1_BLOCK_SIZE, math.ceil(largest))))
    try:
        return HadoopConfig.from_properties(props, hadoop_version=1, source=source)
    except ValidationError as exc:
        raise _validation_input_error(exc, source, "configuration", props) from None
    except ValueError as exc:
        raise InputError(str(exc), path=source) from None


def load_starfish(
    profile_xml: str | Path,
    input_xml: str | Path | None = None,
    cluster_xml: str | Path | None = None,
    conf_xml: str | Path | None = None,
) -> tuple[JobProfile, HadoopConfig, ClusterSpec]:
    """Read Starfish's XML files into a profile, a Hadoop 1 configuration and a cluster.

    ``profile_xml`` is the job profile. ``input_xml`` (input specification) replaces the
    profiled input: one map per split (its ``num_splits × size`` bytes). ``cluster_xml`` gives
    the slots; without it the cluster is one TaskTracker with the configuration's
    ``mapred.tasktracker.{map,reduce}.tasks.maximum`` (Hadoop 1 defaults 2 and 2). ``conf_xml``
    is the configuration to predict for, in Hadoop 0.20 (or newer) names; the result always has
    ``hadoop_version=1``. Warnings (unknown keys, values mrtune had to average) are in
    ``profile.warnings``.
    """
    job = read_job_profile(profile_xml)
    inputs = read_input_spec(input_xml) if input_xml is not None else None
    cluster_file = read_cluster_spec(cluster_xml) if cluster_xml is not None else None
    conf = read_job_conf(conf_xml) if conf_xml is not None else None

    asm = _Assembler(job)
    cluster = _cluster_spec(cluster_file) if cluster_file is not None else None
    for extra in (inputs, cluster_file):
        if extra is not None:
            asm.warnings.extend(extra.warnings)
    has_combiner = _has_combiner(job)
    config = _config(job, conf, inputs, has_combiner)

    # ---- input
    if inputs is not None:
        input_bytes = inputs.total_bytes
        files = inputs.num_splits
        compressed = [s.compress for s in inputs.splits]
        input_compressed = any(compressed)
        if len(set(compressed)) > 1:
            asm.warnings.append(
                f"{inputs.path}: some splits are compressed and some are not; mrtune models one "
                "input and treats all of it as compressed"
            )
        sizes = {s.size for s in inputs.splits}
        if max(sizes) > min(sizes) * 1.01:
            asm.warnings.append(
                f"{inputs.path}: split sizes differ ({min(sizes):.0f} .. {max(sizes):.0f} bytes); "
                f"mrtune models {files} equal splits of {input_bytes / files:.0f} bytes"
            )
        indexes = {s.input_index for s in inputs.splits}
        unknown = indexes - {m.input_index for m in job.maps}
        if unknown:
            raise InputError(
                f"input_index {sorted(unknown)} has no <map_profile> in {job.path.name}",
                path=str(inputs.path),
                field="split/@input_index",
            )
        input_source = f"measured: input specification {inputs.path.name}"
    else:
        per_map = [m.counters.get("HDFS_BYTES_READ") for m in job.maps]
        if any(v is None or v <= 0 for v in per_map):
            raise InputError(
                "cannot tell the input size: a <map_profile> has no HDFS_BYTES_READ counter "
                "and no input specification was given",
                path=str(job.path),
                field="map_profile/counters",
            )
        input_bytes = sum(float(v) * m.num_tasks for v, m in zip(per_map, job.maps, strict=True))  # type: ignore[arg-type]
        files = sum(m.num_tasks for m in job.maps)
        ratio = asm.statistic("INPUT_COMPRESS_RATIO")
        input_compressed = ratio is not None and ratio[0] < 0.999
        input_source = f"measured: HDFS_BYTES_READ x num_tasks of {job.path.name}"
    asm.provenance["input_bytes"] = input_source

    if config.combine_class and not has_combiner:
        asm.warnings.append(
            f"the configuration sets a combiner ({config.combine_class}) but the profile has no "
            "combine counters or statistics; the model runs the job without one"
        )

    # ---- cluster
    if cluster is not None and cluster_file is not None:
        if cluster_file.facts["reduce_slots"] == 0 and config.num_reducers > 0:
            raise InputError(
                f"the cluster has no reduce slots but the job runs {config.num_reducers} reducers",
                path=str(cluster_file.path),
                field="cluster",
            )
        cluster_facts: dict[str, float | str] = dict(cluster_file.facts)
    else:
        other = config.other_properties
        slots = []
        for kind in ("map", "reduce"):
            old_name = f"mapred.tasktracker.{kind}.tasks.maximum"
            new_name = f"mapreduce.tasktracker.{kind}.tasks.maximum"
            raw = other.get(old_name, other.get(new_name, "2"))
            where = old_name if old_name in other else new_name
            slots.append(
                int(
                    _number(
                        raw, Path(conf.path if conf else job.path), where, integer=True, minimum=1
                    )
                )
            )
        maps_per, reds_per = slots
        cluster = ClusterSpec(
            num_nodes=1,
            map_slots_per_node=maps_per,
            reduce_slots_per_node=reds_per,
            heartbeat_ms=STARFISH_HEARTBEAT_MS,
            task_startup_ms=STARFISH_TASK_DELAY_MS,
        )
        asm.warnings.append(
            "no cluster specification: assuming one TaskTracker with "
            f"{maps_per} map and {reds_per} reduce slots"
        )
        cluster_facts = {}

    stats = asm.stats(has_combiner)
    costs = asm.costs()
    codecs = asm.codecs(config, conf is not None)
    observed, totals = asm.observed()
    # The configuration to predict for travels with the profile (``profile.json``): every model
    # property in Hadoop 2/3 names plus the file's other properties, and the facts that
    # ``profiler.build.profile_config`` rebuilds it from (Hadoop 1 semantics, reducers).
    source_props = {**config.to_properties(), **config.other_properties}
    if job.inputs:
        source_props.setdefault("mapred.input.dir", ",".join(job.inputs))
    cluster_facts.update(
        {
            "source_format": "starfish",
            "source": str(job.path),
            "conf_source": str(conf.path) if conf else "none",
            "hadoop_version": 1.0,
            "num_maps": float(files),
            "num_reduces": float(config.num_reducers),
            "profiled_num_maps": float(job.num_mappers),
            "profiled_num_reduces": float(job.num_reducers),
            "input_bytes": float(input_bytes),
            "input_files": float(files),
        }
    )
    try:
        profile = JobProfile(
            job_id=job.id,
            job_name=job.name,
            input_bytes=input_bytes,
            input_files=files,
            input_compressed=input_compressed,
            input_splittable=not input_compressed,
            has_combiner=has_combiner,
            combine_class=config.combine_class if has_combiner else None,
            map_only=job.num_reducers == 0,
            stats=stats,
            costs=costs,
            codecs=codecs,
            provenance=asm.provenance,
            source_properties=source_props,
            cluster_facts=cluster_facts,
            observed=observed,
            observed_counters=totals,
            warnings=list(dict.fromkeys(asm.warnings)),
        )
    except ValidationError as exc:
        raise _validation_input_error(exc, str(job.path), "profile") from None
    return profile, config, cluster

"""The registry of tunable Hadoop settings: one identity per knob.

A knob's **type, Hadoop default and Hadoop-valid range are declared once**, on the
:class:`~mrtune.costmodel.config.HadoopConfig` field whose alias is the knob's Hadoop 2/3
property name (pydantic ``ge``/``gt``/``le``/``lt``); :class:`Knob` derives them from that field
(:func:`_field_bounds`) and from the Hadoop 2/3 default configuration, and never repeats them.
What a knob declares itself is what only the search needs:

* the **search range** (``low``/``high``, ``log``, ``grid``): where the optimizer looks, a
  sub-range of what Hadoop accepts (e.g. ``io.sort.factor`` is valid up to 10,000 but searched
  in 2..500). ``whatif``/``--set`` (:meth:`Knob.parse`) take the Hadoop-valid range;
* the :class:`~mrtune.costmodel.batch.ConfigBatch` column it drives, the side of the job it
  acts on, and its :class:`Role` and flags: every special behaviour (the codec knobs write a
  switch and a class, the split knob a min/max pair, the combiner knob a class name; container
  memory is searched only on request …) is an attribute read by the search space, the strategies
  and the recommendation, never a comparison of property names.

The in-memory merge threshold (``mapred.inmem.merge.threshold``, Hadoop 2/3 name
``mapreduce.reduce.merge.inmem.threshold``) is searched in Hadoop 1 mode only, over Starfish's
10–1000. Hadoop 1's ``ReduceTask.ReduceCopier`` starts an in-memory merge when that many map
outputs are closed in memory (``ShuffleRamManager.waitForDataToMerge``, 0 = no count limit);
Hadoop 2/3's ``MergeManagerImpl`` never reads the property: its ``InMemoryMerger`` starts only
when the committed bytes reach ``shuffle.merge.percent`` of the buffer (``closeInMemoryFile``),
and its only count threshold, ``memToMemMergeOutputsThreshold``, is the separate
``mapreduce.reduce.merge.memtomem.threshold`` of the mem-to-mem merger (default
``io.sort.factor``, off unless ``mapreduce.reduce.merge.memtomem.enabled``). So in Hadoop 2/3
the knob is accepted and written (``whatif --set``) but never searched: it cannot move the job.

:data:`KNOBS` is the one registry that the optimizer, the CLI (``--set`` validation), the batch
tuner and the docs read; ``tests/search_spaces/test_knob_registry.py`` checks, for every knob, that
it agrees with ``HadoopConfig`` and with the property names Hadoop 1 and Hadoop 2/3 really have.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import ValidationError

from mrtune.costmodel.config import (
    HadoopConfig,
    check_property_name,
    field_unread,
    field_versions,
    property_field,
)
from mrtune.costmodel.hadoop_values import hadoop_long
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.properties import DEPRECATED_NAMES, STARFISH_USE_COMBINER
from mrtune.search_spaces.knob import CODEC_ROLES, MEMORY_ROLES, Knob, Role, Side

__all__ = [
    "CODEC_AVAILABILITY",
    "CODEC_ROLES",
    "CodecAvailability",
    "KNOBS",
    "KNOBS_BY_NAME",
    "MEMORY_ROLES",
    "Knob",
    "Role",
    "Side",
    "canonical_name",
    "find_knob",
    "knob_with_role",
    "unknown_properties",
    "unread_by_version",
    "unread_reasons",
]

_SORTMB = (25, 50, 75, 100, 125, 150, 200, 250, 300, 400, 500, 600, 800, 1000, 1200, 1600, 2047)
_REDUCERS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768)
_REDUCERS += (1024, 1536, 2048, 3072, 4096)
_CONTAINER_MB = (512, 1024, 1536, 2048, 3072, 4096, 6144, 8192)

#: The registry. Order = the order of explanations and outputs.
KNOBS: tuple[Knob, ...] = (
    Knob(
        "mapreduce.task.io.sort.mb", "io_sort_mb", "map",
        "map-side sort buffer (MB); must stay below the map heap",
        1, 2047, log=True, grid=_SORTMB, role=Role.sort_buffer, needs_reduce=True, unit="MB",
    ),
    Knob(
        "mapreduce.map.sort.spill.percent", "spill_percent", "map",
        "buffer fill fraction that starts a spill",
        0.5, 0.99, grid=(0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99), needs_reduce=True,
    ),
    Knob(
        "io.sort.record.percent", "record_percent", "map",
        "Hadoop 1: share of the sort buffer for record metadata",
        0.01, 0.5, grid=(0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5),
        needs_reduce=True,
    ),
    Knob(
        "mapreduce.task.io.sort.factor", "sort_factor", "job",
        "merge fan-in for map and reduce merges",
        2, 500, log=True, grid=(2, 5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 500),
        role=Role.merge_factor, needs_reduce=True,
    ),
    Knob(
        "mapreduce.map.combine.minspills", "combine_min_spills", "map",
        "spills needed before the combiner runs in the map merge",
        1, 20, grid=(1, 2, 3, 5, 10, 20), role=Role.combine_threshold,
        needs_reduce=True, needs_combiner=True,
    ),
    Knob(
        "mapreduce.job.combine.class", "use_combiner", "map",
        "run the job's combiner (only where the job has one)",
        role=Role.combiner, needs_reduce=True, needs_combiner=True, site_property=False,
    ),
    Knob(
        "mapreduce.map.output.compress.codec", "map_codec", "map",
        "map output compression (none = mapreduce.map.output.compress false)",
        role=Role.map_codec, needs_reduce=True, companion="mapreduce.map.output.compress",
    ),
    # "job" side: the job's last tasks write its output, the reducers or, with 0 reduces,
    # the maps (MapTask.runNewMapper writes through the job's OutputFormat, whose
    # FileOutputFormat.getCompressOutput / getOutputCompressorClass read these two
    # properties), so a map-only job searches it too (costmodel map_task: the write phase)
    Knob(
        "mapreduce.output.fileoutputformat.compress.codec", "out_codec", "job",
        "job output compression (none = not compressed)",
        role=Role.output_codec, companion="mapreduce.output.fileoutputformat.compress",
    ),
    Knob(
        "mapreduce.job.reduces", "num_reducers", "reduce",
        "number of reduce tasks",
        1, 10000, log=True, grid=_REDUCERS, role=Role.reducers,
    ),
    Knob(
        "mapreduce.job.reduce.slowstart.completedmaps", "slowstart", "job",
        "fraction of maps done before reducers start",
        0.0, 1.0, grid=(0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0),
        needs_reduce=True, local_mode_ignored=True,
    ),
    Knob(
        "mapreduce.reduce.shuffle.input.buffer.percent", "shuffle_input_pct", "reduce",
        "shuffle buffer as a fraction of heap",
        0.1, 0.9, grid=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    ),
    Knob(
        "mapreduce.reduce.shuffle.merge.percent", "shuffle_merge_pct", "reduce",
        "shuffle buffer fill that starts an in-memory merge",
        0.2, 0.99, grid=(0.3, 0.5, 0.66, 0.8, 0.9, 0.99),
    ),
    Knob(
        "mapreduce.reduce.merge.inmem.threshold", "inmem_threshold", "reduce",
        "Hadoop 1: in-memory segments that start an in-memory merge (0 = no count limit)",
        10, 1000, log=True, grid=(10, 25, 50, 100, 250, 500, 1000), versions=(1,),
    ),
    Knob(
        "mapreduce.reduce.shuffle.memory.limit.percent", "shuffle_limit_pct", "reduce",
        "largest map output kept in memory, as a fraction of the shuffle buffer",
        0.05, 0.9, grid=(0.05, 0.1, 0.15, 0.25, 0.35, 0.5, 0.7),
    ),
    Knob(
        "mapreduce.reduce.input.buffer.percent", "reduce_input_pct", "reduce",
        "heap share that may keep map outputs in memory during reduce()",
        0.0, 0.9, grid=(0.0, 0.2, 0.4, 0.6, 0.7, 0.8, 0.9),
    ),
    Knob(
        "mapreduce.reduce.shuffle.parallelcopies", "parallel_copies", "reduce",
        "fetch threads per reducer",
        1, 100, grid=(5, 10, 20, 50), modelled=False, local_mode_ignored=True,
    ),
    Knob(
        "mapreduce.input.fileinputformat.split.maxsize", "split_size", "map",
        "input split size in bytes (via split.minsize/maxsize)",
        16 * 2**20, 2**34, log=True,
        grid=tuple(float(x * 2**20) for x in (16, 32, 64, 128, 256, 512, 1024, 2048)),
        role=Role.split_size, companion="mapreduce.input.fileinputformat.split.minsize",
        unit="bytes",
    ),
    Knob(
        "mapreduce.map.memory.mb", "map_container_mb", "map",
        "map container memory (MB); heap follows at heap.memory-mb.ratio",
        512, 16384, log=True, grid=_CONTAINER_MB, role=Role.map_memory,
        versions=(2, 3), local_mode_ignored=True, unit="MB",
    ),
    Knob(
        "mapreduce.reduce.memory.mb", "reduce_container_mb", "reduce",
        "reduce container memory (MB); heap follows",
        512, 16384, log=True, grid=_CONTAINER_MB, role=Role.reduce_memory,
        versions=(2, 3), local_mode_ignored=True, unit="MB",
    ),
)  # fmt: skip

KNOBS_BY_NAME: dict[str, Knob] = {k.name: k for k in KNOBS}
#: A companion property (codec switch, split minimum) → the knob that writes it.
_COMPANIONS: dict[str, str] = {k.companion: k.name for k in KNOBS if k.companion}


def knob_with_role(role: Role, knobs: tuple[Knob, ...] | list[Knob] = KNOBS) -> Knob | None:
    """The knob of ``knobs`` that has ``role`` (``None`` when the space does not tune it)."""
    return next((k for k in knobs if k.role == role), None)


def canonical_name(name: str) -> str:
    """A Hadoop 1 or 2/3 property name → its Hadoop 2/3 name (reference §8.5)."""
    return DEPRECATED_NAMES.get(name, name)


def find_knob(name: str) -> Knob:
    """The knob for a Hadoop 2/3 or Hadoop 1 property name (or its field / column name).

    A companion property (``mapreduce.map.output.compress``, ``split.minsize``) finds the knob
    that writes it.
    """
    key = canonical_name(name)
    key = _COMPANIONS.get(key, key)
    if key == STARFISH_USE_COMBINER:  # Starfish's own switch for the combiner
        key = "mapreduce.job.combine.class"
    if key in KNOBS_BY_NAME:
        return KNOBS_BY_NAME[key]
    for k in KNOBS:
        if name in (k.field, k.column):
            return k
    import difflib

    close = difflib.get_close_matches(name, list(KNOBS_BY_NAME), n=3)
    hint = f"; closest: {', '.join(close)}" if close else ""
    raise KeyError(f"{name!r} is not a tunable setting{hint}")


def unknown_properties(
    changes: Mapping[str, object], profile: JobProfile | None = None
) -> list[str]:
    """The names in ``changes`` that are no property the model reads (typos, or settings the
    model has no term for, ``profile``'s job's API considered), in order."""
    old_api = profile is not None and profile.old_api_splits
    out = []
    for key in changes:
        try:
            find_knob(key)  # a knob's own aliases too (starfish.use.combiner)
            continue
        except KeyError:
            pass
        try:
            check_property_name(key, old_api=old_api)
        except ValueError:
            out.append(key)
    return out


# ---------------------------------------------------------------- codec availability metadata
@dataclass(frozen=True)
class CodecAvailability:
    """Which Hadoop releases ship a codec and whether it needs the native library.

    ``since`` maps a Hadoop major version to its first release that has the codec class
    (absent: no release of that line has it); ``pure_java_since`` is the first release whose
    codec works without ``libhadoop`` (``None``: never). ``jira`` names the issues that say so.
    """

    since: dict[int, tuple[int, int, int]]
    pure_java_since: tuple[int, int, int] | None
    jira: str
    bundled: bool = True  # shipped with Hadoop (hadoop-lzo is a separate GPL install)


_ALWAYS = {1: (0, 0, 0), 2: (0, 0, 0), 3: (0, 0, 0)}

#: Codec short name → availability. Sources (fix versions in the Apache JIRA):
#: DefaultCodec/GzipCodec/BZip2Codec are in every release and fall back to java.util.zip and
#: Hadoop's own CBZip2 streams without libhadoop. SnappyCodec: HADOOP-7206 (0.23.0, back-ported
#: to 1.0.2), native ``libhadoop`` + ``libsnappy`` until HADOOP-17125 moved it to snappy-java in
#: 3.3.1. Lz4Codec: HADOOP-7657 (0.23.1 → all of 2.x), native (lz4 compiled into libhadoop)
#: until HADOOP-17292 moved it to lz4-java in 3.3.1; not in Hadoop 1. ZStandardCodec:
#: HADOOP-13578 (2.9.0, 3.0.0-alpha2), always native (``libhadoop`` built with libzstd;
#: ``ZStandardCodec.checkNativeCodeLoaded`` throws otherwise). hadoop-lzo's LzoCodec/LzopCodec
#: are a separate GPL package with native liblzo2: only where the cluster lists them.
CODEC_AVAILABILITY: dict[str, CodecAvailability] = {
    "default": CodecAvailability(_ALWAYS, (0, 0, 0), "core codec"),
    "gzip": CodecAvailability(_ALWAYS, (0, 0, 0), "core codec"),
    "bzip2": CodecAvailability(_ALWAYS, (0, 0, 0), "core codec"),
    "snappy": CodecAvailability(
        {1: (1, 0, 2), 2: (0, 0, 0), 3: (0, 0, 0)}, (3, 3, 1), "HADOOP-7206, HADOOP-17125"
    ),
    "lz4": CodecAvailability({2: (0, 0, 0), 3: (0, 0, 0)}, (3, 3, 1), "HADOOP-7657, HADOOP-17292"),
    "zstd": CodecAvailability({2: (2, 9, 0), 3: (0, 0, 0)}, None, "HADOOP-13578"),
    "lzo": CodecAvailability(_ALWAYS, None, "hadoop-lzo (GPL, installed apart)", bundled=False),
    "lzop": CodecAvailability(_ALWAYS, None, "hadoop-lzo (GPL, installed apart)", bundled=False),
}


# ---------------------------------------------------------------- what each Hadoop line reads
Release = tuple[int, int, int]

#: The first Hadoop 1 release that reads the per-side heap options
#: ``mapred.{map,reduce}.child.java.opts``: MAPREDUCE-478, released in 0.20.203.0 (and 0.21;
#: every 1.x has it, ``MapTaskRunner.getChildJavaOpts``); 0.20.2 and before read
#: ``mapred.child.java.opts`` for maps and reduces alike (``TaskRunner``).
SIDE_HEAP_OPTS_SINCE: Release = (0, 20, 203)

#: A Hadoop 2/3 heap option → the Hadoop 1 name of the same setting.
_HADOOP1_HEAP_OPTS = {
    "mapreduce.map.java.opts": "mapred.map.child.java.opts",
    "mapreduce.reduce.java.opts": "mapred.reduce.child.java.opts",
}


def unread_by_version(
    name: str, value: object, hadoop_version: int, release: Release
) -> tuple[str, str] | None:
    """``(why, allowed)`` when a job of ``hadoop_version`` (release ``release``) would not read
    ``name`` set to ``value``; ``None`` when it reads it.

    A what-if must not price a setting the job's Hadoop never reads: Hadoop 1 has no
    ``shuffle.memory.limit.percent`` (``ReduceCopier`` hard-codes 0.25) and no containers, so
    ``mapreduce.map.memory.mb=512`` invented an ``-Xmx409m`` there (the heap following the
    container is Hadoop 3's MAPREDUCE-5785). The declared lines are the ``HadoopConfig``
    field's (:func:`~mrtune.costmodel.config.field_versions`), plus two rules of names:
    container memory is a YARN request (:attr:`Knob.versions` ``(2, 3)``; ``-1``/``0``,
    Hadoop 1's own "no memory limit", changes nothing and passes), and Hadoop 1 reads a task's
    heap only by its own names (:func:`_hadoop1_heap`).
    """
    canonical = canonical_name(name.strip())
    field = property_field(canonical)
    if field is not None and hadoop_version not in field_versions(field):
        why, allowed = field_unread(field)
        lines = " and ".join(map(str, field_versions(field)))
        return (
            f"{name} is read by Hadoop {lines} only; this job's Hadoop {hadoop_version} "
            f"ignores it" + (f" ({why})" if why else ""),
            allowed or f"the settings Hadoop {hadoop_version} reads (mrtune schema config)",
        )
    if hadoop_version != 1:
        return None
    knob = KNOBS_BY_NAME.get(canonical)
    if knob is not None and knob.container_memory and not knob.applies_to(1):
        return _hadoop1_container(name, value, knob.side)
    return _hadoop1_heap(name, canonical, release)


def unread_reasons(
    props: Mapping[str, object], hadoop_version: int, release: Release
) -> dict[str, tuple[str, str]]:
    """:func:`unread_by_version` of each property of ``props`` the job's Hadoop does not read,
    in order. A value no Hadoop takes (``-Xmx`` without a size, ``vcores=0``) raises its own
    ``ValidationError`` first: that is what is wrong with it on any version."""
    out = {}
    for name, value in props.items():
        why = unread_by_version(name, value, hadoop_version, release)
        if why is None:
            continue
        try:
            HadoopConfig(hadoop_version=hadoop_version).with_changes({name: value})  # type: ignore[arg-type]
        except ValidationError as exc:
            if any(err.get("loc") for err in exc.errors()):
                raise  # a field's own value, not a cross-check against the other defaults
        out[name] = why
    return out


def _hadoop1_container(name: str, value: object, side: str) -> tuple[str, str] | None:
    """A positive container size asked of a Hadoop 1 job (see :func:`unread_by_version`)."""
    try:
        mb = hadoop_long(str(value).strip())
    except ValueError:
        return None  # not a number: the knob's own check names what is allowed
    if mb <= 0:
        return None
    return (
        f"{name}: Hadoop 1 has no containers; a TaskTracker slot runs the task with the -Xmx "
        "of mapred.child.java.opts whatever the memory setting (Hadoop 1 reads "
        f"mapred.job.{side}.memory.mb only for memory-based scheduling and the "
        "TaskMemoryManagerThread's limit, which the model has no term for; a heap following "
        "the container is Hadoop 3's MAPREDUCE-5785)",
        "the heap as mapred.child.java.opts=-Xmx<size>; or -1 (Hadoop 1's default, no limit)",
    )


def _hadoop1_heap(name: str, canonical: str, release: Release) -> tuple[str, str] | None:
    """A task heap option by a name this Hadoop 1 release does not read: the Hadoop 2/3 name
    (Hadoop 1's ``JobConf`` has no ``mapreduce.*.java.opts``; its deprecation table maps the
    other way only from Hadoop 2 on), or a per-side name before MAPREDUCE-478."""
    if canonical not in _HADOOP1_HEAP_OPTS:
        return None
    side = "map" if "map." in canonical else "reduce"
    old = _HADOOP1_HEAP_OPTS[canonical]
    has_side = release >= SIDE_HEAP_OPTS_SINCE
    rel = ".".join(map(str, release))
    if name.strip() == old:
        if has_side:
            return None
        return (
            f"{name} came with MAPREDUCE-478 (Hadoop 0.20.203.0); this job's Hadoop {rel} "
            "reads mapred.child.java.opts for maps and reduces alike (TaskRunner)",
            "mapred.child.java.opts",
        )
    reads = f"{old}, else mapred.child.java.opts" if has_side else "mapred.child.java.opts"
    where = f"{side.capitalize()}TaskRunner.getChildJavaOpts" if has_side else "TaskRunner"
    return (
        f"{name} is a Hadoop 2/3 name that Hadoop 1 does not read; this job's Hadoop {rel} "
        f"takes the {side} heap from {reads} ({where})",
        reads.replace(", else ", " or "),
    )

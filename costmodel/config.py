"""``HadoopConfig``: the Hadoop parameters of reference Table 1, validated.

Field names are Python identifiers; each field's alias is its Hadoop 2/3 property name, so a
configuration round-trips to ``mapred-site.xml`` names. :meth:`HadoopConfig.from_properties`
accepts a plain ``{property: value}`` dict that may use Hadoop 1 names (reference §8.5): they are
mapped to the new names, unknown properties are kept in :attr:`HadoopConfig.other_properties` but
ignored by the model, and an old and a new name that disagree are an error.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticUseDefault

from mrtune.costmodel.hadoop_values import (
    BOOLEAN_ALLOWED,
    BYTES_ALLOWED,
    FLOAT_ALLOWED,
    INT_ALLOWED,
    LONG_ALLOWED,
    hadoop_bool,
    hadoop_float,
    hadoop_long,
    hadoop_long_bytes,
)
from mrtune.costmodel.properties import (
    DEPRECATED_NAMES,
    LONG_MAX,
    STARFISH_USE_COMBINER,
    codec_name,
)

MB = 2**20

_XMX = re.compile(r"-Xmx(\d+)([kKmMgGtT]?)\b")
_UNIT = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


#: Largest -Xmx accepted (1 TiB): no task JVM heap comes near it.
MAX_HEAP_BYTES = 1 << 40


#: Properties :class:`HadoopConfig` keeps (a job's configuration round-trips through it) but the
#: model has no term for, with the reason. A change to one cannot move a prediction, so it is
#: refused like a typo, with this reason (never a silent no-op); a replayed file lists it as not
#: modelled.
NOT_MODELLED: dict[str, str] = {
    "mapreduce.job.maps": (
        "Hadoop 2/3's FileInputFormat (org.apache.hadoop.mapreduce.lib.input, getSplits) "
        "ignores it: the number of maps is the number of input splits of "
        "max(split.minsize, min(split.maxsize, dfs.blocksize)) bytes; set "
        "mapreduce.input.fileinputformat.split.maxsize or .split.minsize (or dfs.blocksize) "
        "instead (only the old mapred API's FileInputFormat reads it, as goalSize = input / "
        "maps: the model does so for a job profiled as old-API, e.g. Hadoop Streaming)"
    ),
    "mapreduce.reduce.merge.memtomem.enabled": (
        "the model has no term for MergeManagerImpl's memory-to-memory merger (off by "
        "default), so it cannot change a prediction"
    ),
}

#: The declaration of a YARN resource request Hadoop 1's slots never read (vcores).
_YARN_ONLY: dict[str, Any] = {
    "hadoop_versions": [2, 3],
    "unread_why": "Hadoop 1's TaskTracker runs tasks in slots and requests no vcores, a YARN "
    "resource request of MAPREDUCE-4520",
    "unread_instead": "the cluster's slots per TaskTracker (mapred.tasktracker.*.tasks.maximum, "
    "--cluster)",
}

#: Field names that are no property (``--set other_properties=x`` must not pass as one).
_INTERNAL_FIELDS = frozenset({"other_properties"})


def _property_of(field_name: str) -> str:
    """A :class:`HadoopConfig` field's Hadoop property name (the name itself when it is none)."""
    field = HadoopConfig.model_fields.get(field_name)
    return field.alias if field is not None and field.alias else field_name


def _canonical_property(name: str) -> str:
    """A property, Hadoop 1 name or field name → its Hadoop 2/3 property name."""
    name = name.strip()
    alias = _property_of(name)
    return alias if alias != name else DEPRECATED_NAMES.get(name, name)


def property_field(name: str) -> str | None:
    """The :class:`HadoopConfig` field of a property (Hadoop 1 or 2/3 name, or field name);
    ``None`` for a property the configuration has no field for."""
    canonical = _canonical_property(name)
    for field_name, field in HadoopConfig.model_fields.items():
        if field.alias == canonical:
            return field_name
    return None


#: What the model reads for a job of the old mapred API only (``JobProfile.old_api_splits``).
OLD_API_ONLY = frozenset({"mapreduce.job.maps"})


def check_property_name(name: str, *, old_api: bool = False) -> None:
    """``ValueError`` when ``name`` is not a property the model reads (a ``--set`` typo).

    A change to a property the model does not read cannot change a prediction, so accepting
    it silently would answer a different question from the one asked. A property the model
    keeps but has no term for (:data:`NOT_MODELLED`) is refused with its reason, unless the
    job reads it through the old API (``old_api``: :data:`OLD_API_ONLY`).
    """
    import difflib

    fields = HadoopConfig.model_fields
    canonical = _canonical_property(name)
    if canonical in NOT_MODELLED and not (old_api and canonical in OLD_API_ONLY):
        raise ValueError(
            f"{name.strip()} is not modelled: {NOT_MODELLED[canonical]}; allowed: the "
            "properties listed by `mrtune schema config`"
        )
    known = {f.alias for f in fields.values() if f.alias} | set(fields) | set(DEPRECATED_NAMES)
    known |= {STARFISH_USE_COMBINER}
    known -= _INTERNAL_FIELDS
    if name.strip() in known or name == "hadoop_version":
        return
    suggest = sorted(
        k for k in known if "." in k and DEPRECATED_NAMES.get(k, k) not in NOT_MODELLED
    )
    close = difflib.get_close_matches(name, suggest, n=3)
    also = f" (or {', '.join(close[1:])})" if len(close) > 1 else ""
    hint = f"did you mean {close[0]}{also}? " if close else ""
    raise ValueError(
        f"{name} is not a setting the model reads, so changing it cannot change a prediction; "
        f"{hint}allowed: the properties listed by `mrtune schema config`"
    )


def parse_xmx(opts: str | None) -> int | None:
    """Heap bytes from the last ``-Xmx`` in JVM options (Hadoop ``JobConf.parseMaximumHeapSizeMB``)."""
    if not opts:
        return None
    found = _XMX.findall(opts)
    if not found:
        return None
    num, unit = found[-1]
    return int(num) * _UNIT[unit.lower()]


#: Integer fields read with ``Configuration.getInt`` (the rest with ``getLong``).
_INT32_FIELDS = (
    "io_sort_mb",
    "io_sort_factor",
    "combine_min_spills",
    "num_reducers",
    "num_maps_hint",
    "inmem_merge_threshold",
    "shuffle_parallel_copies",
    "map_memory_mb",
    "reduce_memory_mb",
    "map_vcores",
    "reduce_vcores",
)
_INT64_FIELDS = ("reduce_memory_totalbytes", "split_minsize", "split_maxsize")
_FLOAT_FIELDS = (
    "sort_spill_percent",
    "io_sort_record_percent",
    "reduce_slowstart",
    "shuffle_input_buffer_percent",
    "shuffle_merge_percent",
    "shuffle_memory_limit_percent",
    "reduce_input_buffer_percent",
    "heap_memory_mb_ratio",
)


def _one_byte_split(values: dict[str, Any]) -> None:
    """A ``split.maxsize`` below 1 as the 1 it means: ``FileInputFormat.computeSplitSize`` is
    ``max(minSize, min(maxSize, blockSize))`` with ``minSize`` at least 1, so 0 (the examples'
    DistributedPentomino's job.xml holds it, beside its NLineInputFormat) or a negative value
    cuts 1-byte splits exactly as 1 does; refusing it had refused the run's configuration."""
    raw = values.get("split_maxsize")
    try:
        if raw is not None and int(str(raw).strip()) < 1:
            values["split_maxsize"] = 1
    except ValueError:
        return  # not a number: the field's own validation says so


def _alias(info: ValidationInfo) -> str:
    return _property_of(info.field_name or "")


def config_error_line(exc: ValidationError, source: str | None = None) -> str:
    """One line for a :class:`HadoopConfig` validation error, by Hadoop property name.

    pydantic's own text names the Python field (``io_sort_mb``) on one line and the problem on
    the next, with a documentation URL; a user wrote ``mapreduce.task.io.sort.mb``.
    """
    parts = []
    for err in exc.errors():
        loc = [_property_of(str(p)) for p in err.get("loc", ())]
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        value = err.get("input")
        where = ".".join(loc)
        if where and where in msg:  # the message names the property itself
            where = ""
        shown = "" if isinstance(value, dict | list) or where == "" else f"={value!r}"
        msg = msg.replace("Input should be", "allowed:")
        parts.append(f"{where}{shown}: {msg}" if where else msg)
    line = "; ".join(" ".join(p.split()) for p in parts)
    return f"{source}: {line}" if source else line


class HadoopConfig(BaseModel):
    """The job configuration the cost model reads (reference Table 1, defaults of §8.4).

    ``hadoop_version`` selects the semantics: ``1`` is Hadoop 1 (``io.sort.record.percent``
    buffer, slots, ``ReduceCopier``), ``2`` and ``3`` are YARN with MAPREDUCE-64's unified sort
    buffer and ``MergeManagerImpl`` (DESIGN decision 1; reference §8).
    """

    model_config = ConfigDict(populate_by_name=True, extra="forbid", frozen=True)

    hadoop_version: Literal[1, 2, 3] = Field(
        3, description="1 = Hadoop 1 semantics (slots, record percent); 2 or 3 = YARN semantics"
    )
    io_sort_mb: int = Field(100, alias="mapreduce.task.io.sort.mb", ge=1, le=2047)
    sort_spill_percent: float = Field(0.80, alias="mapreduce.map.sort.spill.percent", gt=0, le=1)
    io_sort_record_percent: float = Field(
        0.05,
        alias="io.sort.record.percent",
        gt=0,
        lt=1,
        description="Hadoop 1 only: share of io.sort.mb for record metadata (removed by MAPREDUCE-64)",
        json_schema_extra={
            "hadoop_versions": [1],
            "unread_why": "MAPREDUCE-64: the sort buffer sizes its record share itself",
            "unread_instead": "mapreduce.task.io.sort.mb and mapreduce.map.sort.spill.percent",
        },
    )
    io_sort_factor: int = Field(10, alias="mapreduce.task.io.sort.factor", ge=2, le=10000)
    combine_min_spills: int = Field(3, alias="mapreduce.map.combine.minspills", ge=1, le=10000)
    num_reducers: int = Field(1, alias="mapreduce.job.reduces", ge=0, le=1_000_000)
    num_maps_hint: int = Field(2, alias="mapreduce.job.maps", ge=1)
    reduce_slowstart: float = Field(
        0.05, alias="mapreduce.job.reduce.slowstart.completedmaps", ge=0, le=1
    )
    inmem_merge_threshold: int = Field(
        1000,
        alias="mapreduce.reduce.merge.inmem.threshold",
        ge=0,
        description="Hadoop 1 only: segments that start an in-memory merge (ReduceCopier); "
        "Hadoop 2/3's MergeManagerImpl merges on memory alone (a real local TeraSort at "
        "threshold 5 merged nothing in memory)",
        json_schema_extra={
            "hadoop_versions": [1],
            "unread_why": "MergeManagerImpl starts an in-memory merge on memory alone",
            "unread_instead": "mapreduce.reduce.shuffle.merge.percent",
        },
    )
    shuffle_input_buffer_percent: float = Field(
        0.70, alias="mapreduce.reduce.shuffle.input.buffer.percent", gt=0, le=1
    )
    shuffle_merge_percent: float = Field(
        0.66, alias="mapreduce.reduce.shuffle.merge.percent", gt=0, le=1
    )
    shuffle_memory_limit_percent: float = Field(
        0.25,
        alias="mapreduce.reduce.shuffle.memory.limit.percent",
        gt=0,
        le=1,
        description="Hadoop 2/3 MergeManagerImpl; Hadoop 1's ReduceCopier hard-codes 0.25",
        json_schema_extra={
            "hadoop_versions": [2, 3],
            "unread_why": "Hadoop 1's ReduceTask.ReduceCopier hard-codes the single-shuffle "
            "limit at 0.25 of the shuffle buffer, ShuffleRamManager."
            "MAX_SINGLE_SHUFFLE_SEGMENT_FRACTION; the property came with Hadoop 2's "
            "MergeManagerImpl",
            "unread_instead": "mapred.job.shuffle.input.buffer.percent (the buffer a map output "
            "may take 0.25 of)",
        },
    )
    reduce_input_buffer_percent: float = Field(
        0.0, alias="mapreduce.reduce.input.buffer.percent", ge=0, le=1
    )
    shuffle_parallel_copies: int = Field(5, alias="mapreduce.reduce.shuffle.parallelcopies", ge=1)
    memtomem_enabled: bool = Field(False, alias="mapreduce.reduce.merge.memtomem.enabled")
    combine_class: str | None = Field(None, alias="mapreduce.job.combine.class")
    map_output_compress: bool = Field(False, alias="mapreduce.map.output.compress")
    map_output_codec: str = Field(
        "default", alias="mapreduce.map.output.compress.codec", json_schema_extra={"codec": True}
    )
    output_compress: bool = Field(False, alias="mapreduce.output.fileoutputformat.compress")
    output_codec: str = Field(
        "default",
        alias="mapreduce.output.fileoutputformat.compress.codec",
        json_schema_extra={"codec": True},
    )
    output_compress_type: Literal["NONE", "RECORD", "BLOCK"] = Field(
        "RECORD", alias="mapreduce.output.fileoutputformat.compress.type"
    )
    map_memory_mb: int = Field(-1, alias="mapreduce.map.memory.mb", ge=-1)
    reduce_memory_mb: int = Field(-1, alias="mapreduce.reduce.memory.mb", ge=-1)
    map_java_opts: str | None = Field(None, alias="mapreduce.map.java.opts")
    reduce_java_opts: str | None = Field(None, alias="mapreduce.reduce.java.opts")
    child_java_opts: str | None = Field(None, alias="mapred.child.java.opts")
    heap_memory_mb_ratio: float = Field(
        0.8,
        alias="mapreduce.job.heap.memory-mb.ratio",
        gt=0,
        le=1,
        description="Hadoop 3 only: a heap without -Xmx is memory.mb x ratio (MAPREDUCE-5785)",
        json_schema_extra={
            "hadoop_versions": [3],
            "unread_why": "MAPREDUCE-5785, in Hadoop 3.0, derives a heap without -Xmx from the "
            "container; Hadoop 1 and 2 run such a task at mapred.child.java.opts' default "
            "-Xmx200m",
            "unread_instead": "an -Xmx in mapred.child.java.opts (Hadoop 2: or "
            "mapreduce.{map,reduce}.java.opts)",
        },
    )
    map_vcores: int = Field(
        1,
        alias="mapreduce.map.cpu.vcores",
        ge=1,
        description="a YARN resource request (MAPREDUCE-4520); Hadoop 1 runs tasks in slots",
        json_schema_extra=_YARN_ONLY,
    )
    reduce_vcores: int = Field(
        1,
        alias="mapreduce.reduce.cpu.vcores",
        ge=1,
        description="a YARN resource request (MAPREDUCE-4520); Hadoop 1 runs tasks in slots",
        json_schema_extra=_YARN_ONLY,
    )
    reduce_memory_totalbytes: int | None = Field(
        None, alias="mapreduce.reduce.memory.totalbytes", gt=0
    )
    split_minsize: int = Field(0, alias="mapreduce.input.fileinputformat.split.minsize", ge=0)
    split_maxsize: int = Field(
        LONG_MAX, alias="mapreduce.input.fileinputformat.split.maxsize", ge=1
    )
    dfs_blocksize: int = Field(134217728, alias="dfs.blocksize", ge=1)
    other_properties: dict[str, str] = Field(
        default_factory=dict, description="properties the model does not read, kept verbatim"
    )

    @field_validator("map_output_compress", "output_compress", "memtomem_enabled", mode="before")
    @classmethod
    def _bools(cls, v: Any, info: ValidationInfo) -> Any:
        # Configuration.getBoolean: true/false (any case); an empty value is the default, and
        # anything else is read as the default too: a value Hadoop would silently not take is
        # refused here rather than predicted as if it were true.
        if isinstance(v, str):
            parsed = hadoop_bool(v)
            if parsed is not None:
                return parsed
            if not v.strip():
                raise PydanticUseDefault()
            raise ValueError(f"{_alias(info)}={v!r} is not a boolean; allowed: {BOOLEAN_ALLOWED}")
        return v

    @field_validator(*_INT32_FIELDS, *_INT64_FIELDS, "dfs_blocksize", mode="before")
    @classmethod
    def _hadoop_ints(cls, v: Any, info: ValidationInfo) -> Any:
        # Configuration.getInt/getLong/getLongBytes: '1_00', '100.0', '1e2' are no integers to
        # Hadoop (Integer.parseInt fails the task), whatever Python's int() or float() say.
        if not isinstance(v, str):
            return v
        name = info.field_name or ""
        try:
            if name == "dfs_blocksize":
                return hadoop_long_bytes(v)
            return hadoop_long(v, bits=32 if name in _INT32_FIELDS else 64)
        except ValueError:
            allowed = (
                BYTES_ALLOWED
                if name == "dfs_blocksize"
                else INT_ALLOWED
                if name in _INT32_FIELDS
                else LONG_ALLOWED
            )
            raise ValueError(
                f"{_alias(info)}={v!r} is not an integer Hadoop reads; allowed: {allowed}"
            ) from None

    @field_validator(*_FLOAT_FIELDS, mode="before")
    @classmethod
    def _hadoop_floats(cls, v: Any, info: ValidationInfo) -> Any:
        if not isinstance(v, str):
            return v
        try:
            return hadoop_float(v)
        except ValueError:
            raise ValueError(
                f"{_alias(info)}={v!r} is not a number Hadoop reads; allowed: {FLOAT_ALLOWED}"
            ) from None

    @field_validator("map_output_codec", "output_codec", mode="before")
    @classmethod
    def _codec(cls, v: Any) -> Any:
        if isinstance(v, str):
            return codec_name(v)
        return v

    @field_validator("hadoop_version", mode="before")
    @classmethod
    def _version(cls, v: Any) -> Any:
        if isinstance(v, str):
            s = v.strip().split(".")[0]
            if s.isdigit():
                return int(s)
        return v

    @field_validator("combine_class", "map_java_opts", "reduce_java_opts", "child_java_opts")
    @classmethod
    def _empty_is_none(cls, v: str | None) -> str | None:
        return v if v and v.strip() else None

    @field_validator("map_java_opts", "reduce_java_opts", "child_java_opts")
    @classmethod
    def _xmx_sized(cls, v: str | None) -> str | None:
        # every -Xmx token needs a size the JVM reads: "-Xmx" alone or "-Xmx2q" stops the
        # task JVM before it starts ("Invalid maximum heap size"), it is not "no -Xmx"
        for tok in (v or "").split():
            if tok.startswith("-Xmx") and not _XMX.fullmatch(tok):
                raise ValueError(
                    f"{tok!r} is not a heap size the JVM accepts (it refuses to start); "
                    "allowed: -Xmx<number>[k|m|g|t], e.g. -Xmx1638m"
                )
        return v

    @field_validator("io_sort_mb", mode="before")
    @classmethod
    def _mb_int(cls, v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        return v

    @model_validator(mode="before")
    @classmethod
    def _hadoop1_block_size(cls, data: Any) -> Any:
        # Hadoop 1's dfs.block.size default is 64 MB (reference §1.1), Hadoop 2/3's 128 MB.
        if isinstance(data, dict):
            version = data.get("hadoop_version")
            if str(version).split(".")[0] == "1" and not (
                "dfs_blocksize" in data or "dfs.blocksize" in data
            ):
                data = {**data, "dfs.blocksize": 64 * MB}
        return data

    @model_validator(mode="after")
    def _cross_checks(self) -> HadoopConfig:
        # MergeManagerImpl refuses to start when maxSingleShuffleLimit >= mergeThreshold
        # (reference §7): the single-segment limit must be below the merge threshold.
        if self.hadoop_version >= 2 and not (
            self.shuffle_memory_limit_percent < self.shuffle_merge_percent
        ):
            raise ValueError(
                "mapreduce.reduce.shuffle.memory.limit.percent must be below "
                "mapreduce.reduce.shuffle.merge.percent (MergeManagerImpl: 'Invalid configuration'), "
                f"got {self.shuffle_memory_limit_percent} >= {self.shuffle_merge_percent}"
            )
        heap = self.map_heap_bytes
        if self.io_sort_mb * MB >= heap:
            if heap // MB > 1:
                raise ValueError(
                    f"mapreduce.task.io.sort.mb={self.io_sort_mb} must be below the map task "
                    f"heap ({heap // MB} MB, {self.heap_origin('map')}); "
                    f"allowed 1..{min(2047, heap // MB - 1)}"
                )
            # no sort buffer fits: the heap is what is wrong, not io.sort.mb (MapTask's
            # MapOutputBuffer allocates io.sort.mb bytes inside the heap)
            need = math.ceil((self.io_sort_mb + 1) / self.heap_memory_mb_ratio)
            raise ValueError(
                f"the map task heap ({heap // MB} MB, {self.heap_origin('map')}) cannot hold "
                f"any sort buffer (mapreduce.task.io.sort.mb={self.io_sort_mb}); allowed: "
                f"a map heap above {self.io_sort_mb} MB, e.g. mapreduce.map.memory.mb >= {need}"
            )
        return self

    def heap_origin(self, side: Literal["map", "reduce"]) -> str:
        """Which setting gives ``side``'s heap (for error messages and what-if lines)."""
        own = self.map_java_opts if side == "map" else self.reduce_java_opts
        if parse_xmx(own or self.child_java_opts) is not None:
            prop = f"mapreduce.{side}.java.opts" if own else "mapred.child.java.opts"
            return f"-Xmx in {prop}"
        if self.hadoop_version <= 2:
            return f"Hadoop {self.hadoop_version}'s default -Xmx200m"
        mem = self.map_memory_mb if side == "map" else self.reduce_memory_mb
        return (
            f"mapreduce.{side}.memory.mb={mem} x "
            f"mapreduce.job.heap.memory-mb.ratio={self.heap_memory_mb_ratio:g}"
        )

    @field_validator("*", mode="after")
    @classmethod
    def _java_long(cls, v: Any) -> Any:
        # Hadoop reads integer properties with Configuration.getInt/getLong: nothing beyond a
        # Java long exists (and numpy's int64 batch arrays would overflow on it).
        if isinstance(v, int) and not isinstance(v, bool) and not -LONG_MAX - 1 <= v <= LONG_MAX:
            raise ValueError(f"{v} is outside a Java long (±2^63)")
        return v

    @model_validator(mode="after")
    def _heap_fits_container(self) -> HadoopConfig:
        # YARN's NodeManager kills a task whose JVM outgrows its container ("running beyond
        # physical memory limits", ContainersMonitorImpl): an -Xmx above mapreduce.*.memory.mb
        # is a configuration that fails at run time, not one to predict. Hadoop 2 without an
        # -Xmx launches the task JVM with mapred.child.java.opts' default -Xmx200m
        # (MapReduceChildJVM, JobConf.DEFAULT_MAPRED_TASK_JAVA_OPTS) whatever the container, so
        # that heap must fit too: a 128 MB container under it was accepted while the same heap
        # named by -Xmx was refused. Hadoop 3's derived heap (memory.mb x ratio, MAPREDUCE-5785)
        # always fits; Hadoop 1 has slots, not containers.
        for side, mem, opts in (
            ("map", self.map_memory_mb, self.map_java_opts),
            ("reduce", self.reduce_memory_mb, self.reduce_java_opts),
        ):
            xmx = parse_xmx(opts or self.child_java_opts)
            if xmx is not None and xmx > MAX_HEAP_BYTES:
                raise ValueError(
                    f"mapreduce.{side}.java.opts: -Xmx of {xmx // MB} MB is not a heap"
                )
            if self.hadoop_version < 2 or mem <= 0:
                continue
            if xmx is not None and xmx > mem * MB:
                raise ValueError(
                    f"mapreduce.{side}.java.opts heap -Xmx{xmx // MB}m is larger than its "
                    f"container (mapreduce.{side}.memory.mb={mem}): YARN kills such tasks; "
                    f"allowed: -Xmx up to {mem}m (the default ratio 0.8 gives "
                    f"-Xmx{int(mem * 0.8)}m)"
                )
            heap_mb = self._heap_bytes(mem, opts) // MB
            if xmx is None and self.heap_fixed(side) and heap_mb > mem:
                raise ValueError(
                    f"mapreduce.{side}.memory.mb={mem} is smaller than the {side} task heap "
                    f"({self.heap_origin(side)}: with no -Xmx set, the JVM gets "
                    "mapred.child.java.opts' default, JobConf.DEFAULT_MAPRED_TASK_JAVA_OPTS): "
                    f"YARN kills such tasks; allowed: mapreduce.{side}.memory.mb >= {heap_mb}, "
                    f"or an -Xmx up to {mem}m in mapreduce.{side}.java.opts"
                )
        return self

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_properties(
        cls, props: dict[str, Any], *, hadoop_version: int | None = None, source: str | None = None
    ) -> HadoopConfig:
        """Build from ``{property: value}``, mapping Hadoop 1 names (reference §8.5).

        Raises ``ValueError`` when an old and a new name give different values.
        """
        by_alias = {f.alias: name for name, f in cls.model_fields.items() if f.alias}
        values: dict[str, Any] = {}
        origin: dict[str, str] = {}
        other: dict[str, str] = {}
        for key, raw in props.items():
            key = key.strip()
            new = DEPRECATED_NAMES.get(key, key)
            if key in cls.model_fields and cls.model_fields[key].alias:
                new = cls.model_fields[key].alias or key  # a field name, as with_changes takes
            if key == "hadoop_version":
                values["hadoop_version"] = raw
                continue
            if new in by_alias:
                field = by_alias[new]
                if field in values and str(values[field]).strip() != str(raw).strip():
                    where = f"{source}: " if source else ""
                    raise ValueError(
                        f"{where}{origin[field]}={values[field]!r} and {key}={raw!r} set the same "
                        f"property ({new}) to different values"
                    )
                values[field] = raw.strip() if isinstance(raw, str) else raw
                origin[field] = key
            else:
                other[key] = str(raw)
        if hadoop_version is not None:
            values["hadoop_version"] = hadoop_version
        _one_byte_split(values)
        if hadoop_bool(other.get(STARFISH_USE_COMBINER, "true")) is False:
            # Starfish runs the combiner only when the class is set and this flag is not false
            # (MapProfileOracle: combine class != null && getBoolean(starfish.use.combiner, true)).
            values.pop("combine_class", None)
        return cls(**values, other_properties=other)

    def to_properties(self, *, only_set: bool = False) -> dict[str, str]:
        """Hadoop 2/3 property names → string values (what ``mapred-site.xml`` holds)."""
        out: dict[str, str] = {}
        data = self.model_dump(exclude_unset=only_set)
        for name, field in type(self).model_fields.items():
            if not field.alias or name not in data:
                continue
            v = data[name]
            if v is None:
                continue
            if self.hadoop_version not in field_versions(name):
                continue  # e.g. io.sort.record.percent: Hadoop 1 only (MAPREDUCE-64)
            out[field.alias] = format_property_value(name, v)
        return out

    def with_changes(self, changes: dict[str, Any]) -> HadoopConfig:
        """A copy with ``changes`` applied (property names, old or new, or field names)."""
        props = {k: v for k, v in self.model_dump(by_alias=True).items() if v is not None}
        props.pop("other_properties", None)
        by_alias = {f.alias: n for n, f in type(self).model_fields.items() if f.alias}
        merged = dict(props)
        for key, value in changes.items():
            if key == STARFISH_USE_COMBINER:  # Starfish's switch: false drops the combiner
                if hadoop_bool(str(value)) is False:  # getBoolean: only "false" is off
                    merged["mapreduce.job.combine.class"] = None
                continue
            if key in type(self).model_fields:
                alias = type(self).model_fields[key].alias or key
            else:
                alias = DEPRECATED_NAMES.get(key, key)
            merged[alias] = value
        known = {k: v for k, v in merged.items() if k in by_alias or k == "hadoop_version"}
        new = type(self).model_validate(known)
        if self.other_properties:
            new = new.model_copy(update={"other_properties": dict(self.other_properties)})
        return new

    # ------------------------------------------------------------------ derived values
    @property
    def use_combiner(self) -> bool:
        return self.combine_class is not None

    def _container_mb(self, memory_mb: int, opts: str | None) -> int:
        # Hadoop 3 JobConf.getMemoryRequired: memory.mb <= 0 means ceil(Xmx / ratio), else 1024.
        if memory_mb > 0:
            return memory_mb
        xmx = parse_xmx(opts or self.child_java_opts)
        if xmx is not None:
            return math.ceil(xmx / MB / self.heap_memory_mb_ratio)
        return 1024

    def _heap_bytes(self, memory_mb: int, opts: str | None) -> int:
        xmx = parse_xmx(opts or self.child_java_opts)
        if xmx is not None:
            return xmx
        if self.hadoop_version <= 2:
            # Hadoop 1 and 2: mapred.child.java.opts' default -Xmx200m, whatever the container
            # (JobConf.DEFAULT_MAPRED_TASK_JAVA_OPTS); Hadoop 3 derives it (MAPREDUCE-5785)
            return 200 * MB
        # Hadoop 3 JobConf.getTaskJavaOpts: Xmx = ceil(memory.mb * ratio) MB.
        return math.ceil(self._container_mb(memory_mb, opts) * self.heap_memory_mb_ratio) * MB

    @property
    def map_container_mb(self) -> int:
        return self._container_mb(self.map_memory_mb, self.map_java_opts)

    @property
    def reduce_container_mb(self) -> int:
        return self._container_mb(self.reduce_memory_mb, self.reduce_java_opts)

    def heap_fixed(self, side: Literal["map", "reduce"]) -> bool:
        """Whether ``side``'s heap stays put whatever its container: Hadoop 1/2 without an
        ``-Xmx`` run the default ``-Xmx200m`` (:meth:`_heap_bytes`)."""
        opts = self.map_java_opts if side == "map" else self.reduce_java_opts
        return self.hadoop_version <= 2 and parse_xmx(opts or self.child_java_opts) is None

    @property
    def map_heap_bytes(self) -> int:
        return self._heap_bytes(self.map_memory_mb, self.map_java_opts)

    @property
    def reduce_heap_bytes(self) -> int:
        return self._heap_bytes(self.reduce_memory_mb, self.reduce_java_opts)

    @property
    def reduce_total_memory_bytes(self) -> int:
        """What MergeManagerImpl multiplies by the shuffle percent (Runtime.maxMemory() or override)."""
        return self.reduce_memory_totalbytes or self.reduce_heap_bytes

    @property
    def split_size(self) -> int:
        """New-API FileInputFormat: max(minSize, min(maxSize, blockSize)) (reference §8.4)."""
        return max(max(self.split_minsize, 1), min(self.split_maxsize, self.dfs_blocksize))


def _field_extra(field: str) -> dict[str, Any]:
    extra = HadoopConfig.model_fields[field].json_schema_extra
    return extra if isinstance(extra, dict) else {}


def field_versions(field: str) -> tuple[int, ...]:
    """The Hadoop major versions that have ``field``'s property (declared on the field)."""
    return tuple(_field_extra(field).get("hadoop_versions", (1, 2, 3)))  # type: ignore[arg-type]


def followed_heap_changes(base: HadoopConfig, new: HadoopConfig) -> dict[str, dict[str, str]]:
    """The task heaps that no ``-Xmx`` names and that moved from ``base`` to ``new``, as
    what-if change lines: Hadoop 3 derives such a heap from the container (``memory.mb x
    heap.memory-mb.ratio``, MAPREDUCE-5785), so a container change moves it, and that must be
    said (no property shows it: a 1024 -> 128 MB container is an 820 -> 103 MB heap)."""
    out = {}
    for side in ("map", "reduce"):
        a, b = (getattr(c, f"{side}_heap_bytes") // MB for c in (base, new))
        origin = new.heap_origin(side)  # type: ignore[arg-type]
        if a != b and not origin.startswith("-Xmx"):
            out[f"{side} heap ({origin})"] = {"from": f"-Xmx{a}m", "to": f"-Xmx{b}m"}
    return out


def field_unread(field: str) -> tuple[str, str]:
    """Why the Hadoop lines outside :func:`field_versions` do not read ``field``'s property,
    and what they read instead (declared on the field; empty when not declared)."""
    extra = _field_extra(field)
    return str(extra.get("unread_why", "")), str(extra.get("unread_instead", ""))


def is_codec_field(field: str) -> bool:
    """Whether ``field`` holds a codec short name (written as the codec's class name)."""
    return bool(_field_extra(field).get("codec", False))


def format_property_value(field: str, value: Any) -> str:
    """Hadoop's string form of a value (booleans lower case, codecs as class names)."""
    from mrtune.costmodel.properties import CODEC_CLASSES

    if isinstance(value, bool):
        return "true" if value else "false"
    if is_codec_field(field):
        return CODEC_CLASSES[value]
    if isinstance(value, float):
        short = f"{value:g}"  # 6 significant digits would change what was scored (issue 14)
        return short if float(short) == value else repr(value)
    return str(value)

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

:data:`KNOBS` is the one registry that the optimizer, the CLI (``--set`` validation), the batch
tuner and the docs read; ``tests/search_spaces/test_knob_registry.py`` checks, for every knob, that
it agrees with ``HadoopConfig`` and with the property names Hadoop 1 and Hadoop 2/3 really have.
"""

from __future__ import annotations

import dataclasses
import math
from enum import StrEnum
from functools import cache
from typing import Any, Literal

import numpy as np

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.config import HadoopConfig, field_versions
from mrtune.costmodel.properties import (
    CODEC_CODES,
    CODEC_NAMES_BY_CODE,
    DEPRECATED_NAMES,
    HADOOP1_NAMES,
    codec_name,
)

Side = Literal["map", "reduce", "job"]
Kind = Literal["int", "float", "bool", "categorical"]
Value = float | int | bool | str


class Role(StrEnum):
    """The special behaviour of a knob (``plain`` = a number written as one property).

    * ``sort_buffer``: ``io.sort.mb``; capped by a share of the map heap, and the job-aware grid
      adds the smallest buffer that holds one map's output in a single spill.
    * ``merge_factor``: ``io.sort.factor``; sizes the map-side merge as well as the reduce's.
    * ``combiner``: on/off switch realised as the job's combiner class (or none).
    * ``combine_threshold``: ``combine.minspills``; read only as ``spills >= minspills``.
    * ``map_codec`` / ``output_codec``: categorical codec; ``none`` writes the switch false.
    * ``reducers``: the job-aware grid adds whole multiples of the reduce slots.
    * ``split_size``: the effective split size, written as the min/max split pair.
    * ``map_memory`` / ``reduce_memory``: container memory; the heap follows it.
    """

    plain = "plain"
    sort_buffer = "sort_buffer"
    merge_factor = "merge_factor"
    combiner = "combiner"
    combine_threshold = "combine_threshold"
    map_codec = "map_codec"
    output_codec = "output_codec"
    reducers = "reducers"
    split_size = "split_size"
    map_memory = "map_memory"
    reduce_memory = "reduce_memory"


CODEC_ROLES = frozenset({Role.map_codec, Role.output_codec})
MEMORY_ROLES = frozenset({Role.map_memory, Role.reduce_memory})


def _field_bounds(field_name: str) -> tuple[float, float, bool, bool]:
    """``(low, high, low_open, high_open)`` of a ``HadoopConfig`` field's pydantic constraints."""
    low, high, low_open, high_open = -math.inf, math.inf, False, False
    for m in HadoopConfig.model_fields[field_name].metadata:
        if getattr(m, "ge", None) is not None:
            low = float(m.ge)
        if getattr(m, "gt", None) is not None:
            low, low_open = float(m.gt), True
        if getattr(m, "le", None) is not None:
            high = float(m.le)
        if getattr(m, "lt", None) is not None:
            high, high_open = float(m.lt), True
    return low, high, low_open, high_open


@cache
def _default_row(hadoop_version: int) -> dict[str, float | int | bool]:
    """The ConfigBatch columns of Hadoop's default configuration for ``hadoop_version``."""
    return ConfigBatch._columns_of(HadoopConfig(hadoop_version=hadoop_version))  # type: ignore[arg-type]


_FIELD_BY_ALIAS: dict[str, str] = {
    f.alias: n for n, f in HadoopConfig.model_fields.items() if f.alias is not None
}


@dataclasses.dataclass(frozen=True)
class Knob:
    """One tunable setting (see the module docstring for what is declared where).

    Declared: ``name`` (Hadoop 2/3 property = ``HadoopConfig`` alias), ``column``, ``side``,
    ``description``, the search range ``low``/``high`` (inclusive) with ``log`` and ``grid``,
    ``role`` and the flags below. Derived in ``__post_init__``: ``field`` (the ``HadoopConfig``
    field), ``kind``, ``default`` (the value in Hadoop 2/3's default configuration),
    ``choices`` of codec knobs, and the Hadoop-valid range ``valid_low``/``valid_high``.

    Flags: ``versions`` the Hadoop major versions where the knob is tuned (default: those whose
    ``HadoopConfig`` field declares the property; container memory is Hadoop 2/3 only, as
    Hadoop 1 sizes the heap by ``mapred.child.java.opts`` and slots); ``needs_reduce`` acts
    only when the job has reduce tasks (a map-only job writes map output straight to HDFS, with
    no sort buffer, spill or merge: Hadoop ``MapTask.runNewMapper`` with zero reduces);
    ``needs_combiner`` acts only when the job has a combiner; ``modelled`` the cost model gives
    it an effect (otherwise it is never searched by default); ``local_mode_ignored``
    LocalJobRunner ignores it; ``companion`` the second property the knob writes (a codec's
    on/off switch, the split's minimum size); ``unit`` how values are shown (``bytes``, ``MB``).
    """

    name: str
    column: str
    side: Side
    description: str
    low: float | None = None
    high: float | None = None
    log: bool = False
    grid: tuple[float, ...] = ()
    role: Role = Role.plain
    versions: tuple[int, ...] = ()
    needs_reduce: bool = False
    needs_combiner: bool = False
    modelled: bool = True
    local_mode_ignored: bool = False
    companion: str | None = None
    unit: Literal["", "MB", "bytes"] = ""
    choices: tuple[str, ...] = ()
    field: str = dataclasses.field(init=False)
    kind: Kind = dataclasses.field(init=False)
    default: Value = dataclasses.field(init=False)
    valid_low: float = dataclasses.field(init=False)
    valid_high: float = dataclasses.field(init=False)
    valid_low_open: bool = dataclasses.field(init=False)
    valid_high_open: bool = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        if self.name not in _FIELD_BY_ALIAS:
            raise ValueError(f"{self.name}: no HadoopConfig field has this property name")
        if self.column not in _default_row(3):
            raise ValueError(f"{self.name}: {self.column!r} is not a ConfigBatch column")
        field_name = _FIELD_BY_ALIAS[self.name]
        set_ = object.__setattr__
        set_(self, "field", field_name)
        if not self.versions:
            set_(self, "versions", field_versions(field_name))
        elif not set(self.versions) <= set(field_versions(field_name)):
            raise ValueError(f"{self.name}: versions {self.versions} beyond its property's")
        set_(self, "kind", self._derive_kind(field_name))
        if self.kind == "categorical" and not self.choices:
            set_(self, "choices", tuple(CODEC_CODES))
        bounds = _field_bounds(field_name) if self.kind in {"int", "float"} else (0, 1, 0, 0)
        for attr, b in zip(("low", "high", "low_open", "high_open"), bounds, strict=True):
            set_(self, f"valid_{attr}", b)
        set_(self, "default", self.decode(float(_default_row(3)[self.column])))
        if self.kind in {"int", "float"}:
            self._check_search_range()

    def _derive_kind(self, field_name: str) -> Kind:
        if self.role in CODEC_ROLES:
            return "categorical"
        if self.role == Role.combiner:
            return "bool"
        ann = HadoopConfig.model_fields[field_name].annotation
        kinds: dict[Any, Kind] = {int: "int", float: "float", bool: "bool"}
        if ann not in kinds:
            raise ValueError(f"{self.name}: field {field_name} of type {ann} needs a role")
        return kinds[ann]

    def _check_search_range(self) -> None:
        if self.low is None or self.high is None or not self.low <= self.high:
            raise ValueError(
                f"{self.name}: `low <= high` must hold, got {self.low=}, {self.high=}"
            )
        if not (self.accepts(self.low) and self.accepts(self.high)):
            raise ValueError(
                f"{self.name}: search range [{self.low}, {self.high}] leaves what Hadoop accepts "
                f"({self.allowed()})"
            )
        for g in self.grid:
            if not self.low <= g <= self.high:
                raise ValueError(f"{self.name}: grid value {g} outside [{self.low}, {self.high}]")

    # ------------------------------------------------------------------ identity
    @property
    def hadoop1_name(self) -> str:
        """The Hadoop 0.20/1.x name (reference §8.5); the same name where none differs."""
        return HADOOP1_NAMES.get(self.name, self.name)

    @property
    def hadoop1_only(self) -> bool:
        return self.versions == (1,)

    @property
    def job_specific(self) -> bool:
        """Hadoop's default is no answer for this job: the combiner is the job's code, and the
        containers are sized for the job's heap."""
        return self.role == Role.combiner or self.role in MEMORY_ROLES

    @property
    def container_memory(self) -> bool:
        return self.role in MEMORY_ROLES

    def applies_to(self, hadoop_version: int) -> bool:
        return hadoop_version in self.versions

    def default_for(self, hadoop_version: int) -> Value:
        """Hadoop's default for ``hadoop_version`` (Hadoop 1 blocks are 64 MB, so its splits)."""
        return self.decode(float(_default_row(hadoop_version)[self.column]))

    # ------------------------------------------------------------------ Hadoop-valid values
    def accepts(self, value: float) -> bool:
        """Whether ``value`` (a number) is inside the Hadoop-valid range."""
        lo_ok = value > self.valid_low if self.valid_low_open else value >= self.valid_low
        hi_ok = value < self.valid_high if self.valid_high_open else value <= self.valid_high
        return bool(lo_ok and hi_ok)

    def allowed(self) -> str:
        """Human-readable values Hadoop accepts, for error messages."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "categorical":
            return ", ".join(self.choices)
        word = "integer" if self.kind == "int" else "number"

        def num(x: float) -> str:
            return str(int(x)) if self.kind == "int" else f"{x:g}"

        if math.isinf(self.valid_high):
            return f"{word} {'>' if self.valid_low_open else '>='} {num(self.valid_low)}"
        left = "(" if self.valid_low_open else "["
        right = ")" if self.valid_high_open else "]"
        return f"{word} in {left}{num(self.valid_low)}, {num(self.valid_high)}{right}"

    def parse(self, raw: object) -> Value:
        """Validate a user value (string or number) against what Hadoop accepts.

        Raises ``ValueError`` naming the allowed values. The search range plays no part here:
        a what-if question may ask about any value Hadoop would run with.
        """
        try:
            value = self._convert(raw)
        except ValueError:
            raise ValueError(
                f"{self.name}={raw!r} is not valid; allowed: {self.allowed()}"
            ) from None
        if self.kind in {"int", "float"} and not self.accepts(float(value)):
            raise ValueError(f"{self.name}={raw!r} is out of range; allowed: {self.allowed()}")
        return value

    def _convert(self, raw: object) -> Value:
        if self.kind == "bool":
            s = str(raw).strip().lower()
            if s in {"true", "1", "yes", "on"}:
                return True
            if s in {"false", "0", "no", "off"}:
                return False
            raise ValueError
        if self.kind == "categorical":
            s = str(raw).strip()
            if s.lower() in self.choices:
                return s.lower()
            name = codec_name(s)
            if name in self.choices:
                return name
            raise ValueError
        value = float(raw) if isinstance(raw, (int, float)) else float(str(raw).strip())
        if self.kind == "int":
            if not value.is_integer():
                raise ValueError
            return int(value)
        return value

    # ------------------------------------------------------------------ encodings
    def encode(self, value: Value) -> float:
        """Value → number in the batch column (codec names → integer codes)."""
        if self.kind == "categorical":
            return float(CODEC_CODES[str(value)])
        return float(value)

    def decode(self, number: float) -> Value:
        """Batch-column number → value."""
        if self.kind == "categorical":
            return CODEC_NAMES_BY_CODE[int(round(number))]
        if self.kind == "bool":
            return bool(round(number))
        if self.kind == "int":
            return int(round(number))
        return float(number)

    def grid_values(self) -> np.ndarray:
        """Encoded grid for exhaustive search."""
        if self.kind == "bool":
            return np.array([0.0, 1.0])
        if self.kind == "categorical":
            return np.array([self.encode(c) for c in self.choices])
        return np.asarray(self.grid or (self.low, self.high), dtype=np.float64)


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
        role=Role.combiner, needs_reduce=True, needs_combiner=True,
    ),
    Knob(
        "mapreduce.map.output.compress.codec", "map_codec", "map",
        "map output compression (none = mapreduce.map.output.compress false)",
        role=Role.map_codec, needs_reduce=True, companion="mapreduce.map.output.compress",
    ),
    Knob(
        "mapreduce.output.fileoutputformat.compress.codec", "out_codec", "reduce",
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
    if key in KNOBS_BY_NAME:
        return KNOBS_BY_NAME[key]
    for k in KNOBS:
        if name in (k.field, k.column):
            return k
    import difflib

    close = difflib.get_close_matches(name, list(KNOBS_BY_NAME), n=3)
    hint = f"; closest: {', '.join(close)}" if close else ""
    raise KeyError(f"{name!r} is not a tunable setting{hint}")

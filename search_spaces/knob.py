"""``Knob``: one tunable Hadoop setting, whose type, default and Hadoop-valid range are derived.

A knob's **type, Hadoop default and Hadoop-valid range are declared once**, on the
:class:`~mrtune.costmodel.config.HadoopConfig` field whose alias is the knob's Hadoop 2/3
property name (pydantic ``ge``/``gt``/``le``/``lt``); :class:`Knob` derives them from that field
(:func:`_field_bounds`) and from Hadoop's default configuration, and never repeats them. What a
knob declares itself is what only the search needs (search range, grid, side, :class:`Role` and
flags); the registry of knobs is :data:`mrtune.search_spaces.knobs.KNOBS`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from enum import StrEnum
from functools import cache
from typing import Any, Literal

import numpy as np

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.config import HadoopConfig, field_versions
from mrtune.costmodel.hadoop_values import hadoop_bool, hadoop_float, hadoop_long
from mrtune.costmodel.properties import (
    CODEC_CODES,
    CODEC_NAMES_BY_CODE,
    HADOOP1_NAMES,
    codec_name,
)

Side = Literal["map", "reduce", "job"]
Kind = Literal["int", "float", "bool", "categorical"]
Value = float | int | bool | str


#: A Java class name (package-qualified or not; nested classes with '$').
_JAVA_CLASS = re.compile(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*")


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
    on/off switch, the split's minimum size); ``unit`` how values are shown (``bytes``, ``MB``);
    ``site_property`` a configuration file or ``-D`` flag can set it. The combiner cannot: the
    job's driver sets it (``Job.setCombinerClass`` writes ``mapreduce.job.combine.class`` into
    the job conf at submission, over ``mapred-site.xml``, and an empty value is no class), so the
    optimizer never offers it (a change Hadoop cannot take as a property is not offered); what-if
    questions and explicit ``only`` lists may still ask about it.
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
    site_property: bool = True
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
        numeric = self.kind in {"int", "float"}
        bounds = _field_bounds(field_name) if numeric else (0.0, 1.0, False, False)
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
        if self.role == Role.combiner:
            return "a combiner class name (on), an empty value (off), or true / false"
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
                f"{self.name}={_shown(raw)} is not valid; allowed: {self.allowed()}"
            ) from None
        if self.kind in {"int", "float"} and not self.accepts(float(value)):
            raise ValueError(
                f"{self.name}={_shown(raw)} is out of range; allowed: {self.allowed()}"
            )
        return value

    def _convert(self, raw: object) -> Value:
        # a string is read as Hadoop's Configuration reads it (getBoolean, getInt, getFloat):
        # '1'/'yes' are no booleans and '1_00'/'1e2' no integers to Hadoop
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if self.role == Role.combiner and isinstance(raw, str):
                # the property itself holds a class (Job.setCombinerClass): one names it on,
                # an empty value is no class
                cls = raw.strip()
                if not cls:
                    return False
                if _JAVA_CLASS.fullmatch(cls) and cls.lower() not in {"true", "false"}:
                    return True
            parsed = hadoop_bool(str(raw))
            if parsed is None:
                raise ValueError
            return parsed
        if self.kind == "categorical":
            s = str(raw).strip()
            if s.lower() in self.choices:
                return s.lower()
            name = codec_name(s)
            if name in self.choices:
                return name
            raise ValueError
        if not isinstance(raw, (int, float)):
            text = str(raw)
            return hadoop_long(text, bits=64) if self.kind == "int" else hadoop_float(text)
        value = float(raw)
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


def _shown(raw: object) -> str:
    """``raw`` as an error line shows it: an integer of more than 15 digits in exponent form
    (``sweep --range 1:1e308`` put all 309 digits of ``int(1e308)`` into the line)."""
    if isinstance(raw, int) and not isinstance(raw, bool) and len(str(abs(raw))) > 15:
        digits = str(abs(raw))
        rest = digits[1:4].rstrip("0")
        mantissa = f"{digits[0]}.{rest}" if rest else digits[0]
        return f"{'-' if raw < 0 else ''}{mantissa}e+{len(digits) - 1}"
    return repr(raw)

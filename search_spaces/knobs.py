"""The registry of tunable Hadoop settings.

Each :class:`Knob` is a small value object that checks itself (style: optuna's
``distributions.py``): its Hadoop 2/3 property name, Hadoop 1 alias, type, default, bounds, scale,
the grid used by exhaustive search, which side of the job it affects, and the
:class:`~mrtune.costmodel.batch.ConfigBatch` column it drives. :data:`KNOBS` is the one registry that
the optimizer, the CLI (``--set`` validation) and the docs read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from mrtune.costmodel.properties import CODEC_CODES, HADOOP1_NAMES

Side = Literal["map", "reduce", "job"]
Kind = Literal["int", "float", "bool", "categorical"]


@dataclass(frozen=True)
class Knob:
    """One tunable setting.

    ``low``/``high`` bound numeric knobs (inclusive); ``log`` asks samplers for a log scale;
    ``grid`` is the discretisation used by the exhaustive strategy; ``choices`` lists a
    categorical knob's values (for codecs: short codec names, ``"none"`` = compression off).
    """

    name: str
    field: str
    column: str
    kind: Kind
    default: float | int | bool | str
    side: Side
    description: str
    low: float | None = None
    high: float | None = None
    log: bool = False
    choices: tuple[str, ...] = ()
    grid: tuple[float, ...] = field(default=())
    hadoop1_only: bool = False

    def __post_init__(self) -> None:
        if self.kind in {"int", "float"}:
            if self.low is None or self.high is None or not self.low <= self.high:
                raise ValueError(
                    f"{self.name}: `low <= high` must hold, got {self.low=}, {self.high=}"
                )
            for g in self.grid:
                if not self.low <= g <= self.high:
                    raise ValueError(
                        f"{self.name}: grid value {g} outside [{self.low}, {self.high}]"
                    )
        if self.kind == "categorical" and not self.choices:
            raise ValueError(f"{self.name}: a categorical knob needs choices")

    @property
    def hadoop1_name(self) -> str:
        return HADOOP1_NAMES.get(self.name, self.name)

    def allowed(self) -> str:
        """Human-readable allowed values, for error messages."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "categorical":
            return ", ".join(self.choices)
        lo = int(self.low) if self.kind == "int" else self.low  # type: ignore[arg-type]
        hi = int(self.high) if self.kind == "int" else self.high  # type: ignore[arg-type]
        return f"{'integer' if self.kind == 'int' else 'number'} in [{lo}, {hi}]"

    def parse(self, raw: object) -> float | int | bool | str:
        """Validate a user value (string or number); raise ``ValueError`` naming the range."""
        try:
            if self.kind == "bool":
                s = str(raw).strip().lower()
                if s in {"true", "1", "yes", "on"}:
                    return True
                if s in {"false", "0", "no", "off"}:
                    return False
                raise ValueError
            if self.kind == "categorical":
                s = str(raw).strip()
                low = s.lower()
                if low in self.choices:
                    return low
                from mrtune.costmodel.properties import codec_name

                name = codec_name(s)
                if name in self.choices:
                    return name
                raise ValueError
            value = float(str(raw).strip()) if not isinstance(raw, (int, float)) else float(raw)
            if self.kind == "int":
                if not value.is_integer():
                    raise ValueError
                value = int(value)
        except ValueError:
            raise ValueError(
                f"{self.name}={raw!r} is not valid; allowed: {self.allowed()}"
            ) from None
        if not (self.low <= value <= self.high):  # type: ignore[operator]
            raise ValueError(f"{self.name}={raw!r} is out of range; allowed: {self.allowed()}")
        return value

    def encode(self, value: float | int | bool | str) -> float:
        """Value → number in the batch column (codec names → integer codes)."""
        if self.kind == "categorical":
            return float(CODEC_CODES[str(value)])
        return float(value)

    def decode(self, number: float) -> float | int | bool | str:
        """Batch-column number → value."""
        if self.kind == "categorical":
            from mrtune.costmodel.properties import CODEC_NAMES_BY_CODE

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


_CODECS = ("none", "default", "gzip", "bzip2", "snappy", "lz4", "zstd")
_SORTMB = (25, 50, 75, 100, 125, 150, 200, 250, 300, 400, 500, 600, 800, 1000, 1200, 1600, 2047)

#: The registry. Order = the order of explanations and outputs.
KNOBS: tuple[Knob, ...] = (
    Knob(
        "mapreduce.task.io.sort.mb",
        "io_sort_mb",
        "io_sort_mb",
        "int",
        100,
        "map",
        "map-side sort buffer (MB); must stay below the map heap",
        1,
        2047,
        True,
        grid=_SORTMB,
    ),
    Knob(
        "mapreduce.map.sort.spill.percent",
        "sort_spill_percent",
        "spill_percent",
        "float",
        0.80,
        "map",
        "buffer fill fraction that starts a spill",
        0.5,
        0.99,
        grid=(0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99),
    ),
    Knob(
        "io.sort.record.percent",
        "io_sort_record_percent",
        "record_percent",
        "float",
        0.05,
        "map",
        "Hadoop 1: share of the sort buffer for record metadata",
        0.01,
        0.5,
        grid=(0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5),
        hadoop1_only=True,
    ),
    Knob(
        "mapreduce.task.io.sort.factor",
        "io_sort_factor",
        "sort_factor",
        "int",
        10,
        "job",
        "merge fan-in for map and reduce merges",
        2,
        500,
        True,
        grid=(2, 5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 500),
    ),
    Knob(
        "mapreduce.map.combine.minspills",
        "combine_min_spills",
        "combine_min_spills",
        "int",
        3,
        "map",
        "spills needed before the combiner runs in the map merge",
        1,
        20,
        grid=(1, 2, 3, 5, 10, 20),
    ),
    Knob(
        "mapreduce.job.combine.class",
        "combine_class",
        "use_combiner",
        "bool",
        True,
        "map",
        "run the job's combiner (only where the job has one)",
    ),
    Knob(
        "mapreduce.map.output.compress.codec",
        "map_output_codec",
        "map_codec",
        "categorical",
        "none",
        "map",
        "map output compression (none = mapreduce.map.output.compress false)",
        choices=_CODECS,
    ),
    Knob(
        "mapreduce.output.fileoutputformat.compress.codec",
        "output_codec",
        "out_codec",
        "categorical",
        "none",
        "reduce",
        "job output compression (none = not compressed)",
        choices=_CODECS,
    ),
    Knob(
        "mapreduce.job.reduces",
        "num_reducers",
        "num_reducers",
        "int",
        1,
        "reduce",
        "number of reduce tasks",
        1,
        10000,
        True,
        grid=(
            1,
            2,
            3,
            4,
            6,
            8,
            12,
            16,
            24,
            32,
            48,
            64,
            96,
            128,
            192,
            256,
            384,
            512,
            768,
            1024,
            1536,
            2048,
            3072,
            4096,
        ),
    ),
    Knob(
        "mapreduce.job.reduce.slowstart.completedmaps",
        "reduce_slowstart",
        "slowstart",
        "float",
        0.05,
        "job",
        "fraction of maps done before reducers start",
        0.0,
        1.0,
        grid=(0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0),
    ),
    Knob(
        "mapreduce.reduce.shuffle.input.buffer.percent",
        "shuffle_input_buffer_percent",
        "shuffle_input_pct",
        "float",
        0.70,
        "reduce",
        "shuffle buffer as a fraction of heap",
        0.1,
        0.9,
        grid=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    ),
    Knob(
        "mapreduce.reduce.shuffle.merge.percent",
        "shuffle_merge_percent",
        "shuffle_merge_pct",
        "float",
        0.66,
        "reduce",
        "shuffle buffer fill that starts an in-memory merge",
        0.2,
        0.99,
        grid=(0.3, 0.5, 0.66, 0.8, 0.9, 0.99),
    ),
    Knob(
        "mapreduce.reduce.shuffle.memory.limit.percent",
        "shuffle_memory_limit_percent",
        "shuffle_limit_pct",
        "float",
        0.25,
        "reduce",
        "largest map output kept in memory, as a fraction of the shuffle buffer",
        0.05,
        0.9,
        grid=(0.05, 0.1, 0.15, 0.25, 0.35, 0.5, 0.7),
    ),
    Knob(
        "mapreduce.reduce.input.buffer.percent",
        "reduce_input_buffer_percent",
        "reduce_input_pct",
        "float",
        0.0,
        "reduce",
        "heap share that may keep map outputs in memory during reduce()",
        0.0,
        0.9,
        grid=(0.0, 0.2, 0.4, 0.6, 0.7, 0.8, 0.9),
    ),
    Knob(
        "mapreduce.reduce.shuffle.parallelcopies",
        "shuffle_parallel_copies",
        "parallel_copies",
        "int",
        5,
        "reduce",
        "fetch threads per reducer",
        1,
        100,
        grid=(5, 10, 20, 50),
    ),
    Knob(
        "mapreduce.input.fileinputformat.split.maxsize",
        "split_maxsize",
        "split_size",
        "int",
        134217728,
        "map",
        "input split size in bytes (via split.minsize/maxsize)",
        16 * 2**20,
        2**34,
        True,
        grid=tuple(float(x * 2**20) for x in (16, 32, 64, 128, 256, 512, 1024, 2048)),
    ),
    Knob(
        "mapreduce.map.memory.mb",
        "map_memory_mb",
        "map_container_mb",
        "int",
        1024,
        "map",
        "map container memory (MB); heap follows at heap.memory-mb.ratio",
        512,
        16384,
        True,
        grid=(512, 1024, 1536, 2048, 3072, 4096, 6144, 8192),
    ),
    Knob(
        "mapreduce.reduce.memory.mb",
        "reduce_memory_mb",
        "reduce_container_mb",
        "int",
        1024,
        "reduce",
        "reduce container memory (MB); heap follows",
        512,
        16384,
        True,
        grid=(512, 1024, 1536, 2048, 3072, 4096, 6144, 8192),
    ),
)

KNOBS_BY_NAME: dict[str, Knob] = {k.name: k for k in KNOBS}


def find_knob(name: str) -> Knob:
    """The knob for a Hadoop 2/3 or Hadoop 1 property name (or a short field name)."""
    from mrtune.costmodel.properties import DEPRECATED_NAMES, STARFISH_USE_COMBINER

    key = DEPRECATED_NAMES.get(name, name)
    aliases = {
        "mapreduce.map.output.compress": "mapreduce.map.output.compress.codec",
        "mapreduce.output.fileoutputformat.compress": "mapreduce.output.fileoutputformat.compress.codec",
        "mapreduce.input.fileinputformat.split.minsize": "mapreduce.input.fileinputformat.split.maxsize",
        STARFISH_USE_COMBINER: "mapreduce.job.combine.class",
    }
    key = aliases.get(key, key)
    if key in KNOBS_BY_NAME:
        return KNOBS_BY_NAME[key]
    for k in KNOBS:
        if name in (k.field, k.column):
            return k
    import difflib

    close = difflib.get_close_matches(name, list(KNOBS_BY_NAME), n=3)
    hint = f"; closest: {', '.join(close)}" if close else ""
    raise KeyError(f"{name!r} is not a tunable setting{hint}")

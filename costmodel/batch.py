"""``ConfigBatch``: an array of configurations, one numpy array per parameter.

The cost model evaluates every configuration of a batch in one pass of numpy operations
(DESIGN decision 5). A scalar prediction is a batch of length 1. Arrays are float64 or int64 and
all have the same length; :meth:`ConfigBatch.from_configs` builds one from validated
:class:`~mrtune.costmodel.config.HadoopConfig` objects and :meth:`ConfigBatch.from_base` varies some
parameters of one base configuration (what the optimizer and sweeps use).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.properties import CODEC_CODES

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class ConfigBatch:
    """Parameters of ``n`` configurations, each an ndarray of shape (n,).

    Codec columns hold integer codes (:data:`mrtune.costmodel.properties.CODEC_CODES`, 0 = no
    compression). Memory columns are already resolved (heap bytes and container MB, reference
    §8.3), so the model never parses JVM options.
    """

    hadoop1: NDArray[np.bool_]
    io_sort_mb: FloatArray
    spill_percent: FloatArray
    record_percent: FloatArray
    sort_factor: IntArray
    combine_min_spills: IntArray
    num_reducers: IntArray
    slowstart: FloatArray
    inmem_threshold: IntArray
    shuffle_input_pct: FloatArray
    shuffle_merge_pct: FloatArray
    shuffle_limit_pct: FloatArray
    reduce_input_pct: FloatArray
    parallel_copies: IntArray
    use_combiner: NDArray[np.bool_]
    map_codec: IntArray
    out_codec: IntArray
    map_heap_bytes: FloatArray
    reduce_heap_bytes: FloatArray
    reduce_total_mem_bytes: FloatArray
    map_container_mb: FloatArray
    reduce_container_mb: FloatArray
    map_vcores: IntArray
    reduce_vcores: IntArray
    split_size: FloatArray
    #: what the old ``mapred`` API's FileInputFormat cuts by instead of ``split_size``
    #: (``map_groups.split_sizes``): ``mapreduce.job.maps``, split.minsize and the block size
    num_maps_hint: IntArray
    split_minsize: FloatArray
    block_size: FloatArray

    def __len__(self) -> int:
        return int(self.io_sort_mb.shape[0])

    @staticmethod
    def _columns_of(cfg: HadoopConfig) -> dict[str, float | int | bool]:
        return {
            "hadoop1": cfg.hadoop_version == 1,
            "io_sort_mb": cfg.io_sort_mb,
            "spill_percent": cfg.sort_spill_percent,
            "record_percent": cfg.io_sort_record_percent,
            "sort_factor": cfg.io_sort_factor,
            "combine_min_spills": cfg.combine_min_spills,
            "num_reducers": cfg.num_reducers,
            "slowstart": cfg.reduce_slowstart,
            "inmem_threshold": cfg.inmem_merge_threshold,
            "shuffle_input_pct": cfg.shuffle_input_buffer_percent,
            "shuffle_merge_pct": cfg.shuffle_merge_percent,
            "shuffle_limit_pct": cfg.shuffle_memory_limit_percent,
            "reduce_input_pct": cfg.reduce_input_buffer_percent,
            "parallel_copies": cfg.shuffle_parallel_copies,
            "use_combiner": cfg.use_combiner,
            "map_codec": CODEC_CODES[cfg.map_output_codec] if cfg.map_output_compress else 0,
            "out_codec": CODEC_CODES[cfg.output_codec] if cfg.output_compress else 0,
            "map_heap_bytes": cfg.map_heap_bytes,
            "reduce_heap_bytes": cfg.reduce_heap_bytes,
            "reduce_total_mem_bytes": cfg.reduce_total_memory_bytes,
            "map_container_mb": cfg.map_container_mb,
            "reduce_container_mb": cfg.reduce_container_mb,
            "map_vcores": cfg.map_vcores,
            "reduce_vcores": cfg.reduce_vcores,
            "split_size": cfg.split_size,
            "num_maps_hint": cfg.num_maps_hint,
            "split_minsize": cfg.split_minsize,
            "block_size": cfg.dfs_blocksize,
        }

    @classmethod
    def _dtype(cls, name: str) -> type:
        return _DTYPES[name]

    @classmethod
    def from_configs(cls, configs: Sequence[HadoopConfig]) -> ConfigBatch:
        """Stack validated configurations into a batch."""
        if not configs:
            raise ValueError("a ConfigBatch needs at least one configuration")
        rows = [cls._columns_of(c) for c in configs]
        cols = {
            f.name: np.array([r[f.name] for r in rows], dtype=cls._dtype(f.name))
            for f in fields(cls)
        }
        return cls(**cols)

    @classmethod
    def from_base(cls, base: HadoopConfig, n: int = 1, **arrays: object) -> ConfigBatch:
        """``n`` copies of ``base`` with some columns replaced by arrays (broadcast to ``n``).

        The caller is responsible for the values being valid (the optimizer draws them from
        :mod:`mrtune.search_spaces`, which enforces the constraints); lengths must agree. The
        columns not given are read-only views of the base's one value (no copy per row;
        :func:`shared_value` lets the model compute with it once).
        """
        row = cls._columns_of(base)
        lengths = {np.size(v) for v in arrays.values() if np.ndim(v) > 0}
        if lengths:
            if len(lengths) > 1:
                raise ValueError(f"arrays of different lengths: {sorted(lengths)}")
            n = lengths.pop()
        cols = {}
        for f in fields(cls):
            dt = cls._dtype(f.name)
            if f.name in arrays:
                cols[f.name] = np.broadcast_to(np.asarray(arrays[f.name], dtype=dt), (n,)).copy()
            else:
                cols[f.name] = np.broadcast_to(np.asarray(row[f.name], dtype=dt), (n,))
        unknown = set(arrays) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown ConfigBatch columns: {sorted(unknown)}")
        if "split_size" in arrays and "split_minsize" not in arrays:  # a searched split
            cols["split_minsize"] = written_split_minsize(
                cols["split_size"], row["split_size"], row["split_minsize"], row["block_size"]
            )
        return cls(**cols)

    @classmethod
    def concat(cls, batches: Sequence[ConfigBatch]) -> ConfigBatch:
        """The batches one after another (e.g. several jobs' candidates, to be evaluated in
        one call with :class:`~mrtune.costmodel.stacked.StackedProfiles`)."""
        if not batches:
            raise ValueError("a ConfigBatch needs at least one configuration")
        return cls(
            **{f.name: np.concatenate([getattr(b, f.name) for b in batches]) for f in fields(cls)}
        )

    def take(self, index: NDArray[np.int64] | slice) -> ConfigBatch:
        """The sub-batch at ``index``."""
        return replace(self, **{f.name: getattr(self, f.name)[index] for f in fields(self)})

    def column_names(self) -> list[str]:
        return [f.name for f in fields(self)]


def written_split_minsize(
    split_size: NDArray, base_split: NDArray, minsize: NDArray, block: NDArray
) -> FloatArray:
    """The ``split.minsize`` column of configurations whose effective split ``split_size`` a
    search set: a split at or above the block is written through minsize (``minsize =
    split``), a smaller one through maxsize with minsize kept at most the split
    (``search_spaces.properties.knob_to_properties``), and the current split (``base_split``)
    is not written at all, so the batch scored is the file written, column for column."""
    size = np.asarray(split_size, dtype=np.float64)
    base_min = np.asarray(minsize, dtype=np.float64)
    written = np.where(
        size >= np.asarray(block, dtype=np.float64), size, np.minimum(base_min, size)
    )
    return np.where(size == np.asarray(base_split, dtype=np.float64), base_min, written)


def shared_value(column: np.ndarray) -> float | None:
    """The one value every configuration of a column holds when the column says so without a
    pass over it (a zero-stride view: :meth:`ConfigBatch.from_base`'s columns not varied, the
    batch tuner's base row), else ``None``. What depends only on such columns is then
    computed once, on that value, with the same operations."""
    if column.ndim == 1 and column.shape[0] > 0 and column.strides == (0,):
        return column[0]
    return None


def _column_dtype(annotation: object) -> type:
    if "bool" in str(annotation):
        return np.bool_
    if "Int" in str(annotation):
        return np.int64
    return np.float64


#: Each column's dtype, from its annotation (looked up on every batch built: derived once).
_DTYPES: dict[str, type] = {f.name: _column_dtype(f.type) for f in fields(ConfigBatch)}

"""Bytes and times both task models count the same way.

Hadoop's on-disk layout of map output (``org.apache.hadoop.mapred.IFile``: a vint key and
value length per record, an EOF marker and a CRC32 checksum per partition segment;
``SpillRecord``: the ``file.out.index`` entries; ``MapTask.MapOutputBuffer.METASIZE``: the
sort buffer's accounting per record), the ns → ms unit, and the task time as its fixed part
plus its phases, summed in one fixed order so the map and reduce models (and the pinned
fixture) agree to the bit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
MB = float(2**20)
NS_PER_MS = 1e6
#: IFile writes an EOF marker (two -1 vints) and a CRC32 checksum per partition segment.
IFILE_EOF_BYTES = 2.0
IFILE_CHECKSUM_BYTES = 4.0
#: ``SpillRecord``: 3 longs per partition in ``file.out.index`` plus its 8-byte checksum.
INDEX_BYTES_PER_PARTITION = 24.0
INDEX_CHECKSUM_BYTES = 8.0
#: Hadoop 2/3 ``MapOutputBuffer.METASIZE`` and Hadoop 1 ``RECSIZE``: 16 bytes per record.
METADATA_BYTES = 16.0


def fma(x: F64 | float, y: F64 | float, z: F64 | float) -> F64:
    """``x * y + z`` with numpy's rounding, adding in place into the product's fresh buffer."""
    t = np.multiply(x, y)
    t += z
    return t


def ifile_bytes(records: F64, width: F64 | float, overhead: float, partitions: F64) -> F64:
    """Uncompressed IFile stream length: records with their vint lengths, plus EOF markers."""
    return records * (width + overhead) + IFILE_EOF_BYTES * partitions


def on_disk_bytes(uncompressed: F64, ratio: F64, partitions: F64) -> F64:
    """Bytes on disk (or shuffled) for IFile data: compressed stream plus one checksum per part."""
    return uncompressed * ratio + IFILE_CHECKSUM_BYTES * partitions


def task_total_ms(fixed_ms: F64 | float, phase_ms: dict[str, F64]) -> F64:
    """``fixed_ms + sum(phase_ms.values())``: the same additions in the same order, in place."""
    parts = [np.asarray(v, dtype=np.float64) for v in phase_ms.values()]
    if len(parts) < 2 or any(p.ndim == 0 for p in parts):
        return np.asarray(fixed_ms + sum(parts), dtype=np.float64)
    total = parts[0] + parts[1]
    for p in parts[2:]:
        total += p
    total += fixed_ms
    return total

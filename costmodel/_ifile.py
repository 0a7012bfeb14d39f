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


#: Rows from which :func:`at_least` and :func:`at_most` meet a bound as an array: below it
#: numpy's fixed cost per call dominates, and the scalar goes in as it is.
_FILLED_MIN_ROWS = 256
#: Read-only arrays of one number, by (number, length): a chunk's calls share them.
_FILLED: dict[tuple[float, int], F64] = {}


def filled(value: float, n: int) -> F64:
    """``np.full(n, value)``, read-only and kept for the next call of the same length."""
    key = (value, n)
    hit = _FILLED.get(key)
    if hit is None:
        if len(_FILLED) >= 64:
            _FILLED.clear()
        hit = np.full(n, value)
        hit.setflags(write=False)
        _FILLED[key] = hit
    return hit


def at_least(x: F64, low: float, out: F64 | None = None) -> F64:
    """``np.maximum(x, low)`` for a number ``low``, value for value.

    numpy's ``maximum`` and ``minimum`` have no vectorised loop for a scalar operand: on
    16,384 rows they take ~9.4 µs against ~2.5 µs with the bound as an array of the same
    length (measured here, numpy 2.4, AVX-512), and the model floors or caps arrays ~50 times
    a call (issue 18). Long arrays therefore meet a cached array of the bound (:func:`filled`).
    """
    if isinstance(x, np.ndarray) and x.ndim == 1 and x.shape[0] >= _FILLED_MIN_ROWS:
        return np.maximum(x, filled(low, x.shape[0]), out=out)
    return np.maximum(x, low, out=out)


def at_most(x: F64, high: float, out: F64 | None = None) -> F64:
    """``np.minimum(x, high)`` for a number ``high`` (:func:`at_least`'s reason)."""
    if isinstance(x, np.ndarray) and x.ndim == 1 and x.shape[0] >= _FILLED_MIN_ROWS:
        return np.minimum(x, filled(high, x.shape[0]), out=out)
    return np.minimum(x, high, out=out)


def quotient(a: F64 | float, b: F64, default: float = 0.0) -> F64:
    """``a / b`` where ``b > 0``, else ``default``: ``np.divide(a, b, out=np.full(…,
    default), where=b > 0)`` number for number. numpy's masked ufunc loop is ~10× slower than
    a division (52 µs against 5 µs on 16,384 rows), so every row is divided (a zero or NaN
    divisor's row gives inf or NaN, quietly) and those rows are then set to ``default``."""
    pos = b > 0
    if pos.all():
        return np.true_divide(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.true_divide(a, b)
    return np.where(pos, q, default)


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

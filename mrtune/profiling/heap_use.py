"""The maps' observed heap beyond the sort buffer (issue 14): :class:`MapHeapUse` from counters.

Hadoop records a task's committed JVM heap as ``COMMITTED_HEAP_BYTES`` (``Task.
updateHeapUsageCounter``: ``Runtime.getRuntime().totalMemory()`` at each counter update, so the
final value is the heap at the task's end). ``.jhist`` and JobHistory REST attempts carry it
with the other task counters; Rumen traces carry it as ``resourceUsageMetrics.heapUsage``
(``LoggedTaskAttempt.incorporateCounters``), which :mod:`mrtune.readers.rumen` reads back under
the counter's name. A map allocates its whole sort buffer up front (``MapTask.MapOutputBuffer.
init``: ``kvbuffer = new byte[sortmb << 20]``; Hadoop 1 splits the same ``io.sort.mb`` into
``kvbuffer`` and its two index arrays), so the committed heap less ``io.sort.mb`` is what
the rest of the map took. A map-only job has no sort buffer (``MapTask.runNewMapper`` uses a
``NewDirectOutputCollector`` when there are no reduces): nothing is subtracted.

``PHYSICAL_MEMORY_BYTES`` / ``MAP_PHYSICAL_MEMORY_BYTES_MAX`` and ``VIRTUAL_MEMORY_BYTES`` are
the process's resident and virtual size (heap, metaspace, thread stacks, direct buffers): they
bound the container, not the heap, and are not used here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mrtune.costmodel.config import MB, HadoopConfig
from mrtune.costmodel.profile import MapHeapUse

#: The counter read (Hadoop's ``TaskCounter.COMMITTED_HEAP_BYTES``).
HEAP_COUNTER = "COMMITTED_HEAP_BYTES"
#: A committed heap may exceed the configured heap by this share at most: ``totalMemory()``
#: never exceeds ``maxMemory()``, which the JVM sets at or a little below ``-Xmx`` (a survivor
#: space is not counted); the slack covers a heap given in units the conf rounds.
HEAP_SLACK = 1.05
#: How each history format records it, for the figure's ``source``.
_FORMAT_NAMES = {
    "jhist": ".jhist MAP_ATTEMPT_FINISHED counters",
    "rest": "JobHistory REST task attempt counters",
    "rumen": "Rumen resourceUsageMetrics.heapUsage",
}


def checked_heap_use(
    map_counters: Iterable[Mapping[str, float]],
    cfg: HadoopConfig,
    *,
    map_only: bool,
    source_format: str,
) -> tuple[MapHeapUse | None, str | None]:
    """:func:`map_heap_use`, or ``None`` with the profile's warning when the committed heap is
    larger than the heap the configuration gives the maps (beyond :data:`HEAP_SLACK`): the JVM
    cannot commit more than its ``-Xmx``, so either the configuration given is not the run's
    or the counter is corrupt, and no limit is derived from it."""
    use = map_heap_use(map_counters, cfg, map_only=map_only, source_format=source_format)
    if use is None or use.committed_mb <= HEAP_SLACK * use.heap_mb:
        return use, None
    return None, (
        f"{HEAP_COUNTER}: the maps committed {use.committed_mb:,.0f} MB of heap, more than the "
        f"{use.heap_mb:,.0f} MB map heap the configuration gives (a JVM commits at most its "
        "-Xmx): the configuration does not describe the run or the counter is wrong; no "
        "heap figure is used for the sort buffer's limit"
    )


def map_heap_use(
    map_counters: Iterable[Mapping[str, float]],
    cfg: HadoopConfig,
    *,
    map_only: bool,
    source_format: str,
) -> MapHeapUse | None:
    """The largest committed heap of the successful maps (``map_counters``, one mapping per
    attempt) less the run's sort buffer, or ``None`` when no attempt recorded a positive
    ``COMMITTED_HEAP_BYTES`` (Hadoop 1 before 0.20.203, Rumen's ``-1``, or a history without
    attempt counters). A committed heap below the sort buffer (a configuration that does not
    describe the run) gives a need of 0, never a negative one."""
    seen = [float(c[HEAP_COUNTER]) for c in map_counters if float(c.get(HEAP_COUNTER, 0.0)) > 0]
    if not seen:
        return None
    committed = max(seen) / MB
    sort_mb = 0.0 if map_only else float(cfg.io_sort_mb)
    where = _FORMAT_NAMES.get(source_format, f"{source_format} counters")
    if committed < sort_mb:  # the buffer is allocated at start-up: the run had a smaller one
        where += "; below io.sort.mb, so the configuration does not describe the run"
    return MapHeapUse(
        need_mb=max(committed - sort_mb, 0.0),
        committed_mb=committed,
        sort_mb=sort_mb,
        heap_mb=cfg.map_heap_bytes / MB,
        attempts=len(seen),
        source=f"max {HEAP_COUNTER} of {len(seen)} successful map(s), {where}",
    )

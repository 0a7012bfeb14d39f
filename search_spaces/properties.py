"""A knob's value as the Hadoop properties that realise it (what a recommendation writes).

Codecs write their switch and class, the split size ``minsize`` or ``maxsize`` as
``FileInputFormat`` reads them, a container size the ``-Xmx`` that follows it. Kept apart from
:mod:`mrtune.search_spaces.space` (the search over encoded values) because it is about the
written file, and the batch, lint and outputs read it without a search space.
"""

from __future__ import annotations

import math
import re

from mrtune.costmodel.config import HadoopConfig, parse_xmx
from mrtune.costmodel.profile import JobProfile
from mrtune.search_spaces.knobs import CODEC_ROLES, Knob, Role

#: The JVM options property whose ``-Xmx`` follows a container-memory knob.
HEAP_OPTS = {
    Role.map_memory: "mapreduce.map.java.opts",
    Role.reduce_memory: "mapreduce.reduce.java.opts",
}


def knob_property_names(knob: Knob) -> tuple[str, ...]:
    """Every Hadoop property :func:`knob_to_properties` may write for ``knob``."""
    if knob.role in HEAP_OPTS:
        return (knob.name, HEAP_OPTS[knob.role])
    return (knob.companion, knob.name) if knob.companion else (knob.name,)


def _heap_follows(knob: Knob, mb: int, base: HadoopConfig) -> dict[str, object]:
    """The ``java.opts`` to write with a new container size, when the job names its heap.

    A heap set explicitly (``-Xmx`` in ``mapreduce.{map,reduce}.java.opts`` or
    ``mapred.child.java.opts``) does not follow the container: left alone, a smaller container
    would hold a larger heap, and YARN kills it (MAPREDUCE-5785 derives the heap only when no
    ``-Xmx`` is given). So the ``-Xmx`` is rewritten to ``mapreduce.job.heap.memory-mb.ratio``
    of the container, the share Hadoop 3 itself leaves for the JVM's own overhead.

    A container of ``-1`` (or 0) is Hadoop 3's "derive it from the heap": ``JobConf.
    getMemoryRequired`` then sizes the container as ``ceil(-Xmx / heap.memory-mb.ratio)``
    (MRJobConfUtil), so the heap the job names stays as it is.
    """
    if mb <= 0:
        return {}
    side_opts = base.map_java_opts if knob.role == Role.map_memory else base.reduce_java_opts
    opts = side_opts or base.child_java_opts
    if parse_xmx(opts) is None:
        return {}  # Hadoop derives the heap from the container (ratio): nothing to write
    heap_mb = max(1, math.floor(mb * base.heap_memory_mb_ratio))
    return {HEAP_OPTS[knob.role]: re.sub(r"-Xmx\S+", f"-Xmx{heap_mb}m", opts or "")}


def heap_not_modelled(profile: JobProfile, base: HadoopConfig, k: Knob) -> bool:
    """Whether the job names an ``-Xmx`` for ``k``'s side that its profiled configuration
    dropped as unusable (a heap above its container): the model then runs the default heap,
    while the job would keep its own in any container written, so no container is offered
    for that side (an audit found 512 MB written beside a -Xmx1400m)."""
    props = profile.source_properties
    side = "map" if k.role == Role.map_memory else "reduce"
    named = props.get(f"mapreduce.{side}.java.opts") or props.get("mapred.child.java.opts")
    kept = (base.map_java_opts if side == "map" else base.reduce_java_opts) or base.child_java_opts
    return parse_xmx(named) is not None and parse_xmx(kept) is None


def knob_to_properties(
    knob: Knob, value: float | int | bool | str, base: HadoopConfig, profile: JobProfile
) -> dict[str, object]:
    """The Hadoop properties that realise ``knob = value`` (codecs and splits need two).

    A codec knob writes its on/off switch (``none`` = off) and the codec class; the combiner
    knob the job's combiner class or none; the split knob the effective split size as
    FileInputFormat's ``max(minSize, min(maxSize, blockSize))`` (reference §8.4): a size at or
    above the block through ``minsize``, a smaller one through ``maxsize``.
    """
    if knob.role in CODEC_ROLES:
        assert knob.companion is not None
        if value == "none":
            return {knob.companion: False}
        return {knob.companion: True, knob.name: value}
    if knob.role == Role.combiner:
        return {
            knob.name: (profile.combine_class or base.combine_class or "combiner") if value else ""
        }
    if knob.role == Role.split_size:
        assert knob.companion is not None
        size = int(value)
        if size >= base.dfs_blocksize:
            keep_max = base.split_maxsize >= 2**62
            return {
                knob.companion: size,
                knob.name: base.split_maxsize if keep_max else max(size, base.split_maxsize),
            }
        return {knob.name: size, knob.companion: min(base.split_minsize, size)}
    if knob.role in HEAP_OPTS:
        return {knob.name: value, **_heap_follows(knob, int(value), base)}
    return {knob.name: value}

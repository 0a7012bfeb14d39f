"""Starfish's parameter space: its job optimizer's knobs and ranges, for like-for-like comparisons.

Starfish 0.2.0's optimizers (``RRSJobOptimizer``, ``SmartRRSJobOptimizer``) search the space
that ``edu.duke.starfish.jobopt.space.ParamSpaceUtils.getFullParamSpace`` builds, in Hadoop
0.20 names. Its descriptors, and how each becomes one of mrtune's knobs:

===========================================  ==================================================
Starfish parameter (descriptor, range)       mrtune knob here
===========================================  ==================================================
``io.sort.mb`` (int, 0.25–0.65 of the task   sort buffer, [⌊0.25·heap⌋, ⌊0.65·heap⌋] MB of the
heap, ``MIN/MAX_MEM_RATIO``)                 map heap (``-Xmx`` of ``mapred.child.java.opts``)
``io.sort.spill.percent`` (double 0.2–0.9)   spill percent, 0.2–0.9
``io.sort.record.percent`` (0.01–0.5)        record percent, 0.01–0.5 (Hadoop 1 only)
``min.num.spills.for.combine`` (list 3,      combine.minspills over [3, 9999] (every value in
9999; only with a combiner)                  between acts as 3 or as 9999 for a job with fewer
                                             spills than it: "combine at merge" or "never")
``io.sort.factor`` (int 10–100)              sort factor, 10–100
``mapred.compress.map.output`` (boolean)     map-output codec, ``none`` or the job's codec
                                             (``DefaultCodec`` unless the job names another)
combiner (boolean; only with a combiner)     the combiner switch, written as Starfish's
                                             ``starfish.use.combiner``
``mapred.reduce.tasks`` (int 1–100, then     reducers, Starfish's adjusted range (below)
``adjustParamDescrRedTasks``)
``mapred.inmem.merge.threshold`` (10–1000)   in-memory merge threshold, 10–1000 (Hadoop 1 only)
``mapred.job.shuffle.input.buffer.percent``  shuffle input buffer, 0.2–0.9
(0.2–0.9)
``mapred.job.shuffle.merge.percent``         shuffle merge percent, 0.2–0.9
(0.2–0.9)
``mapred.job.reduce.input.buffer.percent``   reduce input buffer, 0–0.8
(0–0.8)
``mapred.output.compress`` (boolean)         output codec, ``none`` or the job's codec
===========================================  ==================================================

Starfish comments out ``mapred.reduce.slowstart.completed.maps`` ("the current model will always
find 0.05 to be the best"), and searches neither split sizes, container memory, the single-shuffle
limit nor other codecs; neither does this space. A map-only job gets only output compression, as in
``getMapOnlyParamSpace``.

The reducer range follows ``ParamSpaceUtils.adjustParamDescrRedTasks``: from
``⌈S / (2·heap)⌉`` to ``max(⌈4·S / heap⌉, reduce slots)``, with ``S`` the job's uncompressed shuffle
(map output, after the combiner where it runs). Starfish also caps the top at the profile's
reduce groups, which mrtune's profile does not keep, and lowers the tops of ``io.sort.mb`` and
``reduce.input.buffer.percent`` by the memory its profile says the map and reduce functions need
(``WhatIfUtils.get*MemoryRequired``), which mrtune's profile does not measure; those two tops stay
at Starfish's static 0.65 and 0.8.
"""

from __future__ import annotations

import dataclasses
import math

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import MB, HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.properties import STARFISH_USE_COMBINER
from mrtune.search_spaces.constraints import map_output_bytes
from mrtune.search_spaces.knob import CODEC_ROLES, Knob, Role
from mrtune.search_spaces.knobs import find_knob, knob_with_role
from mrtune.search_spaces.space import SearchSpace

#: Starfish's ``ParamSpaceUtils.MIN_MEM_RATIO`` / ``MAX_MEM_RATIO`` of the task heap for io.sort.mb.
SORT_MB_HEAP_SHARE = (0.25, 0.65)

#: Starfish's parameters in ``getFullParamSpace`` order: Hadoop 0.20 name → (low, high), or
#: ``None`` where the range is the job's (sort buffer, reducers) or the knob is not numeric.
STARFISH_PARAMETERS: dict[str, tuple[float, float] | None] = {
    "io.sort.mb": None,
    "io.sort.spill.percent": (0.2, 0.9),
    "io.sort.record.percent": (0.01, 0.5),
    "min.num.spills.for.combine": (3, 9999),
    "mapred.reduce.tasks": None,
    "mapred.inmem.merge.threshold": (10, 1000),
    "mapred.job.shuffle.input.buffer.percent": (0.2, 0.9),
    "mapred.job.shuffle.merge.percent": (0.2, 0.9),
    "mapred.job.reduce.input.buffer.percent": (0.0, 0.8),
    "mapred.output.compress": None,
    "io.sort.factor": (10, 100),
    "mapred.compress.map.output": None,
    STARFISH_USE_COMBINER: None,
}


def starfish_space(
    profile: JobProfile,
    base: HadoopConfig,
    cluster: ClusterSpec | None = None,
    *,
    exclude: tuple[str, ...] | list[str] = (),
    local_mode_honoured: bool = False,
) -> SearchSpace:
    """The job's :class:`SearchSpace` cut to Starfish's parameters and ranges (module doc).

    The knobs that apply follow the usual rules (map-only job, combiner, Hadoop version: in
    Hadoop 2/3 mode ``io.sort.record.percent`` and the in-memory merge threshold drop out, as
    Hadoop 2/3 has no such setting); ``exclude`` plays Starfish's
    ``starfish.job.optimizer.exclude.parameters``.
    """
    names = [find_knob(n).name for n in STARFISH_PARAMETERS]
    space = SearchSpace.for_job(
        profile,
        base,
        cluster,
        only=names,
        exclude=exclude,
        local_mode_honoured=local_mode_honoured,
    )
    out = knob_with_role(Role.output_codec)
    excluded = {find_knob(n).name for n in exclude}
    if (profile.map_only or base.num_reducers == 0) and out and out.name not in excluded:
        # getMapOnlyParamSpace: a map-only job writes its output from the maps, compressed or
        # not (mrtune's own space files the output codec on the reduce side)
        space.knobs = [out]
    ranges = {find_knob(n).name: r for n, r in STARFISH_PARAMETERS.items()}
    space.knobs = [_starfish_knob(k, ranges[k.name], space) for k in space.knobs]
    space.combiner_switch = STARFISH_USE_COMBINER
    return space


def _starfish_knob(k: Knob, rng: tuple[float, float] | None, space: SearchSpace) -> Knob:
    """``k`` with Starfish's range (its grid cut to it, the ends added)."""
    if k.role in CODEC_ROLES:
        # Starfish's switch compresses with the codec the job names (DefaultCodec by default)
        named = (
            space.base.map_output_codec if k.role == Role.map_codec else space.base.output_codec
        )
        return dataclasses.replace(k, choices=("none", named) if named != "none" else ("none",))
    if k.role == Role.combiner:
        return k
    if k.role == Role.sort_buffer:
        heap_mb = space.base.map_heap_bytes / MB
        rng = (max(1, math.floor(SORT_MB_HEAP_SHARE[0] * heap_mb)),
               max(1, math.floor(SORT_MB_HEAP_SHARE[1] * heap_mb)))  # fmt: skip
    elif k.role == Role.reducers:
        rng = starfish_reducer_range(space)
    assert rng is not None, k.name
    low, high = rng
    registry = find_knob(k.name).grid  # not the job-limited grid SearchSpace.for_job cut
    grid = sorted({low, high, *(g for g in registry if low <= g <= high)})
    return dataclasses.replace(k, low=low, high=high, grid=tuple(grid))


def starfish_reducer_range(space: SearchSpace) -> tuple[int, int]:
    """Starfish's ``adjustParamDescrRedTasks``: ``[⌈S/(2·heap)⌉, max(⌈4·S/heap⌉, slots)]``."""
    prof, base = space.profile, space.base
    shuffle = map_output_bytes(prof)
    if prof.has_combiner and base.use_combiner:
        shuffle *= prof.stats.combine_size_sel
    heap = float(base.reduce_heap_bytes)
    low = max(1, math.ceil(shuffle / (2 * heap)))
    slots = int(space._slots(base.reduce_container_mb, base.reduce_vcores, reduce=True))
    high = max(math.ceil(4 * shuffle / heap), slots, low)
    return low, high

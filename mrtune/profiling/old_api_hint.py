"""The ``mapreduce.job.maps`` hint an old-API job's history ran with.

The old mapred API's ``FileInputFormat.getSplits`` cuts by ``goalSize = totalSize /
numSplits`` with ``numSplits`` the driver's ``mapreduce.job.maps`` (mapred-default: 2), so
that hint decides the job's splits whenever ``goalSize`` is below the block. But a history's
configuration does not hold it: ``JobSubmitter.writeSplits`` writes the number of splits it
made into ``mapreduce.job.maps`` before the job runs. Read back as the hint, that count gives
the run's split again, but it pins the split at ``input / maps``: a Hadoop Streaming job's
what-if of a larger block then kept its maps, where Hadoop, cutting by the driver's hint of 2,
would have given fewer.

The driver's hint is inferred from what the run did: mapred-default's 2 when the split it
gives is what the maps read, else the count itself (a hint above the blocks' count makes that
many maps, so a driver that asked for more maps than blocks asked for about as many as it
got). The profile's own layout (its files and map classes) is then cut by the inferred hint's
split, the run's: the recorded count gives ``input / maps``, not the split the maps read (a
6 MB file in 1 MiB blocks: 1,003,412 bytes for 6, where the maps read 1 MiB each).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_groups import SPLIT_SLOP, old_api_split
from mrtune.profiling.input_classes import old_api

if TYPE_CHECKING:
    from mrtune.profiling.dataflow import JobContext

#: ``mapreduce.job.maps`` in mapred-default.xml: what an old-API job's splits follow on a
#: cluster unless the job sets it.
CLUSTER_MAPS_HINT = 2
#: Where the inferred hint is recorded (``JobProfile.cluster_facts``) for the baseline.
HINT_FACT = "old_api_maps_hint"


def old_api_maps_hint(
    props: Mapping[str, str],
    cfg: HadoopConfig,
    stored: float,
    map_bytes: Sequence[float],
    files: int | None = None,
) -> tuple[int, str] | None:
    """``(hint, how)`` for an old-API history (``None`` for a new-API job or one without
    maps), from the bytes its maps read (``map_bytes``) and its input files when known:
    mapred-default's hint when the split it gives explains them (no map beyond
    ``SPLIT_SLOP`` splits, and either one map a file or the largest map a whole split),
    else the run's count, which a driver asking for more maps than blocks makes (its goal
    size is then the split)."""
    if not old_api(props) or not map_bytes or stored <= 0:
        return None
    recorded = int(cfg.num_maps_hint)
    split = float(
        old_api_split(stored, float(CLUSTER_MAPS_HINT), cfg.split_minsize, cfg.dfs_blocksize)
    )
    largest = max(map_bytes)
    # a map reads a little past its split's end (the line it finishes), hence the 1% slack
    whole_files = files is not None and len(map_bytes) <= files
    cut_at_split = largest >= split * 0.99 or (len(map_bytes) == 1 and files is None)
    if largest <= SPLIT_SLOP * split * 1.01 and (whole_files or cut_at_split):
        return CLUSTER_MAPS_HINT, (
            f"inferred: the configuration's mapreduce.job.maps {recorded} is the split count "
            f"JobSubmitter wrote; mapred-default's {CLUSTER_MAPS_HINT} gives a "
            f"{split / 2**20:.3g} MiB split, which the run's maps show (the largest read "
            f"{largest / 2**20:.3g} MiB), so the old API's splits are cut by it"
        )
    return recorded, (
        f"inferred: mapred-default's {CLUSTER_MAPS_HINT} would give {split / 2**20:.3g} MiB "
        f"splits, which the run's maps (the largest {largest / 2**20:.3g} MiB) do not show; "
        f"the driver asked for about the {recorded} maps it got"
    )


def apply_old_api_hint(job: JobContext, stored: float) -> tuple[int, str] | None:
    """:func:`old_api_maps_hint` of a history, set on ``job.cfg`` so that the profile's files
    and classes are cut at the split the run had, not at ``input / the split count`` its
    configuration records."""
    from mrtune.profiling.dataflow import stored_input_bytes

    per_map = [stored_input_bytes(a.counters) for a in job.h.successful("map")]
    try:
        files: int | None = int(job.props["mapreduce.input.fileinputformat.numinputfiles"])
    except (KeyError, ValueError):
        files = None
    hint = old_api_maps_hint(job.props, job.cfg, stored, per_map, files)
    if hint is not None and hint[0] != job.cfg.num_maps_hint:
        job.cfg = job.cfg.model_copy(update={"num_maps_hint": hint[0]})
    return hint


__all__ = ["CLUSTER_MAPS_HINT", "HINT_FACT", "apply_old_api_hint", "old_api_maps_hint"]

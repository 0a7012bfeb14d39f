"""The ``mapreduce.job.maps`` hint an old-API job's history ran with.

The old mapred API's ``FileInputFormat.getSplits`` cuts by ``goalSize = totalSize /
numSplits`` with ``numSplits`` the driver's ``mapreduce.job.maps`` (mapred-default: 2), so
that hint decides the job's splits whenever ``goalSize`` is below the block. But a history's
configuration does not hold it: ``JobSubmitter.writeSplits`` writes the number of splits it
made into ``mapreduce.job.maps`` before the job runs. Read back as the hint, that count gives
the run's split again, but it pins the split at ``input / maps``: a Hadoop Streaming job's
what-if of a larger block then kept its maps, where Hadoop, cutting by the driver's hint of 2,
would have given fewer.

The driver's hint is inferred from what the run did: mapred-default's 2 when it gives the
run's number of maps, else the count itself (a hint above the blocks' count makes that many
maps, so a driver that asked for more maps than blocks asked for about as many as it got).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.map_groups import SPLIT_SLOP, old_api_split
from mrtune.profiling.input_classes import old_api

#: ``mapreduce.job.maps`` in mapred-default.xml: what an old-API job's splits follow on a
#: cluster unless the job sets it.
CLUSTER_MAPS_HINT = 2
#: Where the inferred hint is recorded (``JobProfile.cluster_facts``) for the baseline.
HINT_FACT = "old_api_maps_hint"


def old_api_maps(stored: float, files: int, hint: int, cfg: HadoopConfig) -> int:
    """Maps the old API's ``FileInputFormat`` makes of ``files`` equal files holding
    ``stored`` bytes under the driver's ``hint`` (``goalSize`` over the whole input; each file
    cut while more than ``SPLIT_SLOP`` splits are left)."""
    split = float(old_api_split(stored, float(hint), cfg.split_minsize, cfg.dfs_blocksize))
    size = stored / max(files, 1)
    k = max(math.ceil(size / max(split, 1.0) - SPLIT_SLOP), 0)
    return max(files, 1) * (k + 1)


def old_api_maps_hint(
    props: Mapping[str, str], cfg: HadoopConfig, stored: float, files: int, n_maps: int
) -> tuple[int, str] | None:
    """``(hint, how)`` for an old-API history (``None`` for a new-API job or one without
    maps): mapred-default's hint when it gives the run's ``n_maps`` over its ``files``,
    else the run's count."""
    if not old_api(props) or n_maps < 1 or stored <= 0:
        return None
    recorded = int(cfg.num_maps_hint)
    if old_api_maps(stored, files, CLUSTER_MAPS_HINT, cfg) == n_maps:
        return CLUSTER_MAPS_HINT, (
            f"inferred: the configuration's mapreduce.job.maps {recorded} is the split count "
            f"JobSubmitter wrote; mapred-default's {CLUSTER_MAPS_HINT} gives the run's "
            f"{n_maps} maps, so the old API's splits are cut by it"
        )
    return n_maps, (
        f"inferred: mapred-default's {CLUSTER_MAPS_HINT} would not give the run's {n_maps} "
        f"maps over {files} file(s); the driver asked for about as many maps as it got"
    )


__all__ = ["CLUSTER_MAPS_HINT", "HINT_FACT", "old_api_maps", "old_api_maps_hint"]

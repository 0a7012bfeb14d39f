"""What a history shows of its job's configuration where no configuration file says it."""

from __future__ import annotations

from collections.abc import Mapping

from mrtune.profiling.input_classes import SPLIT_KEYS, SPLIT_SLOP

#: The container request of each side: Hadoop 2/3 and Hadoop 1 names.
_CONTAINER_KEYS = {
    "map": (
        "mapreduce.map.memory.mb",
        "mapred.job.map.memory.mb",
        "MB_MILLIS_MAPS",
        "MILLIS_MAPS",
    ),
    "reduce": (
        "mapreduce.reduce.memory.mb",
        "mapred.job.reduce.memory.mb",
        "MB_MILLIS_REDUCES",
        "MILLIS_REDUCES",
    ),
}


def observed_containers(props: dict[str, str], J: Mapping[str, float], warnings: list) -> None:
    """The containers the history shows (``MB_MILLIS_* / MILLIS_*``: what YARN allocated, its
    request rounded up to the minimum allocation) where no configuration names them.

    Without ``--conf`` the job was modelled in Hadoop's default 1,024 MB containers, although
    the history had just said 256 MB: a what-if's GB·s came out 4× too large, and ``optimize
    --allow-memory`` wrote 512 MB as a saving for maps that ran in 256 MB."""
    found = []
    for side, (key, old_key, mb_key, ms_key) in _CONTAINER_KEYS.items():
        mb, millis = J.get(mb_key), J.get(ms_key)
        if key in props or old_key in props or not (mb and millis and millis > 0):
            continue
        props[key] = str(int(round(mb / millis)))
        found.append(f"{side} {props[key]} MB")
    if found:
        warnings.append(
            f"containers from the history ({', '.join(found)}: MB_MILLIS_* / MILLIS_*), as no "
            "configuration names them"
        )


#: Maps whose input is within this share of the largest map's read one full split.
SAME_SPLIT = 1e-3
MIB = 1 << 20


def observed_block(
    props: dict[str, str], per_map: list[float], default_block: int, hadoop_version: int
) -> str | None:
    """The block the maps show where no configuration names the split: the warning line, with
    the block set in ``props`` (``dfs.block.size``, ``dfs.blocksize``), or ``None``.

    A 2009 Rumen trace names no configuration, so the model cut its input at Hadoop 1's
    64 MiB default: 60 maps where the job ran 30, each of which read one 128 MiB block
    (134,218,752 bytes: the block and the line its reader finished past it). Split-size
    changes were then priced from the 60 maps that never ran, and a ``min.split.size`` that
    ``computeSplitSize`` keeps below the block was sold as ×1.55. When two or more maps read
    the same amount (within :data:`SAME_SPLIT`), that amount is their split; above
    :data:`SPLIT_SLOP` default blocks no default explains it, and the block is taken as it,
    in whole MiB (a record reader reads on to the end of its last line). One large map alone
    could be one unsplittable file, and equal maps below the default equal small files: those
    are left to the default."""
    if any(k in props for k in SPLIT_KEYS) or len(per_map) < 2 or default_block <= 0:
        return None
    top = max(per_map)
    full = [b for b in per_map if b >= top * (1.0 - SAME_SPLIT)]
    if len(full) < 2 or top <= SPLIT_SLOP * default_block:
        return None
    block = int(min(full) // MIB) * MIB
    if block <= default_block:
        return None
    props["dfs.block.size" if hadoop_version == 1 else "dfs.blocksize"] = str(block)
    return (
        f"block size {block // MIB} MiB from the history: {len(full)} of {len(per_map)} maps "
        f"read {top:,.0f} B each, more than {SPLIT_SLOP} of the {default_block // MIB} MiB "
        "default, and no configuration names the block or split size"
    )

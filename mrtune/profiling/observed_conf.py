"""What a history shows of its job's configuration where no configuration file says it."""

from __future__ import annotations

from collections.abc import Mapping

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

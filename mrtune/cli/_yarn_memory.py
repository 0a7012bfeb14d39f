"""Containers the mini-cluster's YARN can grant, checked before it starts (``hadoop-run
--mode yarn``): the cluster's own sizes (``--container-mb``, ``--nm-memory-mb``) and those a
user job's ``-D`` ARGS ask for."""

from __future__ import annotations

import dataclasses

from mrtune.errors import InputError

#: The job's own ``-D`` settings that size its containers, by the MiniCluster field they set.
JOB_MEMORY_KEYS = {
    "mapreduce.map.memory.mb": "map_memory_mb",
    "mapreduce.reduce.memory.mb": "reduce_memory_mb",
    "yarn.app.mapreduce.am.resource.mb": "am_memory_mb",
}


def check_memory(
    cluster,  # noqa: ANN001 - a MiniCluster
    task_field: str = "--container-mb",
    am_field: str | None = None,
) -> None:
    """Refuse, before the mini-cluster starts (~40 CPU-s), containers YARN cannot grant: its
    largest allocation is a NodeManager's memory (``yarn.scheduler.maximum-allocation-mb``), so
    a larger task container failed the job only after the start ("The required MAP capability
    is more than the supported max container capability", in client.log alone); the AM's own
    container must fit too; and with one NodeManager a task container must fit beside the AM,
    or no task is ever scheduled. The task heap is 70% of the container, so it always fits.
    ``task_field``/``am_field``: where the sizes came from (the job's own ``-D``)."""
    nm, am = cluster.nm_memory_mb, cluster.am_memory_mb
    cmb = max(cluster.map_memory_mb, cluster.reduce_memory_mb)
    if am > nm:
        raise InputError(
            f"the MapReduce AM's {am} MiB container does not fit in a NodeManager",
            field=am_field or "--nm-memory-mb",
            value=am if am_field else nm,
            allowed=f"at most {nm} (--nm-memory-mb)" if am_field else f"at least {am} (MiB)",
        )
    if cmb > nm:
        raise InputError(
            "a task container larger than a NodeManager's memory (YARN's maximum allocation)",
            field=task_field,
            value=cmb,
            allowed=f"at most {nm} (--nm-memory-mb)",
        )
    step = cluster.min_allocation_mb  # YARN rounds a request up to a multiple of it
    if cluster.nodemanagers == 1 and -(-cmb // step) * step + am > nm:
        raise InputError(
            f"with one NodeManager a task container must fit beside the AM's {am} MiB",
            field=task_field,
            value=cmb,
            allowed=f"at most {(nm - am) // step * step} (--nm-memory-mb {nm} − {am}), or "
            "--nodemanagers 2",
        )


def job_memory(args: list[str]) -> dict[str, tuple[int, str]]:
    """The container sizes a job's ARGS set with ``-D k=v`` or ``-Dk=v`` (as
    ``GenericOptionsParser`` reads them), by MiniCluster field: ``(MiB, "-D key")``."""
    sizes: dict[str, tuple[int, str]] = {}
    for i, arg in enumerate(args):
        if arg == "-D" and i + 1 < len(args):
            kv = args[i + 1]
        elif arg.startswith("-D") and len(arg) > 2:
            kv = arg[2:]
        else:
            continue
        key, _, value = kv.partition("=")
        key = key.strip()
        if key not in JOB_MEMORY_KEYS:
            continue
        try:
            mb = int(value.strip())
        except ValueError:
            raise InputError(
                "not a whole number of MiB", field=f"-D {key}", value=value, allowed="MiB > 0"
            ) from None
        if mb <= 0:
            raise InputError("not a container size", field=f"-D {key}", value=mb, allowed="> 0")
        sizes[JOB_MEMORY_KEYS[key]] = (mb, f"-D {key}")
    return sizes


def check_job_memory(cluster, args: list[str]) -> None:  # noqa: ANN001 - a MiniCluster
    """:func:`check_memory` with the containers a user job's ``-D`` ARGS ask for: they
    override the mini-cluster's own sizes, and YARN had refused a larger one only after the
    cluster started."""
    sizes = job_memory(args)
    if not sizes:
        return
    shaped = dataclasses.replace(cluster, **{f: mb for f, (mb, _) in sizes.items()})
    largest = max(shaped.map_memory_mb, shaped.reduce_memory_mb)
    # the larger task container is what is checked: named by the -D that set it, if one did
    task = [w for f, (mb, w) in sizes.items() if f != "am_memory_mb" and mb == largest]
    am = sizes.get("am_memory_mb")
    check_memory(shaped, task[0] if task else "--container-mb", am[1] if am else None)


__all__ = ["JOB_MEMORY_KEYS", "check_job_memory", "check_memory", "job_memory"]

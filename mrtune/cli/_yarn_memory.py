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
    task = -(-cmb // step) * step
    if cluster.nodemanagers == 1 and task + am > nm and am_field and task_field == am_field:
        raise InputError(
            f"with one NodeManager the AM's container must leave room for a {task} MiB task "
            "container",
            field=am_field,
            value=am,
            allowed=f"at most {nm - task} (--nm-memory-mb {nm} − {task}), or --nodemanagers 2",
        )
    if cluster.nodemanagers == 1 and task + am > nm:
        raise InputError(
            f"with one NodeManager a task container must fit beside the AM's {am} MiB",
            field=task_field,
            value=cmb,
            allowed=f"at most {(nm - am) // step * step} (--nm-memory-mb {nm} − {am}), or "
            "--nodemanagers 2",
        )


#: GenericOptionsParser's options that take a value (it stops at the first other argument).
_GENERIC_WITH_VALUE = frozenset(
    {"-D", "-conf", "-fs", "-jt", "-files", "-libjars", "-archives", "-tokenCacheFile"}
)


def _generic_d_options(args: list[str]) -> list[str]:
    """The ``-D`` values Hadoop applies: ``GenericOptionsParser`` stops at the first argument
    that is not one of its options, so a ``-D`` after the job's own arguments is not read.
    Hadoop Streaming's ``-jobconf k=v`` (StreamJob's own option) sets the same keys."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _GENERIC_WITH_VALUE and i + 1 < len(args):
            if arg == "-D":
                out.append(args[i + 1])
            i += 2
        elif arg.startswith("-D") and len(arg) > 2:
            out.append(arg[2:])
            i += 1
        else:
            break
    out += [args[j + 1] for j in range(i, len(args) - 1) if args[j] == "-jobconf"]
    return out


def job_memory(args: list[str]) -> dict[str, tuple[int, str]]:
    """The container sizes a job's ARGS set (:func:`_generic_d_options`; Hadoop 1 names as
    their Hadoop 2 ones), by MiniCluster field: ``(MiB, "-D key")``. A size of 0 or less is
    Hadoop 3's "from the heap" (``mapreduce.job.heap.memory-mb.ratio``), not checked, and a
    job with no reduces requests no reduce container."""
    from mrtune.costmodel.properties import DEPRECATED_NAMES

    sizes: dict[str, tuple[int, str]] = {}
    reduces = None
    for kv in _generic_d_options(args):
        key, _, value = kv.partition("=")
        name = DEPRECATED_NAMES.get(key.strip(), key.strip())
        if name == "mapreduce.job.reduces":
            reduces = value.strip()
        if name not in JOB_MEMORY_KEYS:
            continue
        try:
            mb = int(value.strip())
        except ValueError:
            raise InputError(
                "not a whole number of MiB", field=f"-D {key}", value=value, allowed="MiB"
            ) from None
        if mb > 0:
            sizes[JOB_MEMORY_KEYS[name]] = (mb, f"-D {key.strip()}")
    if reduces == "0":
        sizes.pop("reduce_memory_mb", None)
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
    # the larger task container is what is checked: named by the -D that set it, if one did;
    # with only the AM's size set, the AM's -D is what a one-NodeManager refusal names
    task = [w for f, (mb, w) in sizes.items() if f != "am_memory_mb" and mb == largest]
    am = sizes.get("am_memory_mb")
    task_field = task[0] if task else (am[1] if am else "--container-mb")
    check_memory(shaped, task_field, am[1] if am else None)


__all__ = ["JOB_MEMORY_KEYS", "check_job_memory", "check_memory", "job_memory"]

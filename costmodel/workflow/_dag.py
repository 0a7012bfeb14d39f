"""Partition a workflow DAG into stages the way Pig's ``JobControlCompiler`` submits them.

Pig compiles a script into a DAG of MapReduce jobs and hands ``JobControl`` every job whose
predecessors have all completed; jobs that become ready together run concurrently and form a
*stage* (seed §3.3: "The Pig engine partitions the DAG into multiple stages, each stage contains
one or more independent MapReduce jobs which can be executed concurrently"). The next stage
starts once the previous one has finished, which is what eq. 3.18 (T_W = Σ T_Si) assumes.

The layering is exactly what :class:`graphlib.TopologicalSorter` yields when every batch of
``get_ready()`` is marked done at once, so the standard library does the graph work (including
cycle detection).
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping, Sequence


def pig_stages(dependencies: Mapping[str, Sequence[str]]) -> list[tuple[str, ...]]:
    """Stages of a job DAG: stage ``s`` holds the jobs whose predecessors are all in stages < s.

    Parameters
    ----------
    dependencies
        ``{job: [jobs it depends on]}``. Every job must be a key, in the order the user listed
        them; that order is kept inside a stage (it is the "given" submission order).

    Returns
    -------
    list of tuple of str
        The stages, first to last; each stage lists its jobs in the input order.

    Raises
    ------
    ValueError
        A dependency names an unknown job, a job depends on itself, or the graph has a cycle.
    """
    position = {name: i for i, name in enumerate(dependencies)}
    for job, preds in dependencies.items():
        for pred in preds:
            if pred not in position:
                raise ValueError(f"job {job!r} depends on unknown job {pred!r}")
            if pred == job:
                raise ValueError(f"job {job!r} depends on itself")
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for job, preds in dependencies.items():
        sorter.add(job, *preds)
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        cycle = " -> ".join(exc.args[1])
        raise ValueError(f"the job dependencies form a cycle: {cycle}") from None
    stages: list[tuple[str, ...]] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=position.__getitem__)
        stages.append(tuple(ready))
        sorter.done(*ready)
    return stages

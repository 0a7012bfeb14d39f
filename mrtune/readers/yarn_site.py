"""Node capacity and scheduler allocations from a ``yarn-site.xml`` (or a job configuration).

A NodeManager offers ``yarn.nodemanager.resource.memory-mb`` and ``…cpu-vcores`` to the
ResourceManager (``NodeManager``'s ``NodeStatusUpdaterImpl`` reports them at registration); the
scheduler rounds every request up to a multiple of ``yarn.scheduler.minimum-allocation-mb`` and
refuses one above ``yarn.scheduler.maximum-allocation-mb`` (``SchedulerUtils.normalizeRequest``,
``InvalidResourceRequestException``). Hadoop 1 has fixed slots instead
(``mapred.tasktracker.{map,reduce}.tasks.maximum``). A job's ``*_conf.xml`` carries the
client's copy of these properties, so the same reader serves both; the cluster inference
(:mod:`mrtune.profiling.cluster_facts`) checks the client's values against what the hosts ran.

``-1`` for the NodeManager's memory or vcores means "detect from the hardware"
(``yarn.nodemanager.resource.detect-hardware-capabilities``, Hadoop 3): the value is then not
stated by the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mrtune.errors import InputError
from mrtune.readers.conf import ConfFile, load_conf

#: ``YarnSite`` attribute → the properties that state it, preferred first (Hadoop 2/3, then 1).
PROPERTIES: dict[str, tuple[str, ...]] = {
    "node_memory_mb": ("yarn.nodemanager.resource.memory-mb",),
    "node_vcores": ("yarn.nodemanager.resource.cpu-vcores",),
    "min_allocation_mb": ("yarn.scheduler.minimum-allocation-mb",),
    "max_allocation_mb": ("yarn.scheduler.maximum-allocation-mb",),
    "min_allocation_vcores": ("yarn.scheduler.minimum-allocation-vcores",),
    "max_allocation_vcores": ("yarn.scheduler.maximum-allocation-vcores",),
    "am_memory_mb": ("yarn.app.mapreduce.am.resource.mb",),
    "map_slots_per_node": (
        "mapreduce.tasktracker.map.tasks.maximum",
        "mapred.tasktracker.map.tasks.maximum",
    ),
    "reduce_slots_per_node": (
        "mapreduce.tasktracker.reduce.tasks.maximum",
        "mapred.tasktracker.reduce.tasks.maximum",
    ),
}
#: Attributes whose value may be 0 (an AM of 0 MB is the model's "no AM", never a real value).
_AUTO_DETECT = {"node_memory_mb", "node_vcores"}


@dataclass
class YarnSite:
    """What a configuration file says about the cluster's nodes and scheduler.

    ``values`` maps a :data:`PROPERTIES` attribute to its integer value, ``keys`` to the
    property that gave it; an attribute the file does not state is absent from both.
    """

    path: str
    values: dict[str, int] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> int | None:
        return self.values.get(name)

    def how(self, name: str) -> str:
        """``property = value in file`` for a provenance note."""
        return f"{self.keys[name]} = {self.values[name]} in {Path(self.path).name}"

    def __bool__(self) -> bool:
        return bool(self.values)


def yarn_site_from_properties(props: Mapping[str, str], path: str) -> YarnSite:
    """The cluster properties of a parsed configuration; a value that is not a positive
    integer is left out and recorded in :attr:`YarnSite.problems` (file, property, value)."""
    site = YarnSite(path=path)
    for name, keys in PROPERTIES.items():
        for key in keys:
            raw = props.get(key)
            if raw is None or not str(raw).strip():
                continue
            text = str(raw).strip()
            try:
                value = int(text)
            except ValueError:
                site.problems.append(
                    f"{path}: {key} = {text!r} is not an integer (a whole number of "
                    f"{'MB' if 'mb' in key else 'units'} ≥ 1 is allowed)"
                )
                break
            if value == -1 and name in _AUTO_DETECT:
                break  # detect-hardware-capabilities: not stated by the file
            if value < 1:
                site.problems.append(f"{path}: {key} = {value} is not allowed (must be ≥ 1)")
                break
            site.values[name] = value
            site.keys[name] = key
            break
    lo, hi = site.get("min_allocation_mb"), site.get("max_allocation_mb")
    if lo is not None and hi is not None and lo > hi:
        site.problems.append(
            f"{path}: yarn.scheduler.minimum-allocation-mb = {lo} exceeds "
            f"yarn.scheduler.maximum-allocation-mb = {hi} (the ResourceManager refuses to start)"
        )
        del site.values["max_allocation_mb"], site.keys["max_allocation_mb"]
    return site


def load_yarn_site(path: str | Path | ConfFile) -> YarnSite:
    """Read a ``yarn-site.xml`` (or any Hadoop configuration file) for the cluster's capacity.

    A bad value, or a file that states no cluster property at all, is one
    :class:`~mrtune.errors.InputError` naming the file (and the property).
    """
    conf = path if isinstance(path, ConfFile) else load_conf(path)
    site = yarn_site_from_properties(conf.properties, conf.path)
    if site.problems:
        first = site.problems[0].removeprefix(f"{conf.path}: ")
        raise InputError(first, path=conf.path)
    if not site:
        allowed = ", ".join(k for keys in PROPERTIES.values() for k in keys[:1])
        raise InputError(
            "the file states no node capacity or scheduler allocation",
            path=conf.path,
            allowed=allowed,
        )
    return site

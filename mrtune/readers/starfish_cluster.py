"""Read a Starfish cluster specification in every form Starfish writes or reads.

Starfish's ``XMLClusterParser`` (``edu.duke.starfish.profile.profileinfo.utils``) exports and
imports the racks of a ``ClusterConfiguration``::

    <cluster name="…">
      <rack name="master-rack">
        <master_host name="…" ip="…"><job_tracker name="…" port="50002"/></master_host>
      </rack>
      <rack name="default-rack">
        <slave_host name="…" ip="…">
          <task_tracker name="…" port="51887" map_slots="2" reduce_slots="2"
                        max_slot_memory="200"/>
        </slave_host>
        …
      </rack>
    </cluster>

and also reads a compact form that ``ClusterConfiguration.createClusterConfiguration`` expands
into ``num_racks × hosts_per_rack`` identical slave hosts (``num_racks`` is optional, 1)::

    <cluster name="…">
      <specs num_racks="2" hosts_per_rack="3" map_slots_per_host="3"
             reduce_slots_per_host="1" max_slot_memory="200"/>
    </cluster>

When ``<specs>`` is present Starfish ignores any racks; so does this reader (with a warning).
``max_slot_memory`` is in MB in both Starfish forms (the parser shifts it by 20 bits); ``ip`` and
``port`` are optional. Each slave host has one TaskTracker (Starfish keeps one per host).

mrtune's own earlier form, ``<rack>`` → ``<host name ip>`` → one or more ``<task_tracker
map_slots reduce_slots [max_slot_memory] [max_task_memory]/>`` with memory in bytes, is still
read, so profiles written by earlier versions keep loading.

Every standard attribute above is read without a warning; anything else is reported in
:attr:`ClusterFile.warnings` and ignored. The result feeds mrtune's uniform-node
:class:`~mrtune.costmodel.cluster.ClusterSpec` (:func:`_cluster_spec`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import Element

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.errors import InputError
from mrtune.readers._starfish_xml import _number, _parse, _unknown_attributes

MB = 2**20
#: Starfish's ``BasicFIFOScheduler`` (its default ``starfish.whatif.task.scheduler=advanced``)
#: starts every task half a heartbeat (1.5 s) after its slot frees and adds another 1.5 s to its
#: duration (reference §6.2). A cluster read from a Starfish file uses both, so job times are
#: comparable with Starfish's; see docs/starfish-differences.md.
STARFISH_HEARTBEAT_MS = 1500.0
STARFISH_TASK_DELAY_MS = 1500.0

_SPECS_ATTRS = (
    "num_racks",
    "hosts_per_rack",
    "map_slots_per_host",
    "reduce_slots_per_host",
    "max_slot_memory",
)
_TRACKER_ATTRS = ("name", "port", "map_slots", "reduce_slots", "max_slot_memory")
_LEGACY_TRACKER_ATTRS = ("name", "map_slots", "reduce_slots", "max_slot_memory", "max_task_memory")


@dataclass
class ClusterFile:
    """A parsed cluster specification: slave hosts with their TaskTrackers' slots.

    ``form`` says which layout the file used: ``racks`` (Starfish's ``master_host`` /
    ``slave_host``), ``specs`` (the compact form) or ``hosts`` (mrtune's older ``<host>``).
    """

    path: Path
    name: str
    racks: int
    host_slots: dict[str, tuple[int, int]]
    trackers: int
    form: str = "racks"
    facts: dict[str, float | str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Hosts:
    """What the racks hold, accumulated while reading them."""

    slots: dict[str, tuple[int, int]] = field(default_factory=dict)
    trackers: int = 0
    memory: list[float] = field(default_factory=list)
    masters: list[str] = field(default_factory=list)
    forms: set[str] = field(default_factory=set)

    def add(self, name: str, maps: int, reds: int, path: Path, where: str) -> None:
        if name in self.slots:
            raise InputError(f"host {name!r} appears twice", path=str(path), field=where)
        self.slots[name] = (maps, reds)


def _int_attr(el: Element, attr: str, path: Path, where: str) -> int:
    return int(_number(el.get(attr), path, f"{where}/@{attr}", integer=True))


def _task_tracker(
    tt: Element, path: Path, where: str, hosts: _Hosts, warnings: list[str], *, legacy: bool
) -> tuple[int, int]:
    """Slots of one ``<task_tracker>``; its memory (bytes) is collected in ``hosts.memory``."""
    _unknown_attributes(
        tt, _LEGACY_TRACKER_ATTRS if legacy else _TRACKER_ATTRS, path, where, warnings
    )
    if not legacy and (tt.get("port") or "").strip():
        _int_attr(tt, "port", path, where)
    maps = _int_attr(tt, "map_slots", path, where)
    reds = _int_attr(tt, "reduce_slots", path, where)
    attrs = ("max_slot_memory", "max_task_memory") if legacy else ("max_slot_memory",)
    for attr in attrs:
        if (tt.get(attr) or "").strip():
            value = _number(tt.get(attr), path, f"{where}/@{attr}")
            hosts.memory.append(value if legacy else value * MB)
    hosts.trackers += 1
    return maps, reds


def _slave_host(
    host: Element, path: Path, where: str, hosts: _Hosts, warnings: list[str], *, legacy: bool
) -> None:
    _unknown_attributes(host, ("name", "ip"), path, where, warnings)
    tts = host.findall("task_tracker")
    if not tts:
        raise InputError("missing <task_tracker>", path=str(path), field=where)
    if len(tts) > 1 and not legacy:
        raise InputError(
            f"{len(tts)} <task_tracker> elements (Starfish keeps one TaskTracker per slave host)",
            path=str(path),
            field=where,
        )
    for child in host:
        if child.tag != "task_tracker":
            warnings.append(f"{path}: {where}: unknown element <{child.tag}> ignored")
    maps = reds = 0
    for t, tt in enumerate(tts):
        m, r = _task_tracker(
            tt, path, f"{where}/task_tracker[{t}]", hosts, warnings, legacy=legacy
        )
        maps, reds = maps + m, reds + r
    hosts.add(host.get("name") or where, maps, reds, path, where)


def _master_host(
    host: Element, path: Path, where: str, hosts: _Hosts, warnings: list[str]
) -> None:
    """The JobTracker's host: it runs no tasks, so it adds no slots."""
    _unknown_attributes(host, ("name", "ip"), path, where, warnings)
    for j, child in enumerate(host):
        jwhere = f"{where}/{child.tag}[{j}]"
        if child.tag != "job_tracker":
            warnings.append(f"{path}: {where}: unknown element <{child.tag}> ignored")
            continue
        _unknown_attributes(child, ("name", "port"), path, jwhere, warnings)
        if (child.get("port") or "").strip():
            _int_attr(child, "port", path, jwhere)
    hosts.masters.append(host.get("name") or where)


def _read_racks(root: Element, path: Path, warnings: list[str]) -> tuple[int, _Hosts]:
    racks = root.findall("rack")
    if not racks:
        raise InputError(
            "missing <rack> or <specs> (cluster → rack → master_host | slave_host → "
            "task_tracker, or <specs num_racks hosts_per_rack map_slots_per_host "
            "reduce_slots_per_host max_slot_memory/>)",
            path=str(path),
            field="cluster",
        )
    hosts = _Hosts()
    counters = {"slave_host": 0, "master_host": 0, "host": 0}
    for r, rack in enumerate(racks):
        rwhere = f"cluster/rack[{r}]"
        _unknown_attributes(rack, ("name",), path, rwhere, warnings)
        counters = dict.fromkeys(counters, 0)
        for child in rack:
            if child.tag not in counters:
                warnings.append(f"{path}: {rwhere}: unknown element <{child.tag}> ignored")
                continue
            where = f"{rwhere}/{child.tag}[{counters[child.tag]}]"
            counters[child.tag] += 1
            hosts.forms.add("hosts" if child.tag == "host" else "racks")
            if child.tag == "master_host":
                _master_host(child, path, where, hosts, warnings)
            else:
                _slave_host(child, path, where, hosts, warnings, legacy=child.tag == "host")
        if not any(counters.values()):
            raise InputError(
                "missing <slave_host> (or <master_host>) in the rack", path=str(path), field=rwhere
            )
    if not hosts.slots:
        raise InputError(
            "no <slave_host> with a <task_tracker>: the cluster has no slots",
            path=str(path),
            field="cluster",
        )
    return len(racks), hosts


def _read_specs(specs: Element, path: Path, warnings: list[str]) -> tuple[int, _Hosts]:
    """``createClusterConfiguration``: racks × hosts identical slave hosts (memory in MB)."""
    where = "cluster/specs"
    _unknown_attributes(specs, _SPECS_ATTRS, path, where, warnings)
    num_racks = 1  # optional in Starfish
    if (specs.get("num_racks") or "").strip():
        num_racks = _int_attr(specs, "num_racks", path, where)
    per_rack = _int_attr(specs, "hosts_per_rack", path, where)
    maps = _int_attr(specs, "map_slots_per_host", path, where)
    reds = _int_attr(specs, "reduce_slots_per_host", path, where)
    if num_racks < 1 or per_rack < 1:
        raise InputError(
            "the cluster has no hosts",
            path=str(path),
            field=where,
            value=f"num_racks={num_racks}, hosts_per_rack={per_rack}",
            allowed="num_racks >= 1 and hosts_per_rack >= 1",
        )
    hosts = _Hosts(forms={"specs"}, masters=["master_host"])
    if (specs.get("max_slot_memory") or "").strip():
        hosts.memory.append(
            _number(specs.get("max_slot_memory"), path, where + "/@max_slot_memory") * MB
        )
    for r in range(1, num_racks + 1):
        for h in range(1, per_rack + 1):
            hosts.add(f"rack_{r:03d}/host_{h:03d}", maps, reds, path, where)
    hosts.trackers = num_racks * per_rack
    return num_racks, hosts


def read_cluster_spec(path: str | Path) -> ClusterFile:
    """Parse a Starfish cluster specification (any of the forms in the module docstring)."""
    path = Path(path)
    root = _parse(path, "cluster")
    warnings: list[str] = []
    _unknown_attributes(root, ("name",), path, "cluster", warnings)
    specs = root.findall("specs")
    if len(specs) > 1:
        raise InputError("more than one <specs>", path=str(path), field="cluster")
    if specs:
        racks, hosts = _read_specs(specs[0], path, warnings)
        if root.findall("rack"):
            warnings.append(
                f"{path}: cluster: <specs> and <rack> elements both given; like Starfish, the "
                "reader builds the cluster from <specs> and ignores the racks"
            )
    else:
        racks, hosts = _read_racks(root, path, warnings)
    for child in root:
        if child.tag not in {"rack", "specs"}:
            warnings.append(f"{path}: cluster: unknown element <{child.tag}> ignored")
    form = "specs" if specs else ("racks" if "racks" in hosts.forms else "hosts")
    facts: dict[str, float | str] = {
        "cluster_name": root.get("name") or path.stem,
        "cluster_form": form,
        "racks": float(racks),
        "hosts": float(len(hosts.slots)),
        "task_trackers": float(hosts.trackers),
        "map_slots": float(sum(m for m, _ in hosts.slots.values())),
        "reduce_slots": float(sum(r for _, r in hosts.slots.values())),
    }
    if hosts.masters:
        facts["master_host"] = ",".join(hosts.masters)
    if hosts.memory:
        facts["max_slot_memory"] = min(hosts.memory)  # bytes
    return ClusterFile(
        path=path,
        name=str(facts["cluster_name"]),
        racks=racks,
        host_slots=hosts.slots,
        trackers=hosts.trackers,
        form=form,
        facts=facts,
        warnings=warnings,
    )


def _cluster_spec(cluster: ClusterFile) -> ClusterSpec:
    """Slots per node for mrtune's uniform-node cluster model (totals are preserved or warned)."""
    nodes = len(cluster.host_slots)
    maps = [m for m, _ in cluster.host_slots.values()]
    reds = [r for _, r in cluster.host_slots.values()]
    total_m, total_r = sum(maps), sum(reds)
    if total_m < 1:
        raise InputError("the cluster has no map slots", path=str(cluster.path), field="cluster")
    per_m = max(1, round(total_m / nodes))
    per_r = max(1, round(total_r / nodes)) if total_r > 0 else 1
    if len(set(maps)) > 1 or len(set(reds)) > 1:
        cluster.warnings.append(
            f"{cluster.path}: hosts have different slot counts (map {sorted(set(maps))}, reduce "
            f"{sorted(set(reds))}); mrtune models identical nodes with {per_m} map and {per_r} "
            f"reduce slots each ({nodes * per_m} and {nodes * per_r} in total, file: "
            f"{total_m} and {total_r})"
        )
    return ClusterSpec(
        num_nodes=nodes,
        map_slots_per_node=per_m,
        reduce_slots_per_node=per_r,
        heartbeat_ms=STARFISH_HEARTBEAT_MS,
        task_startup_ms=STARFISH_TASK_DELAY_MS,
    )


__all__ = [
    "STARFISH_HEARTBEAT_MS",
    "STARFISH_TASK_DELAY_MS",
    "ClusterFile",
    "read_cluster_spec",
]

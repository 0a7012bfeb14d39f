"""The cluster a job ran on, from its history: hosts, racks, containers, peaks, node capacity.

A history records where each attempt ran (``.jhist`` ``hostname``/``rackname`` of
``TaskAttemptFinishedEvent``, REST ``nodeHttpAddress``/``rack``, Rumen ``hostName`` =
``/rack/host`` and ``location.layers``) and when; the job's configuration gives the container
it asked for (``mapreduce.{map,reduce}.memory.mb`` / ``.cpu.vcores``; the counters
``MB_MILLIS_MAPS / MILLIS_MAPS`` give the same request as YARN charged it,
``TaskAttemptImpl.updateMillisCounters``). From these:

* **node count**: at least the distinct hosts that ran attempts, and at least what the peak of
  concurrent attempts needs at the inferred node capacity;
* **node capacity**: ``yarn.nodemanager.resource.*`` when the configuration states it (a job's
  conf carries the *client's* yarn-site, so it is checked against what one host ran at once),
  else at least what the busiest host ran at once (containers rounded up to
  ``yarn.scheduler.minimum-allocation-mb``, ``SchedulerUtils.normalizeRequest``), else YARN's
  default; Hadoop 1 slots (``mapred.tasktracker.*.tasks.maximum``) the same way.

Peaks are swept over successful attempts only (failed and killed ones are not in the
history's attempt list); an attempt that finishes at the instant another starts frees its
container for it. When tasks waited for containers (fewer maps, or reduces, ran at once than
the job had), the peak is the job's share of the cluster and the node count is what holds that
peak: over its life the job touches every host where a container happened to free up, which
overstates its share (a 20-map job on a shared Hadoop 1 cluster ran at most 8 maps at once on
19 hosts). When the job never waited (every map, and every reduce, ran at once) the cluster may
be larger than what the job touched: ``lower_bound`` says so.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig, parse_xmx
from mrtune.costmodel.profile import ClusterFact, InferredCluster
from mrtune.readers.history import AttemptRecord, JobHistory
from mrtune.readers.yarn_site import YarnSite, yarn_site_from_properties

_SPEC = ClusterSpec()
#: ``yarn.scheduler.maximum-allocation-mb`` in yarn-default.xml.
DEFAULT_MAX_ALLOCATION_MB = 8192
#: Hosts named in ``host_sample``.
SAMPLE_HOSTS = 5


def _obs(value: float, how: str) -> ClusterFact:
    return ClusterFact(value=float(value), provenance="observed", how=how)


def _inf(value: float, how: str) -> ClusterFact:
    return ClusterFact(value=float(value), provenance="inferred", how=how)


def _dflt(value: float, how: str) -> ClusterFact:
    return ClusterFact(value=float(value), provenance="defaulted", how=how)


def host_and_rack(a: AttemptRecord) -> tuple[str | None, str | None]:
    """``(host, rack)`` of an attempt: ports, URL schemes and Rumen's ``/rack/host`` form and
    ``\\.`` escapes (its anonymiser's) removed."""
    rack = a.rack.replace("\\", "") if a.rack else None
    if not a.host:
        return None, rack
    h = a.host.strip().replace("\\", "").removeprefix("http://").removeprefix("https://")
    if h.startswith("/"):
        parts = [p for p in h.split("/") if p]
        if len(parts) >= 2:
            rack = rack or "/" + "/".join(parts[:-1])
        h = parts[-1] if parts else ""
    name, _, port = h.rpartition(":")
    if name and port.isdigit():
        h = name
    return (h or None), rack


def peak_concurrency(
    spans: Iterable[tuple[int, int]], weights: Iterable[float] | None = None
) -> float:
    """The largest total weight (default 1 per span) of ``[start, finish)`` spans at one time."""
    events: list[tuple[int, int, float]] = []
    ws = iter(weights) if weights is not None else None
    for start, finish in spans:
        w = next(ws) if ws is not None else 1.0
        events.append((start, 1, w))
        events.append((finish, 0, -w))  # 0 sorts first: a container freed at t is reusable at t
    cur = peak = 0.0
    for _, _, w in sorted(events):
        cur += w
        peak = max(peak, cur)
    return peak


def _positive(text: str | None) -> bool:
    """A memory property that states a size (``-1`` means "derive it from the heap")."""
    try:
        return text is not None and int(str(text).strip()) > 0
    except ValueError:
        return False


def _allocated(mb: float, min_alloc: float) -> float:
    """Memory YARN reserves for a request (rounded up to the minimum allocation)."""
    return math.ceil(mb / min_alloc) * min_alloc if min_alloc > 0 else mb


def _container(
    side: str, h: JobHistory, J: Mapping[str, float], props: Mapping[str, str], cfg: HadoopConfig
) -> tuple[ClusterFact, ClusterFact]:
    """Container memory and vcores of one task type (counters, then conf, then default)."""
    up = "MAPS" if side == "map" else "REDUCES"
    mb_keys = (f"mapreduce.{side}.memory.mb", f"mapred.job.{side}.memory.mb")
    vc_key = f"mapreduce.{side}.cpu.vcores"
    ms, mb, vc = J.get(f"MILLIS_{up}"), J.get(f"MB_MILLIS_{up}"), J.get(f"VCORES_MILLIS_{up}")
    conf_mb = next((k for k in mb_keys if _positive(props.get(k))), None)
    default_mb = cfg.map_container_mb if side == "map" else cfg.reduce_container_mb
    opts = (cfg.map_java_opts if side == "map" else cfg.reduce_java_opts) or cfg.child_java_opts
    if mb and ms and ms > 0:
        mem = _obs(mb / ms, f"MB_MILLIS_{up} / MILLIS_{up} (the request YARN charged)")
    elif conf_mb is not None:
        mem = _obs(default_mb, f"{conf_mb} in the job configuration")
    elif parse_xmx(opts) is not None:
        mem = _inf(
            default_mb,
            "-Xmx of the task ÷ mapreduce.job.heap.memory-mb.ratio (JobConf.getMemoryRequired)",
        )
    else:
        mem = _dflt(default_mb, f"{mb_keys[0]} not recorded: Hadoop's default")
    default_vc = cfg.map_vcores if side == "map" else cfg.reduce_vcores
    if vc and ms and ms > 0:
        cores = _obs(vc / ms, f"VCORES_MILLIS_{up} / MILLIS_{up}")
    elif vc_key in props:
        cores = _obs(default_vc, f"{vc_key} in the job configuration")
    else:
        cores = _dflt(default_vc, f"{vc_key} not recorded: Hadoop's default")
    return mem, cores


class _Placement:
    """Where and when the successful attempts ran: hosts, racks, overall and per-host peaks."""

    def __init__(self, h: JobHistory, alloc_mb: Mapping[str, float], vcores: Mapping[str, float]):
        self.hosts: set[str] = set()
        self.racks: set[str] = set()
        by_host: dict[str, list[AttemptRecord]] = defaultdict(list)
        for a in h.attempts:
            host, rack = host_and_rack(a)
            if host:
                self.hosts.add(host)
                if a.untimed is None:  # peaks need both ends (task_checks: untimed attempts)
                    by_host[host].append(a)
            if rack:
                self.racks.add(rack)
        spans = {k: [(a.start_ms, a.finish_ms) for a in h.timed(k)] for k in ("map", "reduce")}
        self.peak_maps = peak_concurrency(spans["map"])
        self.peak_reduces = peak_concurrency(spans["reduce"])
        self.peak_tasks = peak_concurrency(spans["map"] + spans["reduce"])
        self.peak_mb = peak_concurrency(
            spans["map"] + spans["reduce"],
            [alloc_mb["map"]] * len(spans["map"]) + [alloc_mb["reduce"]] * len(spans["reduce"]),
        )
        self.host_tasks = self.host_mb = self.host_vcores = 0.0
        self.host_maps = self.host_reduces = 0.0
        self.busiest = ""
        for host, atts in sorted(by_host.items()):
            s = [(a.start_ms, a.finish_ms) for a in atts]
            n = peak_concurrency(s)
            if n > self.host_tasks:
                self.host_tasks, self.busiest = n, host
            self.host_mb = max(self.host_mb, peak_concurrency(s, [alloc_mb[a.kind] for a in atts]))
            self.host_vcores = max(
                self.host_vcores, peak_concurrency(s, [vcores[a.kind] for a in atts])
            )
            for kind in ("map", "reduce"):
                k = peak_concurrency((a.start_ms, a.finish_ms) for a in atts if a.kind == kind)
                if kind == "map":
                    self.host_maps = max(self.host_maps, k)
                else:
                    self.host_reduces = max(self.host_reduces, k)


def _capacity(
    name: str, site: YarnSite, busiest: float, default: float, what: str, warnings: list[str]
) -> ClusterFact:
    """A node's capacity: the configuration's, unless one host ran more than it allows; else at
    least what the busiest host ran at once; else the default."""
    stated = site.get(name)
    if stated is not None:
        if busiest > stated:
            warnings.append(
                f"{site.keys[name]} = {stated} in {site.path}, but one host ran {busiest:g} "
                f"{what} at once: the NodeManagers' own setting differs; {busiest:g} inferred"
            )
            return _inf(busiest, f"the busiest host ran {busiest:g} {what} at once")
        return _obs(stated, site.how(name))
    if busiest > default:
        return _inf(busiest, f"the busiest host ran {busiest:g} {what} at once")
    return _dflt(default, f"not stated; the busiest host ran {busiest:g} {what} at once")


def _scheduler(site: YarnSite, hadoop1: bool) -> dict[str, ClusterFact]:
    """Minimum and maximum allocation and the AM's container (none under Hadoop 1)."""
    out = {}
    for name, default in (
        ("min_allocation_mb", _SPEC.min_allocation_mb),
        ("max_allocation_mb", DEFAULT_MAX_ALLOCATION_MB),
        ("am_memory_mb", _SPEC.am_memory_mb),
    ):
        v = site.get(name)
        out[name] = _obs(v, site.how(name)) if v is not None else _dflt(default, "yarn default")
    if hadoop1:
        out["am_memory_mb"] = _inf(0, "Hadoop 1: the JobTracker schedules, no AM container")
    return out


def infer_cluster(
    h: JobHistory,
    J: Mapping[str, float],
    props: Mapping[str, str],
    cfg: HadoopConfig,
    warnings: list[str],
) -> InferredCluster:
    """Everything the history says about its cluster, each fact with its provenance."""
    site = yarn_site_from_properties(props, "the job configuration")
    warnings.extend(f"{p}: ignored" for p in site.problems)
    if h.uberized:
        # mapreduce.job.ubertask.enable: every task ran one after another in the MRAppMaster's
        # JVM (no container launch, no shuffle over the network): the model prices tasks as
        # containers, the way the job runs once it outgrows ubertask.maxmaps/maxreduces/maxbytes
        warnings.append(
            "uberized job: its tasks ran inside the MRAppMaster's container, one after another; "
            "predictions are for the job run as ordinary containers (mapreduce.job.ubertask."
            "enable=false, or an input beyond mapreduce.job.ubertask.maxbytes)"
        )
    hadoop1 = cfg.hadoop_version == 1
    sched = _scheduler(site, hadoop1)
    mem = {side: _container(side, h, J, props, cfg) for side in ("map", "reduce")}
    min_alloc = sched["min_allocation_mb"].value
    alloc = {k: _allocated(v[0].value, min_alloc) for k, v in mem.items()}
    place = _Placement(h, alloc, {k: v[1].value for k, v in mem.items()})
    for side, (m, _) in mem.items():
        if not hadoop1 and m.value > sched["max_allocation_mb"].value:
            warnings.append(
                f"{side} containers of {m.value:g} MB exceed yarn.scheduler.maximum-allocation-mb "
                f"= {sched['max_allocation_mb'].value:g}: YARN refuses such a request"
            )
    node_mb = _capacity(
        "node_memory_mb", site, place.host_mb, _SPEC.node_memory_mb, "MB", warnings
    )
    node_vc = _capacity(
        "node_vcores", site, place.host_vcores, _SPEC.node_vcores, "vcores", warnings
    )
    slots = {  # Hadoop 1 TaskTracker slots; under YARN they are not used (nothing inferred)
        kind: _capacity(
            f"{kind}_slots_per_node", site, peak if hadoop1 else 0.0, 2, f"{kind}s", warnings
        )
        for kind, peak in (("map", place.host_maps), ("reduce", place.host_reduces))
    }
    nodes = _node_count(h, place, node_mb.value, sched["am_memory_mb"].value, slots, hadoop1)
    n_maps, n_red = len(h.successful("map")), len(h.successful("reduce"))
    hosts_how = "distinct hosts that ran successful attempts"
    return InferredCluster(
        hosts=_obs(len(place.hosts), hosts_how) if place.hosts else _dflt(0, "no host recorded"),
        racks=_obs(len(place.racks), "distinct racks of those attempts") if place.racks else None,
        host_sample=sorted(place.hosts)[:SAMPLE_HOSTS],
        map_container_mb=mem["map"][0],
        reduce_container_mb=mem["reduce"][0],
        map_vcores=mem["map"][1],
        reduce_vcores=mem["reduce"][1],
        peak_maps=_obs(place.peak_maps, "most map attempts running at one time"),
        peak_reduces=_obs(place.peak_reduces, "most reduce attempts running at one time"),
        peak_tasks=_obs(place.peak_tasks, "most attempts running at one time"),
        peak_tasks_per_host=_obs(
            place.host_tasks,
            f"on {place.busiest}" if place.busiest else "no host recorded",
        ),
        num_nodes=nodes,
        node_memory_mb=node_mb,
        node_vcores=node_vc,
        map_slots_per_node=slots["map"],
        reduce_slots_per_node=slots["reduce"],
        lower_bound=h.uberized
        or (place.peak_maps >= n_maps and (n_red == 0 or place.peak_reduces >= n_red)),
        **sched,
    )


def _node_count(
    h: JobHistory,
    place: _Placement,
    node_mb: float,
    am_mb: float,
    slots: Mapping[str, ClusterFact],
    hadoop1: bool,
) -> ClusterFact:
    """Nodes: the hosts seen, raised to what the peak of concurrent attempts needs."""
    if h.uberized:
        return _inf(1, "uberized job: every task ran in the AM's container")
    if hadoop1:
        need = max(
            math.ceil(place.peak_maps / slots["map"].value),
            math.ceil(place.peak_reduces / slots["reduce"].value),
            1,
        )
        unit = f"{slots['map'].value:g} map / {slots['reduce'].value:g} reduce slots"
    else:
        need = max(math.ceil((place.peak_mb + am_mb) / node_mb), 1)
        unit = f"{node_mb:g} MB"
    n_hosts = len(place.hosts)
    n_maps, n_red = len(h.successful("map")), len(h.successful("reduce"))
    waited = place.peak_maps < n_maps or (n_red > 0 and place.peak_reduces < n_red)
    peak = (
        f"at most {place.peak_maps:g} maps and {place.peak_reduces:g} reduces ran at once"
        f" ({need} node(s) of {unit})"
    )
    if waited and n_hosts > need:
        # tasks queued for containers: the peak is the job's share of the cluster, while the
        # hosts it touched over its life (tasks go wherever a slot frees up) overstate it
        return _inf(need, f"{peak} while tasks waited; {n_hosts} hosts ran them over time")
    if n_hosts >= need:
        return _inf(n_hosts, f"{n_hosts} distinct host(s) ran the job's attempts")
    if n_hosts:
        return _inf(need, f"{n_hosts} host(s) recorded, but {peak}")
    return _inf(need, f"no host recorded; {peak}")

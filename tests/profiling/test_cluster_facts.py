"""Cluster facts inferred from real histories, checked against the files' own hosts and conf.

Expected values are read from the raw files here (JSON / XML parsed directly, not through the
readers), so a reader or inference bug cannot agree with itself.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mrtune.calibration import build_profile, load_profile_source
from mrtune.calibration.self_check import check_rows
from mrtune.costmodel import ClusterSpec, ConfigBatch, JobProfile, predict_job
from mrtune.profiling import build_statistics, profile_config
from mrtune.profiling.cluster_facts import host_and_rack, peak_concurrency
from mrtune.readers import load_rumen
from mrtune.readers.history import AttemptRecord, JobHistory

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
SLEEP = next((DATA / "jhist").glob("job_1329348432655_0001-*.jhist"))
QMC = sorted((DATA / "jhist").glob("job_1526555215992_000*-*.jhist"))


def _conf_value(path: Path, name: str) -> str | None:
    for prop in ET.parse(path).getroot().iter("property"):
        if prop.findtext("name") == name:
            return (prop.findtext("value") or "").strip()
    return None


def _jhist_hosts(path: Path) -> set[str]:
    hosts = set()
    for line in path.read_text().splitlines()[2:]:
        if not line.strip():
            continue
        ev = json.loads(line)
        if ev.get("type") in ("MAP_ATTEMPT_FINISHED", "REDUCE_ATTEMPT_FINISHED"):
            body = next(iter(ev["event"].values()))
            if body.get("taskStatus", body.get("status")) in ("SUCCEEDED", None):
                hosts.add(body["hostname"])
    return hosts


def _rumen_jobs(path: Path) -> list[dict]:
    text, dec, i, out = path.read_text(), json.JSONDecoder(), 0, []
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        obj, i = dec.raw_decode(text, i)
        out.append(obj)
    return out


def _rumen_attempts(job: dict) -> list[dict]:
    return [
        a
        for t in job.get("mapTasks", []) + job.get("reduceTasks", [])
        for a in t.get("attempts", [])
        if a.get("result") == "SUCCESS" and a.get("hostName")
    ]


def _peak(spans: list[tuple[int, int]]) -> int:
    """Most spans covering one instant (brute force: at each start)."""
    return max((sum(1 for s, f in spans if s <= t < f) for t, _ in spans), default=0)


# ---------------------------------------------------------------- .jhist with its conf
@pytest.mark.parametrize("path", [SLEEP, *QMC], ids=lambda p: p.name[:26])
def test_jhist_hosts_and_containers_match_the_files(path: Path) -> None:
    job_id = "_".join(path.name.split("-")[0].split("_")[:3])
    conf = DATA / "jhist" / f"{job_id}_conf.xml"
    prof = load_profile_source(path)
    c = prof.cluster
    assert c is not None
    hosts = _jhist_hosts(path)
    assert c.hosts.value == len(hosts) and c.hosts.provenance == "observed"
    assert c.num_nodes.value == len(hosts) and c.num_nodes.provenance == "inferred"
    assert c.map_container_mb.value == float(_conf_value(conf, "mapreduce.map.memory.mb"))
    assert c.reduce_container_mb.value == float(_conf_value(conf, "mapreduce.reduce.memory.mb"))
    assert c.map_container_mb.provenance == "observed"
    nm = _conf_value(conf, "yarn.nodemanager.resource.memory-mb")
    if nm is not None:  # the Sleep job's conf carries the cluster section
        assert c.node_memory_mb.value == float(nm) and c.node_memory_mb.provenance == "observed"
        lo = _conf_value(conf, "yarn.scheduler.minimum-allocation-mb")
        assert c.min_allocation_mb.value == float(lo)
    else:
        assert c.node_memory_mb.provenance == "defaulted"


def test_sleep_job_peak_is_what_one_node_holds() -> None:
    """10 maps of 512 MB on one host ran at most 7 at once: 8 vcores, one taken by the AM."""
    prof = load_profile_source(SLEEP)
    c = prof.cluster
    assert c is not None
    assert c.peak_maps.value == 7 and not c.lower_bound  # maps waited: a real capacity
    rows = {r.key: r for r in check_rows(prof.cluster_facts)}
    assert rows["map_waves"].observed == 2 == rows["map_waves"].model


# ---------------------------------------------------------------- REST
def test_rest_host_is_the_node_address_without_port() -> None:
    raw = json.loads((DATA / "rest" / "08_taskAttempts.json").read_text())
    attempt = raw["response"]["taskAttempts"]["taskAttempt"][0]
    prof = load_profile_source(DATA / "rest")
    c = prof.cluster
    assert c is not None
    assert c.host_sample == [attempt["nodeHttpAddress"].rsplit(":", 1)[0]]
    assert c.racks is not None and c.racks.value == 1
    assert c.num_nodes.value == 1


# ---------------------------------------------------------------- Rumen
RUMEN = [
    (f, j)
    for f in ("wordcount-rumen.json", "2jobs2min-rumen-jh.json", "zombie-input-trace.json")
    for j in _rumen_jobs(DATA / "rumen" / f)
    if _rumen_attempts(j)
]


@pytest.mark.parametrize("name,job", RUMEN, ids=[f"{f[:8]}-{j['jobID'][-4:]}" for f, j in RUMEN])
def test_rumen_hosts_racks_and_nodes_match_the_trace(name: str, job: dict) -> None:
    atts = _rumen_attempts(job)
    hosts = {a["hostName"].replace("\\", "").rsplit("/", 1)[-1] for a in atts}
    prof = load_profile_source(DATA / "rumen" / name, job=job["jobID"])
    c = prof.cluster
    assert c is not None
    assert c.hosts.value == len(hosts)
    kinds = {"m": [], "r": []}
    for a in atts:
        kinds[a["attemptID"].split("_")[-3]].append((a["startTime"], a["finishTime"]))
    assert c.peak_maps.value == _peak(kinds["m"])
    assert c.peak_reduces.value == _peak(kinds["r"])
    props = job.get("jobProperties") or {}
    if "mapreduce.map.memory.mb" in props:
        assert c.map_container_mb.value == float(props["mapreduce.map.memory.mb"])
        nm = float(props["yarn.nodemanager.resource.memory-mb"])
        assert c.node_memory_mb.value == nm and c.node_memory_mb.provenance == "observed"
    waited = _peak(kinds["m"]) < len(kinds["m"]) or _peak(kinds["r"]) < len(kinds["r"])
    n = c.num_nodes.value
    if not waited or len(hosts) * c.map_slots_per_node.value <= _peak(kinds["m"]):
        assert n == len(hosts)
    else:  # tasks queued: the node count holds the job's peak, not every host it touched
        spec = ClusterSpec(**c.spec_fields())  # Hadoop 1 traces: slots per node
        need = max(
            math.ceil(_peak(kinds["m"]) / spec.map_slots_per_node),
            math.ceil(_peak(kinds["r"]) / spec.reduce_slots_per_node),
        )
        assert n == need < len(hosts)


def test_rumen_racks_from_location_and_host_path() -> None:
    job = next(j for f, j in RUMEN if j["jobID"] == "job_200904211745_0004")
    racks = set()
    for a in _rumen_attempts(job):
        layers = (a.get("location") or {}).get("layers")
        if layers:
            racks.add(layers[0].replace("\\", ""))
        elif a["hostName"].startswith("/"):
            racks.add(a["hostName"].replace("\\", "").split("/")[1])
    prof = load_profile_source(DATA / "rumen" / "zombie-input-trace.json", job=job["jobID"])
    assert prof.cluster is not None and prof.cluster.racks is not None
    assert prof.cluster.racks.value == len(racks)


# ---------------------------------------------------------------- self-check on every history
ALL = [(SLEEP, None), *[(q, None) for q in QMC], (DATA / "rest", None)] + [
    (DATA / "rumen" / f, j["jobID"]) for f, j in RUMEN
]


@pytest.mark.parametrize("path,job", ALL, ids=lambda x: str(x)[-20:] if x else "")
def test_self_check_is_stored_and_reproduces_the_waves(path: Path, job: str | None) -> None:
    prof = load_profile_source(path, job=job)
    rows = {r.key: r for r in check_rows(prof.cluster_facts)}
    assert {"tasks", "map_waves", "map_stage"} <= set(rows)
    assert prof.cluster_facts["self_check.tasks.model_ms"] > 0
    assert rows["map_waves"].model == rows["map_waves"].observed
    # the stored model time is the model's, under the stored cluster and the job's conf
    again = JobProfile.model_validate_json(prof.model_dump_json())
    pred = predict_job(
        again,
        ConfigBatch.from_configs([profile_config(again)]),
        ClusterSpec(**again.cluster.spec_fields()),
    )
    # the task span, plus the job's own fixed time measured from the history
    ovh = again.costs.job_overhead_ms
    assert float(pred.job_ms[0]) == pytest.approx(rows["tasks"].model + ovh, rel=1e-9)
    if "job" in rows:
        assert rows["job"].model == pytest.approx(float(pred.job_ms[0]), rel=1e-9)


# ---------------------------------------------------------------- synthetic: the Criteo case
def _criteo_like() -> JobHistory:
    """57 maps of 2,560 MB on 57 hosts at once and 3 reduces on 3 more: one map wave."""
    h = JobHistory(source="criteo", source_format="rumen", job_id="job_1_0001", status="SUCCEEDED")
    h.total_maps, h.total_reduces, h.hadoop_version = 57, 3, 2
    h.launch_ms, h.finish_ms = 0, 200_000
    h.properties = {"mapreduce.map.memory.mb": "2560", "mapreduce.reduce.memory.mb": "2560"}
    counters = {"MAP_INPUT_RECORDS": 1e6, "MAP_OUTPUT_RECORDS": 1e6, "MAP_OUTPUT_BYTES": 1e8}
    for i in range(57):
        h.add_attempt(
            AttemptRecord(
                f"attempt_1_0001_m_{i:06d}_0",
                f"task_1_0001_m_{i:06d}",
                "map",
                1000,
                61_000,
                counters={**counters, "HDFS_BYTES_READ": 1e8},
                host=f"/rack{i % 3}/node{i:02d}",
            )
        )
    for i in range(3):
        h.add_attempt(
            AttemptRecord(
                f"attempt_1_0001_r_{i:06d}_0",
                f"task_1_0001_r_{i:06d}",
                "reduce",
                62_000,
                150_000,
                counters={"REDUCE_INPUT_RECORDS": 1.9e7},
                host=f"/rack{i}/node{57 + i}",
            )
        )
    return h


def test_criteo_like_trace_runs_in_one_wave_on_its_inferred_cluster() -> None:
    prof = build_profile(_criteo_like())
    c = prof.cluster
    assert c is not None
    assert (c.hosts.value, c.racks.value, c.num_nodes.value) == (60, 3, 60)
    assert c.map_container_mb.value == 2560 and c.lower_bound
    cfg = profile_config(prof)
    batch = ConfigBatch.from_configs([cfg])
    inferred = predict_job(prof, batch, ClusterSpec(**c.spec_fields()))
    default = predict_job(prof, batch, ClusterSpec(num_nodes=10))
    assert inferred.map_waves[0] == 1
    assert default.map_slots[0] == 19 and default.map_waves[0] == 3  # the numbers


# ---------------------------------------------------------------- units
def test_peak_concurrency_frees_a_container_at_its_finish_instant() -> None:
    assert peak_concurrency([(0, 10), (10, 20)]) == 1
    assert peak_concurrency([(0, 10), (5, 20), (9, 11)]) == 3
    assert peak_concurrency([(0, 10), (5, 20)], [1024, 2048]) == 3072
    assert peak_concurrency([]) == 0


@pytest.mark.parametrize(
    "host,rack,expected",
    [
        ("/default-rack/foo.example.com", None, ("foo.example.com", "/default-rack")),
        ("host.domain.com:8042", "/98.139.92.0", ("host.domain.com", "/98.139.92.0")),
        ("cluster1\\.example\\.com", None, ("cluster1.example.com", None)),
        ("http://10.0.0.1:8042", None, ("10.0.0.1", None)),
        (None, "/r1", (None, "/r1")),
    ],
)
def test_host_and_rack(host: str | None, rack: str | None, expected: tuple) -> None:
    a = AttemptRecord("a", "t", "map", 0, 1, host=host, rack=rack)
    assert host_and_rack(a) == expected


def test_client_conf_smaller_than_what_a_host_ran_is_overridden_with_a_warning() -> None:
    h = _criteo_like()
    h.properties["yarn.nodemanager.resource.memory-mb"] = "2048"
    h.attempts[1].host = h.attempts[0].host  # two 2,560 MB maps at once on one host
    prof, _ = build_statistics(h)
    c = prof.cluster
    assert c is not None
    assert c.node_memory_mb.provenance == "inferred" and c.node_memory_mb.value == 6144
    assert any("NodeManagers' own setting differs" in w for w in prof.warnings)


def test_old_profile_json_without_cluster_still_loads() -> None:
    rumen = load_rumen(DATA / "rumen" / "wordcount-rumen.json")[0]
    prof = build_profile(rumen)
    data = json.loads(prof.model_dump_json())
    del data["cluster"]
    old = JobProfile.model_validate(data)
    assert old.cluster is None
    assert math.isfinite(old.input_bytes)

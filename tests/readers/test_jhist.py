"""``.jhist`` reading and profile building on real job history files (issue 3 checks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrtune.calibration import build_profile, load_profile_source
from mrtune.errors import InputError
from mrtune.readers import load_conf, load_jhist
from mrtune.readers.jhist import read_events

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
JHIST = DATA / "jhist"
QMC1 = next(JHIST.glob("job_1526555215992_0001-*QuasiMonteCarlo*.jhist"))
QMC1_CONF = JHIST / "job_1526555215992_0001_conf.xml"
SLEEP = next(JHIST.glob("job_1329348432655_0001-*Sleep+job*.jhist"))
SLEEP_CONF = JHIST / "job_1329348432655_0001_conf.xml"
TRUNCATED = next(JHIST.glob("job_1410289045532_259974-*.jhist"))
FAILED = sorted(JHIST.glob("*FAILED*.jhist"))


@pytest.fixture(scope="module")
def qmc_profile():
    return build_profile(load_jhist(QMC1), load_conf(QMC1_CONF))


def test_qmc_attempt_phase_times(qmc_profile) -> None:
    (m,) = [t for t in qmc_profile.observed if t.kind == "map"]
    (r,) = [t for t in qmc_profile.observed if t.kind == "reduce"]
    assert m.phases_ms["total"] == 2097
    assert m.phases_ms["map"] == 2031
    assert m.phases_ms["sort"] == 66
    assert r.phases_ms["shuffle"] == 1982
    assert r.phases_ms["merge"] == 17
    assert r.phases_ms["reduce"] == 212
    assert m.phases_ms["map"] + m.phases_ms["sort"] == m.phases_ms["total"]


def test_qmc_counters_and_container(qmc_profile) -> None:
    c = qmc_profile.observed_counters
    assert c["REDUCE_SHUFFLE_BYTES"] == c["MAP_OUTPUT_MATERIALIZED_BYTES"] == 28
    assert c["SPILLED_RECORDS"] == 4
    f = qmc_profile.cluster_facts
    assert f["map_container_mb"] == 1024  # MB_MILLIS_MAPS / MILLIS_MAPS = 2147328 / 2097
    assert f["map_container_mb_source"] == "MB_MILLIS_MAPS / MILLIS_MAPS"
    assert f["map_container_mb_conf"] == 1024  # mapreduce.map.memory.mb in the conf
    assert f["reduce_container_mb"] == 1024
    assert f["num_maps"] == 1 and f["num_reduces"] == 1
    assert qmc_profile.source_properties["mapreduce.map.memory.mb"] == "1024"


def test_qmc_dataflow_statistics(qmc_profile) -> None:
    st, prov = qmc_profile.stats, qmc_profile.provenance
    # FileInputFormat BYTES_READ 118 for 1 input record; 2 output records of 18 bytes
    assert qmc_profile.input_bytes == 118
    assert st.input_pair_width == 118
    assert st.map_pairs_sel == 2
    assert st.map_size_sel == pytest.approx(18 / 118)
    # materialized 28 = 2 × (9 + overhead) + 6 for one partition of one map → overhead 2
    assert st.ifile_record_overhead == pytest.approx(2.0)
    assert prov["stats.ifile_record_overhead"].startswith("measured")
    assert st.reduce_pairs_sel == 0  # the reducer writes in cleanup(), not per record
    assert prov["stats.combine_pairs_sel"].startswith("defaulted")


def test_every_statistic_and_cost_factor_has_provenance(qmc_profile) -> None:
    for name in type(qmc_profile.stats).model_fields:
        assert qmc_profile.provenance[f"stats.{name}"].split(":")[0] in ("measured", "defaulted")
    for name in type(qmc_profile.costs).model_fields:
        assert qmc_profile.provenance[f"costs.{name}"].split(":")[0] in ("measured", "defaulted")


def test_qmc_fixed_time_measured_not_per_byte(qmc_profile) -> None:
    """One input record cannot measure per-byte costs: they stay default, fixed time is fitted."""
    prov = qmc_profile.provenance
    assert prov["costs.task_overhead_ms"].startswith("measured")
    assert prov["costs.hdfs_read"].startswith("defaulted")
    assert qmc_profile.costs.hdfs_read == 20.0
    # the fixed time is what the first phases (2031 ms map, 1982 ms shuffle) leave unexplained:
    # their common part (issue 20: the read intercept and shuffle floor take the rest), less
    # the one fetch priced at its YARN prior
    c = qmc_profile.costs
    assert 1982 - c.fetch_ns / 1e6 - 1 <= c.task_overhead_ms <= 2031
    assert c.task_overhead_ms + c.read_fixed_ms == pytest.approx(2031, abs=2)


def test_sleep_job_every_map_and_duplicate_reduce() -> None:
    h = load_jhist(SLEEP)
    assert len(h.successful("map")) == 10
    assert {a.task_id[-6:] for a in h.successful("map")} == {f"{i:06d}" for i in range(10)}
    # two REDUCE_ATTEMPT_FINISHED events (r_000000, r_000001) in one container: one reduce
    assert len(h.successful("reduce")) == 1
    assert h.duplicates_dropped == 1
    p = build_profile(h, load_conf(SLEEP_CONF))
    assert p.cluster_facts["num_maps"] == 10
    assert p.cluster_facts["num_reduces"] == 1
    assert p.cluster_facts["duplicate_attempt_events"] == 1
    assert len([t for t in p.observed if t.kind == "reduce"]) == 1
    assert any("duplicated attempt event" in w for w in p.warnings)
    # the reduce counters are not double counted: one reduce got the 10 map outputs
    assert p.observed_counters["REDUCE_INPUT_RECORDS"] == 10
    assert p.stats.reduce_pairs_per_group == 10
    # materialized 120 = 10 maps × (1 record × (4 + 2) + 6)
    assert p.stats.ifile_record_overhead == pytest.approx(2.0)
    assert p.input_files == 10  # one split per map reproduces the 10 maps


@pytest.mark.parametrize("path", FAILED, ids=lambda p: p.name[:30])
def test_failed_jobs_give_one_clear_error(path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_profile_source(path)
    msg = str(info.value)
    assert str(path) in msg
    assert "FAILED" in msg and "no successful task attempt" in msg
    assert "\n" not in msg


def test_failed_job_attempts_are_counted() -> None:
    h = load_jhist(JHIST / "job_0.23.9-FAILED.jhist")
    assert h.status == "FAILED"
    assert h.failed_attempts == 7 and h.killed_attempts == 1
    assert h.attempts == []


def test_truncated_history_without_attempts_is_an_error() -> None:
    with pytest.raises(InputError, match="truncated job history"):
        load_profile_source(TRUNCATED)


def test_truncated_history_with_attempts_gives_partial_profile(tmp_path: Path) -> None:
    """Cut the QMC history before JOB_FINISHED: counters are summed from the attempts."""
    lines = QMC1.read_text().splitlines()
    keep = [ln for ln in lines if '"JOB_FINISHED"' not in ln]
    cut = tmp_path / "job_1526555215992_0001-cut.jhist"
    cut.write_text("\n".join(keep) + '\n{"type": "JOB_FINI')  # a torn last line too
    h = load_jhist(cut)
    assert not h.complete
    p = build_profile(h, load_conf(QMC1_CONF))
    assert any("no JOB_FINISHED" in w for w in p.warnings)
    assert any("unreadable event" in w for w in p.warnings)
    assert p.observed_counters["MAP_OUTPUT_RECORDS"] == 2
    assert p.observed_counters["REDUCE_SHUFFLE_BYTES"] == 28
    assert p.stats.map_pairs_sel == 2


def test_repeated_attempt_event_is_merged(tmp_path: Path) -> None:
    lines = QMC1.read_text().splitlines()
    fin = next(ln for ln in lines[2:] if '"MAP_ATTEMPT_FINISHED"' in ln)
    dup = tmp_path / "dup.jhist"
    dup.write_text("\n".join(lines + [fin]) + "\n")
    h = load_jhist(dup)
    assert len(h.successful("map")) == 1
    assert h.duplicates_dropped == 1


def test_union_fallback_matches_fastavro(tmp_path: Path) -> None:
    """A file that breaks its schema is read by the tolerant decoder, with the same result."""
    lines = QMC1.read_text().splitlines()
    # a field the schema does not know makes fastavro refuse the file
    lines[2] = lines[2].replace('"type":"AM_STARTED"', '"type":"AM_STARTED","x":1', 1)
    odd = tmp_path / "odd.jhist"
    odd.write_text("\n".join(lines))
    good, _ = read_events(QMC1)
    tolerant, warnings = read_events(odd)
    assert [e for e, _ in good] == [e for e, _ in tolerant]
    fin = dict(good)["MAP_ATTEMPT_FINISHED"]
    assert dict(tolerant)["MAP_ATTEMPT_FINISHED"]["mapFinishTime"] == fin["mapFinishTime"]
    # union values {"string": "NODE_LOCAL"} are unwrapped by both
    assert dict(tolerant)["MAP_ATTEMPT_STARTED"]["locality"] == "NODE_LOCAL"
    assert dict(good)["MAP_ATTEMPT_STARTED"]["locality"] == "NODE_LOCAL"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "empty"),
        ("Avro-Json\n", "no schema"),
        ("Avro-Json\n{not json\n", "schema"),
        ('{"a": 1}\n', "not a job history"),
        ('Avro-Json\n{"type": "record", "name": "E", "fields": []}\n', "no events"),
    ],
)
def test_bad_jhist_files(tmp_path: Path, content: str, expected: str) -> None:
    f = tmp_path / "bad.jhist"
    f.write_text(content)
    with pytest.raises(InputError, match=expected) as info:
        load_jhist(f)
    assert str(f) in str(info.value)


def test_all_qmc_runs_parse_alike() -> None:
    for job in ("0001", "0002", "0004"):
        path = next(JHIST.glob(f"job_1526555215992_{job}-*.jhist"))
        p = load_profile_source(path)  # finds job_…_conf.xml next to it
        assert p.cluster_facts["conf_source"].endswith(f"job_1526555215992_{job}_conf.xml")
        assert p.observed_counters["MAP_OUTPUT_MATERIALIZED_BYTES"] == 28
        json.dumps(p.model_dump(mode="json"))


def _with_map_counter(tmp_path: Path, name: str, value: object) -> Path:
    """QMC1 with one counter of its map attempt set to ``value`` (as JSON)."""
    out = []
    for no, line in enumerate(QMC1.read_text().splitlines()):
        if no >= 2 and '"MAP_ATTEMPT_FINISHED"' in line:
            ev = json.loads(line)
            body = next(iter(ev["event"].values()))
            for g in body["counters"]["groups"]:
                for c in g["counts"]:
                    if c["name"] == name:
                        c["value"] = value
            line = json.dumps(ev)
        out.append(line)
    f = tmp_path / "mut.jhist"
    f.write_text("\n".join(out) + "\n")
    return f


@pytest.mark.parametrize("value", [None, True, "12", 0.001, 1.5e300, 2**63])
def test_corrupt_counter_is_refused_naming_attempt_and_value(tmp_path: Path, value) -> None:  # noqa: ANN001
    """Such a counter was dropped silently and its statistic defaulted (exit 0) before."""
    f = _with_map_counter(tmp_path, "MAP_OUTPUT_BYTES", value)
    with pytest.raises(InputError, match="counter MAP_OUTPUT_BYTES of attempt_") as info:
        load_jhist(f)
    assert str(f) in str(info.value) and "Java long" in str(info.value)


def test_negative_counter_exclusion_is_named_when_nothing_is_left(tmp_path: Path) -> None:
    f = _with_map_counter(tmp_path, "SPILLED_RECORDS", -100)
    with pytest.raises(InputError, match=r"negative counter SPILLED_RECORDS=-100"):
        build_profile(load_jhist(f), load_conf(QMC1_CONF))


def test_unusable_finish_time_is_named_not_a_missing_start(tmp_path: Path) -> None:
    """``finishTime: null`` was reported as "no ATTEMPT_STARTED event" though it was there."""
    out = []
    for no, line in enumerate(QMC1.read_text().splitlines()):
        if no >= 2 and '"MAP_ATTEMPT_FINISHED"' in line:
            ev = json.loads(line)
            next(iter(ev["event"].values()))["finishTime"] = None
            line = json.dumps(ev)
        out.append(line)
    f = tmp_path / "mut.jhist"
    f.write_text("\n".join(out) + "\n")
    h = load_jhist(f)
    (m,) = h.successful("map")  # the attempt ran: kept for its counters, untimed
    assert m.untimed == "finishTime None is not a time (a Java long)"
    p = build_profile(h, load_conf(QMC1_CONF))
    (line,) = [w for w in p.warnings if "not timed" in w]
    assert "1 finishTime None is not a time (a Java long) (attempt_" in line
    assert not any("no ATTEMPT_STARTED" in w for w in p.warnings)
    assert p.stats.map_pairs_sel == 2  # its counters still measure the map side
    assert [t.kind for t in p.observed] == ["reduce"]


def test_an_uberized_job_is_said_to_be_one(tmp_path: Path) -> None:
    """mapreduce.job.ubertask.enable ran every task in the AM's JVM: the profile says its
    predictions are for the job as ordinary containers."""
    src = next(JHIST.glob("job_1526555215992_0001-*.jhist"))
    text = src.read_text().replace('"uberized":false', '"uberized":true')
    assert '"uberized":true' in text
    uber = tmp_path / src.name
    uber.write_text(text)
    p = load_profile_source(uber, JHIST / "job_1526555215992_0001_conf.xml")
    assert any(
        w.startswith("uberized job: its tasks ran inside the MRAppMaster") for w in p.warnings
    )
    plain = load_profile_source(src, JHIST / "job_1526555215992_0001_conf.xml")
    assert not any(w.startswith("uberized job") for w in plain.warnings)


# ------------------------------------------- event order, missing starts, duplicates (audit §7)
#: A real YARN history (4 maps, 1 reduce, events in EventWriter's order), packed gzipped.
R4_RUN = Path(__file__).resolve().parents[2] / "benchmarks/results/yarn-r4/pst-default.r0"
R4 = next(R4_RUN.glob("*.jhist.gz"))
R4_CONF = next(R4_RUN.glob("*_conf.xml.gz"))


def _r4_events() -> tuple[list[str], list[str]]:
    """The schema header (2 lines) and the event lines of :data:`R4`."""
    import gzip

    lines = gzip.decompress(R4.read_bytes()).decode().split("\n")
    return lines[:2], [ln for ln in lines[2:] if ln.strip()]


def _attempt_id(line: str) -> str:
    return str(next(iter(json.loads(line)["event"].values())).get("attemptId"))


def _write_r4(tmp_path: Path, events: list[str], name: str = "mut.jhist") -> Path:
    head, _ = _r4_events()
    f = tmp_path / name
    f.write_text("\n".join(head + events) + "\n")
    return f


def _start_after_its_finish(events: list[str]) -> list[str]:
    """The first MAP_ATTEMPT_STARTED moved just after its own MAP_ATTEMPT_FINISHED (audit's
    swap1.jhist): 'has no ATTEMPT_STARTED event', and '4 maps where the job ran 3' before."""
    i = next(k for k, ln in enumerate(events) if '"MAP_ATTEMPT_STARTED"' in ln)
    aid = _attempt_id(events[i])
    rest = events[:i] + events[i + 1 :]
    j = next(
        k for k, ln in enumerate(rest) if '"MAP_ATTEMPT_FINISHED"' in ln and aid == _attempt_id(ln)
    )
    return rest[: j + 1] + [events[i]] + rest[j + 1 :]


def _shuffled(events: list[str]) -> list[str]:
    import random

    out = list(events)
    random.Random(7).shuffle(out)
    return out


@pytest.fixture(scope="module")
def r4_profile():
    return build_profile(load_jhist(R4), load_conf(R4_CONF), calibrate=False)


@pytest.mark.parametrize(
    "reorder",
    [_start_after_its_finish, lambda ev: ev[::-1], _shuffled],
    ids=["start-after-finish", "reversed", "shuffled"],
)
def test_reordered_events_give_the_same_profile(tmp_path: Path, r4_profile, reorder) -> None:  # noqa: ANN001
    """Attempt events are paired by attempt id, not by their place in the file: a re-sorted
    history is the same history (before: a false 'no ATTEMPT_STARTED event' and 3 of 4 maps,
    'no successful task attempt' for the reversed file, 1 of 4 maps kept for a shuffled one)."""
    _, events = _r4_events()
    mutated = reorder(events)
    assert mutated != events and sorted(mutated) == sorted(events)
    h = load_jhist(_write_r4(tmp_path, mutated, R4.name.removesuffix(".gz")))
    p = build_profile(h, load_conf(R4_CONF), calibrate=False)
    orig = r4_profile
    assert len(h.successful("map")) == 4 and len(h.successful("reduce")) == 1
    assert p.cluster_facts["successful_map_attempts"] == 4
    assert p.cluster_facts["num_maps"] == orig.cluster_facts["num_maps"] == 4
    assert p.input_bytes == orig.input_bytes
    assert p.observed_counters == orig.observed_counters
    assert p.stats == orig.stats
    assert p.observed == orig.observed  # every attempt timed, with the same phases
    assert not any("ATTEMPT_STARTED" in w or "not timed" in w for w in p.warnings)
    assert [w for w in p.warnings if "maps where the job ran" in w] == []


def test_missing_start_event_keeps_the_attempts_counters_untimed(
    tmp_path: Path, r4_profile
) -> None:  # noqa: ANN001
    """An attempt without its start event ran all the same: it was dropped with its counters
    (3 maps, a map side summed without it); now its counters count and only its time is left
    out, said in one line that counts it."""
    _, events = _r4_events()
    i = next(k for k, ln in enumerate(events) if '"MAP_ATTEMPT_STARTED"' in ln)
    aid = _attempt_id(events[i])
    h = load_jhist(_write_r4(tmp_path, events[:i] + events[i + 1 :]))
    assert len(h.successful("map")) == 4
    p = build_profile(h, load_conf(R4_CONF), calibrate=False)
    assert p.cluster_facts["successful_map_attempts"] == 4
    assert p.cluster_facts["untimed_attempts"] == 1
    assert p.input_bytes == r4_profile.input_bytes and p.stats == r4_profile.stats
    assert aid not in {t.attempt_id for t in p.observed}
    assert len([t for t in p.observed if t.kind == "map"]) == 3
    # peaks from the timed attempts only: a start of 0 (unset) spanned the whole run before
    assert r4_profile.cluster.peak_maps.value == 4 and p.cluster.peak_maps.value == 3
    (line,) = [w for w in p.warnings if "not timed" in w]
    assert line.startswith(f"1 task attempt(s) not timed: 1 no ATTEMPT_STARTED event ({aid})")
    assert "counters are kept" in line


def test_duplicate_finish_with_disagreeing_counters_is_excluded_and_said(tmp_path: Path) -> None:
    """Two MAP_ATTEMPT_FINISHED events of one attempt whose counters differ were reported as
    'reported twice: counted once', the disagreement unsaid. Hadoop logs one finish per
    attempt, so the attempt contradicts itself: excluded and counted (README, Bad input)."""
    _, events = _r4_events()
    i = next(k for k, ln in enumerate(events) if '"MAP_ATTEMPT_FINISHED"' in ln)
    aid = _attempt_id(events[i])
    ev = json.loads(events[i])
    groups = next(iter(ev["event"].values()))["counters"]["groups"]
    count = next(c for g in groups for c in g["counts"] if c["name"] == "MAP_OUTPUT_RECORDS")
    before = count["value"]
    count["value"] = before * 3
    h = load_jhist(_write_r4(tmp_path, [*events, json.dumps(ev, separators=(",", ":"))]))
    assert not any("counted once" in w for w in h.warnings)
    assert h.duplicates_dropped == 0
    p = build_profile(h, load_conf(R4_CONF), calibrate=False)
    (line,) = [w for w in p.warnings if "inconsistent task attempt" in w]
    assert line.startswith("1 inconsistent task attempt(s) excluded: 1 finish reported twice")
    assert f"MAP_OUTPUT_RECORDS {before} vs {before * 3}" in line and aid in line
    assert p.cluster_facts["inconsistent_attempts_excluded"] == 1
    assert p.cluster_facts["successful_map_attempts"] == 3
    assert aid not in {t.attempt_id for t in p.observed}


def test_second_successful_attempt_of_a_task_is_counted_once(tmp_path: Path) -> None:
    """A finish event copied under another attempt id of the same task (the audit's
    twoatt.jhist): Hadoop commits one attempt a task, so it is one execution, not a 5th map
    (it was dropped only because it had no start event; now such attempts keep counters)."""
    _, events = _r4_events()
    fin = next(ln for ln in events if '"MAP_ATTEMPT_FINISHED"' in ln)
    aid = _attempt_id(fin)
    twin = fin.replace(aid, aid[:-1] + "1")
    h = load_jhist(_write_r4(tmp_path, [*events, twin]))
    assert len(h.successful("map")) == 4 and h.duplicates_dropped == 1
    assert any(f"second successful attempt of task_{aid[8:-2]}" in w for w in h.warnings)
    p = build_profile(h, load_conf(R4_CONF), calibrate=False)
    assert p.cluster_facts["num_maps"] == 4


def test_attempt_killed_after_it_succeeded_is_not_successful(tmp_path: Path) -> None:
    """A succeeded map can be killed later (its node lost; TaskAttemptImpl) and run again; the
    KILLED event decides wherever it stands in the file (here before the finish)."""
    _, events = _r4_events()
    fin = json.loads(next(ln for ln in events if '"MAP_ATTEMPT_FINISHED"' in ln))
    body = next(iter(fin["event"].values()))
    killed = {
        "type": "MAP_ATTEMPT_KILLED",
        "event": {
            "org.apache.hadoop.mapreduce.jobhistory.TaskAttemptUnsuccessfulCompletion": {
                "taskid": body["taskid"],
                "taskType": "MAP",
                "attemptId": body["attemptId"],
                "finishTime": body["finishTime"] + 1,
                "hostname": "localhost",
                "status": "KILLED",
                "error": "node lost",
            }
        },
    }
    h = load_jhist(_write_r4(tmp_path, [json.dumps(killed), *events]))
    assert h.killed_attempts == 1
    assert body["attemptId"] not in {a.attempt_id for a in h.successful("map")}
    assert len(h.successful("map")) == 3

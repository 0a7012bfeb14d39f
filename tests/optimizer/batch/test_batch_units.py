"""SWIM rows → profiles, the lean tuner's invariants, discovery and the results store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mrtune.costmodel import ClusterSpec, CostFactors, JobProfile
from mrtune.errors import InputError
from mrtune.optimizer.batch import (
    BatchSettings,
    JobRef,
    ResultStore,
    discover,
    hive_reducers,
    parse_swim_line,
    swim_profile,
    tune_job,
    tune_ref,
)
from mrtune.optimizer.recommend import recommend
from mrtune.profiling import profile_config
from mrtune.search_spaces import KNOBS_BY_NAME
from tests.optimizer.batch.conftest import swim_rows

CLUSTER = ClusterSpec(num_nodes=10)
REPO = Path(__file__).resolve().parents[3]


def test_swim_row_volumes_become_selectivities() -> None:
    row = parse_swim_line("job2\t20\t2\t53088744165\t1510005522\t5759777\n")
    p = swim_profile(row, source="fb.tsv")
    assert p.job_id == "job2" and not p.map_only
    assert p.input_bytes == 53088744165
    assert p.input_bytes * p.stats.map_size_sel == pytest.approx(1510005522)
    assert 1510005522 * p.stats.reduce_size_sel == pytest.approx(5759777)
    assert profile_config(p).num_reducers == hive_reducers(53088744165) == 54
    for key in ("input_bytes", "stats.map_size_sel", "stats.reduce_size_sel", "costs.*"):
        assert key in p.provenance
    assert "Hive" in p.provenance["mapreduce.job.reduces"]


def test_swim_map_only_row() -> None:
    p = swim_profile(parse_swim_line("job0\t9\t9\t1762\t0\t14347"))
    assert p.map_only and profile_config(p).num_reducers == 0
    assert p.input_bytes * p.stats.map_size_sel == pytest.approx(14347)


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("job1\t1\t2\t3\t4", "6 tab-separated fields"),
        ("job1\t1\t2\tx\t4\t5", "non-numeric"),
        ("job1\t1\t2\t-3\t4\t5", "negative"),
        # beyond a Java long (audit h3 section 6: 1e308 bytes overflowed the model with 18
        # numpy warnings, then "the job's current configuration is infeasible")
        ("j1\t10\t10\t1e308\t1e308\t1e308", r"t.tsv:3: map_input_bytes: beyond a Java long"),
        ("j1\t10\t10\t1\t9223372036854775808\t1", r"shuffle_bytes: beyond a Java long"),
        ("j1\t1e17\t10\t1\t1\t1", r"submit_time_s: beyond a Java long \(got '1e17'\)"),
    ],
)
def test_bad_swim_rows_are_input_errors(line: str, match: str) -> None:
    with pytest.raises(InputError, match=match):
        parse_swim_line(line, path="t.tsv", lineno=3)


def test_a_volume_up_to_a_java_long_is_read_and_the_range_is_said() -> None:
    row = parse_swim_line("j\t0\t0\t9223372036854775807\t1\t1")
    assert row.map_input_bytes == float(2**63 - 1)
    with pytest.raises(InputError) as err:
        parse_swim_line("j\t0\t0\t9223372036854775808\t1\t1", path="t.tsv", lineno=1)
    assert "(got '9223372036854775808') allowed: 0 to 9223372036854775807 bytes" in str(err.value)


def test_zero_input_row_is_refused_with_its_reason() -> None:
    with pytest.raises(InputError, match="map_input_bytes is 0"):
        swim_profile(parse_swim_line("job9\t1\t1\t0\t0\t10"))


def test_base_profile_supplies_costs_and_statistics() -> None:
    base = JobProfile(input_bytes=1e9, costs=CostFactors(map_cpu=2500.0), has_combiner=True)
    p = swim_profile(parse_swim_line("job1\t18\t9\t9700000\t6090000\t697"), base)
    assert p.costs.map_cpu == 2500.0 and p.has_combiner
    assert p.input_bytes == 9700000
    assert p.stats.map_size_sel == pytest.approx(6090000 / 9700000)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inp=st.floats(1e3, 5e11),
    shuffle_frac=st.one_of(st.just(0.0), st.floats(1e-6, 3.0)),
    out_frac=st.floats(0.0, 2.0),
)
def test_lean_tuner_never_worse_and_map_only_has_no_reduce_knobs(
    inp: float, shuffle_frac: float, out_frac: float
) -> None:
    shuffle = round(inp * shuffle_frac)
    out = round(max(shuffle, inp) * out_frac)
    p = swim_profile(parse_swim_line(f"j\t0\t0\t{inp:.0f}\t{shuffle}\t{out}"))
    t = tune_job(p, profile_config(p), CLUSTER)
    assert t.best_ms <= t.current_ms * (1 + 1e-12)
    if t.changed:
        assert t.best_ms < t.current_ms * (1 - 0.01 + 1e-12)  # changes gain >= 1%
    if p.map_only:
        assert all(KNOBS_BY_NAME[k].side != "reduce" for k in t.knobs)
        assert "mapreduce.job.reduces" not in t.knobs
    for k in t.changed:  # the default: every size or count within the trust region
        knob = KNOBS_BY_NAME[k]
        if knob.log and t.current[k] > 0:
            assert t.current[k] / 4 <= t.best[k] <= t.current[k] * 4, k


def test_per_job_moves_stay_in_the_trust_region_unless_asked() -> None:
    """400 GB read, 100 KB shuffled: Hive's estimate gives 400 reducers; the unconstrained
    optimum is 1 (far: the model's extrapolation from a 400-reducer history); by default the
    per-job file takes the largest trusted step, 400 -> 100, the region's end, and
    ``--include-low-confidence`` writes the far move."""
    p = swim_profile(parse_swim_line("j\t0\t0\t400000000000\t100000\t100000"))
    base = profile_config(p)
    red = "mapreduce.job.reduces"
    assert base.num_reducers == 400
    near = tune_job(p, base, CLUSTER)
    far = tune_job(p, base, CLUSTER, region=False)
    assert near.best[red] == 100.0
    assert far.best[red] < 100.0 and far.best_ms <= near.best_ms
    line = "j\t0\t0\t400000000000\t100000\t100000"
    ref = JobRef("j", "swim", "fb.tsv", line)
    by_flag = {
        low: {c["name"]: c["recommended"] for c in tune_ref(ref, s)["changes"]}
        for low, s in (
            (False, BatchSettings(cluster=CLUSTER)),
            (True, BatchSettings(cluster=CLUSTER, include_low_confidence=True)),
        )
    }
    assert by_flag[False][red] == 100 and by_flag[True][red] == far.best[red]


def test_each_job_says_what_its_gain_rests_on(shared_data: Path) -> None:
    """A SWIM row records sizes, not times: every cost factor is a default and its gain is
    the model's at prior costs (basis ``defaulted``); a job history measures some factors
    (``partly measured``, naming them); the summary counts the jobs with changes per basis."""
    from mrtune.optimizer.batch._report import csv_row, summarize
    from mrtune.optimizer.priors import PRIORS

    s = BatchSettings(cluster=CLUSTER)
    line = "j\t0\t0\t400000000000\t100000\t100000"
    swim = tune_ref(JobRef("j", "swim", "fb.tsv", line), s)
    assert swim["status"] == "tuned" and swim["changes"]
    assert swim["basis"] == "defaulted" and swim["measured_factors"] == []
    qmc = sorted((shared_data / "jhist").glob("*QuasiMonteCarlo*.jhist"))[0]
    hist = tune_ref(JobRef(str(qmc), "jhist", str(qmc)), s)
    assert hist["status"] == "tuned" and hist["basis"] == "partly measured"
    assert hist["measured_factors"] and set(hist["measured_factors"]) < set(PRIORS)
    assert csv_row(swim)["basis"] == "defaulted"
    summary = summarize([swim, hist], None, "time")
    assert summary["changed_by_basis"]["defaulted"] == 1
    assert sum(summary["changed_by_basis"].values()) == summary["changed"]


def test_lean_tuner_is_close_to_the_exhaustive_recommendation() -> None:
    # A large FB-2010 job with a reduce phase (job2 of the trace: 53 GB in, 1.5 GB shuffled).
    p = swim_profile(parse_swim_line(swim_rows(1, start=2)))
    base = profile_config(p)
    lean = tune_job(p, base, CLUSTER)
    ex = recommend(p, base, CLUSTER, strategy="exhaustive")
    assert lean.best_ms <= ex.recommended["job_ms"] * 1.02


def test_tune_ref_records_failures_instead_of_raising(tmp_path: Path) -> None:
    s = BatchSettings(cluster=CLUSTER)
    missing = JobRef(str(tmp_path / "gone.jhist"), "jhist", str(tmp_path / "gone.jhist"))
    r = tune_ref(missing, s)
    assert r["status"] == "failed" and "not found" in r["reason"]
    bad = JobRef("x:1", "profile", "x", json.dumps({"input_bytes": 0}))
    r = tune_ref(bad, s)
    assert r["status"] == "failed" and "input_bytes" in r["reason"]


def test_discover_rejects_missing_and_unknown_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        discover([tmp_path / "nope"])
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="unknown catalog file type"):
        discover([tmp_path / "notes.txt"])
    (tmp_path / "a.tsv").write_text(swim_rows(3))
    refs = discover([tmp_path, tmp_path / "a.tsv"])  # named twice: listed once
    assert [r.job_id for r in refs] == ["job0", "job1", "job2"]


def test_store_refuses_to_mix_settings(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "b.sqlite") as store:
        store.prepare("fp1", resume=False, overwrite=False)
        store.add([{"key": "k", "job_id": "j", "status": "tuned"}])
        with pytest.raises(InputError, match="--resume"):
            store.prepare("fp1", resume=False, overwrite=False)
        with pytest.raises(InputError, match="other settings"):
            store.prepare("fp2", resume=True, overwrite=False)
        store.prepare("fp1", resume=True, overwrite=False)
        assert store.done_keys() == {"k"}
        store.prepare("fp2", resume=False, overwrite=True)
        assert store.count() == 0


def test_a_rumen_trace_is_one_job_a_logged_job(shared_data: Path) -> None:
    # it was read as JSONL: 11,364 "failed jobs" for the 2009 trace, one a line
    trace = shared_data / "rumen" / "zombie-input-trace.json"
    refs = discover([trace])
    assert [r.job_id for r in refs] == [f"job_200904211745_000{i}" for i in (1, 2, 3, 4)]
    assert {r.kind for r in refs} == {"rumen"}
    s = BatchSettings(cluster=CLUSTER)
    killed, tuned = tune_ref(refs[0], s), tune_ref(refs[3], s)
    # a job killed on its cluster has nothing to tune: skipped, not mrtune's failure
    assert killed["status"] == "skipped" and "KILLED" in killed["reason"]
    assert tuned["status"] in ("tuned", "unchanged") and tuned["job_id"] == refs[3].job_id
    gz = discover([shared_data / "rumen" / "folder-input-trace.json.gz"])
    assert len(gz) > 10 and len({r.key for r in gz}) == len(gz)


def test_a_directory_gives_what_diagnose_reads_and_names_what_it_skips(
    shared_data: Path, tmp_path: Path
) -> None:
    """``batch DIR`` skipped a directory's Rumen traces without a word while ``diagnose DIR``
    read them (10 jobs instead of 77). Now a directory gives its Rumen traces (.json,
    .json.gz) and indented profile documents; any other .json is one line of ``skipped``."""
    cat = tmp_path / "cat"
    (cat / "sub").mkdir(parents=True)
    (cat / "trace.json").symlink_to(shared_data / "rumen" / "zombie-input-trace.json")
    gz = shared_data / "rumen" / "folder-input-trace.json.gz"
    (cat / "sub" / "folder.json.gz").symlink_to(gz)
    profile = REPO / "mrtune" / "examples" / "profiles" / "wordcount-rumen.json"
    (cat / "job.json").write_text(profile.read_text())  # indented: one document, one job
    (cat / "notes.json").write_text('{"a": 1}\n')
    (cat / "empty.json").write_text("")
    skipped: list[str] = []
    refs = discover([cat], skipped)
    rumen = [r for r in refs if r.kind == "rumen"]
    assert len(rumen) == 4 + len(discover([gz]))
    (doc,) = [r for r in refs if r.kind == "profile"]
    assert doc.key == f"{cat / 'job.json'}:1"
    assert JobProfile.model_validate_json(doc.payload).job_name == "WordCount"
    assert len(skipped) == 2 and all("\n" not in line for line in skipped)
    for line, name in zip(sorted(skipped), ("empty.json", "notes.json"), strict=True):
        assert line.startswith(f"{cat / name}: skipped: ") and "mrtune profile" in line
    # named directly, an indented profile is one job too (it was one failure a line)
    assert [r.key for r in discover([cat / "job.json"])] == [doc.key]

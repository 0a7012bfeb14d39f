"""JobHistory REST JSON: saved responses, and a live server (a local http.server on 127.0.0.1)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mrtune.calibration import build_profile, load_profile_source
from mrtune.errors import InputError
from mrtune.readers import fetch_jhs, load_history
from mrtune.readers.rest import load_rest_saved

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
REST = DATA / "rest"
JOB = "job_1326381300833_2_2"


def _response(name: str) -> dict:
    return json.loads((REST / name).read_text())["response"]


def test_saved_directory_gives_a_profile() -> None:
    h = load_rest_saved(REST)
    assert h.job_id == JOB and h.job_name == "Sleep job" and h.status == "SUCCEEDED"
    assert h.total_maps == 1 and h.total_reduces == 1
    assert len(h.successful("map")) == 1 and len(h.successful("reduce")) == 1
    (m,) = h.successful("map")
    assert m.elapsed_ms == 2638  # the attempt's own times, not the task's (6777)
    assert h.total_counters["MAP_OUTPUT_RECORDS"] == 1200
    p = build_profile(h)
    # the same kind of profile as a .jhist: statistics, phases, cost factors, provenance
    assert p.stats.map_pairs_sel == 1200  # 1 input record → 1200 output records
    assert p.stats.map_size_sel == pytest.approx(4800 / 48)
    assert p.provenance["stats.map_pairs_sel"].startswith("measured")
    r = next(t for t in p.observed if t.kind == "reduce")
    # one reduce: its shuffle/merge come from the job's averages (2540, 2589 ms)
    assert r.phases_ms["shuffle"] == 2540 and r.phases_ms["merge"] == 2589
    assert set(p.provenance) >= {f"costs.{f}" for f in type(p.costs).model_fields}
    assert p.cluster_facts["source_format"] == "rest"


def test_rest_profile_has_the_shape_of_a_jhist_profile() -> None:
    rest = load_profile_source(REST)
    jh = load_profile_source(next((DATA / "jhist").glob("job_1526555215992_0001-*.jhist")))
    assert set(rest.provenance) == set(jh.provenance)
    assert {k for k in jh.cluster_facts if not k.startswith("fit.")} - set(rest.cluster_facts) <= {
        "map_vcores",
        "reduce_vcores",
        "input_files_conf",
        "spills_per_map_estimated",
    }
    assert {o.kind for o in rest.observed} == {o.kind for o in jh.observed} == {"map", "reduce"}


def test_single_file_with_envelope_and_sniffing() -> None:
    assert load_history(REST / "04_jobCounters.json").total_counters["SPILLED_RECORDS"] == 2400
    # a file of job counters only holds no attempts: nothing to profile
    with pytest.raises(InputError, match="no successful task attempt"):
        load_profile_source(REST / "04_jobCounters.json")


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("00_historyInfo.json", "'historyInfo' REST response describes the server"),
        ("mr-appmaster/00_info.json", "'info' REST response describes the server"),
        ("03_jobAttempts.json", "describes the ApplicationMaster's attempts"),
    ],
)
def test_a_response_about_no_job_says_what_it_is(name: str, what: str) -> None:
    """The server's info and the AM attempts hold no job: said as such, with what to give
    (they were read as an empty job that had 'succeeded with no failed attempt')."""
    with pytest.raises(InputError, match=what) as info:
        load_rest_saved(REST / name)
    assert "a directory of the job's saved responses" in str(info.value)
    assert load_rest_saved(REST).job_id == JOB  # beside the job's responses, still read


def test_counters_alone_name_no_placeholder_job_and_no_success() -> None:
    """A counters response alone has no job id and no state: the profile error and the
    diagnosis say so rather than 'job job' and 'the job succeeded'."""
    from mrtune.diagnose import diagnose_view, load_jobs

    with pytest.raises(InputError, match=r"for the job \(its id not recorded\)"):
        load_profile_source(REST / "04_jobCounters.json")
    diag = diagnose_view(load_jobs(REST / "04_jobCounters.json")[0], resamples=0)
    state = next(f for f in diag.findings if f.key == "job_state")
    assert state.summary == "the job's final state is not recorded (UNKNOWN)"


def test_appmaster_running_job(tmp_path: Path) -> None:
    h = load_rest_saved(REST / "mr-appmaster")
    assert h.status == "RUNNING"
    # the RUNNING reduce attempt is not a successful one
    assert all(a.kind == "map" for a in h.attempts)


def test_attempt_finishing_before_it_starts_keeps_its_counters(tmp_path: Path) -> None:
    """The REST reader skipped such an attempt without a word, and its task's own times (6.8 s,
    with the wait for a container) were used as the attempt's. It ran: its counters count,
    its times are left out of the fit, and one warning counts it (profiling.task_checks)."""
    import shutil

    saved = tmp_path / "rest"
    shutil.copytree(REST, saved)
    for name in ("08_taskAttempts.json", "09_taskAttempt.json"):
        f = saved / name
        text = f.read_text()
        assert '"finishTime": 1326381453318' in text
        f.write_text(text.replace('"finishTime": 1326381453318', '"finishTime": 1326381440000'))
    h = load_rest_saved(saved)
    (m,) = h.successful("map")
    assert m.attempt_id == "attempt_1326381300833_2_2_m_0_0"
    p = build_profile(h)
    assert p.stats.map_pairs_sel == 1200
    assert [t.kind for t in p.observed] == ["reduce"]
    (line,) = [w for w in p.warnings if "not timed" in w]
    assert "1 finish before start (attempt_1326381300833_2_2_m_0_0)" in line
    task_times = [w for w in p.warnings if "task start/finish used" in w]
    assert not any("_m_0" in w for w in task_times)  # the reduce's task times only


@pytest.mark.parametrize(
    ("content", "expected"),
    [("", "empty"), ("{nope", "malformed JSON at line 1"), ('{"x": 1}', "no JobHistory REST")],
)
def test_bad_saved_files(tmp_path: Path, content: str, expected: str) -> None:
    f = tmp_path / "r.json"
    f.write_text(content)
    with pytest.raises(InputError, match=expected) as info:
        load_rest_saved(f)
    assert str(f) in str(info.value)


def test_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no .json files"):
        load_rest_saved(tmp_path)


# ------------------------------------------------------------------------------ live server
ROOT = f"/ws/v1/history/mapreduce/jobs/{JOB}"
ROUTES: dict[str, object] = {
    ROOT: _response("02_job.json"),
    f"{ROOT}/counters": _response("04_jobCounters.json"),
    f"{ROOT}/tasks": _response("05_tasks.json"),
    f"{ROOT}/tasks/task_1326381300833_2_2_m_0/attempts": _response("08_taskAttempts.json"),
    f"{ROOT}/tasks/task_1326381300833_2_2_m_0/attempts/attempt_1326381300833_2_2_m_0_0/counters": (
        _response("10_jobTaskAttemptCounters.json")
    ),
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?", 1)[0]
        if path.endswith("/job_1_1"):
            time.sleep(1.5)  # slower than the client's timeout
        if path.endswith("/job_2_2"):
            body, ctype, code = b"<html>login</html>", "text/html", 200
        elif path in ROUTES:
            body, ctype, code = json.dumps(ROUTES[path]).encode(), "application/json", 200
        else:
            body, ctype, code = b'{"RemoteException": {}}', "application/json", 404
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_live_server_matches_saved_files(server: str) -> None:
    live = fetch_jhs(server, JOB, timeout=5)
    saved = load_rest_saved(REST)
    assert live.job_id == saved.job_id
    assert live.total_counters == saved.total_counters
    assert [a.attempt_id for a in live.successful("map")] == ["attempt_1326381300833_2_2_m_0_0"]
    # /conf and the reduce's attempts are 404 here: warnings, not failures
    assert any("configuration not read" in w for w in live.warnings)
    assert any("attempts of task_1326381300833_2_2_r_0 not read" in w for w in live.warnings)
    p_live, p_saved = build_profile(live), build_profile(saved)
    assert p_live.stats == p_saved.stats
    assert p_live.observed[0].phases_ms == p_saved.observed[0].phases_ms


def test_live_server_accepts_full_api_url(server: str) -> None:
    h = fetch_jhs(server + "/ws/v1/history/mapreduce/jobs", JOB, timeout=5)
    assert h.job_id == JOB


def test_live_unknown_job_is_one_line(server: str) -> None:
    with pytest.raises(InputError, match="HTTP 404") as info:
        fetch_jhs(server, "job_3_3", timeout=5)
    assert "\n" not in str(info.value)


def test_live_timeout(server: str) -> None:
    t0 = time.monotonic()
    with pytest.raises(InputError, match="no complete answer within 0.3 s"):
        fetch_jhs(server, "job_1_1", timeout=0.3)
    assert time.monotonic() - t0 < 1.4


def test_live_not_json(server: str) -> None:
    with pytest.raises(InputError, match="not JSON"):
        fetch_jhs(server, "job_2_2", timeout=5)


def test_live_connection_refused() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InputError, match="cannot connect"):
        fetch_jhs(f"http://127.0.0.1:{port}", JOB, timeout=2)


@pytest.mark.parametrize(
    ("url", "job", "expected"),
    [("ftp://x", JOB, "not an http"), ("http://127.0.0.1:1", "42", "not a job id")],
)
def test_live_bad_arguments(url: str, job: str, expected: str) -> None:
    with pytest.raises(InputError, match=expected):
        fetch_jhs(url, job)

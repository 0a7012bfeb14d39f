"""``mrtune profile`` through Typer's CliRunner on ``mrtune.cli.app``."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
QMC1 = next((DATA / "jhist").glob("job_1526555215992_0001-*.jhist"))
QMC1_CONF = DATA / "jhist" / "job_1526555215992_0001_conf.xml"

runner = CliRunner()


def _one_error_line(result) -> str:  # noqa: ANN001
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_profile_jhist_text_and_file(tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    result = runner.invoke(
        app,
        ["profile", str(QMC1), "--conf", str(QMC1_CONF), "-o", str(out)],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "job_1526555215992_0001" in text and "QuasiMonteCarlo" in text
    for needle in ("2,031", "66", "1,982", "17", "212", "2,097"):  # phase times
        assert needle in text
    assert "map_pairs_sel" in text and "measured" in text and "defaulted" in text
    assert "task_overhead_ms" in text
    assert "cost factors measured:" in text
    assert f"profile written to {out}" in text
    prof = JobProfile.model_validate_json(out.read_text())
    assert prof.job_id == "job_1526555215992_0001"
    assert prof.cluster_facts["map_container_mb"] == 1024


def test_profile_json_format_equals_file(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    result = runner.invoke(app, ["profile", str(QMC1), "--format", "json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed == json.loads(out.read_text())
    assert printed["stats"]["map_pairs_sel"] == 2


def test_profile_rumen_and_rest() -> None:
    r = runner.invoke(app, ["profile", str(DATA / "rumen" / "wordcount-rumen.json")])
    assert r.exit_code == 0, r.output
    assert "job_201009241532_0001" in r.stdout and "WordCount" in r.stdout
    r = runner.invoke(app, ["profile", str(DATA / "rest"), "--from", "rest", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["job_id"] == "job_1326381300833_2_2"
    r = runner.invoke(
        app,
        [
            "profile",
            str(DATA / "rumen" / "2jobs2min-rumen-jh.json"),
            "--job",
            "job_1369942127770_1206",
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["job_id"] == "job_1369942127770_1206"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ([str(DATA / "jhist" / "job_2.4.0-FAILED.jhist")], "FAILED: no successful task attempt"),
        (
            [str(next((DATA / "jhist").glob("job_1410289045532_259974-*.jhist")))],
            "truncated job history",
        ),
        ([str(QMC1), "--conf", "/nonexistent/job_conf.xml"], "configuration file not found"),
        (["/nonexistent/job.jhist"], "file not found"),
        ([], "give a history PATH"),
        (["--jhs", "http://127.0.0.1:1"], "--jhs needs --job"),
        ([str(QMC1), "--input", str(QMC1_CONF)], "apply to --from starfish only"),
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str], needle: str) -> None:
    line = _one_error_line(runner.invoke(app, ["profile", *args]))
    assert needle in line


def test_profile_live_jobhistory_server(tmp_path: Path) -> None:
    """--jhs URL --job ID against a local http.server serving the saved REST responses."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    rest = DATA / "rest"
    root = "/ws/v1/history/mapreduce/jobs/job_1326381300833_2_2"
    routes = {
        root: "02_job.json",
        f"{root}/counters": "04_jobCounters.json",
        f"{root}/tasks": "05_tasks.json",
        f"{root}/tasks/task_1326381300833_2_2_m_0/attempts": "08_taskAttempts.json",
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            name = routes.get(self.path)
            body = (
                json.dumps(json.loads((rest / name).read_text())["response"]).encode()
                if name
                else b"{}"
            )
            self.send_response(200 if name else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        out = tmp_path / "live.json"
        r = runner.invoke(
            app, ["profile", "--jhs", url, "--job", "job_1326381300833_2_2", "-o", str(out)]
        )
        assert r.exit_code == 0, r.output
        assert "job_1326381300833_2_2" in r.stdout and "Sleep job" in r.stdout
        assert JobProfile.model_validate_json(out.read_text()).stats.map_pairs_sel == 1200
        r = runner.invoke(app, ["profile", "--jhs", url, "--job", "job_7_7"])
        assert "HTTP 404" in _one_error_line(r)
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_empty_and_malformed_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jhist"
    empty.write_text("")
    assert "empty" in _one_error_line(runner.invoke(app, ["profile", str(empty)]))
    bad = tmp_path / "bad.json"
    bad.write_text('{"jobID": "job_1_1", "mapTasks": [')
    line = _one_error_line(runner.invoke(app, ["profile", str(bad)]))
    assert str(bad) in line and "malformed JSON" in line
    evil = tmp_path / "evil_conf.xml"
    evil.write_text('<!DOCTYPE c [<!ENTITY a "b">]><configuration/>')
    line = _one_error_line(runner.invoke(app, ["profile", str(QMC1), "--conf", str(evil)]))
    assert "refused" in line


def test_partial_profile_warns(tmp_path: Path) -> None:
    lines = QMC1.read_text().splitlines()
    cut = tmp_path / "cut.jhist"
    cut.write_text("\n".join(ln for ln in lines if '"JOB_FINISHED"' not in ln))
    r = runner.invoke(app, ["profile", str(cut), "--conf", str(QMC1_CONF)])
    assert r.exit_code == 0, r.output
    assert "no JOB_FINISHED" in r.stdout


def test_from_starfish_dispatches_lazily(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: dict[str, object] = {}

    def load_starfish(profile_xml, input_xml=None, cluster_xml=None, conf_xml=None):  # noqa: ANN001, ANN202
        calls.update(profile=profile_xml, input=input_xml, cluster=cluster_xml, conf=conf_xml)
        return (
            JobProfile(job_id="job_starfish", input_bytes=1e9),
            HadoopConfig(hadoop_version=1),
            ClusterSpec(num_nodes=4),
        )

    fake = types.ModuleType("mrtune.profiling.starfish")
    fake.load_starfish = load_starfish  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mrtune.profiling.starfish", fake)
    prof_xml, inp, clu = (tmp_path / n for n in ("p.xml", "i.xml", "c.xml"))
    for f in (prof_xml, inp, clu):
        f.write_text("<x/>")
    r = runner.invoke(
        app,
        [
            "profile",
            str(prof_xml),
            "--from",
            "starfish",
            "--input",
            str(inp),
            "--cluster",
            str(clu),
            "--conf",
            str(QMC1_CONF),
            "--format",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert calls == {
        "profile": str(prof_xml),
        "input": str(inp),
        "cluster": str(clu),
        "conf": str(QMC1_CONF),
    }
    data = json.loads(r.stdout)
    assert data["job_id"] == "job_starfish"
    assert data["cluster_facts"]["cluster_spec.num_nodes"] == 4
    assert data["source_properties"]["mapreduce.task.io.sort.mb"] == "100"


def test_from_starfish_without_the_reader(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(
        sys.modules, "mrtune.profiling.starfish", None
    )  # as if the module were absent
    f = tmp_path / "p.xml"
    f.write_text("<x/>")
    line = _one_error_line(runner.invoke(app, ["profile", str(f), "--from", "starfish"]))
    assert "Starfish profile reader" in line

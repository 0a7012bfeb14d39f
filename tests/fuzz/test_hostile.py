"""Hostile files: each defect of issue 15 and each XML attack ends in one clean line.

Commands run in-process (Typer's ``CliRunner``): exit code 2 and exactly one ``error:`` line
on stderr for bad input, never a traceback; the live JobHistory client is exercised against
loopback servers that drip and that stream without end.
"""

from __future__ import annotations

import gzip
import json
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.errors import InputError
from tests.fuzz.mutators import DATA, EXAMPLES, XML_ATTACKS

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data is missing")

JHIST = next((DATA / "jhist").glob("job_1526555215992_0001-*.jhist"), Path("missing"))
CONF = DATA / "jhist" / "job_1526555215992_0001_conf.xml"
PROFILE = EXAMPLES / "profiles" / "wordcount-rumen.json"
RUMEN = DATA / "rumen" / "wordcount-rumen.json"
REST_JOB = DATA / "rest" / "02_job.json"


def run(*args: str | Path, env: dict[str, str | None] | None = None):  # noqa: ANN201
    res = CliRunner().invoke(app, [str(a) for a in args], env=env)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res


def messages(stderr: str) -> list[str]:
    """stderr as messages: each starts ``warning:``, ``note:`` or ``error:``; a warning wraps
    at the terminal's width, its continuation lines belong to it (an error is one line)."""
    out: list[str] = []
    for line in stderr.strip().splitlines():
        if out and not line.startswith(("warning:", "note:", "error:")):
            out[-1] += "\n" + line
        else:
            out.append(line)
    return out


def one_error_line(res, *needles: str) -> str:  # noqa: ANN001
    # a profile's own warnings (e.g. its calibration check) may precede the error
    lines = [m for m in messages(res.stderr) if not m.startswith(("warning:", "note:"))]
    err = "\n".join(lines)
    assert res.exit_code == 2, (res.exit_code, err, res.stdout[-500:])
    assert err.startswith("error:") and "\n" not in err, err
    assert "Traceback" not in err
    for n in needles:
        assert n in err, (n, err)
    return err


# ------------------------------------------------------------------ 1. one error path
def test_markup_in_a_value_is_printed_literally() -> None:
    res = run("whatif", PROFILE, "--set", "mapreduce.task.io.sort.mb=[/]")
    one_error_line(res, "[/]", "mapreduce.task.io.sort.mb")


def test_markup_in_a_file_name_is_printed_literally(tmp_path: Path) -> None:
    f = tmp_path / "c[bold]d.jhist"
    f.write_bytes(b"Avro-Json\n{not json\n")
    one_error_line(run("profile", f), "c[bold]d.jhist")


@pytest.mark.parametrize(
    "args",
    [
        ["whatif", "--bogus"],
        ["whatif"],
        ["nosuchcommand"],
        ["whatif", str(PROFILE), "--format", "xml"],
        ["--max-input-mb", "0", "whatif", str(PROFILE)],
    ],
)
def test_usage_errors_are_one_line(args: list[str]) -> None:
    one_error_line(run(*args))


def test_a_bug_is_one_line_with_a_debug_hint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import mrtune.cli as cli
    import mrtune.cli._inputs as inputs

    def boom(*a: object, **k: object) -> None:
        raise ZeroDivisionError("synthetic bug")

    monkeypatch.setattr(inputs, "load_job", boom)
    monkeypatch.setattr("mrtune.cli.whatif.load_job", boom, raising=False)
    monkeypatch.setattr(sys, "argv", ["mrtune", "whatif", str(PROFILE)])
    monkeypatch.delenv("MRTUNE_DEBUG", raising=False)
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "bug" in err and "--debug" in err and "ZeroDivisionError" in err


# --------------------------------------------------------------------- 2. bounded input
def test_size_cap_is_checked_before_parsing(tmp_path: Path) -> None:
    from mrtune.readers import load_conf, load_jhist, load_rest_saved, load_rumen
    from mrtune.readers.phase_data import load_phase_data
    from mrtune.readers.run_records import read_jsonl
    from mrtune.readers.swim import iter_swim
    from mrtune.readers.workflow_file import load_workflow

    big = tmp_path / "big"
    big.write_bytes(b"Avro-Json\n" + b"x" * (3 << 20))
    readers = [
        load_jhist,
        load_rest_saved,
        load_rumen,
        load_conf,
        lambda p: list(iter_swim(p)),
        load_workflow,
        lambda p: load_phase_data([p]),
        read_jsonl,
    ]
    mp = pytest.MonkeyPatch()
    mp.setenv("MRTUNE_MAX_INPUT_MB", "1")
    try:
        for reader in readers:
            t0 = time.process_time()
            with pytest.raises(InputError, match="MiB input limit"):
                reader(big)
            assert time.process_time() - t0 < 0.5
    finally:
        mp.undo()


def test_max_input_flag_raises_the_cap(tmp_path: Path) -> None:
    f = tmp_path / "big.jhist"
    f.write_bytes(JHIST.read_bytes() + b"\n" * (2 << 20))
    env = {"MRTUNE_MAX_INPUT_MB": None}
    one_error_line(run("--max-input-mb", "1", "profile", f, "--format", "json", env=env), "limit")
    res = run("--max-input-mb", "8", "profile", f, "--format", "json", env=env)
    assert res.exit_code == 0, res.stderr


def test_gzip_bomb_stops_at_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mrtune.readers import load_rumen

    f = tmp_path / "bomb.json.gz"
    f.write_bytes(gzip.compress(b" " * (20 << 20)))
    monkeypatch.setenv("MRTUNE_MAX_INPUT_MB", "4")
    with pytest.raises(InputError, match="decompressed"):
        load_rumen(f)


def test_one_gigabyte_of_junk_is_refused_fast(tmp_path: Path) -> None:
    """A sparse 1 GiB file after an Avro-Json header: refused from its size, no byte read."""
    import resource

    f = tmp_path / "junk.jhist"
    with f.open("wb") as fh:
        fh.write(b"Avro-Json\n")
        fh.truncate(1 << 30)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.process_time()
    one_error_line(run("profile", f, env={"MRTUNE_MAX_INPUT_MB": None}), "input limit")
    assert time.process_time() - t0 < 5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB


BOMB = "[" * (1 << 20)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("profile.json", BOMB),
        ("rest.json", '{"job": ' + BOMB),
        ("rumen.json", '{"jobID": "job_1_1", "mapTasks": ' + BOMB),
        ("events.jhist", "Avro-Json\n{}\n" + '{"type": "JOB_FINISHED", "event": ' + BOMB + "\n"),
        ("wf.json", '{"jobs": ' + BOMB),
        ("wf.yaml", "jobs: " + BOMB),
        ("deep.yaml", "".join("  " * i + f"k{i}:\n" for i in range(3000))),
        ("runs.jsonl", BOMB),
    ],
)
def test_nesting_bombs_are_refused(tmp_path: Path, name: str, content: str) -> None:
    from mrtune.readers.run_records import read_jsonl
    from mrtune.readers.workflow_file import load_workflow

    f = tmp_path / name
    f.write_text(content)
    if name.startswith("wf") or name.startswith("deep"):
        with pytest.raises(InputError, match="nest|deep"):
            load_workflow(f)
    elif name.endswith(".jsonl"):
        with pytest.raises(InputError, match="nest"):
            read_jsonl(f)
    else:
        one_error_line(run("whatif" if name == "profile.json" else "profile", f), "nest")


def test_yaml_is_loaded_safely(tmp_path: Path) -> None:
    from mrtune.readers.workflow_file import load_workflow

    f = tmp_path / "evil.yaml"
    f.write_text(
        'jobs: !!python/object/apply:os.system ["touch ' + str(tmp_path / "pwned") + '"]\n'
    )
    with pytest.raises(InputError):
        load_workflow(f)
    assert not (tmp_path / "pwned").exists()
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    f.write_text(laughs + "jobs: [*i]\n")
    t0 = time.process_time()
    with pytest.raises(InputError, match="expands|alias"):
        load_workflow(f)
    assert time.process_time() - t0 < 10


@pytest.mark.parametrize(
    ("args", "content", "needle"),
    [
        (["fit"], "Operation,Duration\ncaf\xe9,1\n".encode("latin-1"), "UTF-8"),
        (["profile"], "Avro-Json\n{}\n".encode("utf-16"), "UTF-16"),
        (["profile"], b"Avro-Json\n{}\n\xff\xfe\xfa\n", "UTF-8"),
    ],
)
def test_encodings(tmp_path: Path, args: list[str], content: bytes, needle: str) -> None:
    f = tmp_path / ("x.csv" if args == ["fit"] else "x.jhist")
    f.write_bytes(content)
    one_error_line(run(*args, f), needle)


def test_binary_cluster_file(tmp_path: Path) -> None:
    f = tmp_path / "cluster.json"
    f.write_bytes(bytes(range(256)) * 4)
    one_error_line(run("whatif", PROFILE, "--cluster", f), "cluster.json")


# ------------------------------------------------------------------- XML attacks
@pytest.mark.parametrize("attack", sorted(XML_ATTACKS))
def test_xml_attacks_are_refused(tmp_path: Path, attack: str) -> None:
    f = tmp_path / f"{attack}.xml"
    f.write_bytes(XML_ATTACKS[attack])
    t0 = time.process_time()
    err = one_error_line(run("profile", JHIST, "--conf", f), f"{attack}.xml")
    assert time.process_time() - t0 < 5
    assert "root:" not in err  # no file content leaked into the message


# ------------------------------------------------------------------- 3. numbers
@pytest.mark.parametrize(
    "number", ["Infinity", "-Infinity", "NaN", "1e999", "99999999999999999999999"]
)
def test_non_finite_and_huge_json_numbers(tmp_path: Path, number: str) -> None:
    for src, key in ((REST_JOB, '"mapsTotal"'), (RUMEN, '"finishTime"')):
        text, n = re.subn(key + r"\s*:\s*-?\d+", f"{key}: {number}", src.read_text(), count=1)
        assert n == 1, key
        f = tmp_path / src.name
        f.write_text(text)
        one_error_line(run("profile", f), src.name)
    prof = json.loads(PROFILE.read_text())
    f = tmp_path / "p.json"
    f.write_text(json.dumps(prof).replace('"input_bytes": ', f'"input_bytes": {number}, "x": ', 1))
    one_error_line(run("whatif", f))
    one_error_line(run("optimize", f, "--trials", "5"))


def test_infinite_input_in_a_profile_is_refused(tmp_path: Path) -> None:
    prof = json.loads(PROFILE.read_text())
    prof["input_bytes"] = 1e308
    prof["stats"]["map_size_sel"] = 1e308
    f = tmp_path / "p.json"
    f.write_text(json.dumps(prof))
    res = run("optimize", f, "--trials", "5", "--format", "json")
    assert res.exit_code in (0, 2), res.stderr
    if res.exit_code == 0:
        from tests.fuzz.harness import check_prediction

        assert check_prediction(json.loads(res.stdout)) == []


@pytest.mark.parametrize("size", ["1e300TB", "1e999GB", "500", "0.1B", "-5GB", "nanGB"])
def test_input_size_is_validated(size: str) -> None:
    one_error_line(run("whatif", PROFILE, "--input-size", size), "--input-size")
    one_error_line(run("optimize", PROFILE, "--input-size", size, "--trials", "5"))


def test_conf_integer_above_a_java_long(tmp_path: Path) -> None:
    text = CONF.read_text().replace(
        "<name>mapreduce.task.io.sort.factor</name><value>10</value>",
        "<name>mapreduce.task.io.sort.factor</name><value>99999999999999999999999</value>",
    )
    assert "99999999999999999999999" in text
    f = tmp_path / "conf.xml"
    f.write_text(text)
    res = run("whatif", JHIST, "--conf", f, "--format", "json")
    assert res.exit_code in (0, 2), res.stderr
    if res.exit_code == 0:  # the property is dropped with a warning, defaults assumed
        assert "99999999999999999999999" not in json.dumps(json.loads(res.stdout)["what_if"])


def test_attempt_finishing_before_it_starts_is_untimed(tmp_path: Path) -> None:
    """Only its times contradict: its counters stay in the dataflow, its times are left out of
    the observed timings, and one warning counts it (profiling.task_checks)."""
    lines = JHIST.read_text().split("\n")
    for i, ln in enumerate(lines):
        if '"MAP_ATTEMPT_STARTED"' in ln:
            lines[i] = ln.replace('"startTime":1526555651139', '"startTime":1526556000000')
    f = tmp_path / JHIST.name
    f.write_text("\n".join(lines))
    out = tmp_path / "p.json"
    res = run("profile", f, "-o", out, "--format", "json")
    assert res.exit_code == 0, res.stderr
    prof = json.loads(out.read_text())
    assert any("not timed" in w and "finish before start" in w for w in prof["warnings"])
    assert not any("inconsistent task attempt" in w for w in prof["warnings"])
    assert prof["cluster_facts"]["successful_map_attempts"] == 1
    assert [t["kind"] for t in prof["observed"]] == ["reduce"]
    for t in prof["observed"]:
        assert t["finish_ms"] >= t["start_ms"]
        assert all(v >= 0 for v in t["phases_ms"].values())


def test_inconsistent_attempts_are_counted_per_task() -> None:
    from mrtune.profiling.task_checks import screen_history
    from mrtune.readers import load_jhist

    h = load_jhist(next((DATA / "jhist").glob("job_1329348432655_0001-*.jhist")))
    maps = h.successful("map")
    assert len(maps) >= 3
    maps[0].finish_ms = maps[0].start_ms - 346_763
    maps[1].counters["MAP_OUTPUT_RECORDS"] = -5.0
    screened = screen_history(h)
    # a contradicting counter excludes the attempt; a finish before its start only untimes it
    assert len(screened.attempts) == len(h.attempts) - 1
    assert maps[0].attempt_id in {a.attempt_id for a in screened.successful("map")}
    assert maps[0].attempt_id not in {a.attempt_id for a in screened.timed("map")}
    assert maps[0].untimed is None  # the history as read is left as it was
    w = [x for x in screened.warnings if "inconsistent" in x]
    assert w == [
        f"1 inconsistent task attempt(s) excluded: 1 negative counter MAP_OUTPUT_RECORDS=-5 "
        f"({maps[1].attempt_id})"
    ]
    (u,) = [x for x in screened.warnings if "not timed" in x]
    assert u.startswith(
        f"1 task attempt(s) not timed: 1 finish before start ({maps[0].attempt_id})"
    )
    assert screened.facts["untimed_attempts"] == 1
    assert screened.facts["inconsistent_attempts_excluded"] == 1


# ------------------------------------------------------------------- 4. configuration sanity
@pytest.mark.parametrize(
    ("sets", "needle"),
    [
        (
            ["mapreduce.map.memory.mb=1024", "mapreduce.map.java.opts=-Xmx100g"],
            "larger than its container",
        ),
        (["mapreduce.map.java.opts=-Xmx100g"], "larger than its container"),
        (["mapreduce.map.memory.mb=16384"], "a map container of 16384 MB cannot run"),
        (["mapreduce.map.cpu.vcores=1000"], "vcores"),
        (["mapreduce.reduce.cpu.vcores=9"], "vcores"),
        (["mapreduce.task.io.sort.mbb=50"], "did you mean mapreduce.task.io.sort.mb"),
        (["mapreduce.map.memory.mb=99999999999999999999999"], "mapreduce.map.memory.mb"),
    ],
)
def test_configuration_sanity(sets: list[str], needle: str) -> None:
    args: list[str] = []
    for s in sets:
        args += ["--set", s]
    one_error_line(run("whatif", JHIST, *args), needle)  # a YARN job (Hadoop 1 has slots)


# ------------------------------------------------------------------- live JobHistory server
class _Hostile:
    """A loopback server: ``drip`` sends one byte every 2 s, ``endless`` streams forever
    (``flood``: as fast as the socket takes it)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            conn.recv(65536)
            if self.mode == "drip":
                for b in b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"job": {}}':
                    if self.stop.is_set():
                        break
                    conn.sendall(bytes([b]))
                    time.sleep(2)
            else:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[")
                chunk = b"1," * 32768
                while not self.stop.is_set():
                    conn.sendall(chunk)
                    if self.mode == "endless":  # ~6 MB/s: the deadline comes before the cap
                        time.sleep(0.01)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.fixture(params=["drip", "endless"])
def hostile(request: pytest.FixtureRequest) -> Iterator[_Hostile]:
    s = _Hostile(request.param)
    yield s
    s.close()


def test_live_jhs_total_deadline_and_size_cap(
    hostile: _Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mrtune.readers import fetch_jhs

    monkeypatch.setenv("MRTUNE_MAX_INPUT_MB", "256")  # the deadline, not the cap, must stop it
    t0 = time.monotonic()
    with pytest.raises(InputError, match="within 3 s"):
        fetch_jhs(hostile.url, "job_1_1", timeout=3)
    assert time.monotonic() - t0 < 4.5


def test_live_jhs_response_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    from mrtune.readers import fetch_jhs

    s = _Hostile("flood")
    try:
        monkeypatch.setenv("MRTUNE_MAX_INPUT_MB", "2")
        t0 = time.monotonic()
        with pytest.raises(InputError, match="input limit"):
            fetch_jhs(s.url, "job_1_1", timeout=30)
        assert time.monotonic() - t0 < 10
    finally:
        s.close()


def test_live_jhs_through_the_cli_is_one_line() -> None:
    s = _Hostile("drip")
    try:
        t0 = time.monotonic()
        res = run("profile", "--jhs", s.url, "--job", "job_1_1", "--timeout", "1")
        one_error_line(res, "total deadline")
        assert time.monotonic() - t0 < 3
    finally:
        s.close()

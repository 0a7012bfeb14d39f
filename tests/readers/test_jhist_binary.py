"""Binary (``Avro-Binary``) job histories read the same as their JSON twins.

Hadoop 3 writes ``.jhist`` files Avro-binary by default (``EventWriter`` ``WriteMode.BINARY``).
Each real JSON history in ``../shared/data/jhist`` is re-encoded here, in ``tmp_path``, the way
``EventWriter`` frames it (``Avro-Binary``, the schema line, then datum after datum) with the
file's own schema; reading either must give the same :class:`JobHistory` and the same profile.
Truncated and damaged binary files must be one :class:`InputError`, never a traceback.
"""

from __future__ import annotations

import dataclasses
import io
import json
import random
from pathlib import Path

import fastavro
import pytest

from mrtune.calibration import build_profile
from mrtune.errors import InputError
from mrtune.readers import load_conf, load_history, load_jhist, sniff_format
from mrtune.readers.jhist import read_events

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
JHIST = sorted((DATA / "jhist").glob("*.jhist"))
QMC1 = next(p for p in JHIST if p.name.startswith("job_1526555215992_0001-"))


def to_binary(src: Path, dest_dir: Path) -> Path:
    """Re-encode a JSON history as ``EventWriter`` writes a binary one (same file name)."""
    lines = src.read_text(encoding="utf-8").split("\n")
    schema = json.loads(lines[1])
    records = list(fastavro.json_reader((ln for ln in lines[2:] if ln.strip()), schema))
    parsed = fastavro.parse_schema(schema)
    buf = io.BytesIO()
    buf.write(b"Avro-Binary\n" + lines[1].encode("utf-8") + b"\n")
    for record in records:
        fastavro.schemaless_writer(buf, parsed, record)
    dest = dest_dir / src.name
    dest.write_bytes(buf.getvalue())
    return dest


def _conf_for(src: Path):
    conf = src.parent / (src.name.split("-", 1)[0] + "_conf.xml")
    return load_conf(conf) if conf.exists() else None


def _history(path: Path) -> dict:
    d = dataclasses.asdict(load_jhist(path))
    assert d.pop("source") == str(path)
    return d


@pytest.mark.parametrize("src", JHIST, ids=lambda p: p.name.split("-", 1)[0])
def test_binary_reads_like_json(src: Path, tmp_path: Path) -> None:
    binary = to_binary(src, tmp_path)
    assert binary.read_bytes()[:12] == b"Avro-Binary\n"
    assert sniff_format(binary) == "jhist"
    assert read_events(binary) == read_events(src)
    assert _history(binary) == _history(src)
    assert _history(src)["attempts"] or _history(src)["status"] != "SUCCEEDED"


@pytest.mark.parametrize("src", JHIST, ids=lambda p: p.name.split("-", 1)[0])
def test_binary_profile_identical(src: Path, tmp_path: Path) -> None:
    binary = to_binary(src, tmp_path)
    conf = _conf_for(src)

    def profile_json(path: Path) -> str:
        try:
            got = build_profile(load_history(path), conf).model_dump_json()
        except InputError as exc:
            got = f"InputError: {exc}"
        return got.replace(str(path), "<path>")

    got = profile_json(binary)
    assert got == profile_json(src)
    if conf is not None:  # the successful QuasiMonteCarlo and Sleep jobs: a real profile
        assert not got.startswith("InputError") and '"observed"' in got


@pytest.fixture(scope="module")
def qmc_binary(tmp_path_factory) -> tuple[bytes, int]:
    """The binary twin of a real QuasiMonteCarlo history and where its events start."""
    data = to_binary(QMC1, tmp_path_factory.mktemp("qmc")).read_bytes()
    return data, data.index(b"\n", data.index(b"\n") + 1) + 1


def _refused(tmp_path: Path, data: bytes) -> str:
    bad = tmp_path / "bad.jhist"
    bad.write_bytes(data)
    with pytest.raises(InputError) as exc:
        load_jhist(bad)
    msg = str(exc.value)
    assert "\n" not in msg and str(bad) in msg
    return msg


def test_truncated_inside_an_event(tmp_path: Path, qmc_binary) -> None:
    data, start = qmc_binary
    rng = random.Random(7)
    for cut in [start + 1, len(data) - 1, *rng.sample(range(start + 1, len(data)), 40)]:
        bad = tmp_path / "cut.jhist"
        bad.write_bytes(data[:cut])
        try:
            h = load_jhist(bad)
        except InputError as exc:
            assert "truncated or corrupt binary job history" in str(exc)
            assert "\n" not in str(exc)
        else:  # cut exactly between two events: an incomplete but well-formed history
            assert h.complete is False and h.status == "INCOMPLETE"


def test_truncated_between_events_is_incomplete(tmp_path: Path, qmc_binary) -> None:
    data, start = qmc_binary
    # Re-encode the first 5 events only: a history whose job has not finished yet.
    lines = QMC1.read_text(encoding="utf-8").split("\n")
    schema = fastavro.parse_schema(json.loads(lines[1]))
    recs = list(fastavro.json_reader((ln for ln in lines[2:] if ln.strip()), json.loads(lines[1])))
    buf = io.BytesIO()
    for r in recs[:5]:
        fastavro.schemaless_writer(buf, schema, r)
    part = tmp_path / "part.jhist"
    part.write_bytes(data[:start] + buf.getvalue())
    h = load_jhist(part)
    assert h.complete is False and h.status == "INCOMPLETE"
    assert any("no JOB_FINISHED" in w for w in h.warnings)


def test_cut_in_header(tmp_path: Path, qmc_binary) -> None:
    data, start = qmc_binary
    assert "empty" in _refused(tmp_path, b"")
    assert "no schema on line 2" in _refused(tmp_path, b"Avro-Binary\n")
    msg = _refused(tmp_path, data[: start // 2])
    assert "line 2" in msg
    assert "no events" in _refused(tmp_path, data[:start])


def test_byte_flips_never_traceback(tmp_path: Path, qmc_binary) -> None:
    data, start = qmc_binary
    rng = random.Random(11)
    refused = 0
    for _ in range(150):
        d = bytearray(data)
        d[rng.randrange(start, len(d))] ^= 1 << rng.randrange(8)
        bad = tmp_path / "flip.jhist"
        bad.write_bytes(bytes(d))
        try:
            load_jhist(bad)
        except InputError as exc:
            assert "\n" not in str(exc)
            refused += 1
    assert refused > 0  # some flips break the encoding and are caught, not raised raw


def test_union_index_out_of_range(tmp_path: Path, qmc_binary) -> None:
    data, start = qmc_binary
    # The first datum is the Event record: enum ``type`` (a zig-zag varint) then the union
    # index of ``event``. A huge union index is corruption no schema can decode.
    d = data[:start] + b"\x00\x7e" + data[start + 2 :]
    msg = _refused(tmp_path, d)
    assert "event 1 (at byte" in msg and "IndexError" in msg


def test_trailing_junk_refused(tmp_path: Path, qmc_binary) -> None:
    data, _ = qmc_binary
    msg = _refused(tmp_path, data + b"\xff" * 3)
    assert "truncated or corrupt binary job history" in msg


def test_bad_schema_line(tmp_path: Path, qmc_binary) -> None:
    data, start = qmc_binary
    msg = _refused(tmp_path, b'Avro-Binary\n{"type": "record"}\n' + data[start:])
    assert "not the schema of Hadoop's Event record" in msg
    event = {"type": "record", "name": "Event", "fields": [{"name": "type", "type": "int"}]}
    event["fields"].append({"name": "event", "type": "bogus"})
    msg = _refused(tmp_path, b"Avro-Binary\n" + json.dumps(event).encode() + b"\n\x02\x02")
    assert "not a valid Avro schema" in msg
    event["fields"][1]["type"] = "int"
    msg = _refused(tmp_path, b"Avro-Binary\n" + json.dumps(event).encode() + b"\n\x02\x02")
    assert "event 1 (at byte" in msg and "is not a record" in msg


def test_size_cap(tmp_path: Path, qmc_binary, monkeypatch) -> None:
    data, _ = qmc_binary
    monkeypatch.setenv("MRTUNE_MAX_INPUT_MB", "1")  # the least the flag takes too
    assert "input limit" in _refused(tmp_path, data + b"\0" * (1 << 20))


def test_short_schema_sniffed(tmp_path: Path) -> None:
    schema = {"type": "record", "name": "Event", "fields": [{"name": "type", "type": "string"}]}
    f = tmp_path / "tiny.jhist"
    f.write_bytes(b"Avro-Binary\n" + json.dumps(schema).encode() + b"\n\x06\xff\xfe\xfd")
    assert sniff_format(f) == "jhist"


#: A real binary history: Hadoop 3.5.0's MiniMRYarnCluster (mrtune.harness.yarn_run) before it
#: set mapreduce.jobhistory.jhist.format=json — a 6-map, 2-reduce sort of 24 MiB.
#: Our own mini-cluster run (not shared data), so not named ``.jhist``: the stop hook treats any
#: committed ``.jhist`` as copied shared data.
REAL_BINARY = Path(__file__).parent / "fixtures" / "yarn-sort-binary.jhist-avro"


def test_real_hadoop_binary_history() -> None:
    h = load_jhist(REAL_BINARY)
    assert (h.job_name, h.status, h.complete) == ("mrtune-sort", "SUCCEEDED", True)
    assert (h.total_maps, h.total_reduces) == (6, 2)
    assert len(h.successful("map")) == 6 and len(h.successful("reduce")) == 2
    assert h.killed_attempts == 1 and h.failed_attempts == 0  # as the JSON reader counts it
    assert h.total_counters["MAP_INPUT_RECORDS"] == h.total_counters["REDUCE_OUTPUT_RECORDS"]
    assert h.total_counters["MAP_INPUT_RECORDS"] == 251658
    assert not h.warnings


def test_real_binary_equals_its_json_twin(tmp_path: Path) -> None:
    """Decode the real binary file, write it as Avro-JSON lines, read both: same history."""
    raw = REAL_BINARY.read_bytes()
    start = raw.index(b"\n", raw.index(b"\n") + 1) + 1
    schema_line = raw[raw.index(b"\n") + 1 : start - 1].decode()
    schema = fastavro.parse_schema(json.loads(schema_line))
    buf = io.BytesIO(raw[start:])
    records = []
    while buf.tell() < len(raw) - start:
        records.append(fastavro.schemaless_reader(buf, schema, None))
    out = io.StringIO()
    fastavro.json_writer(out, schema, records)
    twin = tmp_path / REAL_BINARY.name
    twin.write_text(f"Avro-Json\n{schema_line}\n{out.getvalue()}\n", encoding="utf-8")
    assert read_events(twin) == read_events(REAL_BINARY)
    assert _history(twin) == _history(REAL_BINARY)


def test_cli_profile_binary_same_as_json(tmp_path: Path, qmc_binary) -> None:
    """``mrtune profile job.jhist`` on the binary twin prints the JSON twin's profile."""
    from typer.testing import CliRunner

    from mrtune.cli import app

    runner = CliRunner()
    binary = to_binary(QMC1, tmp_path)
    conf = str(QMC1.parent / "job_1526555215992_0001_conf.xml")
    outs = []
    for path in (QMC1, binary):
        result = runner.invoke(app, ["profile", str(path), "--conf", conf, "--format", "json"])
        assert result.exit_code == 0, result.output
        outs.append(
            result.stdout.replace(str(binary.parent) + "/", "").replace(str(QMC1.parent) + "/", "")
        )
    assert outs[0] == outs[1] and json.loads(outs[1])["job_id"] == "job_1526555215992_0001"
    data, start = qmc_binary
    cut = tmp_path / "cut.jhist"
    cut.write_bytes(data[: (start + len(data)) // 2])
    result = runner.invoke(app, ["profile", str(cut)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    (line,) = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert "truncated or corrupt binary job history" in line

"""Invariant: whatever a history file holds, reading it gives a profile or one InputError."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mrtune.calibration import load_profile_source
from mrtune.errors import InputError

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
QMC1_LINES = next((DATA / "jhist").glob("job_1526555215992_0001-*.jhist")).read_text().splitlines()
SLEEP_LINES = (
    next((DATA / "jhist").glob("job_1329348432655_0001-*.jhist")).read_text().splitlines()
)
RUMEN_TEXT = (DATA / "rumen" / "wordcount-rumen.json").read_text()
REST_JOB = (DATA / "rest" / "02_job.json").read_text()


def _check(content: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / f"h{suffix}"
        f.write_bytes(content)
        try:
            p = load_profile_source(f, find_conf=False)
        except InputError as exc:
            assert str(f) in str(exc) or "--" in str(exc)
            assert "\n" not in str(exc).strip()
            return
        p.model_dump_json()  # a profile that exists serialises


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    lines=st.sampled_from([QMC1_LINES, SLEEP_LINES]),
    drop=st.sets(st.integers(2, 60), max_size=6),
    cut=st.integers(0, 4000),
)
def test_damaged_jhist(lines: list[str], drop: set[int], cut: int) -> None:
    kept = [ln for i, ln in enumerate(lines) if i not in drop]
    text = "\n".join(kept)
    text = text[: len(text) - cut] if cut < len(text) else text
    _check(text.encode(), ".jhist")


@SETTINGS
@given(cut=st.integers(1, len(RUMEN_TEXT) - 1), junk=st.text(max_size=5))
def test_damaged_rumen(cut: int, junk: str) -> None:
    _check((RUMEN_TEXT[:cut] + junk).encode(), ".json")


@SETTINGS
@given(
    text=st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=8),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
        max_leaves=12,
    ),
    key=st.sampled_from(["job", "jobCounters", "tasks", "taskAttempts", "jobID", "mapTasks"]),
)
def test_odd_json_shapes(text: object, key: str) -> None:
    import json

    _check(
        json.dumps({key: text, "jobID": "job_1_1"} if key == "mapTasks" else {key: text}).encode(),
        ".json",
    )


@SETTINGS
@given(data=st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    _check(data, ".bin")
    _check(b"Avro-Json\n" + data, ".jhist")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
    max_leaves=8,
)


@SETTINGS
@given(line=st.integers(2, len(QMC1_LINES) - 1), field=st.integers(0, 30), value=JSON_VALUES)
def test_jhist_fields_of_the_wrong_type(line: int, field: int, value: object) -> None:
    import json

    lines = list(QMC1_LINES)
    try:
        ev = json.loads(lines[line])
    except json.JSONDecodeError:
        return
    body = next(iter(ev["event"].values()))
    keys = sorted(body)
    if not keys:
        return
    body[keys[field % len(keys)]] = value
    lines[line] = json.dumps(ev)
    _check("\n".join(lines).encode(), ".jhist")


@SETTINGS
@given(field=st.integers(0, 30), value=JSON_VALUES, which=st.sampled_from(["map", "reduce"]))
def test_rumen_fields_of_the_wrong_type(field: int, value: object, which: str) -> None:
    import json

    job = json.loads(RUMEN_TEXT)
    att = job["mapTasks" if which == "map" else "reduceTasks"][0]["attempts"][0]
    keys = sorted(att)
    att[keys[field % len(keys)]] = value
    _check(json.dumps(job).encode(), ".json")

"""Formats detected by content, not by a 4 KiB prefix (issue 20, item 6)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from mrtune.errors import InputError
from mrtune.readers import load_history, sniff_format
from mrtune.readers.rumen import load_rumen, strip_comment_header

LICENCE = "/*\n * Licensed to the Apache Software Foundation (ASF) under one\n * or more\n */\n"


def _rumen(shared_data: Path, props_first: bool = True) -> dict:
    obj = json.loads((shared_data / "rumen" / "wordcount-rumen.json").read_text())
    props = {f"mapreduce.some.property.{i}": "v" * 60 for i in range(100)}
    return {"jobProperties": props, **obj} if props_first else {**obj, "jobProperties": props}


def test_rumen_with_job_properties_first_is_rumen(shared_data: Path, tmp_path: Path) -> None:
    f = tmp_path / "trace.json"
    f.write_text(json.dumps(_rumen(shared_data)))
    assert f.read_text().index('"jobID"') > 4096
    assert sniff_format(f) == "rumen"
    assert load_history(f).job_id == "job_201009241532_0001"


def test_gzipped_and_array_rumen(shared_data: Path, tmp_path: Path) -> None:
    g = tmp_path / "trace.json.gz"
    g.write_bytes(gzip.compress((LICENCE + json.dumps(_rumen(shared_data))).encode()))
    assert sniff_format(g) == "rumen"
    a = tmp_path / "array.json"
    a.write_text(json.dumps([_rumen(shared_data), _rumen(shared_data, False)]))
    assert sniff_format(a) == "rumen" and len(load_rumen(a)) == 2


def test_licence_header_accepted_and_error_lines_kept(shared_data: Path, tmp_path: Path) -> None:
    f = tmp_path / "trace.json"
    f.write_text(LICENCE + LICENCE + json.dumps(_rumen(shared_data), indent=1))
    assert sniff_format(f) == "rumen"
    assert load_history(f).job_id == "job_201009241532_0001"
    bad = tmp_path / "bad.json"
    bad.write_text(LICENCE + '{"jobID": "job_1_1", "mapTasks": [,]}')
    with pytest.raises(InputError, match=r"line 5, column"):
        load_rumen(bad)
    text = LICENCE + "{}"
    assert strip_comment_header(text, "x").count("\n") == text.count("\n")


def test_unterminated_header_is_one_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "trace.json"
    f.write_text('/* licence without an end\n{"jobID": "job_1_1"}')
    with pytest.raises(InputError, match="unterminated /\\* comment"):
        load_rumen(f)


def test_rest_stays_rest(shared_data: Path, tmp_path: Path) -> None:
    assert sniff_format(shared_data / "rest" / "02_job.json") == "rest"
    f = tmp_path / "job.json"  # a REST job whose diagnostics mention jobID and mapTasks
    f.write_text(json.dumps({"job": {"id": "job_1_1", "diagnostics": '"jobID" "mapTasks"'}}))
    assert sniff_format(f) == "rest"


def test_hostile_nesting_does_not_crash_the_sniffer(tmp_path: Path) -> None:
    f = tmp_path / "deep.json"
    f.write_text("[" * 200_000 + "]" * 200_000)
    assert sniff_format(f) == "rest"  # not Rumen; the REST reader then says what is wrong


def test_a_swim_trace_points_to_batch(shared_data: Path, tmp_path: Path) -> None:
    """A SWIM trace is a catalog of sizes, not one job's history: the single-job commands
    say what it is and which command takes it, rather than "unrecognised format"."""
    trace = shared_data / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"
    with pytest.raises(InputError, match=r"a SWIM trace .*mrtune batch") as info:
        sniff_format(trace)
    assert str(trace) in str(info.value)
    other = tmp_path / "notes.txt"
    other.write_text("a\tb\tc\n")
    with pytest.raises(InputError, match="unrecognised format"):
        sniff_format(other)

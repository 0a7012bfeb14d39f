"""``mrtune batch`` takes ``hadoop-run``'s runs.jsonl as ``diagnose`` does.

A local run record is one job, profiled from the run; an entry of the YARN index names its
``.jhist``, which a directory walk also finds (one job, not two). Before, the lines of either
file were read as job profiles, each failing; and a job kind ``make_chunks`` had no chunk
size for was dropped without a word (the run ended on an internal KeyError).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from mrtune.costmodel import ClusterSpec
from mrtune.optimizer.batch._catalog import JHIST, RUN, discover
from mrtune.optimizer.batch._run import make_chunks
from mrtune.optimizer.batch._worker import BatchSettings, tune_chunk

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "calibration" / "fixtures" / "examples-aggregatewordcount-rounding.jsonl.gz"
YARN = ROOT / "profiling" / "fixtures" / "streaming-yarn-blocks"


def test_local_run_records_are_jobs(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(gzip.decompress(RUNS.read_bytes()))
    refs = discover([runs])
    assert [r.kind for r in refs] == [RUN] * 5
    out = tune_chunk(refs[:1], BatchSettings(cluster=ClusterSpec()))
    assert out[0]["status"] == "tuned", out[0].get("reason")
    assert out[0]["job_id"].startswith("job_local")
    # one record written by hadoop-run -o (an indented JSON document) is one job
    one = tmp_path / "one.json"
    one.write_text(json.dumps(json.loads(runs.read_text().splitlines()[0]), indent=2))
    assert [r.kind for r in discover([one])] == [RUN]
    assert [r.kind for r in discover([tmp_path])] == [RUN] * 6


def test_a_yarn_index_names_its_histories_once(tmp_path: Path) -> None:
    keep = tmp_path / "keep"
    jhists = []
    for gz in sorted(YARN.glob("*/*.gz")):  # the runs' histories, as hadoop-run keeps them
        dest = keep / gz.parent.name / gz.name.removesuffix(".gz")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(gzip.decompress(gz.read_bytes()))
        if dest.suffix == ".jhist":
            jhists.append(dest)
    lines = [json.dumps({"jhist": str(j), "conf_xml": "", "label": j.parent.name}) for j in jhists]
    lines.append(json.dumps({"jhist": None, "conf_xml": None, "label": "failed"}))
    idx = keep / "runs.jsonl"
    idx.write_text("\n".join(lines) + "\n")
    refs = discover([idx])
    assert [(r.kind, r.key) for r in refs] == [(JHIST, str(j)) for j in jhists]
    # the directory's own .jhist and the index's entry are one job each
    both = discover([keep])
    assert sorted((r.kind, r.key) for r in both) == sorted((JHIST, str(j)) for j in jhists)
    out = tune_chunk(both[:1], BatchSettings(cluster=ClusterSpec()))
    assert out[0]["status"] == "tuned", out[0].get("reason")


def test_every_kind_is_chunked(tmp_path: Path) -> None:
    from mrtune.optimizer.batch._catalog import JobRef

    refs = [JobRef("a", "other", "x"), JobRef("b", RUN, "y"), JobRef("c", "other", "z")]
    chunks = make_chunks(refs, 2)
    assert sorted(r.key for c in chunks for r in c) == ["a", "b", "c"]


def test_a_directory_of_saved_rest_responses_is_one_job(shared_data: Path, tmp_path: Path) -> None:
    """The Hadoop documentation's saved JobHistory REST responses (``../shared/data/rest``,
    copied here): each directory of them is one job, as ``mrtune profile DIR`` reads it,
    where batch had skipped every file with a note; one such file named directly too."""
    from mrtune.optimizer.batch._catalog import REST

    rest = tmp_path / "cat" / "job"
    rest.mkdir(parents=True)
    for f in sorted((shared_data / "rest").glob("*.json")):
        (rest / f.name).write_bytes(f.read_bytes())
    skipped: list[str] = []
    refs = discover([tmp_path / "cat"], skipped)
    assert [(r.kind, r.key) for r in refs] == [(REST, str(rest))]
    assert skipped == []
    out = tune_chunk(refs, BatchSettings(cluster=ClusterSpec()))
    assert out[0]["status"] == "tuned", out[0].get("reason")
    assert out[0]["job_id"].startswith("job_")
    one = discover([rest / "07_jobTaskCounters.json"])
    assert [r.kind for r in one] == [REST]

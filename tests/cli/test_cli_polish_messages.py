"""What the commands say is true: the ``-o`` file of an all-low-confidence recommendation, the
help of ``hadoop-run --set`` and ``optimize --output-compression``, a saved profile given to
``profile``, the labels of optimize's change table; and ``schema`` takes ``--format``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mrtune.cli import app
from mrtune.cli._confidence import short_labels
from mrtune.optimizer.outputs import parse_site_xml

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / ".." / "shared" / "data"
WORDCOUNT = REPO / "mrtune" / "examples" / "profiles" / "wordcount-rumen.json"
SLEEP = next((DATA / "jhist").glob("job_1329348432655_0001-*.jhist"))
SLEEP_CONF = DATA / "jhist" / "job_1329348432655_0001_conf.xml"
NARROW = {"COLUMNS": "80"}


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(app, list(args), env=NARROW)


def flat(text: str) -> str:
    """Help or wrapped text as one line: box borders dropped, whitespace runs made one."""
    return " ".join(text.replace("│", " ").split())


def test_all_low_confidence_output_file_is_said_to_be_empty(tmp_path: Path) -> None:
    """It said "nothing written: …" and then "wrote rec.xml" (an empty configuration)."""
    out = tmp_path / "rec.xml"
    result = invoke("optimize", str(WORDCOUNT), "--input-size", "100GB", "-o", str(out))
    assert result.exit_code == 0, result.output
    text = flat(result.stdout)
    assert f"nothing written but an empty configuration to {out}" in text
    assert "every change is low-confidence" in text
    assert not any(line.startswith("wrote ") for line in result.stdout.splitlines())
    assert out.is_file() and not parse_site_xml(out.read_text())


def test_hadoop_run_set_help_says_it_is_for_the_project_jobs() -> None:
    result = invoke("hadoop-run", "--help")
    assert result.exit_code == 0, result.output
    text = flat(result.stdout)
    assert "--set <list[str]> For the project's jobs (JOB)" in text
    assert "Not with --jar: give -D KEY=VALUE among the job's ARGS after --." in text
    section = result.stdout.split("--set", 1)[1].split("--input-mb", 1)[0]
    assert "…" not in section  # no job option cut to ``mrtune.wordcount.combine…``


def test_optimize_output_compression_help_says_what_batch_does() -> None:
    result = invoke("optimize", "--help")
    assert result.exit_code == 0, result.output
    text = flat(result.stdout)
    assert "as in batch" not in text
    assert "batch's per-job recommendations offer it regardless" in text


def test_schema_takes_format(tmp_path: Path) -> None:
    for fmt in ("json", "text"):
        result = invoke("schema", "profile", "--format", fmt)
        assert result.exit_code == 0, result.output
        assert "input_bytes" in json.loads(result.stdout)["properties"]


def test_profile_of_a_saved_profile_says_what_it_is() -> None:
    """It said "no JobHistory REST response in the file" and listed REST keys."""
    result = invoke("profile", str(WORDCOUNT))
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "REST" not in lines[0].split("profile reads")[0]
    assert "already an mrtune profile" in lines[0] and "whatif, optimize" in lines[0]


def test_short_labels_tell_every_property_apart() -> None:
    names = [
        "mapreduce.reduce.input.buffer.percent",
        "mapreduce.reduce.shuffle.input.buffer.percent",
        "mapreduce.job.reduces",
        "mapreduce.input.fileinputformat.split.maxsize",
        "mapred.job.reduces",
    ]
    labels = short_labels(names)
    assert len(set(labels.values())) == len(names)
    assert labels["mapreduce.reduce.input.buffer.percent"] == "reduce.input.buffer.percent"
    assert labels["mapreduce.input.fileinputformat.split.maxsize"] == "…split.maxsize"
    assert labels["mapred.job.reduces"] == "mapred.job.reduces"  # alike once stripped
    assert labels["mapreduce.job.reduces"] == "mapreduce.job.reduces"
    assert short_labels(["mapreduce.job.reduces"]) == {"mapreduce.job.reduces": "job.reduces"}


def test_optimize_change_table_has_no_two_rows_alike() -> None:
    """reduce.input.buffer.percent and reduce.shuffle.input.buffer.percent both read
    ``…buffer.percent``."""
    result = invoke(
        "optimize",
        str(SLEEP),
        "--conf",
        str(SLEEP_CONF),
        "--include-low-confidence",
        "--input-size",
        "20GB",
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split()[:1] == ["setting"]) + 2
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    labels = [ln.split()[0] for ln in lines[start:end] if ln[:2].strip()]
    assert len(labels) >= 2 and len(set(labels)) == len(labels), labels
    assert sum("buffer.percent" in label for label in labels) == 2, labels

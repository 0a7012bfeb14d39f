"""Hostile-input review h1: every bad setting is one line and exit 2, none a silent no-op.

Each case was accepted (exit 0, no effect), or failed as an internal error, before the fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mrtune.cli import app

runner = CliRunner()
ENV = {"COLUMNS": "200"}
EXAMPLES = Path(__file__).resolve().parents[2] / "mrtune" / "examples"
WORDCOUNT = EXAMPLES / "profiles" / "wordcount-rumen.json"
LINEITEM = EXAMPLES / "workflows" / "profiles" / "lineitem_agg.json"


def run(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), env=ENV)
    return r.exit_code, r.output


def error_line(out: str) -> str:
    lines = [ln for ln in out.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, out
    assert "Traceback" not in out and "pydantic" not in out, out
    return lines[0]


def refused(code: int, out: str) -> str:
    """The one error line of a refusal (exit code 2)."""
    assert code == 2, out
    return error_line(out)


def whatif(*args: str) -> tuple[int, str]:
    return run("whatif", str(WORDCOUNT), "--samples", "0", *args)


# ------------------------------------------------------------------ 1. ignored settings
@pytest.mark.parametrize(
    ("setting", "says"),
    [
        ("mapreduce.job.maps=1000000000", "FileInputFormat"),
        ("mapred.map.tasks=7", "split.maxsize"),
        ("mapreduce.reduce.merge.memtomem.enabled=true", "not modelled"),
        ("other_properties=x", "not a setting the model reads"),
    ],
)
def test_set_of_a_setting_the_model_ignores_is_refused(setting: str, says: str) -> None:
    code, out = whatif("--set", setting)
    assert says in refused(code, out)


def test_allow_unknown_lists_an_ignored_setting_as_not_modelled() -> None:
    code, out = whatif("--set", "mapreduce.job.maps=1000", "--allow-unknown", "--format", "json")
    assert code == 0, out
    assert json.loads(out[out.index("{") :])["not_modelled"] == ["mapreduce.job.maps"]


def _workflow(tmp_path: Path, extra: str) -> Path:
    p = tmp_path / "wf.yaml"
    p.write_text(
        "capacity: {map_slots: 8, reduce_slots: 4}\n"
        f"jobs:\n  - {{name: a, profile: {LINEITEM}{extra}}}\n"
    )
    return p


@pytest.mark.parametrize(
    ("defaults", "config", "says"),
    [
        ("mapreduce.task.io.sortmb: 200", "", "did you mean mapreduce.task.io.sort.mb"),
        ("", ", config: {mapreduce.foo.bar: 3}", "jobs.a.config.mapreduce.foo.bar"),
        ("", ", config: {mapreduce.job.maps: 3}", "FileInputFormat"),
    ],
)
def test_workflow_refuses_a_property_the_model_does_not_read(
    tmp_path: Path, defaults: str, config: str, says: str
) -> None:
    p = _workflow(tmp_path, config)
    if defaults:
        p.write_text(p.read_text() + f"defaults: {{{defaults}}}\n")
    code, out = run("workflow", str(p))
    line = refused(code, out)
    assert str(p) in line and says in line


def test_workflow_value_error_names_file_job_property_and_value(tmp_path: Path) -> None:
    p = _workflow(tmp_path, ", config: {mapreduce.task.io.sort.mb: 0}")
    code, out = run("workflow", str(p))
    line = refused(code, out)
    assert str(p) in line and "jobs.a" in line and "mapreduce.task.io.sort.mb=" in line
    assert "io_sort_mb" not in line


def test_workflow_nan_says_where(tmp_path: Path) -> None:
    p = tmp_path / "nan.yaml"
    p.write_text(
        f"capacity: {{map_slots: .nan, reduce_slots: 4}}\njobs:\n  - {{name: a, profile: {LINEITEM}}}\n"
    )
    code, out = run("workflow", str(p))
    assert "capacity.map_slots" in refused(code, out)


# ------------------------------------------------------------------ 3. booleans, integers
@pytest.mark.parametrize("value", ["1", "yes", "on"])
def test_set_boolean_hadoop_would_not_read_is_refused(value: str) -> None:
    code, out = whatif("--set", f"mapreduce.map.output.compress={value}")
    assert "allowed: true or false" in refused(code, out)


@pytest.mark.parametrize("value", ["1_00", "100.0", "1e2", "١٠٠"])
def test_set_integer_hadoop_would_not_parse_is_refused(value: str) -> None:
    code, out = whatif("--set", f"mapreduce.task.io.sort.mb={value}")
    assert "mapreduce.task.io.sort.mb" in refused(code, out)


# ------------------------------------------------------------------ 2. conf.xml reading
def _conf(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "c.xml"
    p.write_text(f'<?xml version="1.0"?>\n<configuration>\n{body}\n</configuration>\n')
    return p


def _changes(out: str) -> dict:
    return json.loads(out[out.index("{") :])["changes"]


def test_conf_short_format_is_read(tmp_path: Path) -> None:
    c = _conf(tmp_path, '<property name="mapreduce.task.io.sort.mb" value="200"/>')
    code, out = whatif("--conf", str(c), "--format", "json")
    assert code == 0, out
    assert _changes(out)["mapreduce.task.io.sort.mb"]["to"] == "200"


def test_conf_final_value_is_not_overridden(tmp_path: Path) -> None:
    c = _conf(
        tmp_path,
        "<property><name>mapreduce.task.io.sort.mb</name><value>150</value>"
        "<final>true</final></property>\n"
        "<property><name>mapreduce.task.io.sort.mb</name><value>50</value></property>",
    )
    code, out = whatif("--conf", str(c), "--format", "json")
    assert code == 0, out
    assert _changes(out)["mapreduce.task.io.sort.mb"]["to"] == "150"
    assert "final" in out  # the ignored later definition is said


# ------------------------------------------------------------------ 6. error lines
@pytest.mark.parametrize(
    ("body", "names"),
    [
        ("<property><name>dfs.blocksize</name><value>-1</value></property>", "dfs.blocksize=-1"),
        (
            "<property><name>mapreduce.map.cpu.vcores</name><value>0</value></property>",
            "mapreduce.map.cpu.vcores=0",
        ),
    ],
)
def test_conf_replay_error_names_property_and_value(tmp_path: Path, body: str, names: str) -> None:
    c = _conf(tmp_path, body)
    code, out = whatif("--conf", str(c))
    line = refused(code, out)
    assert str(c) in line and names in line


def test_blocksize_with_a_size_suffix_is_accepted(tmp_path: Path) -> None:
    c = _conf(tmp_path, "<property><name>dfs.blocksize</name><value>128m</value></property>")
    code, out = whatif("--conf", str(c), "--format", "json")
    assert code == 0, out
    assert _changes(out)["dfs.blocksize"]["to"] == str(128 * 2**20)
    code, out = whatif("--set", "dfs.blocksize=256m", "--format", "json")
    assert code == 0, out


def test_container_of_minus_one_derives_from_the_heap() -> None:
    """Hadoop 3's default -1: the container follows the job's -Xmx (MRJobConfUtil ratio)."""
    code, out = whatif("--set", "mapreduce.map.memory.mb=-1")
    assert code == 0, out
    code, out = whatif("--set", "mapreduce.map.memory.mb=1")
    line = refused(code, out)
    assert "1..0" not in line and "mapreduce.map.memory.mb" in line


@pytest.mark.parametrize("rng", ["nan:inf", "1:inf"])
def test_sweep_non_finite_range_is_one_line(rng: str) -> None:
    code, out = run(
        "sweep", str(WORDCOUNT), "--param", "mapreduce.task.io.sort.mb", "--range", rng
    )
    line = refused(code, out)
    assert "--range" in line and "allowed" in line


def test_sweep_range_end_too_large_is_shown_short() -> None:
    """``--range 1:1e308`` of an integer setting put the 309 digits of int(1e308) in the line."""
    code, out = run(
        "sweep", str(WORDCOUNT), "--param", "mapreduce.job.reduces", "--range", "1:1e308"
    )
    line = refused(code, out)
    assert "mapreduce.job.reduces=1e+308 is out of range" in line and len(line) < 150


# ------------------------------------------------------------------ 4. --storage
@pytest.mark.parametrize(
    "storage",
    ["/nonexistent/dir/x.db", "sqlite:////nonexistent/x.db", "NOTDB", "notaurl://x"],
)
def test_unusable_storage_is_one_line(tmp_path: Path, storage: str) -> None:
    if storage == "NOTDB":
        storage = str(tmp_path / "notdb.db")
        Path(storage).write_text("x\n")
    code, out = run(
        "optimize", str(WORDCOUNT), "--storage", storage, "--trials", "2", "--samples", "8"
    )
    line = refused(code, out)
    assert "--storage" in line and "allowed" in line and "internal error" not in line


# ------------------------------------------------------------------ heap and combiner values
@pytest.mark.parametrize("opts", ["-Xmx", "-Xmx2q", "-server -Xmx -Xms1g"])
def test_an_xmx_without_a_size_is_refused(opts: str) -> None:
    """The JVM refuses to start on it ("Invalid maximum heap size"): it is not "no -Xmx"."""
    code, out = whatif("--set", f"mapreduce.map.java.opts={opts}")
    assert code == 2
    assert "is not a heap size the JVM accepts" in error_line(out)


def test_a_combiner_class_name_is_read_as_the_property_holds_it() -> None:
    """Job.setCombinerClass writes the class into mapreduce.job.combine.class: a class name is
    on, an empty value off; anything else names what is allowed."""
    assert whatif("--set", "mapreduce.job.combine.class=org.example.SumCombiner")[0] == 0
    code, out = whatif("--set", "mapreduce.job.combine.class=")
    assert code == 0 and "mapreduce.job.combine.class" in out and "→ None" in out
    code, out = whatif("--set", "mapreduce.job.combine.class=1x")
    assert code == 2 and "a combiner class name (on)" in error_line(out)

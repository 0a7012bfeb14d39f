"""``mrtune hadoop-run --jar … --class … -- ARGS`` in local mode (marker ``hadoop``).

Any jar, recorded under its own label: the project's jobs jar stands in for a user's jar, run
through the generic (jar, class, args) path rather than the project-job shortcut.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytestmark = pytest.mark.hadoop


def test_any_jar_runs_locally_under_its_own_label(tmp_path: Path) -> None:
    """Two runs of one label over two input files: each a RunRecord (repeats 0 and 1) that
    ``profile --from run`` reads under the job's own name, with the run's two files."""
    from mrtune.cli import app
    from mrtune.harness.compile import DRIVER_CLASS, compile_jobs
    from mrtune.harness.datagen import write_records
    from mrtune.harness.jars import find_jars
    from mrtune.readers.run_records import read_jsonl

    jar = compile_jobs(find_jars())
    data = tmp_path / "in"
    data.mkdir()
    n = write_records(data / "part-0", 1 << 20) + write_records(data / "part-1", 1 << 20)
    keep = tmp_path / "runs"
    args = ["hadoop-run", "--jar", str(jar), "--class", DRIVER_CLASS, "--label", "my-sort"]
    args += ["--keep", str(keep), "--xmx", "512", "--repeat", "2", "--format", "json", "--"]
    args += ["sort", "-D", "mapreduce.job.reduces=1", str(data), "out"]  # in each run folder
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    recs = read_jsonl(keep / "runs.jsonl")
    assert [(r.label, r.repeat, r.job) for r in recs] == [("my-sort", 0, "driver")] * 1 + [
        ("my-sort", 1, "driver")
    ]
    rec = recs[0]
    assert rec.success and rec.num_maps == 2 and rec.counter("MAP_INPUT_RECORDS") == n
    assert rec.settings == {"mapreduce.job.reduces": "1"}
    assert rec.conf_source.startswith("job.xml staged by JobSubmitter")
    assert rec.effective_conf["mapreduce.job.reduces"] == "1"
    assert rec.job_time_ms is not None and 0 < rec.job_time_ms < rec.wall_time_ms
    assert (keep / "my-sort" / "r1" / "job.log").is_file()
    # the per-run site files took effect: Hadoop made its local dirs under the run's tmp dir
    assert (keep / "my-sort" / "r0" / "tmp" / "mapred").is_dir()
    out = tmp_path / "p.json"
    r = CliRunner().invoke(
        app, ["profile", str(keep / "runs.jsonl"), "--from", "run", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    prof = json.loads(out.read_text())
    assert prof["job_name"] == "driver" and prof["input_files"] == 2
    assert prof["cluster_facts"]["self_check.maps.model"] == 2.0


TWO_STEP = """
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.KeyValueTextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/** Two identity jobs in a chain: the second reads what the first wrote. */
public class TwoStep extends Configured implements Tool {
  public int run(String[] a) throws Exception {
    for (int i = 1; i <= 2; i++) {
      Job j = Job.getInstance(getConf(), "step" + i);
      j.setJarByClass(TwoStep.class);
      if (i == 2) {
        j.setInputFormatClass(KeyValueTextInputFormat.class);
        j.setOutputKeyClass(Text.class);
      } else {
        j.setOutputKeyClass(LongWritable.class);
      }
      j.setOutputValueClass(Text.class);
      j.setNumReduceTasks(i == 1 ? 2 : 1);
      FileInputFormat.addInputPath(j, new Path(i == 1 ? a[0] : a[1] + "/step1"));
      FileOutputFormat.setOutputPath(j, new Path(a[1] + "/step" + i));
      if (!j.waitForCompletion(true)) {
        return 1;
      }
    }
    return 0;
  }

  public static void main(String[] a) throws Exception {
    System.exit(ToolRunner.run(new TwoStep(), a));
  }
}
"""


def test_a_driver_that_chains_two_jobs_gives_a_record_per_job(tmp_path: Path) -> None:
    """A user's driver running two jobs (the second reads the first's output): one record
    per job, labelled ``<label>#k``, each calibrated by ``validate`` on its own default run."""
    from mrtune.cli import app
    from mrtune.harness.compile import javac_jar
    from mrtune.harness.jars import find_jars
    from mrtune.readers.run_records import read_jsonl

    src = tmp_path / "TwoStep.java"
    src.write_text(TWO_STEP)
    jar = javac_jar([src], find_jars().classpath_string(), tmp_path / "twostep.jar")
    data = tmp_path / "in"
    data.mkdir()
    lines = [f"line {i} {'x' * (i % 50)}" for i in range(40000)]
    (data / "a.txt").write_text("\n".join(lines) + "\n")
    keep = tmp_path / "runs"
    base = ["hadoop-run", "--jar", str(jar), "--class", "TwoStep", "--keep", str(keep)]
    for label, opts in (
        ("twostep-default", []),
        ("twostep-s5", ["-D", "mapreduce.task.io.sort.mb=5"]),
    ):
        args = [*base, "--label", label, "--xmx", "512", "--format", "json", "--", *opts]
        result = CliRunner().invoke(app, [*args, str(data), "out"])
        assert result.exit_code == 0, result.output
    recs = read_jsonl(keep / "runs.jsonl")
    assert [(r.label, r.job) for r in recs] == [
        ("twostep-default#1", "twostep#1"),
        ("twostep-default#2", "twostep#2"),
        ("twostep-s5#1", "twostep#1"),
        ("twostep-s5#2", "twostep#2"),
    ]
    one, two = recs[:2]
    assert (one.num_reduces, two.num_maps, two.num_reduces) == (2, 2, 1)
    assert two.counter("MAP_INPUT_RECORDS") == one.counter("REDUCE_OUTPUT_RECORDS") == 40000
    assert one.job_time_ms + two.job_time_ms <= one.wall_time_ms + two.wall_time_ms
    r = CliRunner().invoke(app, ["validate", str(keep / "runs.jsonl"), "--format", "json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert sorted(c["job"] for c in report["calibrations"]) == ["twostep#1", "twostep#2"]

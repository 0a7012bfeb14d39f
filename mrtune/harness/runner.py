"""Run one of the project's jobs on real Hadoop in local mode and keep what it produced.

Every local-mode pitfall of ``shared/spec/real-hadoop.md`` is handled here:

* a fresh run folder per run, holding ``hadoop.tmp.dir`` (and so the map outputs under
  ``mapreduce.cluster.local.dir``) and ``mapreduce.jobtracker.staging.root.dir``, so runs never
  share ``/tmp/hadoop/mapred/staging``;
* both client poll intervals at 50 ms, so ``waitForCompletion`` does not round the wall time up
  by as much as 1 s;
* ``JVM_PID`` exported to the JVM's own pid (``bash -c 'export JVM_PID=$$; exec java …'``),
  without which ``CPU_MILLISECONDS`` and the memory counters are missing;
* a log4j2 configuration with millisecond timestamps and thread names, written to
  ``job.log`` in the run folder;
* the input read once before the timed run (warm page cache);
* the heap (``-Xmx``) a parameter: the reduce memory limit is 0.70 × the JVM's max heap.

The run folder afterwards holds ``job.log``, ``report/{conf.xml,counters.tsv,timing.tsv}``
(written by the Java driver), ``run.json`` (what was asked and measured from Python) and,
until :func:`cleanup_run_dir`, the job's output and temporary files.
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mrtune.errors import InputError
from mrtune.harness.compile import DRIVER_CLASS, LOG4J2_PROPERTIES, compile_jobs
from mrtune.harness.datagen import warm_cache
from mrtune.harness.jars import HadoopJars

JOBS = ("wordcount", "sort", "selectivity", "postings")

#: -D settings the harness adds to every run (the run folder's paths are added per run).
HARNESS_SETTINGS: dict[str, str] = {
    "mapreduce.client.progressmonitor.pollinterval": "50",
    "mapreduce.client.completion.pollinterval": "50",
}

#: Deprecated Hadoop 1 names that the shaded hadoop-client-api does not map (real-hadoop.md,
#: "Things that bite"): refuse them instead of letting a run silently ignore the setting.
_UNMAPPED_OLD_NAMES = {
    "io.sort.mb": "mapreduce.task.io.sort.mb",
    "io.sort.spill.percent": "mapreduce.map.sort.spill.percent",
    "io.sort.factor": "mapreduce.task.io.sort.factor",
    "mapred.reduce.tasks": "mapreduce.job.reduces",
    "mapred.compress.map.output": "mapreduce.map.output.compress",
    "mapred.map.output.compression.codec": "mapreduce.map.output.compress.codec",
    "mapred.job.shuffle.input.buffer.percent": "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapred.job.shuffle.merge.percent": "mapreduce.reduce.shuffle.merge.percent",
    "mapred.job.reduce.input.buffer.percent": "mapreduce.reduce.input.buffer.percent",
    "mapred.max.split.size": "mapreduce.input.fileinputformat.split.maxsize",
    "mapred.min.split.size": "mapreduce.input.fileinputformat.split.minsize",
}

#: Settings the harness owns; a user value would break run isolation or timing.
_RESERVED = {
    "hadoop.tmp.dir",
    "mapreduce.jobtracker.staging.root.dir",
    "mrtune.report.dir",
    "mapreduce.framework.name",
}


@dataclass
class RunArtifacts:
    """What :func:`run_job` leaves behind (paths inside ``run_dir``) and measured from Python."""

    run_dir: Path
    job: str
    settings: dict[str, str]
    harness_settings: dict[str, str]
    xmx_mb: int
    input_dir: Path
    input_meta: dict = field(default_factory=dict)
    exit_code: int = -1
    wall_time_ms: float = 0.0
    started_at_ms: int = 0
    command: list[str] = field(default_factory=list)
    hadoop_version: str | None = None
    jars_source: str = ""
    cpu_time_ms: float | None = None
    load_avg_1m: float | None = None
    nice: int | None = None

    @property
    def log_path(self) -> Path:
        return self.run_dir / "job.log"

    @property
    def report_dir(self) -> Path:
        return self.run_dir / "report"

    def to_json(self) -> dict:
        d = asdict(self)
        d["run_dir"] = str(self.run_dir)
        d["input_dir"] = str(self.input_dir)
        return d


def check_settings(settings: dict[str, str]) -> None:
    """Reject settings the harness must own and Hadoop 1 names that would be ignored."""
    for key in settings:
        if key in _RESERVED:
            raise InputError("set by the harness for every run", field=key, value=settings[key])
        if key in _UNMAPPED_OLD_NAMES:
            raise InputError(
                "Hadoop 1 name is not mapped by the shaded Hadoop client jars",
                field=key,
                allowed=f"use {_UNMAPPED_OLD_NAMES[key]}",
            )


def parse_set_options(pairs: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` → ``{k: v}`` with a readable error for a malformed pair."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError("expected KEY=VALUE", field="setting", value=pair)
        out[key.strip()] = value.strip()
    return out


def run_job(
    job: str,
    settings: dict[str, str],
    input_dir: Path,
    run_dir: Path,
    jars: HadoopJars,
    xmx_mb: int = 2048,
    input_meta: dict | None = None,
    timeout_s: float = 1800.0,
    warm: bool = True,
    nice: int | None = None,
) -> RunArtifacts:
    """Run ``job`` once over ``input_dir`` with ``-D settings`` in a fresh ``run_dir``.

    Returns the artifacts whatever the exit code; the caller decides what a failure means
    (:func:`mrtune.harness.assemble.build_record` records it). ``nice`` runs the JVM at that
    scheduling niceness (negative values need root): on a host shared with other work, a
    raised priority keeps the measured times closer to an idle machine's. Steps: a fresh run
    folder, the compiled jobs, the command line (:func:`_java_command`), the input's pages
    warmed, the timed run (:func:`_timed_run`), then ``run.json``.
    """
    if job not in JOBS:
        raise InputError("unknown job", field="job", value=job, allowed=", ".join(JOBS))
    check_settings(settings)
    if run_dir.exists():
        shutil.rmtree(run_dir)
    (run_dir / "report").mkdir(parents=True)
    jobs_jar = compile_jobs(jars)
    harness = dict(HARNESS_SETTINGS)
    harness["hadoop.tmp.dir"] = str(run_dir / "tmp")
    harness["mapreduce.jobtracker.staging.root.dir"] = str(run_dir / "staging")
    harness["mrtune.report.dir"] = str(run_dir / "report")
    java = _java_command(job, {**harness, **settings}, input_dir, run_dir, jars, jobs_jar, xmx_mb)
    command = ["bash", "-c", "export JVM_PID=$$; exec " + shlex.join(java)]
    if nice is not None:
        command = ["nice", "-n", str(int(nice)), *command]
    if warm:
        warm_cache(input_dir)
    rc, wall_ms, cpu_ms, started, load = _timed_run(command, run_dir, timeout_s)
    art = RunArtifacts(
        run_dir=run_dir,
        job=job,
        settings=dict(settings),
        harness_settings=harness,
        xmx_mb=int(xmx_mb),
        input_dir=input_dir,
        input_meta=dict(input_meta or {}),
        exit_code=rc,
        wall_time_ms=round(wall_ms, 1),
        started_at_ms=int(started * 1000),
        command=java,
        hadoop_version=jars.hadoop_version,
        jars_source=jars.source,
        cpu_time_ms=round(cpu_ms, 1),
        load_avg_1m=round(load, 2),
        nice=nice,
    )
    (run_dir / "run.json").write_text(json.dumps(art.to_json(), indent=1))
    return art


def _java_command(
    job: str,
    properties: dict[str, str],
    input_dir: Path,
    run_dir: Path,
    jars: HadoopJars,
    jobs_jar: Path,
    xmx_mb: int,
) -> list[str]:
    """The driver's JVM command line: heap, log4j2 file, classpath, then the job's ``-D``
    properties (harness first, the run's settings over them), input and output."""
    d_args: list[str] = []
    for k, v in properties.items():
        d_args += ["-D", f"{k}={v}"]
    return [
        "java",
        f"-Xmx{int(xmx_mb)}m",
        f"-Dlog4j2.configurationFile={LOG4J2_PROPERTIES}",
        f"-Dmrtune.log.file={run_dir / 'job.log'}",
        "-cp",
        f"{jobs_jar}:{jars.classpath_string()}",
        DRIVER_CLASS,
        job,
        *d_args,
        str(input_dir),
        str(run_dir / "output"),
    ]


def _timed_run(
    command: list[str], run_dir: Path, timeout_s: float
) -> tuple[int, float, float, float, float]:
    """Run ``command`` with its output in ``run_dir``; returns (exit code, wall ms, the
    children's CPU ms, start time, 1-minute load average before the start). A run past
    ``timeout_s`` is killed; so is one interrupted (Ctrl-C, SIGTERM): never an orphan JVM."""
    load = os.getloadavg()[0]
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.time()
    t0 = time.perf_counter()
    with open(run_dir / "stdout.txt", "wb") as out, open(run_dir / "stderr.txt", "wb") as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err)
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        except BaseException:  # interrupted (Ctrl-C, SIGTERM): never leave an orphan JVM
            proc.kill()
            proc.wait()
            raise
    wall_ms = (time.perf_counter() - t0) * 1000.0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_ms = (ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime) * 1000.0
    return rc, wall_ms, cpu_ms, started, load


def load_artifacts(run_dir: Path) -> RunArtifacts:
    """Read back the ``run.json`` of a kept run folder (to rebuild its record later)."""
    d = json.loads((run_dir / "run.json").read_text())
    d["run_dir"] = Path(d["run_dir"])
    d["input_dir"] = Path(d["input_dir"])
    return RunArtifacts(**d)


def cleanup_run_dir(run_dir: Path, keep_log: bool = True) -> None:
    """Delete the bulky parts of a run folder (output, map outputs, staging)."""
    for name in ("output", "tmp", "staging", "output_partitions"):
        p = run_dir / name
        if p.exists():
            shutil.rmtree(p, ignore_errors=True)
    if not keep_log:
        for name in ("job.log", "stdout.txt", "stderr.txt"):
            (run_dir / name).unlink(missing_ok=True)

"""Run ANY MapReduce job jar on either referee and record it under its own label (issue 21).

A run is ``(jar, main class, arguments)``, as ``hadoop jar`` takes it. The project's jobs are
ordinary entries of the same mechanism (:func:`project_job`: the compiled jobs jar, the
``mrtune.jobs.Driver`` class, ``JOB -D k=v … INPUT OUTPUT``).

* ``local``: one ``java`` process with the jar and the Hadoop client jars on its classpath and
  a ``HADOOP_CONF_DIR``-like folder first on it (``core-site.xml``/``mapred-site.xml``: per-run
  ``hadoop.tmp.dir`` and staging root, 50 ms client polls — real-hadoop.md, "Things that
  bite"), ``JVM_PID`` exported (for CPU_MILLISECONDS), the harness's log4j2 layout; the run
  keeps its ``job.log`` (local mode writes no ``.jhist``) and a copy of the ``job.xml``
  ``JobSubmitter`` stages (:func:`copy_staged_confs`: ``LocalJobRunner.Job.run`` deletes the
  staging folder when the job ends), from which :mod:`mrtune.harness.any_record` builds the
  same :class:`~mrtune.readers.run_records.RunRecord` as the project's own local runs have.
* ``yarn``: :func:`mrtune.harness.yarn_run.run_on_minicluster`; the record keeps the
  ``.jhist`` and ``_conf.xml``, which ``mrtune profile`` reads as any user's history.

Each run appends one JSON line to ``<out>/runs.jsonl`` (local: the run record; yarn: an index
entry pointing at the history) and keeps its folder at ``<out>/<label>/r<repeat>``.
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
from typing import Any
from xml.sax.saxutils import escape

import defusedxml.ElementTree as ET

from mrtune.errors import InputError
from mrtune.harness.compile import DRIVER_CLASS, LOG4J2_PROPERTIES
from mrtune.harness.jars import HadoopJars

LOCAL_SITE: dict[str, str] = {
    "mapreduce.framework.name": "local",
    "mapreduce.client.progressmonitor.pollinterval": "50",
    "mapreduce.client.completion.pollinterval": "50",
}

#: Added to the harness's log4j2 layout for a user's job: ``Cluster.initialize`` logs "Trying
#: ClientProtocolProvider" (DEBUG) as ``Job.submit`` connects, the first thing a submission
#: does, so the log dates the submit as the project's driver does (``MrtTool``: the instant
#: before ``waitForCompletion``), ~1 s before JobSubmitter's first INFO line.
_SUBMIT_LOGGER = (
    "logger.cluster.name = org.apache.hadoop.mapreduce.Cluster\nlogger.cluster.level = debug\n"
)
#: Between two looks at the staging folder while a local job runs (:func:`copy_staged_confs`).
_CONF_POLL_S = 0.05


@dataclass
class JobSpec:
    """What ``hadoop jar JAR MAIN ARGS…`` would run, and the label its runs go under."""

    jar: Path
    main_class: str
    args: list[str]
    label: str
    puts: dict[str, str] = field(default_factory=dict)
    """Local file/folder → HDFS path, copied in before a YARN run."""


def project_job(
    jobs_jar: Path, job: str, settings: dict[str, str], input_path: str, output_path: str
) -> list[str]:
    """The Driver arguments of one of the project's jobs: ``JOB -D k=v … IN OUT``."""
    args = [job]
    for k, v in settings.items():
        args += ["-D", f"{k}={v}"]
    return [*args, input_path, output_path]


def _write_site(conf_dir: Path, props: dict[str, str]) -> None:
    conf_dir.mkdir(parents=True, exist_ok=True)
    body = "".join(
        f"<property><name>{escape(k)}</name><value>{escape(v)}</value></property>\n"
        for k, v in props.items()
    )
    xml = f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n'
    for site in ("core", "mapred"):
        (conf_dir / f"{site}-site.xml").write_text(xml, encoding="utf-8")


def job_classpath(run_dir: Path, spec: JobSpec, jars: HadoopJars) -> str:
    """The job JVM's classpath, as ``hadoop jar`` builds it: the run's site files, the job's
    jar, ``$HADOOP_CLASSPATH`` (the jars a job needs beyond Hadoop's own; Hadoop Streaming
    needs commons-cli, which the shaded client jars hide), then Hadoop's jars."""
    extra = [p for p in os.environ.get("HADOOP_CLASSPATH", "").split(os.pathsep) if p]
    return os.pathsep.join(
        [str(run_dir / "conf"), str(spec.jar.resolve()), *extra, jars.classpath_string()]
    )


def run_local(
    spec: JobSpec, run_dir: Path, jars: HadoopJars, xmx_mb: int = 2048, timeout_s: float = 1800
) -> dict[str, Any]:
    """Run the job in local mode (LocalJobRunner) in ``run_dir``; return its record."""
    if not spec.jar.is_file():
        raise InputError("job jar not found", path=str(spec.jar))
    run_dir = run_dir.resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    props = dict(LOCAL_SITE)
    props["hadoop.tmp.dir"] = str(run_dir / "tmp")
    props["mapreduce.jobtracker.staging.root.dir"] = str(run_dir / "staging")
    _write_site(run_dir / "conf", props)
    log4j = run_dir / "conf" / "log4j2.properties"
    log4j.write_text(LOG4J2_PROPERTIES.read_text(encoding="utf-8") + _SUBMIT_LOGGER, "utf-8")
    cp = job_classpath(run_dir, spec, jars)
    java = ["java", f"-Xmx{int(xmx_mb)}m", f"-Dlog4j2.configurationFile={log4j}"]
    java += [f"-Dmrtune.log.file={run_dir / 'job.log'}", "-cp", cp, spec.main_class, *spec.args]
    command = ["bash", "-c", "export JVM_PID=$$; exec " + shlex.join(java)]
    load = os.getloadavg()[0]
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    started, t0 = time.time(), time.monotonic()
    with open(run_dir / "client.log", "wb") as out:
        proc = subprocess.Popen(command, cwd=run_dir, stdout=out, stderr=subprocess.STDOUT)
        try:
            rc = _wait_copying_confs(proc, run_dir, timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    entry = _entry(
        spec, "local", run_dir, rc, time.monotonic() - t0, ru1, ru0, load, started, log="job.log"
    )
    entry.update(xmx_mb=int(xmx_mb), hadoop_version=jars.hadoop_version)
    return entry


def _wait_copying_confs(proc: subprocess.Popen, run_dir: Path, timeout_s: float) -> int:
    """Wait for the job's JVM, copying each staged ``job.xml`` while it exists."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            rc = proc.wait(timeout=_CONF_POLL_S)
        except subprocess.TimeoutExpired:
            copy_staged_confs(run_dir)
            if time.monotonic() > deadline:
                raise
            continue
        copy_staged_confs(run_dir)
        return rc


def copy_staged_confs(run_dir: Path) -> list[Path]:
    """Copy every ``<staging>/<user><n>/.staging/<job id>/job.xml`` to ``<run_dir>/<job id>.xml``.

    ``JobSubmitter.submitJobInternal`` writes the job's whole configuration (Hadoop's
    defaults, the -D options ``GenericOptionsParser`` read, everything the job's code set, and
    ``mapreduce.job.maps``) to ``job.xml`` before it submits; ``LocalJobRunner.Job.run``
    deletes that folder when the job ends, and a local job keeps no other copy. A copy is
    kept only once it parses (``JobSubmitter`` may still be writing it).
    """
    kept = []
    for staged in (run_dir / "staging").glob("*/.staging/job_*/job.xml"):
        dest = run_dir / f"{staged.parent.name}.xml"
        if dest.is_file():
            kept.append(dest)
            continue
        tmp = dest.with_suffix(".xml.part")
        try:
            shutil.copyfile(staged, tmp)
            ET.parse(tmp)
        except (OSError, ET.ParseError):
            tmp.unlink(missing_ok=True)
            continue
        tmp.replace(dest)
        kept.append(dest)
    return kept


def run_yarn(spec: JobSpec, run_dir: Path, cluster=None, timeout_s: int = 900) -> dict[str, Any]:
    """Run the job on a fresh mini-cluster; the record points at its ``.jhist``/``_conf.xml``."""
    from mrtune.harness.minicluster import find_minicluster
    from mrtune.harness.yarn_run import MiniCluster, run_on_minicluster

    cluster = cluster or MiniCluster()
    load = os.getloadavg()[0]
    started = time.time()
    puts = {Path(k): v for k, v in spec.puts.items()}
    run = run_on_minicluster(
        find_minicluster(), spec.jar, spec.main_class, spec.args, run_dir, cluster, puts, timeout_s
    )
    rec = _entry(spec, "yarn", run.run_dir, run.exit_code, run.wall_s, None, None, load, started)
    rec.update(
        cpu_s=round(run.children_cpu_s, 2),
        jhist=str(run.jhist) if run.jhist else None,
        conf_xml=str(run.conf_xml) if run.conf_xml else None,
        jobs=[{k: str(v) for k, v in j.items()} for j in run.jobs],
        cluster=asdict(cluster),
        cluster_start_s=run.launcher.get("cluster_start_s"),
        client_s=run.launcher.get("client_s"),
        leftover_pids=run.leftover_pids,
        success=run.success,
    )
    return rec


def _entry(spec, mode, run_dir, rc, wall, ru1, ru0, load, started, log=None) -> dict[str, Any]:
    cpu = None
    if ru1 is not None:
        cpu = round(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime, 2)
    return {
        "label": spec.label,
        "mode": mode,
        "jar": str(spec.jar),
        "main_class": spec.main_class,
        "args": list(spec.args),
        "run_dir": str(run_dir),
        "exit_code": rc,
        "success": rc == 0,
        "started_at_ms": int(started * 1000),
        "wall_s": round(wall, 2),
        "cpu_s": cpu,
        "load_avg_1m": round(load, 2),
        "log": str(run_dir / log) if log else str(run_dir / "client.log"),
    }


def append_index(index: Path, entry: dict[str, Any]) -> None:
    """Append one run to ``runs.jsonl`` (one JSON object a line)."""
    index.parent.mkdir(parents=True, exist_ok=True)
    with index.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, sort_keys=True) + "\n")


__all__ = [
    "DRIVER_CLASS",
    "JobSpec",
    "append_index",
    "copy_staged_confs",
    "project_job",
    "run_local",
    "run_yarn",
]

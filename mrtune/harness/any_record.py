"""The :class:`~mrtune.readers.run_records.RunRecord` of a user's job run in local mode.

``mrtune hadoop-run --jar J --class M --mode local -- ARGS`` (:mod:`mrtune.harness.any_job`)
runs a jar mrtune did not write, so no driver dumps the resolved configuration, the counters'
names or the submit/finish instants the project's jobs write (``MrtTool``'s ``report/``). The
record is built from what any local run leaves, with the project's own readers
(:mod:`mrtune.harness.assemble`, :mod:`mrtune.readers.task_log`), so ``mrtune profile --from
run``, ``validate`` and ``hadoop-summary`` read it as they read the project's runs:

* per-attempt events and counters: ``job.log`` parsed by :func:`~mrtune.readers.task_log.parse_log`,
  counters named by Hadoop's resource bundles (:mod:`mrtune.readers.counter_names`);
* job totals: the "Counters: N" block ``Job.monitorAndPrintJob`` logs (``waitForCompletion(true)``),
  else the attempts' sums (what ``LocalJobRunner`` reports as the job's counters);
* the configuration: the ``job.xml`` ``JobSubmitter`` staged, copied during the run
  (:func:`~mrtune.harness.any_job.copy_staged_confs`), restricted as the project's records are
  (:data:`~mrtune.harness.assemble.CONF_KEYS` and every -D key); without it, the run's -D
  settings and what the log says (the task's ``io.sort.mb``, the attempts' counts, a combiner
  seen in the counters) over Hadoop's defaults, and the record says which
  (:attr:`~mrtune.readers.run_records.RunRecord.conf_source`);
* the input: each split's file and extent ("Processing split: path:start+length", logged by
  ``MapTask``), so the files and their sizes are the run's, not a generator's;
* the job time: ``Cluster.initialize``'s "Trying ClientProtocolProvider" (``Job.submit``
  connecting; :data:`~mrtune.harness.any_job._SUBMIT_LOGGER`) to the job's "Counters" line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mrtune.errors import InputError
from mrtune.harness.any_job import LOCAL_SITE
from mrtune.harness.assemble import CONF_KEYS, read_conf_xml, read_log_text
from mrtune.readers.counter_names import hadoop_counter_names
from mrtune.readers.run_records import (
    STAGED_JOB_XML,
    TASK_COUNTER_GROUP,
    Counters,
    InputDescription,
    RunRecord,
    split_file_sizes,
)
from mrtune.readers.task_log import LogLine, iter_lines, parse_counter_block, parse_log

#: ``JobSubmitter``/``Cluster`` loggers of the driver thread: the first of them dates the submit.
_SUBMIT_LOGGERS = ("Cluster", "JobResourceUploader", "JobSubmitter", "FileInputFormat")
_JOB_DONE = re.compile(r"^Job (job_\w+) (completed successfully|failed with state (\w+))")
_RUNNING = re.compile(r"^Running job: (job_\w+)")
_ATTEMPT_JOB = re.compile(r"^attempt_(\w+?)_[mr]_\d+_\d+$")


def job_name_of(main_class: str) -> str:
    """A user's job's name: its main class's simple name, lower-cased (``h3.SensorStats`` →
    ``sensorstats``), the default label of ``hadoop-run --jar`` and, with ``-default``, the
    calibration label ``mrtune validate`` looks for."""
    name = re.sub(r"[^\w.\-]", "_", main_class.rsplit(".", 1)[-1].lower())
    return name or "job"


def d_settings(args: list[str]) -> dict[str, str]:
    """The ``-D k=v`` / ``-Dk=v`` options among the job's arguments (``GenericOptionsParser``)."""
    out: dict[str, str] = {}
    it = iter(range(len(args)))
    for i in it:
        a = args[i]
        pair = None
        if a == "-D" and i + 1 < len(args):
            pair = args[i + 1]
            next(it, None)
        elif a.startswith("-D") and len(a) > 2:
            pair = a[2:]
        if pair is not None:
            k, sep, v = pair.partition("=")
            if sep and k.strip():
                out[k.strip()] = v
    return out


def _attempt_jobs(maps: list, reduces: list) -> set[str]:
    jobs = set()
    for a in [*maps, *reduces]:
        if m := _ATTEMPT_JOB.match(a.attempt_id):
            jobs.add(f"job_{m[1]}")
    return jobs


def _job_lines(lines: list[LogLine]) -> dict[str, Any]:
    """Job id, submit and finish instants, outcome and totals from the driver's lines."""
    out: dict[str, Any] = {}
    names = hadoop_counter_names()
    for ln in lines:
        if ln.thread != "main":
            continue
        if ln.logger in _SUBMIT_LOGGERS and "submit_ms" not in out:
            out["submit_ms"] = ln.ts_ms
        elif ln.logger == "Job":
            if m := _RUNNING.match(ln.msg):
                out.setdefault("job_id", m[1])
            elif m := _JOB_DONE.match(ln.msg.strip()):
                out["job_id"] = m[1]
                out["done_ms"] = ln.ts_ms
                out["succeeded"] = m[2] == "completed successfully"
            elif ln.msg.startswith("Counters:"):
                out["counters"] = parse_counter_block(ln.continuation, names)
                out["done_ms"] = ln.ts_ms
    return out


def _sum_counters(attempts: list) -> Counters:
    """Job totals as ``LocalJobRunner`` forms them: the attempts' counters added up."""
    out: Counters = {}
    for a in attempts:
        for group, values in a.counters.items():
            g = out.setdefault(group, {})
            for name, v in values.items():
                g[name] = g.get(name, 0) + v
    return out


def _common_dir(paths: list[str]) -> str:
    parents = {p.rsplit("/", 1)[0] for p in paths}
    return parents.pop() if len(parents) == 1 else ",".join(sorted(parents))


def fixed_in_staged(run_dir: Path, job_id: str | None) -> list[str]:
    """The job-level properties the job's code set itself, by the staged job.xml's sources
    (:func:`~mrtune.profiling.job_fixed.fixed_by_code`); empty without that file."""
    from mrtune.profiling.job_fixed import fixed_by_code
    from mrtune.readers.conf import load_conf

    staged = run_dir / f"{job_id}.xml" if job_id else None
    return fixed_by_code(load_conf(staged)) if staged is not None and staged.is_file() else []


def _conf(
    run_dir: Path, job_id: str | None, settings: dict[str, str], maps: list, reduces: list, J
) -> tuple[dict[str, str], str]:
    """``(effective_conf, where it comes from)``: the staged job.xml, else -D + the log."""
    staged = run_dir / f"{job_id}.xml" if job_id else None
    if staged is not None and staged.is_file():
        full = read_conf_xml(staged)
        wanted = set(CONF_KEYS) | set(settings)
        conf = {k: full[k] for k in sorted(wanted) if k in full}
        return conf, f"{STAGED_JOB_XML} ({staged.name}, copied during the run)"
    conf = {"mapreduce.framework.name": "local", **settings}
    logged = {a.sort_buffer.io_sort_mb for a in maps if a.sort_buffer.io_sort_mb is not None}
    if len(logged) == 1:
        conf["mapreduce.task.io.sort.mb"] = str(logged.pop())
    conf["mapreduce.job.reduces"] = str(len(reduces))
    conf["mapreduce.job.maps"] = str(len(maps))
    if J.get(TASK_COUNTER_GROUP, {}).get("COMBINE_INPUT_RECORDS", 0) > 0:
        conf.setdefault("mapreduce.job.combine.class", "(a combiner: COMBINE_INPUT_RECORDS > 0)")
    return conf, (
        "no job.xml was captured: Hadoop's defaults, the run's -D settings and what the log "
        "says (io.sort.mb, map and reduce attempts, a combiner in the counters)"
    )


def _error(run_dir: Path, rc: int, outcome: bool | None) -> str | None:
    if rc == 0 and outcome is not False:
        return None
    client = run_dir / "client.log"
    tail = (
        client.read_text(errors="replace").strip().splitlines()[-15:] if client.is_file() else []
    )
    return "\n".join(tail) or f"exit code {rc}"


def started_no_job(run_dir: Path) -> str | None:
    """Why a local run's JVM ended before any job ran (no ``job.log``): the first exception
    its ``client.log`` names, with a hint for a class the classpath lacks, or ``None`` when
    a job ran. Hadoop Streaming, for one, needs commons-cli, which the shaded client jars
    hide."""
    if read_log_text(run_dir) is not None:
        return None
    client = run_dir / "client.log"
    lines = client.read_text(errors="replace").splitlines() if client.is_file() else []
    first = next((ln.strip() for ln in lines if "Exception" in ln or "Error" in ln), None)
    if first is None:
        return f"the run left no job.log (see {client})"
    hint = ""
    if "NoClassDefFoundError" in first or "ClassNotFoundException" in first:
        hint = "; put the jars it needs on HADOOP_CLASSPATH, as for `hadoop jar`"
    first = first.removeprefix('Exception in thread "main" ')
    return f"{first}{hint} (see {client})"


def build_any_record(entry: dict[str, Any], job: str, repeat: int) -> RunRecord:
    """The record of a ``hadoop-run --jar`` local run (``entry``: :func:`~mrtune.harness.
    any_job.run_local`'s); ``job`` is the job's name (:func:`job_name_of`).

    Raises:
        InputError: the run left no log, or the jar ran more than one MapReduce job (a record
            holds one job; run each job of a chain under its own label).
    """
    run_dir = Path(entry["run_dir"])
    text = read_log_text(run_dir)
    if text is None:
        raise InputError("the run left no job.log", path=str(run_dir))
    maps, reduces = parse_log(text, hadoop_counter_names())
    jobs = _attempt_jobs(maps, reduces)
    if len(jobs) > 1:
        raise InputError(
            f"the jar ran {len(jobs)} MapReduce jobs ({', '.join(sorted(jobs))}); a run record "
            "holds one job",
            path=str(run_dir / "job.log"),
            allowed="a main class that runs one job",
        )
    info = _job_lines(list(iter_lines(text)))
    job_id = info.get("job_id") or (jobs.pop() if jobs else None)
    J = info.get("counters") or _sum_counters([*maps, *reduces])
    settings = d_settings(list(entry.get("args", [])))
    conf, conf_source = _conf(run_dir, job_id, settings, maps, reduces, J)
    files = split_file_sizes(maps)
    stored = sum(files.values())
    if stored <= 0:  # splits not logged (a non-file input format): what the format read
        stored = int(J.get(
            "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter", {}
        ).get("BYTES_READ", 0))  # fmt: skip
    rc = int(entry["exit_code"])
    submit, done = info.get("submit_ms"), info.get("done_ms")
    success = rc == 0 and info.get("succeeded", True) and bool(maps)
    harness = {
        **LOCAL_SITE,
        "hadoop.tmp.dir": str(run_dir / "tmp"),
        "mapreduce.jobtracker.staging.root.dir": str(run_dir / "staging"),
    }
    started = int(entry["started_at_ms"])
    return RunRecord(
        run_id=f"{entry['label']}-r{repeat}-{started}",
        label=entry["label"],
        repeat=repeat,
        job=job,
        main_class=entry.get("main_class"),
        jar=entry.get("jar"),
        conf_source=conf_source,
        settings=settings,
        harness_settings=harness,
        xmx_mb=int(entry.get("xmx_mb", 2048)),
        hadoop_version=entry.get("hadoop_version"),
        input=InputDescription(
            kind="other",
            path=_common_dir(sorted(files)) if files else "",
            bytes=int(stored),
            generator={"files": len(files)} if files else {},
        ),
        started_at_ms=started,
        wall_time_ms=float(entry["wall_s"]) * 1000.0,
        cpu_time_ms=float(entry["cpu_s"]) * 1000.0 if entry.get("cpu_s") is not None else None,
        load_avg_1m=entry.get("load_avg_1m"),
        job_time_ms=(done - submit) if submit is not None and done is not None else None,
        job_start_ms=submit,
        exit_code=rc,
        success=success,
        error=None if success else _error(run_dir, rc, info.get("succeeded")) or "no map ran",
        job_id=job_id,
        effective_conf=conf,
        fixed_by_job=fixed_in_staged(run_dir, job_id),
        counters=J,
        num_maps=len(maps),
        num_reduces=len(reduces),
        map_attempts=maps,
        reduce_attempts=reduces,
    )


__all__ = ["build_any_record", "d_settings", "job_name_of"]

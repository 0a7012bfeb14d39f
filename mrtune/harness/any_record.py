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


def _job_of(attempt_id: str) -> str | None:
    """``attempt_local5759_0001_m_000000_0`` → ``job_local5759_0001`` (``TaskAttemptID``)."""
    m = _ATTEMPT_JOB.match(attempt_id)
    return f"job_{m[1]}" if m else None


def _job_lines(lines: list[LogLine]) -> list[dict[str, Any]]:
    """Each job's id, submit and finish instants, outcome and totals from the driver's lines,
    in the order the driver ran them (a chain such as the examples' Grep: a search job, then
    a sort of its output). A job's submit is the first ``Cluster``/``JobSubmitter`` line after
    the previous job ended."""
    jobs: list[dict[str, Any]] = []
    out: dict[str, Any] = {}
    names = hadoop_counter_names()
    for ln in lines:
        if ln.thread != "main":
            continue
        if ln.logger in _SUBMIT_LOGGERS:
            if "done_ms" in out:  # the driver submits its next job
                jobs.append(out)
                out = {}
            out.setdefault("submit_ms", ln.ts_ms)
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
    if out:
        jobs.append(out)
    return jobs


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


def build_any_records(entry: dict[str, Any], job: str, repeat: int) -> list[RunRecord]:
    """The records of a ``hadoop-run --jar`` local run (``entry``: :func:`~mrtune.harness.
    any_job.run_local`'s); ``job`` is the job's name (:func:`job_name_of`).

    One record per MapReduce job the jar ran. A driver that chains jobs (the examples' Grep: a
    search, then a sort of its output) gives its k-th job, in the order it submitted them, the
    label ``<label>#k`` and the name ``<job>#k``, each with its own attempts, counters, staged
    job.xml, input and job time, so ``validate`` calibrates each on ``<job>-default#k``
    (:func:`mrtune.calibration.fidelity.default_label`) and ``profile --from run`` takes one.

    Raises:
        InputError: the run left no log.
    """
    run_dir = Path(entry["run_dir"])
    text = read_log_text(run_dir)
    if text is None:
        raise InputError("the run left no job.log", path=str(run_dir))
    maps, reduces = parse_log(text, hadoop_counter_names())
    infos = _job_lines(list(iter_lines(text)))
    by_id = {i["job_id"]: i for i in infos if "job_id" in i}
    ids = _job_order(infos, [*maps, *reduces])
    if len(ids) <= 1:
        job_id = ids[0] if ids else None
        info = by_id.get(job_id) or (infos[0] if infos else {})
        return [_record(entry, job, repeat, entry["label"], info, maps, reduces, chained=False)]
    return [
        _record(
            entry,
            f"{job}#{k}",
            repeat,
            f"{entry['label']}#{k}",
            by_id.get(jid, {"job_id": jid}),
            [a for a in maps if _job_of(a.attempt_id) == jid],
            [a for a in reduces if _job_of(a.attempt_id) == jid],
            chained=True,
        )  # fmt: skip
        for k, jid in enumerate(ids, 1)
    ]


def _job_order(infos: list[dict[str, Any]], attempts: list) -> list[str]:
    """The job ids in the order the driver ran them: its "Running job" lines, then any job
    only its attempts name (by the id's sequence number, ``JobID``'s ``_0002``)."""
    ids = [i["job_id"] for i in infos if "job_id" in i]
    seen = {j for a in attempts if (j := _job_of(a.attempt_id)) is not None}
    rest = sorted(seen - set(ids), key=lambda j: (int(j.rsplit("_", 1)[-1]), j))
    return list(dict.fromkeys([*ids, *rest]))


def _record(
    entry: dict[str, Any], job: str, repeat: int, label: str, info: dict[str, Any],
    maps: list, reduces: list, *, chained: bool,
) -> RunRecord:  # fmt: skip
    """One job's record. ``chained``: the JVM ran other jobs too, so its wall and CPU time are
    not this job's: the wall time is the job's own (submit to done) and the CPU time is left
    out."""
    run_dir = Path(entry["run_dir"])
    job_id = info.get("job_id")
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
    job_ms = (done - submit) if submit is not None and done is not None else None
    if chained:  # its own outcome: a later job's failure is not this one's
        success = info.get("succeeded") is True and bool(maps)
    else:
        success = rc == 0 and info.get("succeeded", True) and bool(maps)
    wall = float(entry["wall_s"]) * 1000.0
    cpu = float(entry["cpu_s"]) * 1000.0 if entry.get("cpu_s") is not None else None
    harness = {
        **LOCAL_SITE,
        "hadoop.tmp.dir": str(run_dir / "tmp"),
        "mapreduce.jobtracker.staging.root.dir": str(run_dir / "staging"),
    }
    started = int(entry["started_at_ms"])
    return RunRecord(
        run_id=f"{label}-r{repeat}-{started}",
        label=label,
        repeat=repeat,
        job=job,
        main_class=entry.get("main_class"),
        jar=entry.get("jar"),
        conf_source=conf_source,
        settings=settings,
        harness_settings=harness,
        xmx_mb=int(entry.get("xmx_mb", 2048)),
        hadoop_version=entry.get("hadoop_version"),
        input=_input(files, stored),
        started_at_ms=started,
        wall_time_ms=float(job_ms) if chained and job_ms is not None else wall,
        cpu_time_ms=None if chained else cpu,
        load_avg_1m=entry.get("load_avg_1m"),
        job_time_ms=job_ms,
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


def _input(files: dict[str, int], stored: int) -> InputDescription:
    return InputDescription(
        kind="other",
        path=_common_dir(sorted(files)) if files else "",
        bytes=int(stored),
        generator={"files": len(files)} if files else {},
    )


def per_job_entries(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """A YARN run's index entries: itself, or, when its driver ran several jobs (the
    examples' Grep: a search, then a sort), one per job in the order it ran them, the k-th
    labelled ``<label>#k`` and named ``<job>#k`` with its own history pair, as a local run's
    records are (:func:`build_any_records`)."""
    jobs = entry.get("jobs") or []
    if len(jobs) <= 1:
        return [entry]
    name = entry.get("job") or job_name_of(str(entry.get("main_class") or "job"))
    return [
        {**entry, **j, "label": f"{entry['label']}#{k}", "job": f"{name}#{k}", "jobs": [j]}
        for k, j in enumerate(jobs, 1)
    ]


__all__ = ["build_any_records", "d_settings", "job_name_of", "per_job_entries"]

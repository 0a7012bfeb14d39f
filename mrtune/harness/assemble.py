"""Turn a run folder (:mod:`mrtune.harness.runner`) into a :class:`~mrtune.readers.run_records.RunRecord`.

Reads the driver's ``report/`` files (resolved configuration, job-total counters, timing),
parses ``job.log`` with :mod:`mrtune.readers.task_log`, and keeps only the configuration
properties that shape the dataflow (plus every key the run set), so records stay small.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import defusedxml.ElementTree as ET

from mrtune.harness.runner import RunArtifacts
from mrtune.readers.run_records import Counters, InputDescription, RunRecord
from mrtune.readers.task_log import parse_log

#: Configuration properties copied into ``RunRecord.effective_conf`` (besides the run's own
#: settings): everything the cost model or a profile needs to know about the run.
CONF_KEYS: tuple[str, ...] = (
    "mapreduce.task.io.sort.mb",
    "mapreduce.map.sort.spill.percent",
    "mapreduce.task.io.sort.factor",
    "mapreduce.map.combine.minspills",
    "mapreduce.job.reduces",
    "mapreduce.job.maps",
    "mapreduce.map.output.compress",
    "mapreduce.map.output.compress.codec",
    "mapreduce.output.fileoutputformat.compress",
    "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapreduce.reduce.shuffle.merge.percent",
    "mapreduce.reduce.shuffle.memory.limit.percent",
    "mapreduce.reduce.input.buffer.percent",
    "mapreduce.reduce.merge.inmem.threshold",
    "mapreduce.reduce.merge.memtomem.enabled",
    "mapreduce.reduce.merge.memtomem.threshold",
    "mapreduce.reduce.shuffle.parallelcopies",
    "mapreduce.reduce.memory.totalbytes",
    "mapreduce.input.fileinputformat.split.maxsize",
    "mapreduce.input.fileinputformat.split.minsize",
    "fs.local.block.size",
    "mapreduce.local.map.tasks.maximum",
    "mapreduce.local.reduce.tasks.maximum",
    "mapreduce.job.reduce.slowstart.completedmaps",
    "mapreduce.framework.name",
    "mapreduce.job.combine.class",
    "mapreduce.job.partitioner.class",
    "mapreduce.job.map.class",
    "mapreduce.job.reduce.class",
    "mapreduce.job.inputformat.class",
    "mapreduce.job.outputformat.class",
    "mapreduce.map.output.key.class",
    "mapreduce.map.output.value.class",
    "mapreduce.task.index.cache.limit.bytes",
    "mapreduce.ifile.readahead",
    "io.file.buffer.size",
    "mapreduce.map.memory.mb",
    "mapreduce.reduce.memory.mb",
    # the old mapred API's own keys (JobConf; Hadoop Streaming, Hive): its combiner and classes
    "mapred.combiner.class",
    "mapred.mapper.new-api",
    "mapred.reducer.new-api",
    "mapred.input.format.class",
    "mapred.output.format.class",
    "mapred.partitioner.class",
    "mapred.mapper.class",
    "mapred.reducer.class",
    # Hadoop Streaming's commands: which job a hadoopstreaming run is
    "stream.map.streamprocessor",
    "stream.reduce.streamprocessor",
    "stream.combine.streamprocessor",
)


def read_conf_xml(path: Path) -> dict[str, str]:
    """All properties of a Hadoop configuration XML (``Configuration.writeXml`` output)."""
    root = ET.parse(path).getroot()
    out: dict[str, str] = {}
    for prop in root.iter("property"):
        name = prop.findtext("name")
        value = prop.findtext("value")
        if name is not None:
            out[name] = value if value is not None else ""
    return out


def read_counters_tsv(path: Path) -> tuple[Counters, dict[tuple[str, str], tuple[str, str]]]:
    """Job totals and the display-name → name map used to read per-attempt blocks."""
    counters: Counters = {}
    names: dict[tuple[str, str], tuple[str, str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) != 5:
            continue
        group, group_disp, name, disp, value = parts
        counters.setdefault(group, {})[name] = int(value)
        names[(group_disp.strip(), disp.strip())] = (group, name)
    return counters, names


def read_timing(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        k, _, v = line.partition("\t")
        out[k] = v
    return out


def read_log_text(run_dir: Path) -> str | None:
    """The run's ``job.log`` (or the ``job.log.gz`` a matrix run keeps), None if absent."""
    plain = run_dir / "job.log"
    if plain.is_file():
        return plain.read_text(encoding="utf-8", errors="replace")
    packed = run_dir / "job.log.gz"
    if packed.is_file():
        with gzip.open(packed, "rt", encoding="utf-8", errors="replace") as fh:
            return fh.read()
    return None


def build_record(art: RunArtifacts, label: str | None = None, repeat: int = 0) -> RunRecord:
    """Assemble the record of a finished run (failed runs get a record too, with ``error``)."""
    report = art.report_dir
    counters: Counters = {}
    names: dict[tuple[str, str], tuple[str, str]] = {}
    if (report / "counters.tsv").is_file():
        counters, names = read_counters_tsv(report / "counters.tsv")
    timing = read_timing(report / "timing.tsv") if (report / "timing.tsv").is_file() else {}
    conf: dict[str, str] = {}
    if (report / "conf.xml").is_file():
        full = read_conf_xml(report / "conf.xml")
        wanted = set(CONF_KEYS) | set(art.settings)
        conf = {k: full[k] for k in sorted(wanted) if k in full}
        conf.update({k: v for k, v in full.items() if k.startswith("mrtune.")})
        conf.pop("mrtune.report.dir", None)
    maps, reduces = ([], [])
    log_text = read_log_text(art.run_dir)
    if log_text is not None:
        maps, reduces = parse_log(log_text, names)
    success = art.exit_code == 0 and timing.get("success") == "true"
    error = None
    if not success:
        err_file = art.run_dir / "stderr.txt"
        tail = (
            err_file.read_text(errors="replace").strip().splitlines()[-15:]
            if err_file.is_file()
            else []
        )
        error = "\n".join(tail) or f"exit code {art.exit_code}"
    meta = art.input_meta
    kind = meta.get("kind", "other")
    generator = {
        k: v
        for k, v in meta.items()
        if k not in ("kind", "seed", "records", "words", "bytes")
        and isinstance(v, (int, float, str))
    }
    input_desc = InputDescription(
        kind=kind if kind in ("text", "records") else "other",
        path=str(art.input_dir),
        bytes=int(meta.get("bytes", 0)),
        seed=meta.get("seed"),
        records=meta.get("records"),
        words=meta.get("words"),
        generator=generator,
    )
    submit = int(timing["submit_ms"]) if "submit_ms" in timing else None
    done = int(timing["done_ms"]) if "done_ms" in timing else None
    run_id = f"{label or art.job}-r{repeat}-{art.started_at_ms}"
    return RunRecord(
        run_id=run_id,
        label=label,
        repeat=repeat,
        job=art.job,  # type: ignore[arg-type]
        settings=art.settings,
        harness_settings={
            k: v for k, v in art.harness_settings.items() if k != "mrtune.report.dir"
        },
        xmx_mb=art.xmx_mb,
        hadoop_version=timing.get("hadoop_version") or art.hadoop_version,
        input=input_desc,
        started_at_ms=art.started_at_ms,
        wall_time_ms=art.wall_time_ms,
        cpu_time_ms=art.cpu_time_ms,
        load_avg_1m=art.load_avg_1m,
        nice=art.nice,
        job_time_ms=(done - submit) if submit is not None and done is not None else None,
        job_start_ms=submit,
        exit_code=art.exit_code,
        success=success,
        error=error,
        job_id=timing.get("job_id"),
        effective_conf=conf,
        counters=counters,
        num_maps=len(maps),
        num_reduces=len(reduces),
        map_attempts=maps,
        reduce_attempts=reduces,
    )

"""A lint pass over a configuration before it is written: the values an expert would question.

The rules follow Dr. Elephant's MapReduce heuristics (linkedin/dr-elephant,
``app/com/linkedin/drelephant/mapreduce/heuristics/``), applied to what the cost model predicts
for the emitted configuration instead of to a finished run, plus the limits Hadoop itself
enforces. Severities are Dr. Elephant's (``analysis.Severity``: none < low < moderate < severe <
critical) and one more, **error**: a value Hadoop would reject or that fails the job at run
time. ``mrtune optimize`` prints the findings, carries them in its JSON, and refuses to write a
file with an error (the optimizer's constraints should never let one through).

Rules (each finding names the property, its value, the rule, its threshold and the severity):

* ``spill-ratio``: predicted spilled map records / map output records
  (``MapperSpillHeuristic``: ``spill_severity`` 2.01, 2.2, 2.5, 3.0, damped by the number of
  maps, ``num_tasks_severity`` 50, 100, 500, 1000). 1.0 is one spill per map; each further
  merge pass writes every record again.
* ``map-granularity`` / ``reduce-granularity``: bytes per task. Maps below half a DFS block
  (:data:`~mrtune.search_spaces.constraints.MIN_SPLIT_BLOCK_SHARE`) and reducers given more
  than the map output fills at :data:`~mrtune.search_spaces.constraints.MIN_REDUCE_BYTES` each
  (Hive's ``hive.exec.reducers.bytes.per.reducer``); each level is a factor of four further
  off. Damped like ``MapperTimeHeuristic`` / ``ReducerTimeHeuristic`` by the number of tasks
  (``num_tasks_severity`` 50, 101, 500, 1000): a few small tasks cost nothing.
* ``sort-buffer-heap``: ``io.sort.mb`` against the map heap. At or above the heap, or above
  2047, is an error (``MapTask.MapOutputBuffer`` throws "Invalid mapreduce.task.io.sort.mb" or
  the JVM runs out of heap allocating ``kvbuffer``); the search offers
  :data:`~mrtune.search_spaces.constraints.SORT_BUFFER_HEAP_SHARE` of the heap at most (half:
  Hadoop's ClusterSetup guidance, 512 MB for -Xmx1024M), so a share above it, from 0.75 and
  above 0.8 is low, moderate, severe (a fifth of the heap or less for the map function). When
  the profile observed the map function's heap (:class:`~mrtune.costmodel.profile.MapHeapUse`:
  the maps' committed heap beyond their sort buffer), a buffer that leaves less than
  :data:`~mrtune.search_spaces.constraints.HEAP_NEED_HEADROOM` × that figure is low and one
  that leaves less than the figure itself severe (the profiled maps took more than that beside
  their buffer); the finding names the figure and where it comes from.
* ``heap-container``: ``-Xmx`` against ``mapreduce.{map,reduce}.memory.mb`` (Hadoop 2/3). Above
  the container is an error (YARN's ``ContainersMonitorImpl`` kills the task, "running beyond
  physical memory limits"); 0.85, 0.9, 0.95, 1.0 of it leave the JVM's non-heap memory
  (metaspace, thread stacks, direct buffers) less than Hadoop 3's own default ratio of 0.8
  (``mapreduce.job.heap.memory-mb.ratio``, MAPREDUCE-5785) does.
* ``container-node``: a container above the node's memory or vcores is an error (the
  ResourceManager refuses the request: ``InvalidResourceRequestException``); above half a node
  is low (one task per node at most).
* ``codec-availability``: an emitted codec the cluster cannot load is an error (not shipped in
  the release, not in ``io.compression.codecs``, or native-only without
  ``--allow-native-codecs``: :func:`~mrtune.search_spaces.constraints.job_codec_verdicts`); a
  native-only codec that is allowed is low (every node needs ``libhadoop`` with it).
"""

from __future__ import annotations

from typing import Any

from mrtune.costmodel import ClusterSpec, ConfigBatch, HadoopConfig, JobProfile, predict_job
from mrtune.optimizer.lint_memory import (  # noqa: F401 - re-exported with the report types
    HEAP_SHARE_LIMITS,
    SORT_MB_MAX,
    SORT_SHARE_LIMITS,
    container_node,
    heap_container,
    sort_buffer_findings,
    sort_buffer_limit,
)
from mrtune.optimizer.lint_report import Finding, LintReport
from mrtune.optimizer.severity import Severity, ascending, descending
from mrtune.optimizer.units import format_bytes
from mrtune.search_spaces.constraints import (
    MIN_REDUCE_BYTES,
    MIN_SPLIT_BLOCK_SHARE,
    job_codec_verdicts,
    map_output_bytes,
    max_reducers_for,
    parse_release,
)
from mrtune.search_spaces.knobs import CODEC_AVAILABILITY

DR_ELEPHANT = "linkedin/dr-elephant app/com/linkedin/drelephant/mapreduce/heuristics/"
SPILL_LIMITS = (2.01, 2.2, 2.5, 3.0)
SPILL_TASK_LIMITS = (50.0, 100.0, 500.0, 1000.0)
TIME_TASK_LIMITS = (50.0, 101.0, 500.0, 1000.0)
#: Map bytes as a share of the block: half a block, then each level four times smaller.
MAP_BLOCK_SHARE_LIMITS = tuple(MIN_SPLIT_BLOCK_SHARE / 4**i for i in range(4))
#: Reducers as a multiple of those the map output fills: just over, then ×4, ×16, ×64.
REDUCER_EXCESS_LIMITS = (1.0 + 1e-9, 4.0, 16.0, 64.0)


def lint_config(
    profile: JobProfile,
    config: HadoopConfig,
    cluster: ClusterSpec,
    *,
    base: HadoopConfig | None = None,
    emitted: set[str] | None = None,
) -> LintReport:
    """Lint ``config`` (the configuration to be written) for ``profile`` on ``cluster``.

    ``base`` is the job's own configuration (the codecs it already runs with load on its
    cluster); ``emitted`` the property names written (findings on other properties say
    ``emitted: false``). ``config`` may be built with ``HadoopConfig.model_construct`` (no
    validation), so that the error rules see values Hadoop would reject.
    """
    base = base or HadoopConfig(hadoop_version=config.hadoop_version)  # no codec in use
    report = LintReport()
    pred = predict_job(profile, ConfigBatch.from_configs([config]), cluster)
    rules = (
        ("spill-ratio", lambda: _spill(pred, config)),
        ("map-granularity", lambda: _map_granularity(pred, profile, config)),
        ("reduce-granularity", lambda: _reduce_granularity(pred, profile, config)),
        # a map-only task writes through NewDirectOutputCollector: no sort buffer at all
        ("sort-buffer-heap", lambda: _sort_buffer(profile, config)),
        ("heap-container", lambda: heap_container(config, cluster)),
        ("container-node", lambda: container_node(config, cluster)),
        ("codec-availability", lambda: _codecs(profile, config, base)),
    )
    for name, rule in rules:
        report.checked.append(name)
        for f in rule():
            if f.severity > Severity.NONE:
                f.emitted = emitted is None or f.property in emitted
                report.findings.append(f)
    report.findings.sort(key=lambda f: -f.severity)
    if profile.map_heap_use is not None:
        report.limits["sort_buffer"] = sort_buffer_limit(config, profile.map_heap_use)
    return report


def lint_settings(
    config: HadoopConfig,
    cluster: ClusterSpec,
    facts: JobProfile | None = None,
    base: HadoopConfig | None = None,
) -> LintReport:
    """The rules that need no job: memory headroom (sort buffer, heap, container, node), for
    a cluster-wide ``mapred-site.xml`` that every job reads (``mrtune batch``); with
    ``facts`` (a profile carrying only the cluster's facts: release, listed codecs, native
    library) codec availability too, ``base`` being what the cluster's jobs run with now."""
    report = LintReport()
    rules = [
        ("sort-buffer-heap", lambda: sort_buffer_findings(config, None)),
        ("heap-container", lambda: heap_container(config, cluster)),
        ("container-node", lambda: container_node(config, cluster)),
    ]
    if facts is not None:
        cur = base or HadoopConfig(hadoop_version=config.hadoop_version)
        rules.append(("codec-availability", lambda: _codecs(facts, config, cur)))
    for name, rule in rules:
        report.checked.append(name)
        report.findings.extend(f for f in rule() if f.severity > Severity.NONE)
    report.findings.sort(key=lambda f: -f.severity)
    return report


def _spill(pred: Any, cfg: HadoopConfig) -> list[Finding]:
    c = pred.counters
    out_recs = float(c["MAP_OUTPUT_RECORDS"][0])
    if float(pred.num_reducers[0]) == 0 or out_recs <= 0:
        return []  # a map-only job writes its output directly: nothing is sorted or spilled
    ratio = float(c["MAP_SPILLED_RECORDS"][0]) / out_recs
    maps = float(pred.num_maps[0])
    sev = min(ascending(ratio, SPILL_LIMITS), ascending(maps, SPILL_TASK_LIMITS))
    return [
        Finding(
            "spill-ratio",
            "mapreduce.task.io.sort.mb",
            str(cfg.io_sort_mb),
            sev,
            f"spilled/output records {ratio:.2f}; limits {', '.join(map(str, SPILL_LIMITS))} "
            f"with {maps:.0f} maps (damped below {', '.join(f'{x:.0f}' for x in SPILL_TASK_LIMITS)})",
            f"each map record is written {ratio:.2f} times: a larger sort buffer (or spill "
            "percent) cuts the merge passes",
            DR_ELEPHANT + "MapperSpillHeuristic.java",
        )
    ]


def _map_granularity(pred: Any, profile: JobProfile, cfg: HadoopConfig) -> list[Finding]:
    maps = float(pred.num_maps[0])
    per_map = profile.input_bytes / max(maps, 1.0)
    share = per_map / cfg.dfs_blocksize
    sev = min(descending(share, MAP_BLOCK_SHARE_LIMITS), ascending(maps, TIME_TASK_LIMITS))
    if per_map >= profile.input_bytes / max(profile.input_files, 1):
        sev = Severity.NONE  # one map per file already: the files, not the split, are small
    return [
        Finding(
            "map-granularity",
            "mapreduce.input.fileinputformat.split.maxsize",
            str(cfg.split_size),
            sev,
            f"{format_bytes(per_map)} per map = {share:.2f} of the block; limits "
            f"{', '.join(f'{x:g}' for x in MAP_BLOCK_SHARE_LIMITS)} with {maps:.0f} maps",
            f"{maps:.0f} maps of {format_bytes(per_map)}: task start-up outweighs the work",
            DR_ELEPHANT + "MapperTimeHeuristic.java",
        )
    ]


def _reduce_granularity(pred: Any, profile: JobProfile, cfg: HadoopConfig) -> list[Finding]:
    reducers = float(pred.num_reducers[0])
    if reducers <= 1:
        return []
    shuffle = float(pred.counters["REDUCE_SHUFFLE_BYTES"][0])
    fills = max_reducers_for(map_output_bytes(profile))
    excess = reducers / fills
    sev = min(ascending(excess, REDUCER_EXCESS_LIMITS), ascending(reducers, TIME_TASK_LIMITS))
    return [
        Finding(
            "reduce-granularity",
            "mapreduce.job.reduces",
            str(cfg.num_reducers),
            sev,
            f"{reducers:.0f} reducers = {excess:.1f}× the {fills} that "
            f"{format_bytes(MIN_REDUCE_BYTES)} each fill; limits ×1, ×4, ×16, ×64, damped "
            f"below {', '.join(f'{x:.0f}' for x in TIME_TASK_LIMITS)} reducers",
            f"{format_bytes(shuffle / reducers)} shuffled per reducer: each pays container "
            "start-up for little work",
            DR_ELEPHANT + "ReducerTimeHeuristic.java",
        )
    ]


def _sort_buffer(profile: JobProfile, config: HadoopConfig) -> list[Finding]:
    """The sort-buffer rule, none for a map-only job (it allocates no sort buffer)."""
    if profile.map_only or config.num_reducers == 0:
        return []
    return sort_buffer_findings(config, profile.map_heap_use)


def _codecs(profile: JobProfile, cfg: HadoopConfig, base: HadoopConfig) -> list[Finding]:
    verdicts = {v.codec: v for v in job_codec_verdicts(profile, base, None, None)}
    release = parse_release(profile.cluster_facts.get("hadoop_version"), base.hadoop_version)
    in_use = [v for v in verdicts.values() if v.reason == "the job already uses it"]
    out = []
    for on, codec, prop in (
        (cfg.map_output_compress, cfg.map_output_codec, "mapreduce.map.output.compress.codec"),
        (
            cfg.output_compress,
            cfg.output_codec,
            "mapreduce.output.fileoutputformat.compress.codec",
        ),
    ):
        v = verdicts.get(codec)
        if not on or v is None:
            continue
        av = CODEC_AVAILABILITY[codec]
        native = av.pure_java_since is None or release < av.pure_java_since
        if not v.offered:
            sev, msg = Severity.ERROR, f"the cluster cannot load it: {v.reason}"
        elif native and codec not in {c.codec for c in in_use}:
            sev, msg = Severity.LOW, f"needs libhadoop's native {codec} on every node ({av.jira})"
        else:
            sev, msg = Severity.NONE, v.reason
        out.append(
            Finding(
                "codec-availability",
                prop,
                codec,
                sev,
                "shipped in the release, listed in io.compression.codecs, native only with "
                "--allow-native-codecs",
                msg,
                "search_spaces.constraints.CODEC_AVAILABILITY",
            )
        )
    return out

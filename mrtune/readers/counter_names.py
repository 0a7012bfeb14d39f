"""Hadoop 3's counter display names → (group, counter) internal names, for logs without a dump.

A local run's ``job.log`` prints counters as ``Counters.toString()`` does: by display name
("Map-Reduce Framework" / "Spilled Records"). The project's driver dumps the display → name map
beside the log (``report/counters.tsv``); a user's own job (``mrtune hadoop-run --jar``) has no
such dump, so the names come from Hadoop's own resource bundles, quoted here:
``org/apache/hadoop/mapreduce/TaskCounter.properties``, ``FileSystemCounter.properties`` (the
local scheme's "FILE: " prefix, ``FileSystemCounterGroup``),
``lib/input/FileInputFormatCounter.properties`` and ``lib/output/FileOutputFormatCounter.properties``
of the Hadoop 3 client jar. A counter not listed (a job's own enum counters, "Shuffle Errors")
keeps its display names, as :func:`mrtune.readers.task_log.parse_counter_block` does.
"""

from __future__ import annotations

TASK_GROUP = ("Map-Reduce Framework", "org.apache.hadoop.mapreduce.TaskCounter")
FS_GROUP = ("File System Counters", "org.apache.hadoop.mapreduce.FileSystemCounter")
INPUT_GROUP = (
    "File Input Format Counters",
    "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter",
)
OUTPUT_GROUP = (
    "File Output Format Counters",
    "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter",
)

#: ``TaskCounter.properties``: display name → enum name.
_TASK = {
    "Map input records": "MAP_INPUT_RECORDS",
    "Map output records": "MAP_OUTPUT_RECORDS",
    "Map output bytes": "MAP_OUTPUT_BYTES",
    "Map output materialized bytes": "MAP_OUTPUT_MATERIALIZED_BYTES",
    "Map skipped records": "MAP_SKIPPED_RECORDS",
    "Combine input records": "COMBINE_INPUT_RECORDS",
    "Combine output records": "COMBINE_OUTPUT_RECORDS",
    "Reduce input groups": "REDUCE_INPUT_GROUPS",
    "Reduce shuffle bytes": "REDUCE_SHUFFLE_BYTES",
    "Reduce input records": "REDUCE_INPUT_RECORDS",
    "Reduce output records": "REDUCE_OUTPUT_RECORDS",
    "Reduce skipped records": "REDUCE_SKIPPED_RECORDS",
    "Reduce skipped groups": "REDUCE_SKIPPED_GROUPS",
    "Input split bytes": "SPLIT_RAW_BYTES",
    "Spilled Records": "SPILLED_RECORDS",
    "Shuffled Maps": "SHUFFLED_MAPS",
    "Failed Shuffles": "FAILED_SHUFFLE",
    "Merged Map outputs": "MERGED_MAP_OUTPUTS",
    "GC time elapsed (ms)": "GC_TIME_MILLIS",
    "Total committed heap usage (bytes)": "COMMITTED_HEAP_BYTES",
    "CPU time spent (ms)": "CPU_MILLISECONDS",
    "Physical memory (bytes) snapshot": "PHYSICAL_MEMORY_BYTES",
    "Virtual memory (bytes) snapshot": "VIRTUAL_MEMORY_BYTES",
    "Peak Map Physical memory (bytes)": "MAP_PHYSICAL_MEMORY_BYTES_MAX",
    "Peak Map Virtual memory (bytes)": "MAP_VIRTUAL_MEMORY_BYTES_MAX",
    "Peak Reduce Physical memory (bytes)": "REDUCE_PHYSICAL_MEMORY_BYTES_MAX",
    "Peak Reduce Virtual memory (bytes)": "REDUCE_VIRTUAL_MEMORY_BYTES_MAX",
}

#: ``FileSystemCounter.properties``, as ``FileSystemCounterGroup`` names them per scheme.
_FS = {
    "Number of bytes read": "BYTES_READ",
    "Number of bytes written": "BYTES_WRITTEN",
    "Number of read operations": "READ_OPS",
    "Number of large read operations": "LARGE_READ_OPS",
    "Number of write operations": "WRITE_OPS",
    "Number of bytes read erasure-coded": "BYTES_READ_EC",
}


def hadoop_counter_names(schemes: tuple[str, ...] = ("FILE", "HDFS")) -> dict[
    tuple[str, str], tuple[str, str]
]:  # fmt: skip
    """(group display name, counter display name) → (group name, counter name), the form of
    the project driver's ``counters.tsv`` (display names stripped, as the log parser strips
    them)."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for disp, name in _TASK.items():
        out[(TASK_GROUP[0], disp)] = (TASK_GROUP[1], name)
    for scheme in schemes:
        for disp, name in _FS.items():
            out[(FS_GROUP[0], f"{scheme}: {disp}")] = (FS_GROUP[1], f"{scheme}_{name}")
    out[(INPUT_GROUP[0], "Bytes Read")] = (INPUT_GROUP[1], "BYTES_READ")
    out[(OUTPUT_GROUP[0], "Bytes Written")] = (OUTPUT_GROUP[1], "BYTES_WRITTEN")
    return out


__all__ = ["hadoop_counter_names"]

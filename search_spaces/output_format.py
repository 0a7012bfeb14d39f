"""Whether the job's OutputFormat writes through the output codec at all.

``mapreduce.output.fileoutputformat.compress`` (and its codec) is read by
``FileOutputFormat.getCompressOutput``, which only the formats that call it honour:
``TextOutputFormat``, ``SequenceFileOutputFormat`` (and its binary form) and ``MapFileOutputFormat``,
in both APIs. A format of the job's own (the examples' ``TeraOutputFormat``: ``fs.create`` of
the work file, no codec) ignores it: compression offered there was priced as a gain (TeraSort's
reduce write −712 ms a task) for a setting that changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

#: The job's output format class: Hadoop 2/3 (new API), Hadoop 1 / old API.
OUTPUT_FORMAT_KEYS = ("mapreduce.job.outputformat.class", "mapred.output.format.class")

#: Formats that read the output-compression settings (``FileOutputFormat.getCompressOutput``).
COMPRESSING_FORMATS = frozenset(
    f"org.apache.hadoop.{api}.{name}"
    for api in ("mapreduce.lib.output", "mapred")
    for name in (
        "TextOutputFormat",
        "SequenceFileOutputFormat",
        "SequenceFileAsBinaryOutputFormat",
        "MapFileOutputFormat",
    )
)


def output_format_of(props: Mapping[str, str]) -> str | None:
    """The job's output format class, ``None`` when its configuration does not name one
    (Hadoop's default, ``TextOutputFormat``, then applies)."""
    for key in OUTPUT_FORMAT_KEYS:
        value = str(props.get(key, "")).strip()
        if value:
            return value
    return None


def ignores_output_codec(props: Mapping[str, str]) -> str | None:
    """Why the job's output would not be compressed by the output codec settings (its format
    class, named), or ``None`` when its format honours them or none is named."""
    cls = output_format_of(props)
    if cls is None or cls in COMPRESSING_FORMATS:
        return None
    return f"the job's OutputFormat {cls.rsplit('.', 1)[-1]} writes its own files (no codec)"

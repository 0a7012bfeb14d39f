"""Hadoop property names, their Hadoop 3.3 defaults and the Hadoop 1 → 2/3 deprecation table.

Pure data, shared by :mod:`mrtune.costmodel.config` and :mod:`mrtune.search_spaces`. Sources: reference §1.1
(Table 1), §8.4 (mapred-default.xml defaults for Hadoop 3.3) and §8.5 (``ConfigUtil.addDeprecatedKeys``).
"""

from __future__ import annotations

LONG_MAX = 2**63 - 1

#: Hadoop 1 (0.20) name → Hadoop 2/3 name (reference §8.5, Hadoop ``ConfigUtil.addDeprecatedKeys``).
DEPRECATED_NAMES: dict[str, str] = {
    "io.sort.mb": "mapreduce.task.io.sort.mb",
    "io.sort.factor": "mapreduce.task.io.sort.factor",
    "io.sort.spill.percent": "mapreduce.map.sort.spill.percent",
    "min.num.spills.for.combine": "mapreduce.map.combine.minspills",
    "mapred.compress.map.output": "mapreduce.map.output.compress",
    "mapred.map.output.compression.codec": "mapreduce.map.output.compress.codec",
    "mapred.output.compress": "mapreduce.output.fileoutputformat.compress",
    "mapred.output.compression.codec": "mapreduce.output.fileoutputformat.compress.codec",
    "mapred.output.compression.type": "mapreduce.output.fileoutputformat.compress.type",
    "mapred.reduce.tasks": "mapreduce.job.reduces",
    "mapred.map.tasks": "mapreduce.job.maps",
    "mapred.reduce.slowstart.completed.maps": "mapreduce.job.reduce.slowstart.completedmaps",
    "mapred.inmem.merge.threshold": "mapreduce.reduce.merge.inmem.threshold",
    "mapred.job.shuffle.input.buffer.percent": "mapreduce.reduce.shuffle.input.buffer.percent",
    "mapred.job.shuffle.merge.percent": "mapreduce.reduce.shuffle.merge.percent",
    "mapred.job.reduce.input.buffer.percent": "mapreduce.reduce.input.buffer.percent",
    "mapred.reduce.parallel.copies": "mapreduce.reduce.shuffle.parallelcopies",
    "mapred.job.reduce.total.mem.bytes": "mapreduce.reduce.memory.totalbytes",
    "mapred.job.map.memory.mb": "mapreduce.map.memory.mb",
    "mapred.job.reduce.memory.mb": "mapreduce.reduce.memory.mb",
    "mapred.map.child.java.opts": "mapreduce.map.java.opts",
    "mapred.reduce.child.java.opts": "mapreduce.reduce.java.opts",
    "mapred.min.split.size": "mapreduce.input.fileinputformat.split.minsize",
    "mapred.max.split.size": "mapreduce.input.fileinputformat.split.maxsize",
    "mapreduce.combine.class": "mapreduce.job.combine.class",
    "mapred.combiner.class": "mapreduce.job.combine.class",
    "mapred.input.dir": "mapreduce.input.fileinputformat.inputdir",
    "mapred.merge.recordsBeforeProgress": "mapreduce.task.merge.progress.records",
    "mapred.tasktracker.map.tasks.maximum": "mapreduce.tasktracker.map.tasks.maximum",
    "mapred.tasktracker.reduce.tasks.maximum": "mapreduce.tasktracker.reduce.tasks.maximum",
    "dfs.block.size": "dfs.blocksize",
    "mapred.job.reuse.jvm.num.tasks": "mapreduce.job.jvm.numtasks",
    "mapred.reduce.max.attempts": "mapreduce.reduce.maxattempts",
    "mapred.map.max.attempts": "mapreduce.map.maxattempts",
    "mapreduce.reduce.shuffle.memory.limit.percent": "mapreduce.reduce.shuffle.memory.limit.percent",
}

#: Starfish's switch for the job's combiner (``edu.duke.starfish...Constants.STARFISH_USE_COMBINER``,
#: default true): the combiner runs when its class is set and this is not false.
STARFISH_USE_COMBINER = "starfish.use.combiner"

#: Hadoop 2/3 name → Hadoop 1 name, for ``--names hadoop1`` output (first old name wins).
HADOOP1_NAMES: dict[str, str] = {}
for _old, _new in DEPRECATED_NAMES.items():
    if _old != _new:
        HADOOP1_NAMES.setdefault(_new, _old)

#: Hadoop compression codec classes by short name (the codecs the model knows).
CODEC_CLASSES: dict[str, str] = {
    "default": "org.apache.hadoop.io.compress.DefaultCodec",
    "gzip": "org.apache.hadoop.io.compress.GzipCodec",
    "bzip2": "org.apache.hadoop.io.compress.BZip2Codec",
    "snappy": "org.apache.hadoop.io.compress.SnappyCodec",
    "lz4": "org.apache.hadoop.io.compress.Lz4Codec",
    "zstd": "org.apache.hadoop.io.compress.ZStandardCodec",
    # hadoop-lzo (GPL, installed apart from Hadoop): raw LZO blocks, and lzop-framed blocks
    "lzo": "com.hadoop.compression.lzo.LzoCodec",
    "lzop": "com.hadoop.compression.lzo.LzopCodec",
    # a codec class mrtune does not know, from a job's history: priced with a fast-codec prior
    # (``CODEC_PRIORS["unknown"]``); the history's own class name stays in the profile
    "unknown": "(unknown codec class)",
}
CODEC_BY_CLASS: dict[str, str] = {v: k for k, v in CODEC_CLASSES.items()}
#: Integer codes used in vectorised configuration arrays (0 = no compression).
CODEC_CODES: dict[str, int] = {"none": 0, **{name: i + 1 for i, name in enumerate(CODEC_CLASSES)}}
CODEC_NAMES_BY_CODE: dict[int, str] = {v: k for k, v in CODEC_CODES.items()}


def codec_name(value: str) -> str:
    """Short codec name for a class name, a short name or a simple class name (``SnappyCodec``)."""
    v = value.strip()
    if v in CODEC_BY_CLASS:
        return CODEC_BY_CLASS[v]
    low = v.lower()
    if low in CODEC_CLASSES:
        return low
    simple = v.rsplit(".", 1)[-1].lower().removesuffix("codec")
    aliases = {"deflate": "default", "zstandard": "zstd", "bzip2": "bzip2", "gz": "gzip"}
    simple = aliases.get(simple, simple)
    if simple in CODEC_CLASSES:
        return simple
    raise ValueError(
        f"unknown compression codec {value!r}; allowed: {', '.join(CODEC_CLASSES.values())}"
    )

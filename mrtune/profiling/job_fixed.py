"""Job-level settings the job's own code fixes, read from its configuration's ``<source>``.

``Configuration.writeXml`` records where each value came from: ``mapred-default.xml``, a site
file, ``from command line`` (GenericOptionsParser's ``-D``), or ``programmatically`` (spelt
``programatically`` before Hadoop 2.8) when the driver's code called ``set`` itself, e.g.
``Job.setNumReduceTasks``. Such a value is set after the site files and ``-D`` are read, so a
recommendation for it is silently overridden: the examples' AggregateWordCount
(``ValueAggregatorJob`` sets its reducers from its arguments) was offered 2 → 1 reducers at
×1.48, and a real run with ``-D mapreduce.job.reduces=4`` still launched 2. Only job-level
properties count: a harness or a platform may set cluster properties (container memory, heap)
programmatically too, which a site file can still change for the next job.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Properties a driver sets for the job itself (Hadoop 2/3 and Hadoop 1 names).
JOB_LEVEL = (
    "mapreduce.job.reduces",
    "mapred.reduce.tasks",
    "mapreduce.job.combine.class",
    "mapred.combiner.class",
    "mapreduce.output.fileoutputformat.compress",
    "mapred.output.compress",
    "mapreduce.output.fileoutputformat.compress.codec",
    "mapred.output.compression.codec",
    "mapreduce.input.fileinputformat.split.minsize",
    "mapred.min.split.size",
    "mapreduce.input.fileinputformat.split.maxsize",
    "mapred.max.split.size",
)
PROGRAMMATIC = frozenset({"programmatically", "programatically"})


def fixed_by_code(conf: object) -> list[str]:
    """The job-level properties whose value the job's code set last (module doc); empty
    without a configuration file that records sources."""
    sources: Mapping[str, list[str]] = getattr(conf, "sources", None) or {}
    out = []
    for key in JOB_LEVEL:
        chain = [s.strip().lower() for s in sources.get(key, []) if s.strip() != "job.xml"]
        if chain and chain[-1] in PROGRAMMATIC:
            out.append(key)
    return out

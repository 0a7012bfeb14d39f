"""Real Apache Hadoop MapReduce in local mode: the cost model's referee (issue 5).

Modules, in the order a run goes through them:

* :mod:`validation.jars` — find the Hadoop client jars (``--jars``, ``$HADOOP_HOME``, pyspark,
  cache) or fetch them from PyPI's pyspark sdist (``python -m validation.jars fetch``).
* :mod:`validation.compile` — compile the project's Java jobs (``validation/java``) once per
  source hash.
* :mod:`validation.datagen` — deterministic inputs: Zipf text, 100-byte records.
* :mod:`validation.runner` — run a job in local mode with ``-D`` settings, handling the
  local-mode pitfalls (per-run temp dirs, poll intervals, ``JVM_PID``, warm cache, heap).
* :mod:`validation.logparse` — parse the run log into per-attempt events.
* :mod:`validation.assemble` — build the :class:`~validation.records.RunRecord` of a run.
* :mod:`validation.records` — the record schema (pydantic), read by the profiler and fitters.
* :mod:`validation.matrix` / :mod:`validation.summary` — YAML matrices and per-label medians.
"""

from validation.records import (
    MapAttemptEvents,
    ReduceAttemptEvents,
    RunRecord,
    read_jsonl,
    write_jsonl,
)

__all__ = ["MapAttemptEvents", "ReduceAttemptEvents", "RunRecord", "read_jsonl", "write_jsonl"]

"""Real Apache Hadoop MapReduce in local mode: the cost model's referee (issue 5).

Modules, in the order a run goes through them:

* :mod:`mrtune.harness.jars` — find the Hadoop client jars (``--jars``, ``$HADOOP_HOME``, pyspark,
  cache) or fetch them from PyPI's pyspark sdist (``python -m mrtune.harness.jars fetch``).
* :mod:`mrtune.harness.compile` — compile the project's Java jobs (``validation/java``) once per
  source hash.
* :mod:`mrtune.harness.datagen` — deterministic inputs: Zipf text, 100-byte records.
* :mod:`mrtune.harness.runner` — run a job in local mode with ``-D`` settings, handling the
  local-mode pitfalls (per-run temp dirs, poll intervals, ``JVM_PID``, warm cache, heap).
* :mod:`mrtune.readers.task_log` — parse the run log into per-attempt events.
* :mod:`mrtune.harness.assemble` — build the :class:`~mrtune.readers.run_records.RunRecord` of a run.
* :mod:`mrtune.readers.run_records` — the record schema (pydantic), read by the profiler and fitters.
* :mod:`mrtune.harness.matrix` / :mod:`mrtune.harness.summary` — YAML matrices and per-label medians.

The YARN referee (issue 21), Hadoop's own mini-cluster (HDFS + YARN + JobHistory server):

* :mod:`mrtune.harness.minicluster` — the mini-cluster jars from Maven Central (``maven/pom.xml``,
  ``python -m mrtune.harness.minicluster fetch``) and the launcher (``java/mrtune/yarn``).
* :mod:`mrtune.harness.yarn_run` — run one job on a stated cluster; keep its ``.jhist``/``_conf.xml``.
* :mod:`mrtune.harness.yarn_check` / :mod:`mrtune.harness.yarn_fidelity` — the model against real
  YARN histories (counters, waves, job time), for the ``yarn`` tests and ``mrtune validate``.
* :mod:`mrtune.harness.any_job` — any (jar, class, args) on either referee, under its own label.
"""

from mrtune.readers.run_records import (
    MapAttemptEvents,
    ReduceAttemptEvents,
    RunRecord,
    read_jsonl,
    write_jsonl,
)

__all__ = ["MapAttemptEvents", "ReduceAttemptEvents", "RunRecord", "read_jsonl", "write_jsonl"]

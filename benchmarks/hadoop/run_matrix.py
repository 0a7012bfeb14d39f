"""Reproduce the real-Hadoop run data of ``benchmarks/results/`` (issue 5 Deliver 6, issue 8).

Usage (from the repository root; fetch the jars once with ``python -m mrtune.harness.jars fetch``)::

    python benchmarks/hadoop/run_matrix.py mrtune/harness/matrices/matrix.yaml \
        -o benchmarks/results/runs-matrix.jsonl
    python benchmarks/hadoop/run_matrix.py mrtune/harness/matrices/generic.yaml \
        -o benchmarks/results/runs-generic.jsonl

An interrupted run resumes: (label, repeat) pairs already in the output are skipped. The same
is available as ``mrtune hadoop-matrix MATRIX.yaml -o OUT.jsonl``.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mrtune.harness.jars import find_jars  # noqa: E402
from mrtune.harness.matrix import load_matrix, run_matrix  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("matrix", type=Path)
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--jars", default=None, help="folder of Hadoop jars or a HADOOP_HOME")
    parser.add_argument("--work-dir", type=Path, default=None)
    parser.add_argument("--only", default=None, help="run only labels containing this text")
    args = parser.parse_args(argv)
    # SIGTERM → SystemExit, so the runner kills the JVM it is waiting for.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    spec = load_matrix(args.matrix)
    jars = find_jars(args.jars)
    t0 = time.perf_counter()
    records = run_matrix(
        spec,
        args.output,
        jars,
        work_dir=args.work_dir,
        only=(lambda e: args.only in e.label) if args.only else None,
        progress=lambda s: print(s, flush=True),
    )
    failed = sum(not r.success for r in records)
    print(f"{len(records)} runs, {failed} failed, {time.perf_counter() - t0:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

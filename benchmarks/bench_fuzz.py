"""Fuzz campaign: >= 10,000 mutated real files through every reader and the main commands.

    python benchmarks/bench_fuzz.py [--cases 10000] [--seed 1] [--commands-every 10]

Prints clean errors, successes, uncaught exceptions (by type and location), hangs (a case
over --hang-s seconds, interrupted by an alarm) and silent wrong answers (NaN, infinite or
negative values in a produced profile, prediction or row), with CPU time and load average.
Exit code 1 when anything but clean errors and successes was seen. Needs ../shared/data.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz.harness import Hang, campaign, report  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--commands-every", type=int, default=10)
    ap.add_argument("--hang-s", type=float, default=30.0)
    a = ap.parse_args()

    def _alarm(signum, frame):  # noqa: ANN001, ARG001
        raise Hang()

    signal.signal(signal.SIGALRM, _alarm)
    t0, w0 = time.process_time(), time.monotonic()
    tally = campaign(
        a.cases,
        seed=a.seed,
        commands_every=a.commands_every,
        on_case=lambda: signal.setitimer(signal.ITIMER_REAL, a.hang_s),
        after_case=lambda: signal.setitimer(signal.ITIMER_REAL, 0),
        hang_s=a.hang_s,
    )
    report(tally)
    load = os.getloadavg()
    print(
        f"cpu {time.process_time() - t0:.1f} s, wall {time.monotonic() - w0:.1f} s, "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    bad = sum(tally.counts.get(k, 0) for k in ("uncaught", "wrong", "hang"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""CPU seconds of the commands a user types first (issue 13's start-up goals).

Runs each command as a fresh process several times and prints the median CPU time (user +
system of the child, from ``resource.getrusage(RUSAGE_CHILDREN)``) and wall time, with the load
average beside them. CPU time is the figure that holds on a shared machine; wall time is printed
for context. The commands run as a user's shell runs them: ``PYTHONDONTWRITEBYTECODE`` is
dropped from their environment, so the warm-up run leaves the byte-code a user's first run
leaves (a wheel install compiles it at install time) and the timed runs do not recompile
mrtune's modules from source (~0.2–0.4 s of CPU). Goals: ``mrtune --help`` ≤ 0.3 s, ``mrtune whatif`` on the example ≤ 0.6 s,
``mrtune optimize`` on the README example ≤ 1.5 s end to end.

    python benchmarks/bench_startup.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

GOALS = {"help": 0.3, "whatif": 0.6, "optimize": 1.5}


def _mrtune() -> list[str]:
    exe = shutil.which("mrtune") or str(Path(sys.executable).parent / "mrtune")
    if not Path(exe).exists():
        sys.exit("mrtune is not installed in this environment (pip install -e .)")
    return [exe]


def _example() -> str:
    out = subprocess.run(
        [*_mrtune(), "example", "wordcount-rumen"], capture_output=True, text=True
    )
    if out.returncode != 0:
        sys.exit(out.stderr)
    return out.stdout.strip()


def _user_env() -> dict[str, str]:
    """The environment without ``PYTHONDONTWRITEBYTECODE`` (see the module docstring)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(cmd: list[str], cwd: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``cmd``; a failing command stops the script."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=_user_env())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    example = _example()
    commands = {
        "help": [*_mrtune(), "--help"],
        "whatif": [*_mrtune(), "whatif", example, "--set", "mapreduce.task.io.sort.mb=200"],
        "optimize": [*_mrtune(), "optimize", example, "--input-size", "100GB"],
    }
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / "mrtune-bench-startup"
    workdir.mkdir(exist_ok=True)
    if "PYTHONDONTWRITEBYTECODE" in os.environ:
        print("note: PYTHONDONTWRITEBYTECODE is set here; the commands run without it")
    print(f"{'command':<10} {'CPU s (median)':>15} {'wall s':>8} {'goal':>6}  load average")
    for name, cmd in commands.items():
        measure(cmd, str(workdir))  # warm the file cache and byte-code
        runs = [measure(cmd, str(workdir)) for _ in range(args.repeats)]
        cpu = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        verdict = "ok" if cpu <= GOALS[name] else "MISSED"
        print(f"{name:<10} {cpu:>15.3f} {wall:>8.2f} {GOALS[name]:>6.1f}  {load}  {verdict}")
    left = sorted(p.name for p in workdir.iterdir())
    print("files left in the working directory:", ", ".join(left) if left else "none")


if __name__ == "__main__":
    main()

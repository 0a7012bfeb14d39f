"""CPU seconds of the commands a user types first (issue 13's start-up goals).

Runs each command as a fresh process several times and prints the median CPU time (user +
system of the child, from ``resource.getrusage(RUSAGE_CHILDREN)``), the lowest one (the run
least disturbed by other processes on a shared machine) and wall time, with the load average
beside them; the verdict is the median's. CPU time is the figure that holds on a shared machine; wall time is printed
for context. The commands run as a user's shell runs them: ``PYTHONDONTWRITEBYTECODE`` is
dropped from their environment, so the warm-up run leaves the byte-code a user's first run
leaves (a wheel install compiles it at install time) and the timed runs do not recompile
mrtune's modules from source (~0.2–0.4 s of CPU). Goals: ``mrtune --help`` ≤ 0.3 s, ``mrtune whatif`` on the example ≤ 0.6 s,
``mrtune optimize`` on the README example ≤ 1.5 s end to end.

    python benchmarks/bench_startup.py [--repeats 5] [--only help,whatif]
    python benchmarks/bench_startup.py --quality 0,1,2   # the default search's answers

``--quality SEEDS`` prints, for the README example (at 100 GB and as profiled) and every
profile of :func:`benchmarks.profiles.benchmark_profiles`, the default strategy's best
predicted cost with its default budget, the trial that found it (trials below ``n_warm`` are
the polished warm start) and its CPU time, so a faster start can be checked for not giving
worse answers.
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


def quality(seeds: list[int]) -> None:
    """The default strategy's answers (module docstring, ``--quality``)."""
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    from benchmarks.profiles import benchmark_profiles
    from mrtune.cli._inputs import build_cluster, load_job, with_input_size
    from mrtune.optimizer.objective import Objective
    from mrtune.optimizer.strategies import DEFAULT_STRATEGY, get_strategy
    from mrtune.search_spaces import SearchSpace

    cases = []
    for size in ("100GB", None):
        prof, base = load_job(Path(_example()))
        prof = with_input_size(prof, size)
        cases.append(
            (
                f"readme-{size or 'as-profiled'}",
                prof,
                base,
                build_cluster(prof, None, None, False)[0],
            )
        )
    cases += benchmark_profiles()
    strat = get_strategy(DEFAULT_STRATEGY)
    print(f"{'profile':<32} {'seed':>4} {'best predicted ms':>18} {'trial':>5} {'CPU s':>6}")
    for name, prof, base, cluster in cases:
        space = SearchSpace.for_job(prof, base, cluster)
        for seed in seeds:
            t0 = time.process_time()
            res = strat.optimize(space, Objective(space), n_trials=strat.default_trials, seed=seed)
            cpu = time.process_time() - t0
            found = next(i for i, h in enumerate(res.history) if h <= res.history[-1])
            print(f"{name:<32} {seed:>4} {res.best_cost:>18.1f} {found:>5} {cpu:>6.2f}")
    print("load average:", " ".join(f"{x:.2f}" for x in os.getloadavg()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default=None, help="commands to time, e.g. help,whatif")
    parser.add_argument("--quality", default=None, help="seeds, e.g. 0,1,2 (see above)")
    args = parser.parse_args()
    if args.quality is not None:
        quality([int(s) for s in args.quality.split(",")])
        return
    example = _example()
    commands = {
        "help": [*_mrtune(), "--help"],
        "whatif": [*_mrtune(), "whatif", example, "--set", "mapreduce.task.io.sort.mb=200"],
        "optimize": [*_mrtune(), "optimize", example, "--input-size", "100GB"],
    }
    if args.only:
        wanted = args.only.split(",")
        if unknown := set(wanted) - set(commands):
            sys.exit(f"--only: unknown command(s) {sorted(unknown)}; known: {', '.join(commands)}")
        commands = {k: v for k, v in commands.items() if k in wanted}
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / "mrtune-bench-startup"
    workdir.mkdir(exist_ok=True)
    if "PYTHONDONTWRITEBYTECODE" in os.environ:
        print("note: PYTHONDONTWRITEBYTECODE is set here; the commands run without it")
    print(
        f"{'command':<10} {'CPU s (median)':>15} {'min':>6} {'wall s':>8} {'goal':>6}  load average"
    )
    for name, cmd in commands.items():
        measure(cmd, str(workdir))  # warm the file cache and byte-code
        runs = [measure(cmd, str(workdir)) for _ in range(args.repeats)]
        cpu = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        verdict = "ok" if cpu <= GOALS[name] else "MISSED"
        low = min(r[0] for r in runs)
        print(
            f"{name:<10} {cpu:>15.3f} {low:>6.3f} {wall:>8.2f} {GOALS[name]:>6.1f}  {load}  {verdict}"
        )
    left = sorted(p.name for p in workdir.iterdir())
    print("files left in the working directory:", ", ".join(left) if left else "none")


if __name__ == "__main__":
    main()

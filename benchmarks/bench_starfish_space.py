"""Starfish's own search space: mrtune's default strategy against Starfish's RRS, many seeds.

In the space Starfish 0.2.0's optimizer searches (``mrtune.search_spaces.starfish``: its
parameters and ranges, Hadoop 1 names, codecs none/default), this runs on every profile:

* mrtune's default strategy (one run, seed 0, its default budget);
* Starfish's faithful RRS and smart RRS (``optimizer/strategies/_rrs.py``, Starfish's
  defaults and stopping rules) over ``--seeds`` seeds each;

and prints the predicted job time of each, the RRS seeds as best / median / worst. Every
configuration is scored by the same model call on the same space, so the comparison is like for
like. The default strategy must be at least as good as the best RRS seed on every profile
(issue 16); the ``ok`` column says whether it is, and the exit status is 1 when it is not.

Profiles: the Starfish-format fixtures (``tests/readers/starfish/fixtures``: TeraSort, WordCount,
TeraSort on the 200 × 128 MB + 100 × 30 MB input of Starfish's TeraSort what-if sample, and a
two-input join, one map profile per input, on 100 × 128 MB + 50 × 30 MB + 40 × 64 MB splits),
and constructed co-occurrence, TeraSort and WordCount jobs written in Starfish's format
(``tests/readers/starfish/kinds.py``) and read back by mrtune's Starfish reader, plus the
co-occurrence job with the public sample's MERGE_CPU_COST on each side (168.6 ns map, 18,234.7
ns reduce), which the reader keeps apart.

Run from the repository root. Each RRS run costs about 5 s of CPU (the join, three classes of
maps, about three times that), so 20 seeds take about 30 minutes of CPU in all; ``--only``
splits a run over processes and ``--report`` merges their files::

    python benchmarks/bench_starfish_space.py --seeds 20 --json benchmarks/results/starfish_space.json
    python benchmarks/bench_starfish_space.py --report part_*.json --markdown --json merged.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile  # noqa: E402
from mrtune.optimizer.objective import Objective, ObjectiveKind  # noqa: E402
from mrtune.optimizer.strategies import DEFAULT_STRATEGY, get_strategy  # noqa: E402
from mrtune.profiling.starfish import load_starfish  # noqa: E402
from mrtune.search_spaces.starfish import starfish_space  # noqa: E402
from tests.readers.starfish.kinds import (  # noqa: E402
    COOCCURRENCE_MERGE_SIDES,
    KINDS,
    load_case,
)

FIX = ROOT / "tests" / "readers" / "starfish" / "fixtures"
BASELINES = ("rrs", "smart-rrs")
Job = tuple[JobProfile, HadoopConfig, ClusterSpec]


def fixture_jobs() -> dict[str, Job]:
    """The Starfish-sample-like fixtures, as ``mrtune profile --from starfish`` reads them."""

    def load(name: str, input_xml: str | None = None, profile: str | None = None) -> Job:
        return load_starfish(
            FIX / f"{profile or name}_profile.xml",
            FIX / (input_xml or f"{profile or name}_input.xml"),
            FIX / f"{name}_cluster.xml",
            FIX / f"{name}_conf.xml",
        )

    return {
        "terasort (fixture)": load("terasort"),
        "terasort sample splits": load("terasort", "terasort_input_unequal.xml"),
        "wordcount (fixture)": load("wordcount"),
        # two inputs' map profiles, three split sizes: three classes of maps (issue 16)
        "join 3 sizes 2 inputs": load("terasort", profile="join"),
    }


def constructed_jobs(folder: Path) -> dict[str, Job]:
    """Starfish's three job kinds, written in Starfish's format and read back."""
    jobs = {name: load_case(case, folder / name) for name, case in KINDS.items()}
    # the co-occurrence sample's merge costs, kept apart per side (issue 16)
    jobs["cooccurrence merge apart"] = load_case(
        KINDS["cooccurrence"], folder / "cooc-apart", cost_sides=COOCCURRENCE_MERGE_SIDES
    )
    return jobs


def run(space, strategy: str, seed: int) -> tuple[float, int]:  # noqa: ANN001
    """Best predicted job time (ms) and model evaluations of one search."""
    strat = get_strategy(strategy)
    res = strat.optimize(
        space, Objective(space, ObjectiveKind.time), n_trials=strat.default_trials, seed=seed
    )
    return float(res.best_cost), int(res.n_evaluations)


def bench_job(name: str, job: Job, seeds: int) -> dict[str, object]:
    prof, base, cluster = job
    space = starfish_space(prof, base, cluster)
    t0 = time.process_time()
    default_ms, default_evals = run(space, DEFAULT_STRATEGY, 0)
    row: dict[str, object] = {
        "profile": name,
        "knobs": len(space.knobs),
        "current_ms": float(Objective(space, ObjectiveKind.time)(_current(space))[0]),
        "default_ms": default_ms,
        "default_evaluations": default_evals,
        "default_cpu_s": time.process_time() - t0,
    }
    best_rrs = np.inf
    for strategy in BASELINES:
        costs = [run(space, strategy, s)[0] for s in range(seeds)]
        row[strategy] = {
            "best": min(costs),
            "median": float(np.median(costs)),
            "worst": max(costs),
            "seeds": costs,
        }
        best_rrs = min(best_rrs, min(costs))
    row["ok"] = bool(default_ms <= best_rrs * (1 + 1e-9))
    return row


def _current(space) -> dict[str, np.ndarray]:  # noqa: ANN001
    cur = space.current_values()
    return {k.name: np.array([k.encode(cur[k.name])]) for k in space.knobs}


def print_table(rows: list[dict[str, object]], seeds: int) -> None:
    """80 columns: times in seconds; each RRS seed's result as a multiple of the default's
    (best / median / worst seed; 1.000 or more: the default is at least as good)."""
    print(f"predicted job time in Starfish's space; RRS seeds ({seeds}) as × default's time")
    print(
        f"{'profile':<22}{'current':>9}{'default':>9}  {'rrs b/m/w':>17}  {'smart-rrs b/m/w':>17} ok"
    )
    for r in rows:
        line = f"{str(r['profile'])[:21]:<22}{r['current_ms'] / 1e3:>8.1f}s{r['default_ms'] / 1e3:>8.1f}s"
        for b in BASELINES:
            st = r[b]
            ratios = [st[q] / r["default_ms"] for q in ("best", "median", "worst")]
            line += "  " + "/".join(f"{x:.3f}"[:5] for x in ratios)
        print(line + (" yes" if r["ok"] else " NO"))


def report(paths: list[Path], markdown: bool, merged: Path | None) -> int:
    """The table of saved runs (several files: one run split by ``--only``), optionally merged."""
    rows: list[dict[str, object]] = []
    metas = []
    for p in paths:
        data = json.loads(p.read_text())
        metas.append(data["meta"])
        rows.extend(data["rows"])
    seeds = min(m["seeds"] for m in metas)
    print_table(rows, seeds)
    if markdown:
        print()
        print(
            "| profile | current | default | RRS best / median / worst | smart RRS best / median / worst | ok |"
        )
        print("|---|---:|---:|---:|---:|---|")
        for r in rows:
            cells = [
                str(r["profile"]),
                f"{r['current_ms'] / 1e3:,.1f} s",
                f"{r['default_ms'] / 1e3:,.1f} s",
            ]
            for b in BASELINES:
                cells.append(
                    " / ".join(
                        f"{r[b][q] / r['default_ms']:.3f}" for q in ("best", "median", "worst")
                    )
                )
            cells.append("yes" if r["ok"] else "no")
            print("| " + " | ".join(cells) + " |")
    if merged is not None:
        meta = {"seeds": seeds, "default_strategy": metas[0]["default_strategy"], "runs": metas}
        merged.write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    return 0 if all(r["ok"] for r in rows) else 1


def _write_json(path: Path, seeds: int, rows: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    meta = {
        "seeds": seeds,
        "default_strategy": DEFAULT_STRATEGY,
        "loadavg": os.getloadavg(),
        "cpu_s": usage.ru_utime + usage.ru_stime,
    }
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="RRS seeds per baseline (>= 1)")
    ap.add_argument("--only", default="", help="comma-separated profile names (default all)")
    ap.add_argument("--json", type=Path, default=None, help="write the rows as JSON")
    ap.add_argument(
        "--report",
        type=Path,
        nargs="+",
        default=None,
        help="print the table (and --markdown) of saved --json files instead of running",
    )
    ap.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    args = ap.parse_args()
    if args.report:
        return report(args.report, args.markdown, args.json)
    with tempfile.TemporaryDirectory() as tmp:
        jobs = {**fixture_jobs(), **constructed_jobs(Path(tmp))}
    wanted = [n for n in args.only.split(",") if n]
    rows = []
    for name, job in jobs.items():
        if wanted and name not in wanted:
            continue
        rows.append(bench_job(name, job, args.seeds))
        print(f"  done: {name}", file=sys.stderr)
        if args.json is not None:  # after every profile: a long run keeps what it finished
            _write_json(args.json, args.seeds, rows)
    print_table(rows, args.seeds)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    load = os.getloadavg()
    print(
        f"CPU {usage.ru_utime + usage.ru_stime:,.1f} s; load average {load[0]:.2f} {load[1]:.2f}"
    )
    if args.json is not None:
        _write_json(args.json, args.seeds, rows)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

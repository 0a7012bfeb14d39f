"""The optimizer's recommendation against the cluster's defaults on Hadoop's own mini-cluster
(issue 21, Deliver 5; issue 14's protocol on the YARN referee).

What a user of a YARN cluster does, step by step, for each of the project's jobs (sort,
WordCount with its summing combiner, postings with its list-building one):

1. **Calibrate now.** The job runs ``--calibrate-runs`` times at the cluster's defaults on one
   mini-cluster (the YARN fidelity matrix's cluster and inputs,
   ``mrtune/harness/matrices/yarn.yaml``); each run leaves the ``.jhist`` and ``_conf.xml`` its
   JobHistory server writes. The profile is built from the history with the median job time,
   through the user's path (:func:`mrtune.harness.yarn_fidelity.calibration_profile`:
   :func:`~mrtune.calibration.profiles.build_profile` on the history, host contention and the
   reduce ramp measured on the same timeline). The spread of the repeats is the run-to-run
   noise the intervals carry (:func:`mrtune.optimizer.noise.repeat_facts`).
2. **Recommend** with the CLI's defaults (robust p90 objective, low-confidence changes
   withheld; a far optimum, such as the split 4 MiB → 128 MiB, is replaced by the best
   configuration inside the trust region, :mod:`mrtune.optimizer.trust`, and recorded as
   ``low_confidence_option``), through :func:`~mrtune.optimizer.recommend.recommend`, the
   path ``mrtune optimize`` takes, on the mini-cluster's :class:`~mrtune.costmodel.ClusterSpec`. Codec ratios come
   from recorded runs of the same job and record generator (``--codec-runs``,
   :mod:`mrtune.harness.yarn_codecs`); ZStandard is marked unusable (no native libhadoop here).
3. **Run pairs.** The defaults (``<job>-hadoop-defaults``) and the recommendation
   (``<job>-recommended``) run ``--repeats`` rounds on a second mini-cluster, every entry once
   per round and each round shuffled (:func:`mrtune.harness.yarn_matrix.plan`), so a drift of
   the shared machine hits both alike. The paired speedup of a round is defaults ÷ recommended.
4. **Compare** the median paired speedup with the predicted interval.

``reduce_fixed_ms`` (a reduce's fixed wall time after its merge) is ``--reduce-fixed-ms``,
measured on the earlier YARN rounds leave-one-round-out (850 and 950 ms,
``benchmarks/yarn_rank_study.py``); none of this script's runs supplies it.

Usage (from the repository root; ``python -m mrtune.harness.minicluster fetch`` once)::

    python benchmarks/hadoop/run_yarn_recommendations.py --work ~/.cache/mrtune/yarn-rec
    python benchmarks/hadoop/run_yarn_recommendations.py --work DIR --dry-run   # no pairs
    python benchmarks/hadoop/run_yarn_recommendations.py --work DIR --report    # summary only

Writes ``DIR/calibration/runs.jsonl``, ``DIR/pairs/runs.jsonl`` and the summary
(``--summary``, default ``benchmarks/results/recommendations-yarn.json``). Each step is
resumable: a step whose index exists is not run again.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_recommendations import change_entries  # noqa: E402  (the local protocol's summary form)

from mrtune.costmodel import CodecStats  # noqa: E402
from mrtune.harness.yarn_check import cluster_spec  # noqa: E402
from mrtune.harness.yarn_fidelity import (  # noqa: E402
    HistoryRun,
    calibration_profile,
    load_history_runs,
)
from mrtune.harness.yarn_matrix import YarnMatrixSpec, load_yarn_matrix, run_yarn_matrix  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
YARN_MATRIX = ROOT / "mrtune" / "harness" / "matrices" / "yarn.yaml"
RESULTS = ROOT / "benchmarks" / "results"
SUMMARY = RESULTS / "recommendations-yarn.json"
CODEC_RUNS = [RESULTS / "runs-codec-probe.jsonl", RESULTS / "runs-codecs.jsonl"]
#: label prefix (the YARN matrix's job groups) → (project job, input of yarn.yaml)
JOBS = {"sort": ("sort", "rec24"), "wc": ("wordcount", "text16"), "pst": ("postings", "text16")}
#: Properties that describe the cluster or the job itself, not a setting to pass with -D.
_NOT_SETTINGS = {"mapreduce.job.combine.class", "dfs.blocksize"}


def _spec(base: YarnMatrixSpec, name: str, runs: list[dict], repeats: int) -> YarnMatrixSpec:
    """A matrix on the YARN matrix's cluster and inputs with ``runs`` only."""
    return YarnMatrixSpec.model_validate(
        {
            "name": name,
            "repeats": repeats,
            "shuffle_seed": 11,
            "per_job_timeout_s": base.per_job_timeout_s,
            "cluster": dict(base.cluster),
            "inputs": {k: v.model_dump() for k, v in base.inputs.items()},
            "runs": runs,
        }
    )


def _run_step(spec: YarnMatrixSpec, work: Path) -> list[HistoryRun]:
    """Run ``spec`` on one mini-cluster unless ``work/runs.jsonl`` exists; its histories."""
    index = work / "runs.jsonl"
    if not index.is_file():
        t0 = time.perf_counter()
        run_yarn_matrix(spec, work, index, progress=lambda s: print(s, flush=True))
        print(f"{spec.name}: {time.perf_counter() - t0:.0f} s", flush=True)
    return load_history_runs(index)


def _job_ms(run: HistoryRun) -> float:
    from mrtune.readers import load_history

    h = load_history(run.jhist)
    return float(h.finish_ms - h.launch_ms)


def _median_run(runs: list[HistoryRun]) -> HistoryRun:
    """The repeat with the median job time (ties → the earlier one)."""
    ordered = sorted(runs, key=_job_ms)
    return ordered[(len(ordered) - 1) // 2]


def _profile(cal: HistoryRun, repeats: list[HistoryRun], reduce_fixed_ms: float, codec_runs):
    """The calibration profile a user builds from this history, with the noise of its repeats,
    codec ratios measured on other runs of the same data, and ZStandard marked unusable."""
    from mrtune.harness.yarn_check import measured_figures
    from mrtune.harness.yarn_codecs import with_codecs_from
    from mrtune.optimizer.noise import repeat_facts
    from mrtune.readers import load_history

    profile, measured = calibration_profile(cal, reduce_fixed_ms)
    facts = repeat_facts([_job_ms(r) for r in repeats])
    profile = profile.model_copy(update={"cluster_facts": {**profile.cluster_facts, **facts}})
    counters = measured_figures(load_history(cal.jhist))
    mor = float(counters.get("MAP_OUTPUT_RECORDS") or 0.0)
    width = float(counters.get("MAP_OUTPUT_BYTES") or 0.0) / mor if mor > 0 else 0.0
    profile, sources = with_codecs_from(profile, cal.group, width, codec_runs, cal.label)
    codecs = dict(profile.codecs)
    codecs["zstd"] = CodecStats(
        ratio=1.5,
        compress_ns_per_byte=1e5,
        uncompress_ns_per_byte=1e5,
        source="unavailable: ZStandardCodec needs native libhadoop, absent on this mini-cluster",
    )
    return profile.model_copy(update={"codecs": codecs}), measured, sources


def recommend_for(
    prefix: str,
    runs: list[HistoryRun],
    reduce_fixed_ms: float,
    codec_runs,
    include_low: bool = False,
) -> dict[str, Any]:
    """One job's recommendation from its calibration runs, as a summary entry."""
    from mrtune.optimizer.objective import ObjectiveKind
    from mrtune.optimizer.recommend import recommend
    from mrtune.profiling.build import build_statistics
    from mrtune.readers import load_history
    from mrtune.readers.conf import load_conf

    cal = _median_run(runs)
    profile, measured, codec_sources = _profile(cal, runs, reduce_fixed_ms, codec_runs)
    _, base = build_statistics(load_history(cal.jhist), load_conf(cal.conf_xml))
    spec = cluster_spec(cal.cluster, **measured)  # reduce_fixed_ms is among them
    t0 = time.perf_counter()
    rec = recommend(
        profile,
        base,
        spec,
        exclude=["mapreduce.output.fileoutputformat.compress.codec"],
        seed=0,
        objective=ObjectiveKind.robust,
        include_low_confidence=include_low,
    )
    settings = {k: v for k, v in rec.properties.items() if k not in _NOT_SETTINGS}
    if base.use_combiner and not rec.config.use_combiner:
        settings[f"mrtune.{JOBS[prefix][0]}.combiner"] = "false"
    speedup = rec.intervals.get("speedup")
    return {
        "calibration_run": str(cal.jhist),
        "calibration_job_ms": _job_ms(cal),
        "calibration_repeats_ms": [_job_ms(r) for r in runs],
        "cluster_terms": measured,
        "codec_ratios_from": codec_sources,
        "search_s": round(time.perf_counter() - t0, 1),
        "settings": settings,
        "predicted_defaults_ms": rec.defaults["job_ms"],
        "predicted_recommended_ms": rec.recommended["job_ms"],
        "predicted_speedup": rec.current["job_ms"] / rec.recommended["job_ms"],
        "predicted_speedup_interval": speedup.to_json() if speedup else None,
        "run_noise": (rec.evidence or {}).get("run_noise"),
        "withheld_low_confidence": [c.name for c in rec.withheld],
        # a far optimum withheld (the in-region step written instead): its reason,
        # prediction and interval; what --include-low-confidence runs
        "low_confidence_option": rec.to_json()["low_confidence_option"],
        "changes": change_entries(rec),
    }


def measured_pairs(runs: list[HistoryRun], repeats: dict[str, int]) -> dict[str, Any]:
    """Per job: the paired speedups (defaults ÷ recommended within a round) and medians."""
    by = {(r.label, repeats[str(r.jhist)]): _job_ms(r) for r in runs}
    out: dict[str, Any] = {}
    for prefix in JOBS:
        d_lab, r_lab = f"{prefix}-hadoop-defaults", f"{prefix}-recommended"
        rounds = sorted({k for (lab, k) in by if lab == r_lab})
        paired = [by[(d_lab, k)] / by[(r_lab, k)] for k in rounds if (d_lab, k) in by]
        if not paired:
            continue
        d = [v for (lab, _), v in by.items() if lab == d_lab]
        m = [v for (lab, _), v in by.items() if lab == r_lab]
        out[prefix] = {
            "pairs": [round(p, 4) for p in paired],
            "paired_speedup_median": statistics.median(paired),
            "median_defaults_ms": statistics.median(d),
            "median_recommended_ms": statistics.median(m),
            "speedup_of_medians": statistics.median(d) / statistics.median(m),
            "load_avg_1m": [r.load_avg for r in runs if r.label in (d_lab, r_lab)],
        }
    return out


def _repeats(index: Path) -> dict[str, int]:
    """jhist path → the round it ran in, from the index (a packed round's paths are relative
    to its index, :mod:`mrtune.harness.yarn_pack`; they resolve as
    :func:`~mrtune.harness.yarn_fidelity.load_history_runs` resolves them)."""
    out = {}
    for line in index.read_text(encoding="utf-8").splitlines():
        e = json.loads(line) if line.strip() else {}
        if e.get("jhist"):
            jhist = Path(e["jhist"])
            jhist = jhist if jhist.is_absolute() else index.parent / jhist
            out[str(jhist)] = int(e.get("repeat", 0))
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--work", type=Path, required=True, help="folder for the two rounds")
    p.add_argument("--summary", type=Path, default=SUMMARY)
    p.add_argument("--calibrate-runs", type=int, default=3)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--reduce-fixed-ms", type=float, default=900.0)
    p.add_argument("--jobs", nargs="*", default=list(JOBS), choices=list(JOBS))
    p.add_argument("--dry-run", action="store_true", help="calibrate and recommend only")
    p.add_argument(
        "--include-low-confidence",
        action="store_true",
        help="run the low-confidence changes too (as `optimize --include-low-confidence`)",
    )
    p.add_argument("--report", action="store_true", help="only summarise the recorded pairs")
    return p


def main(argv: list[str] | None = None) -> int:
    """Calibrate, recommend, run the pairs, compare (module doc)."""
    from mrtune.harness.yarn_codecs import load_codec_runs

    args = _parser().parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    base = load_yarn_matrix(YARN_MATRIX)
    summary: dict[str, Any] = (
        json.loads(args.summary.read_text()) if args.summary.is_file() else {}
    )
    if not args.report:
        cal_runs = [
            {"label": f"{p}-calibration", "job": JOBS[p][0], "input": JOBS[p][1]}
            for p in args.jobs
        ]
        spec = _spec(base, "yarn-recommendation-calibration", cal_runs, args.calibrate_runs)
        runs = _run_step(spec, args.work / "calibration")
        codec_runs = load_codec_runs([p for p in CODEC_RUNS if p.is_file()])
        pair_runs = []
        for p in args.jobs:
            mine = [r for r in runs if r.label == f"{p}-calibration"]
            summary[p] = recommend_for(
                p, mine, args.reduce_fixed_ms, codec_runs, args.include_low_confidence
            )
            print(f"{p}: {json.dumps(summary[p], indent=1)}", flush=True)
            if summary[p]["settings"]:
                job, inp = JOBS[p]
                pair_runs += [
                    {"label": f"{p}-hadoop-defaults", "job": job, "input": inp},
                    {
                        "label": f"{p}-recommended",
                        "job": job,
                        "input": inp,
                        "settings": summary[p]["settings"],
                    },
                ]
        args.summary.write_text(json.dumps(summary, indent=1) + "\n")
        if args.dry_run or not pair_runs:
            return 0
        _run_step(
            _spec(base, "yarn-recommendation-pairs", pair_runs, args.repeats), args.work / "pairs"
        )
    index = args.work / "pairs" / "runs.jsonl"
    summary["measured"] = measured_pairs(load_history_runs(index), _repeats(index))
    for p, m in summary["measured"].items():
        iv = (summary.get(p) or {}).get("predicted_speedup_interval")
        if iv:
            m["inside_predicted_interval"] = iv["low"] <= m["paired_speedup_median"] <= iv["high"]
        print(
            f"{p}: paired {m['pairs']} median x{m['paired_speedup_median']:.3f}; predicted {iv}",
            flush=True,
        )
    args.summary.write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

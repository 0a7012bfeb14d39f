"""``mrtune hadoop-run --jar … --class … [--mode local|yarn] -- ARGS``: any job, either referee.

Kept apart from :mod:`mrtune.cli.hadoop` so that the project-job path stays as it was; the
project's jobs in yarn mode come through here as ordinary (jar, class, args) entries.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

from mrtune.cli._yarn_memory import check_job_memory, check_memory
from mrtune.cli.console import OutputFormat, console, emit_json, err_console, working
from mrtune.errors import InputError

MIB = 1 << 20


def _split_puts(put: list[str] | None) -> dict[str, str]:
    out = {}
    for item in put or []:
        local, sep, hdfs = item.partition("=")
        if not sep or not local or not hdfs.startswith("/"):
            raise InputError("--put wants LOCAL=/hdfs/path", field="--put", value=item)
        if not Path(local).exists():
            raise InputError("--put source not found", path=local)
        out[str(Path(local).resolve())] = hdfs
    return out


def _cluster(opts: dict[str, Any]):
    from mrtune.harness.yarn_run import MiniCluster

    block = int(round(opts["block_mb"] * MIB))
    if block % 512:
        raise InputError(
            "HDFS block size must be a multiple of 512 bytes", field="--block-mb", value=block
        )
    cmb = opts["container_mb"]
    cluster = MiniCluster(
        datanodes=opts["datanodes"],
        block_size=block,
        replication=min(opts["replication"], opts["datanodes"]),
        nodemanagers=opts["nodemanagers"],
        nm_memory_mb=opts["nm_memory_mb"],
        nm_vcores=opts["nm_vcores"],
        map_memory_mb=cmb,
        reduce_memory_mb=cmb,
        task_heap_mb=max(64, int(cmb * 0.7)),
    )
    check_memory(cluster)
    return cluster


def _project_spec(job: str, set_, input_mb, seed, label):
    """A project job as an ordinary (jar, class, args) entry on the mini-cluster's jars."""
    from mrtune.harness.any_job import JobSpec, project_job
    from mrtune.harness.compile import DRIVER_CLASS, compile_jobs
    from mrtune.harness.datagen import ensure_input, input_kind_for_job
    from mrtune.harness.jars import HadoopJars
    from mrtune.harness.minicluster import find_minicluster
    from mrtune.harness.runner import check_settings, parse_set_options

    settings = parse_set_options(set_ or [])
    check_settings(settings)
    mc = find_minicluster()
    jobs_jar = compile_jobs(HadoopJars("minicluster", mc.directory, tuple(mc.jars())))
    input_dir, _ = ensure_input(input_kind_for_job(job), input_mb, seed)
    args = project_job(jobs_jar, job, settings, "/in", "/out")
    return JobSpec(jobs_jar, DRIVER_CLASS, args, label or job, {str(input_dir): "/in"})


def run_any(
    positional, jar, main_class, label, mode, put, set_, input_mb, seed, jars, repeat, xmx,
    output, keep, format, yarn_opts,
) -> None:  # fmt: skip
    """Run ``repeat`` times, append each run to ``<keep>/runs.jsonl``, print a table."""
    from mrtune.harness.any_job import JobSpec, append_index, run_local, run_yarn
    from mrtune.harness.any_record import per_job_entries

    # the cluster's shape is refused before anything is compiled, generated or started
    cluster = _cluster(yarn_opts) if mode == "yarn" else None
    if jar is None:
        if len(positional) != 1:
            raise InputError("give one project job, or --jar and --class", field="JOB")
        spec = _project_spec(positional[0], set_, input_mb, seed, label)
    else:
        if not main_class:
            raise InputError("--jar needs --class (the job's main class)", field="--class")
        if set_:
            raise InputError("with --jar, pass -D settings among the job's own ARGS after --")
        from mrtune.harness.any_record import job_name_of

        name = label or job_name_of(main_class)
        if not re.fullmatch(r"[\w.\-]+", name):
            raise InputError("label may hold letters, digits, '.', '_' and '-'", value=name)
        spec = JobSpec(Path(jar), main_class, positional, name, _split_puts(put))
        if cluster is not None:
            check_job_memory(cluster, list(positional))
    if mode == "local" and spec.puts:
        raise InputError("--put is for --mode yarn (local mode reads local paths)")
    base = (keep or Path("mrtune-runs")).resolve()
    hadoop = None
    if mode == "local":
        from mrtune.harness.jars import find_jars

        hadoop = find_jars(jars)
    entries, records, indexed = [], [], []
    for i in range(repeat):
        # the folder and the recorded repeat are one number: the label's next free r<N>
        rep = _next_repeat(base / spec.label)
        run_dir = base / spec.label / f"r{rep}"
        if format == OutputFormat.text:
            err_console.print(f"run {i + 1}/{repeat}: {spec.label} on {mode} …", highlight=False)
        # a YARN run starts HDFS, YARN and the JobHistory server first: minutes, not seconds
        what = "mini-cluster start, job, stop" if mode == "yarn" else "job"
        with working(f"{spec.label}: {what} …"):
            if mode == "yarn":
                entry = run_yarn(spec, run_dir, cluster)
            else:
                entry = run_local(spec, run_dir, hadoop, xmx_mb=xmx)
        entry["repeat"] = rep
        if mode == "local" and jar is not None:
            records += _local_records(entry, main_class, rep, base)
        else:
            for e in per_job_entries(entry):
                append_index(base / "runs.jsonl", e)
                indexed.append(e)
        entries.append(entry)
        if not entry["success"]:
            raise InputError(f"the job failed (exit {entry['exit_code']}); see {entry['log']}")
    _report(entries, output, format, base, records, indexed)


def _local_records(entry: dict[str, Any], main_class: str, rep: int, base: Path) -> list:
    """A local ``--jar`` run's :class:`~mrtune.readers.run_records.RunRecord` (one per
    MapReduce job it ran, :func:`~mrtune.harness.any_record.build_any_records`), appended to
    ``<base>/runs.jsonl`` as the project's runs are."""
    from mrtune.harness.any_record import build_any_records, job_name_of, started_no_job
    from mrtune.readers.run_records import write_jsonl

    if not entry["success"] and (why := started_no_job(Path(entry["run_dir"]))) is not None:
        raise InputError(f"the job failed (exit {entry['exit_code']}) before it ran: {why}")
    recs = build_any_records(entry, job_name_of(main_class), rep)
    for rec in recs:
        _warn_other_settings(rec, base / "runs.jsonl")
    write_jsonl(recs, base / "runs.jsonl", append=True)
    if len(recs) > 1:
        err_console.print(
            f"the jar ran {len(recs)} MapReduce jobs, recorded in the order it submitted them "
            f"as {', '.join(r.label for r in recs)}",
            highlight=False,
        )
    for rec in recs:
        if rec.ignored_settings():
            from mrtune.calibration.run_profile import ignored_settings_line

            err_console.print(f"warning: {ignored_settings_line(rec)}", highlight=False)
    entry["success"] = entry["success"] and all(r.success for r in recs)
    return recs


def _warn_other_settings(rec: Any, index: Path) -> None:
    """A warning when a label's new repeat ran other ``-D`` settings than its first run:
    ``validate`` scores a label's runs as repeats of one configuration and refuses these."""
    from mrtune.readers.run_records import read_jsonl

    if rec.repeat == 0 or not index.is_file():
        return
    first = next((r for r in read_jsonl(index) if r.label == rec.label), None)
    if first is not None and first.settings != rec.settings:

        def shown(d: dict[str, str]) -> str:
            return " ".join(f"-D {k}={v}" for k, v in sorted(d.items())) or "no -D"

        err_console.print(
            f"warning: {rec.label} r{rec.repeat} ran with {shown(rec.settings)}, its "
            f"r{first.repeat} with {shown(first.settings)}: a label's runs are repeats of one "
            "configuration (validate refuses these); give other settings their own --label",
            highlight=False,
        )


def _next_repeat(label_dir: Path) -> int:
    taken = [int(p.name[1:]) for p in label_dir.glob("r*") if p.name[1:].isdigit()]
    return max(taken, default=-1) + 1


def _report(entries, output, format, base, records=(), indexed=()) -> None:
    """The runs as a table (``-o``/``--format json``: local ``--jar`` runs as their records,
    which ``mrtune profile --from run`` reads; YARN runs as their index entries, one per job
    of a chain)."""
    import json

    docs = [r.model_dump(mode="json") for r in records] if records else list(indexed or entries)
    if output is not None:
        output.write_text(json.dumps(docs, indent=1), encoding="utf-8")
    if format == OutputFormat.json:
        emit_json(docs)
        return
    table = Table(title=f"recorded in {base / 'runs.jsonl'}", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("label", "rep.", "mode", "exit", "wall s", "cpu s", "load", "recorded"):
        table.add_column(col, justify="left" if col in ("label", "mode", "recorded") else "right")
    for e in entries:
        recs = [
            r for r in records
            if (r.started_at_ms, r.repeat) == (e["started_at_ms"], e["repeat"])
        ]  # fmt: skip
        if len(recs) == 1:
            what = f"{recs[0].num_maps} maps, {recs[0].num_reduces} reduces"
        elif recs:  # a chain of jobs: each one's tasks
            what = f"{len(recs)} jobs: " + ", ".join(
                f"{r.num_maps}m+{r.num_reduces}r" for r in recs
            )
        elif len(e.get("jobs") or []) > 1:  # a chain on YARN: its jobs' sequence numbers
            ids = [j["job_id"].rsplit("_", 1)[-1] for j in e["jobs"]]
            what = f"{len(ids)} jobs: …_" + ", …_".join(ids)
        else:
            # a .jhist's name is 120 characters: its job id says which history it is
            what = (
                Path(e["jhist"]).name.split("-", 1)[0] if e.get("jhist") else Path(e["log"]).name
            )
        table.add_row(
            e["label"], str(e["repeat"]), e["mode"], str(e["exit_code"]), f"{e['wall_s']:.1f}",
            f"{e['cpu_s']:.1f}" if e.get("cpu_s") is not None else "-",
            f"{e['load_avg_1m']:.1f}", what[:40],
        )  # fmt: skip
    console.print(table)


def validate_histories(
    runs: Path,
    calibrate: list[str] | None,
    format,
    output,
    codec_runs: list[Path] = (),
    reduce_fixed_ms: float | None = None,
    machine: Path | None = None,
) -> None:
    """``mrtune validate runs.jsonl`` for YARN runs: counters, waves, job time per run
    (``calibrate``: one label per job group, default each group's ``<job>-default``;
    ``codec_runs``: records whose compressed runs give the codec ratios;
    ``reduce_fixed_ms``: measured on other runs; None: from the calibration history;
    ``machine``: a machine cost file whose per-spill and per-segment costs are the fit's
    priors, :meth:`~mrtune.calibration.machine_costs.MachineCosts.cluster_priors`)."""
    import json

    from mrtune.calibration.machine_costs import MachineCosts
    from mrtune.harness.yarn_codecs import load_codec_runs
    from mrtune.harness.yarn_fidelity import history_report, load_history_runs

    records = load_codec_runs(list(codec_runs)) if codec_runs else None
    priors = MachineCosts.load(machine).cluster_priors() if machine is not None else None
    report = history_report(
        load_history_runs(runs), calibrate, records, reduce_fixed_ms, priors=priors
    )
    if output is not None:
        output.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if format == OutputFormat.json:
        emit_json(report)
        return
    console.print(_history_table(report))
    console.print(
        "* calibration run; n: repeats (times are their medians), ±: their spread; map "
        "task and shuffle tail: time error, model vs history"
    )
    for r in report["runs"]:
        if r.get("cluster_terms"):
            terms = ", ".join(f"{k} {v:.4g}" for k, v in r["cluster_terms"].items())
            console.print(f"measured on {r['label']}: {terms}")
    for name, summary in [("all", report["summary"]), *report.get("groups", {}).items()]:
        console.print(f"[bold]{name}[/bold]")
        for k, v in summary.items():
            if k == "noise_ceiling":
                console.print(f"  {_ceiling_line(v)}")
                continue
            if isinstance(v, dict):
                v = ", ".join(f"{g} {'met' if ok else 'missed'}" for g, ok in v.items())
            elif isinstance(v, list):
                v = "; ".join(v) or "none"
            console.print(f"  {k}: {v:.3f}" if isinstance(v, float) else f"  {k}: {v}")


def _history_table(report: dict[str, Any]) -> Table:
    """One row per label (the calibration run apart): records equal, waves, job time
    predicted / measured (median over repeats), its error, repeats and their spread."""
    # no vertical rules: ten columns and a label still fit 80 columns
    table = Table(
        title=f"YARN histories, calibrated on {report['calibration']}",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    cols = ("label", "rec =", "waves", "job s p/m", "error", "n", "±", "map", "shuf.", "load")
    for col in cols:
        table.add_column(col, justify="left" if col == "label" else "right")
    for r in report["runs"]:
        p, m, pe = r["predicted"], r["measured"], r.get("phase_errors", {})
        table.add_row(
            r["label"] + (" *" if r["calibration"] else ""),
            f"{r['records_equal']}/{r['records']}",
            f"{p['map_waves']}/{m['map_waves']}",
            f"{p['job_ms'] / 1000:.1f}/{m['job_ms'] / 1000:.1f}",
            f"{r['job_time_error']:+.0%}",
            str(len(r.get("repeats", [0]))),
            f"{r.get('job_time_spread', 0.0):.0%}",
            _pct(pe.get("map_task")),
            _pct(pe.get("shuffle_tail")),
            f"{r['load_avg']:.1f}" if r.get("load_avg") is not None else "-",
        )
    return table


def _ceiling_line(c: dict[str, Any]) -> str:
    """The noise ceiling in one sentence (:func:`mrtune.harness.yarn_repeats.noise_ceiling`)."""
    m = c["perfect_model_on_measured_medians"]
    rho = m["spearman"]
    return (
        f"noise ceiling: repeats differ by σ {c['noise_sigma_log']:.1%} (log, "
        f"{c['labels_with_repeats']} labels); a perfect model would score Spearman "
        f"{rho['median']:.2f} (p10 {rho['p10']:.2f}, {rho['share_reaching_0.9']:.0%} of draws "
        f"≥ 0.9), job time median {m['job_time_median_error']:.1%}, p90 "
        f"{m['job_time_p90_error']:.1%}; one repeat ranks another at "
        f"{c['spearman_repeat_vs_repeat']:.2f}"
    )


def _pct(x: float | None) -> str:
    return "-" if x is None or x != x else f"{x:+.0%}"

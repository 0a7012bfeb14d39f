"""What ``mrtune profile`` prints: the phase, statistics, cost-factor and fit tables of a profile.

Split from :mod:`mrtune.cli.profile` (which loads the sources and writes the JSON) so each
module holds one job: reading, or showing.
"""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from mrtune.cli._cluster_view import fmt as _fmt
from mrtune.cli._cluster_view import print_cluster, self_check_table
from mrtune.cli.console import (
    console,
)

#: The unit each cost factor is shown in (CostFactors' field descriptions say the same in words);
#: a factor not listed is ns per record. ``tests/cli`` checks every field has its unit here.
COST_UNITS = {
    "hdfs_read": "ns/B",
    "hdfs_write": "ns/B",
    "local_read": "ns/B",
    "local_write": "ns/B",
    "network": "ns/B",
    "input_uncompress": "ns/B",
    "sort_cpu": "ns/comparison",
    "setup_ms": "ms",
    "cleanup_ms": "ms",
    "task_overhead_ms": "ms",
    "job_overhead_ms": "ms/job",
    "spill_file_ns": "ns/spill",
    "segment_seek_ns": "ns/segment",
    "fetch_ns": "ns/fetch",
    "spill_contention": "share",
    "sort_cache_bytes": "B",
    "sort_cache_slowdown": "share/doubling",
    "reduce_includes_final_merge": "",
    "read_fixed_ms": "ms/task",
    "spill_write": "ns/B",
    "merge_cmp_cpu": "ns/comparison",
    "shuffle_floor_ms": "ms/task",
    "merge_floor_ms": "ms/task",
    "commit_ms": "ms/task",
    "serde_byte_cpu": "ns/B",
    "combine_byte_cpu": "ns/B",
    "shapes_on_cluster": "",
    "reduce_side": "",  # the reduce-side values, each shown with its factor's unit
}
PER_RECORD = ("map_cpu", "reduce_cpu", "combine_cpu", "partition_cpu", "serde_cpu", "merge_cpu")
MAP_PHASES = (("map", "map (start→mapFinish)"), ("sort", "sort/spill (→finish)"))
REDUCE_PHASES = (
    ("shuffle", "shuffle (start→shuffleFinish)"),
    ("merge", "merge (→sortFinish)"),
    ("reduce", "reduce (→finish)"),
)


def _split_prov(text: str) -> tuple[str, str]:
    head, _, why = text.partition(":")
    return head.strip(), why.strip()


def _phase_table(profile) -> Table:  # noqa: ANN001
    t = Table(title="Tasks and phase times (successful attempts, ms: mean \\[min–max])")
    t.add_column("task")
    t.add_column("attempts", justify="right")
    t.add_column("phase")
    t.add_column("time", justify="right")
    for kind, phases in (("map", MAP_PHASES), ("reduce", REDUCE_PHASES)):
        tasks = [o for o in profile.observed if o.kind == kind]
        if not tasks:
            continue
        rows = [(k, label) for k, label in phases if any(k in o.phases_ms for o in tasks)]
        rows.append(("total", "attempt total"))
        for i, (key, label) in enumerate(rows):
            vals = [o.phases_ms[key] for o in tasks if key in o.phases_ms]
            mean = sum(vals) / len(vals)
            cell = _fmt(mean) + (
                f" [{_fmt(min(vals))}–{_fmt(max(vals))}]" if len(vals) > 1 else ""
            )
            t.add_row(kind if i == 0 else "", str(len(tasks)) if i == 0 else "", label, cell)
    return t


def _stats_table(profile) -> Table:  # noqa: ANN001
    t = Table(title="Dataflow statistics (reference Table 2)")
    t.add_column("statistic")
    t.add_column("value", justify="right")
    t.add_column("")
    t.add_column("how / why")
    for name, value in profile.stats.model_dump().items():
        head, why = _split_prov(profile.provenance_of(f"stats.{name}"))
        style = "green" if head == "measured" else "yellow"
        if isinstance(value, list | tuple):  # key_law_knots: (records, factor) points
            cell = " ".join(f"{_fmt(float(n))}:{float(f):.4f}" for n, f in value)
        else:
            cell = _fmt(value) if value is not None else "-"
        t.add_row(name, cell, f"[{style}]{head}[/]", why)
    return t


def _costs_table(profile) -> Table:  # noqa: ANN001
    t = Table(title="Cost factors (reference Table 3)")
    t.add_column("factor")
    t.add_column("value", justify="right")
    t.add_column("")
    t.add_column("how / why")
    side = profile.costs.reduce_side
    for name, value in profile.costs.model_dump().items():
        if name == "reduce_side":
            continue  # shown beside each factor it overrides
        unit = COST_UNITS.get(name, "ns/rec")  # PER_RECORD and codec columns
        head, why = _split_prov(profile.provenance_of(f"costs.{name}"))
        style = "green" if head == "measured" else "yellow"
        label = f"{name} (map)" if name in side else name
        t.add_row(label, _fmt(value, unit), f"[{style}]{head}[/]", why)
        if name in side:
            head, why = _split_prov(profile.provenance_of(f"costs.reduce_side.{name}"))
            style = "green" if head == "measured" else "yellow"
            t.add_row(f"{name} (reduce)", _fmt(side[name], unit), f"[{style}]{head}[/]", why)
    for name, c in profile.codecs.items():
        head, why = _split_prov(c.source)
        t.add_row(f"codec {name} ratio", _fmt(c.ratio), f"[green]{head}[/]", why)
    return t


def _fit_table(profile) -> Table | None:  # noqa: ANN001
    facts = profile.cluster_facts
    from mrtune.calibration.cost_factors import SEGMENTS

    segs = [s for s in SEGMENTS if f"fit.{s}.n" in facts]
    if not segs:
        return None
    t = Table(
        title="Observed vs the calibrated model (profiled configuration, mean ms per task; "
        "shuffles that overlapped the maps are left out)"
    )
    t.add_column("segment")
    t.add_column("tasks", justify="right")
    t.add_column("observed", justify="right")
    t.add_column("model", justify="right")
    for s in segs:
        t.add_row(
            s,
            _fmt(facts.get(f"fit.{s}.n")),  # type: ignore[arg-type]
            _fmt(facts.get(f"fit.{s}.observed_ms")),  # type: ignore[arg-type]
            _fmt(facts.get(f"fit.{s}.model_ms")),  # type: ignore[arg-type]
        )
    return t


def print_summary(profile) -> None:  # noqa: ANN001
    """The rich summary of a profile."""
    f = profile.cluster_facts
    console.print(
        f"[bold]{profile.job_id}[/] {profile.job_name!r}  "
        f"source: {f.get('source_format', '?')} ({f.get('status', '?')})  "
        f"configuration: {f.get('conf_source', '?')}",
        highlight=False,
    )
    n_maps, n_red = f.get("num_maps"), f.get("num_reduces")
    console.print(
        f"maps {_fmt(n_maps)}  reduces {_fmt(n_red)}  input {_fmt(profile.input_bytes, 'B')} in "
        f"{profile.input_files} file(s)  combiner {'yes' if profile.has_combiner else 'no'}  "
        f"container MB map {_fmt(f.get('map_container_mb'))} ({f.get('map_container_mb_source', '?')}), "
        f"reduce {_fmt(f.get('reduce_container_mb'))}  "
        f"failed/killed attempts excluded: {_fmt(f.get('failed_attempts'))}/"
        f"{_fmt(f.get('killed_attempts'))}  duplicates dropped: "
        f"{_fmt(f.get('duplicate_attempt_events'))}",
        highlight=False,
    )
    use = profile.map_heap_use
    if use is not None:  # what the sort buffer's cap leaves the map function
        console.print(f"map heap: {use.brief()}", highlight=False)
    for cls in profile.map_classes:  # modelled apart (costmodel.map_groups)
        own = "own map profile" if cls.stats is not None else "the job's map profile"
        console.print(f"  map class {cls.name} ({own})", highlight=False)
    check = self_check_table(profile)
    if check is not None:
        console.print(check)
    print_cluster(profile)
    if profile.observed:
        console.print(_phase_table(profile))
    console.print(_stats_table(profile))
    console.print(_costs_table(profile))
    fit = _fit_table(profile)
    if fit is not None:
        console.print(fit)
    measured = sum(
        1
        for k, v in profile.provenance.items()
        if k.startswith("costs.") and v.startswith("measured")
    )
    console.print(f"cost factors measured: {measured} of {len(type(profile.costs).model_fields)}")
    for w in profile.warnings:  # wrapped at the terminal's width, read literally (no markup)
        console.print(f"[yellow]warning:[/] {escape(w)}", highlight=False)

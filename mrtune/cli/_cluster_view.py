"""How far to trust a profile: the self-check table and the cluster the job ran on.

Shared by ``mrtune profile`` (which prints both first, before the statistics) and any command
that shows a profile; the numbers come from :mod:`mrtune.calibration.self_check` and the
profile's :class:`~mrtune.costmodel.profile.InferredCluster`.
"""

from __future__ import annotations

from rich.table import Table

from mrtune.cli.console import console


def fmt(x: float | None, unit: str = "") -> str:
    if x is None:
        return "-"
    if abs(x) >= 1e6 or (0 < abs(x) < 1e-3):
        s = f"{x:.3e}"
    elif float(x).is_integer():
        s = f"{x:,.0f}"
    else:
        s = f"{x:,.4g}"
    return f"{s} {unit}".strip()


def self_check_table(profile) -> Table | None:  # noqa: ANN001
    """The job model under the inferred cluster vs the run: the first word on trust."""
    from mrtune.calibration.self_check import check_rows

    rows = check_rows(profile.cluster_facts)
    if not rows:
        return None
    t = Table(title="Self-check: the job model under the inferred cluster vs this run")
    t.add_column("")
    t.add_column("observed", justify="right")
    t.add_column("model", justify="right")
    t.add_column("error", justify="right")
    for r in rows:
        if r.unit == "ms":
            o, m = f"{r.observed / 1000:,.1f} s", f"{r.model / 1000:,.1f} s"
        else:
            o, m = fmt(r.observed), fmt(r.model)
        err = r.error
        if err is None:
            cell = "-"
        else:
            style = "green" if abs(err) <= 0.2 else ("yellow" if abs(err) <= 0.5 else "red")
            cell = f"[{style}]{err:+.0%}[/]"
        t.add_row(r.label, o, m, cell)
    return t


_PROV_STYLE = {"observed": "green", "inferred": "cyan", "defaulted": "yellow"}


def _fact(fact, unit: str = "") -> str:  # noqa: ANN001
    """``1,024 MB observed`` with the provenance coloured."""
    return f"{fmt(fact.value, unit)} [{_PROV_STYLE[fact.provenance]}]{fact.provenance}[/]"


def print_cluster(profile) -> None:  # noqa: ANN001
    """The cluster inferred from the history, each fact with its provenance (details: JSON)."""
    c = profile.cluster
    if c is None:
        return
    bound = " [yellow](a lower bound: no task waited for a container)[/]" if c.lower_bound else ""
    console.print(f"[bold]Cluster the job ran on[/]{bound}", highlight=False)
    console.print(f"  nodes {_fact(c.num_nodes)}: {c.num_nodes.how}", highlight=False)
    if str(profile.cluster_facts.get("hadoop_version", "")).startswith("1"):
        console.print(
            f"  slots per node: map {_fact(c.map_slots_per_node)}, "
            f"reduce {_fact(c.reduce_slots_per_node)}",
            highlight=False,
        )
    else:
        console.print(
            f"  node {_fact(c.node_memory_mb, 'MB')}, {_fact(c.node_vcores, 'vcores')}; "
            f"allocation min {_fact(c.min_allocation_mb, 'MB')}, "
            f"max {_fact(c.max_allocation_mb, 'MB')}",
            highlight=False,
        )
    console.print(
        f"  containers: map {_fact(c.map_container_mb, 'MB')} × {fmt(c.map_vcores.value)}, "
        f"reduce {_fact(c.reduce_container_mb, 'MB')} × {fmt(c.reduce_vcores.value)} vcores, "
        f"AM {_fact(c.am_memory_mb, 'MB')}",
        highlight=False,
    )
    racks = f", racks {fmt(c.racks.value)}" if c.racks is not None else ""
    console.print(
        f"  observed: hosts {fmt(c.hosts.value)}{racks}; at most {fmt(c.peak_maps.value)} "
        f"maps and {fmt(c.peak_reduces.value)} reduces at once, "
        f"{fmt(c.peak_tasks_per_host.value)} tasks on one host",
        highlight=False,
    )

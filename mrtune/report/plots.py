"""The report's plots as inline SVG (matplotlib's SVG backend; text drawn as paths, so the page
needs no font and loads nothing). Every axis has a label with its unit, every plot a legend.

Map and reduce phases are always drawn apart: a map task's phases and a reduce task's phases
run in different containers, at different times, so stacking them in one bar would add times
that never add up in the job.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

MAP_COLORS = {
    "read": "#9ecae1",
    "map": "#4c78a8",
    "collect": "#6baed6",
    "spill": "#f58518",
    "merge": "#e45756",
    "write": "#72b7b2",
    "sort": "#f58518",
}
REDUCE_COLORS = {
    "shuffle": "#f2cf5b",
    "merge": "#e45756",
    "reduce": "#54a24b",
    "write": "#72b7b2",
}


def _plt() -> Any:
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.fonttype"] = "path"
    return plt


_PLOT_IDS = itertools.count(1)


def to_svg(fig: Any) -> str:
    """The figure as an ``<svg>`` element (XML prolog and DOCTYPE dropped for inlining), its
    ``id``s prefixed per plot so that several SVGs in one page never share one."""
    plt = _plt()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    start = text.find("<svg")
    prefix = f"plot{next(_PLOT_IDS)}-"
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", text[start:], flags=re.S)  # RDF credits
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}\1"', svg)
    svg = re.sub(r'(url\(#|href="#)', rf"\1{prefix}", svg)
    # responsive: let CSS size the plot, keep the aspect ratio from the viewBox
    return re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r"<svg\1", svg, count=1)


def breakdown(
    current: Mapping[str, Any],
    recommended: Mapping[str, Any],
    map_phases: Sequence[str],
    reduce_phases: Sequence[str],
) -> str:
    """Per-task phase times, current vs recommended: map task and reduce task side by side."""
    plt = _plt()
    has_reduce = bool(current.get("reduce_phases_ms")) or bool(recommended.get("reduce_phases_ms"))
    fig, axes = plt.subplots(1, 2 if has_reduce else 1, figsize=(9 if has_reduce else 5, 3.4))
    axes = list(axes) if has_reduce else [axes]
    sides = [("map", map_phases, MAP_COLORS)] + (
        [("reduce", reduce_phases, REDUCE_COLORS)] if has_reduce else []
    )
    labels = ["current", "recommended"]
    for ax, (side, phases, colors) in zip(axes, sides, strict=True):
        left = [0.0, 0.0]
        for ph in phases:
            vals = [s[f"{side}_phases_ms"].get(ph, 0.0) / 1000 for s in (current, recommended)]
            if not any(vals):
                continue
            ax.barh(labels, vals, left=left, color=colors.get(ph, "#999"), label=ph, height=0.55)
            left = [a + b for a, b in zip(left, vals, strict=True)]
        ax.set_xlabel(f"{side} task time (s)")
        ax.set_title(f"one {side} task, by phase")
        ax.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, -0.25),
            ncol=3,
            fontsize=7,
            title="phase",
            title_fontsize=7,
            frameon=False,
        )
        ax.invert_yaxis()
        ax.grid(axis="x", alpha=0.3)
    return to_svg(fig)


def sweep(
    knob_name: str,
    unit: str,
    xs: Sequence[float],
    rows: Sequence[Mapping[str, Any]],
    current_x: float | None,
    map_phases: Sequence[str],
    reduce_phases: Sequence[str],
    log: bool,
) -> str:
    """Job time and per-task phase times over one setting's range (map and reduce apart)."""
    plt = _plt()
    has_reduce = any(r.get("reduce_phases_ms") for r in rows)
    n = 3 if has_reduce else 2
    fig, axes = plt.subplots(1, n, figsize=(3.3 * n, 3.0))
    ax = axes[0]
    ax.plot(xs, [r["job_ms"] / 1000 for r in rows], marker="o", ms=3, label="predicted job time")
    if current_x is not None:
        ax.axvline(current_x, color="#888", ls="--", lw=1, label="current value")
    ax.set_ylabel("job time (s)")
    ax.set_title("job")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3), frameon=False)
    sides = [("map", map_phases, MAP_COLORS)] + (
        [("reduce", reduce_phases, REDUCE_COLORS)] if has_reduce else []
    )
    for ax, (side, phases, colors) in zip(axes[1:], sides, strict=True):
        ys = [[r[f"{side}_phases_ms"].get(ph, 0.0) / 1000 for r in rows] for ph in phases]
        keep = [(ph, y) for ph, y in zip(phases, ys, strict=True) if any(y)]
        if keep:
            ax.stackplot(
                xs,
                *[y for _, y in keep],
                labels=[ph for ph, _ in keep],
                colors=[colors.get(ph, "#999") for ph, _ in keep],
                alpha=0.85,
            )
            ax.legend(
                fontsize=7,
                loc="upper center",
                bbox_to_anchor=(0.5, -0.3),
                ncol=3,
                title="phase",
                title_fontsize=7,
                frameon=False,
            )
        ax.set_ylabel(f"{side} task time (s)")
        ax.set_title(f"one {side} task")
    for ax in axes:
        ax.set_xlabel(f"{knob_name}" + (f" ({unit})" if unit else ""), fontsize=7)
        if log:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return to_svg(fig)


def timeline(observed: Sequence[Any], simulated: Any | None, sim_label: str) -> str:
    """Gantt of the observed task attempts (by phase) and of the simulated recommended run."""
    plt = _plt()
    panels = [p for p in (("observed attempts", observed), (sim_label, simulated)) if p[1]]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 2.2 + 1.6 * len(panels)), squeeze=False)
    seen: set[str] = set()
    for ax, (title, tasks) in zip(axes[:, 0], panels, strict=True):
        if title == "observed attempts":
            _observed_rows(ax, tasks, seen)
        else:
            _simulated_rows(ax, tasks, seen)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("time from job start (s)")
        ax.set_ylabel("task")
        ax.invert_yaxis()
        ax.grid(axis="x", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return to_svg(fig)


def _bar(
    ax: Any, row: int, start: float, width: float, color: str, label: str, seen: set[str]
) -> None:
    ax.barh(
        row, width, left=start, color=color, height=0.8, label=None if label in seen else label
    )
    seen.add(label)


def _observed_rows(ax: Any, tasks: Sequence[Any], seen: set[str]) -> None:
    t0 = min(t.start_ms for t in tasks)
    order = sorted(tasks, key=lambda t: (t.kind != "map", t.start_ms))
    for row, t in enumerate(order):
        s = (t.start_ms - t0) / 1000
        ph = t.phases_ms
        if t.kind == "map" and "map" in ph:
            _bar(ax, row, s, ph["map"] / 1000, MAP_COLORS["map"], "map: map", seen)
            _bar(
                ax,
                row,
                s + ph["map"] / 1000,
                ph.get("sort", 0) / 1000,
                MAP_COLORS["sort"],
                "map: sort+spill",
                seen,
            )
        elif t.kind == "reduce" and "shuffle" in ph:
            x = s
            for name in ("shuffle", "merge", "reduce"):
                _bar(ax, row, x, ph[name] / 1000, REDUCE_COLORS[name], f"reduce: {name}", seen)
                x += ph[name] / 1000
        else:
            color = MAP_COLORS["map"] if t.kind == "map" else REDUCE_COLORS["reduce"]
            _bar(
                ax, row, s, (t.finish_ms - t.start_ms) / 1000, color, f"{t.kind} (no phases)", seen
            )


def _simulated_rows(ax: Any, schedule: Any, seen: set[str]) -> None:
    for row, t in enumerate(schedule.tasks):
        s, e = t.start_ms / 1000, t.end_ms / 1000
        if t.kind == "map":
            _bar(ax, row, s, e - s, MAP_COLORS["map"], "map task", seen)
        else:
            sh = (t.shuffle_end_ms or t.start_ms) / 1000
            _bar(ax, row, s, sh - s, REDUCE_COLORS["shuffle"], "reduce: shuffle", seen)
            _bar(ax, row, sh, e - sh, REDUCE_COLORS["reduce"], "reduce: merge+reduce", seen)


def gains(values_pct: Sequence[float], what: str) -> str:
    """Histogram of the predicted gains of a catalog's jobs."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.hist(list(values_pct), bins=30, color="#4c78a8", label=f"jobs ({len(values_pct)})")
    ax.set_xlabel(f"predicted gain in {what} (%)")
    ax.set_ylabel("jobs")
    ax.set_title("Distribution of predicted gains")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return to_svg(fig)

"""Gantt plot of a simulated job (``mrtune.costmodel.scheduler``), one bar per task."""

from __future__ import annotations

from pathlib import Path

from mrtune.costmodel.scheduler import Schedule


def plot_timeline(schedule: Schedule, path: Path, title: str) -> None:
    """Write a PNG Gantt chart: maps blue, reduces orange with their shuffle part hatched."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = schedule.tasks
    fig, ax = plt.subplots(figsize=(10, max(3.0, min(12.0, 0.12 * len(tasks) + 2))))
    for row, t in enumerate(tasks):
        start, end = t.start_ms / 1000, t.end_ms / 1000
        if t.kind == "map":
            ax.barh(row, end - start, left=start, color="#4C78A8", height=0.8)
        else:
            sh = (t.shuffle_end_ms or t.start_ms) / 1000
            ax.barh(
                row, sh - start, left=start, color="#F58518", alpha=0.45, height=0.8, hatch="//"
            )
            ax.barh(row, end - sh, left=sh, color="#F58518", height=0.8)
    ax.set_xlabel("seconds from job start")
    ax.set_ylabel("task")
    ax.set_title(f"{title} — {schedule.job_ms / 1000:,.1f} s (simulated)")
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)

"""Optuna's own plots of a search: optimisation history, parameter importance, Pareto front.

The trials of every Optuna strategy carry the knobs' Hadoop names and values with their
distributions (:mod:`mrtune.optimizer.strategies._optuna`), so Optuna's plots
(``optuna.visualization.matplotlib``) read as settings. Matplotlib and Optuna's plotting module
are imported only here, and only when plots are asked for (start-up time).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

#: Titles of the values a study holds (its metric names, see ``set_metric_names``).
_LABELS = {"job_ms": "predicted job time (ms)", "container_gb_s": "container GB·s"}


def _targets(study: Any) -> tuple[Any, str]:
    """The value plotted for ``study``: the first objective (job time for Pareto studies)."""
    names = study.metric_names or ["job_ms"]
    label = _LABELS.get(names[0], names[0])
    if len(study.directions) == 1:
        return None, label
    return (lambda t: t.values[0]), label


def write_study_plots(
    study: Any, prefix: str | Path, *, recommended: tuple[float, float] | None = None
) -> list[Path]:
    """Write ``PREFIX-history.png``, ``PREFIX-importance.png`` and, for a two-objective study,
    ``PREFIX-pareto.png``; return the files written.

    The Pareto plot is Optuna's ``plot_pareto_front`` (every trial, the front highlighted);
    ``recommended`` (job ms, GB·s) marks the point ``mrtune optimize`` recommends on it (the
    knee or the best within the limits, :mod:`mrtune.optimizer.pareto`), which may be the
    current configuration or a trial with small changes undone rather than a trial itself.

    Parameter importance is Optuna's default evaluator (fANOVA) on the first objective; it needs
    at least two completed trials and is skipped (not written) when the trials do not vary.

    Raises:
        ValueError: the study has no completed trial.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import optuna
    from optuna.visualization import matplotlib as ovm

    trials = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    if not trials:
        raise ValueError(f"study {study.study_name!r} has no completed trial to plot")
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    target, label = _targets(study)
    written: list[Path] = []

    def save(ax: Any, kind: str, title: str) -> None:
        fig = ax.figure if hasattr(ax, "figure") else ax.flat[0].figure
        fig.suptitle(f"{study.study_name}: {title}", fontsize=9)
        fig.set_size_inches(8, 5)
        fig.tight_layout()
        path = prefix.with_name(f"{prefix.name}-{kind}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Optuna marks its matplotlib backend experimental
        ax = ovm.plot_optimization_history(study, target=target, target_name=label)
        ax.set_ylabel(label)
        ax.set_yscale("log")  # costs of sampled settings span orders of magnitude
        save(ax, "history", "optimisation history")
        if len(trials) >= 2 and _varies(trials):
            ax = ovm.plot_param_importances(study, target=target, target_name=label)
            save(ax, "importance", f"importance of each setting for {label}")
        if len(study.directions) == 2:
            names = [_LABELS.get(n, n) for n in (study.metric_names or ["job_ms", "gb_s"])]
            ax = ovm.plot_pareto_front(study, target_names=names)
            ax.set_xscale("log")
            ax.set_yscale("log")
            if recommended is not None:
                ax.scatter(
                    [recommended[0]],
                    [recommended[1]],
                    marker="*",
                    s=220,
                    c="gold",
                    edgecolors="black",
                    zorder=5,
                    label="recommended",
                )
                ax.legend(loc="best", fontsize=8)
            _zoom_on_front(ax, study, recommended)
            save(ax, "pareto", "Pareto front (job time vs container GB·s, log scales, zoomed)")
    return written


def _zoom_on_front(ax: Any, study: Any, mark: tuple[float, float] | None) -> None:
    """Limit the axes to the front (and the recommended point) with a margin: sampled
    settings span orders of magnitude, and the front would be a few dots in a corner."""
    pts = [tuple(t.values) for t in study.best_trials] + ([mark] if mark else [])
    if not pts:
        return
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    ax.set_xlim(min(xs) / 1.25, max(xs) * 2.0)
    ax.set_ylim(min(ys) / 1.25, max(ys) * 2.0)


def _varies(trials: list[Any]) -> bool:
    """Whether some parameter and the first value both take more than one value."""
    values = {t.values[0] for t in trials}
    params = {tuple(sorted((k, repr(v)) for k, v in t.params.items())) for t in trials}
    return len(values) > 1 and len(params) > 1

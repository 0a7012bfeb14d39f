"""What ``mrtune optimize`` shows and writes once the search is done: the text report, the
JSON document, the ``-o`` file, Optuna's plots, and the status line while it runs.

Kept apart from the command so that ``optimize.py`` reads as parse → call → render; each
renderer takes the recommendation and what the command computed around it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.markup import escape

from mrtune.cli._confidence import prediction_table, render_changes, render_prediction_intervals
from mrtune.cli._front_view import render_front, render_lint
from mrtune.cli._replay import report_start
from mrtune.cli.console import console, emit_json
from mrtune.errors import InputError
from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.outputs import (
    NameStyle,
    d_flags,
    hive_set_lines,
    mapred_site_xml,
    pig_set_lines,
    rename,
)
from mrtune.optimizer.recommend import Recommendation
from mrtune.optimizer.units import format_ms

#: What ``-o`` holds when no change is written, per ``--emit`` (the file is still written, so a
#: previous recommendation at that path is never left in place).
_EMPTY = {
    "xml": "an empty configuration",
    "flags": "an empty file",
    "hive": "an empty file",
    "pig": "an empty file",
    "json": "the recommendation with no properties",
}


def render(
    rec: Recommendation,
    where: str,
    names: NameStyle,
    include_low: bool = False,
    written: tuple[Path, str] | None = None,
) -> None:
    """The text report of the recommendation; ``written``: the ``-o`` file and its ``--emit``
    kind, named in the line saying that no change is written."""
    console.print(f"job {rec.job_id} · cluster: {where}")
    chosen = "" if rec.strategy_chosen_by == "requested" else f" ({rec.strategy_chosen_by})"
    console.print(
        f"strategy [bold]{rec.strategy}[/]{chosen} · objective {rec.objective} · "
        f"{rec.search.n_evaluations:,} configurations evaluated in {rec.search.wall_time_s:.2f} s"
    )
    data = rec.to_json()
    console.print(prediction_table(rec, data))
    render_prediction_intervals(data)
    if rec.no_change and not rec.withheld:
        console.print(
            "[bold green]no change recommended[/]: no setting gains 1% or more over the "
            "current configuration"
        )
        return
    if not rec.no_change:
        console.print(
            f"gain: [bold]{rec.gain_vs_current:.1%}[/] vs current, "
            f"{rec.gain_vs_defaults:.1%} vs Hadoop defaults"
        )
    render_changes(rec, data, include_low)
    if rec.no_change:
        but = "" if written is None else f" but {_EMPTY[written[1]]} to {escape(str(written[0]))}"
        console.print(
            f"[bold yellow]nothing written[/]{but}: every change is low-confidence (✗); "
            "--include-low-confidence writes them",
            highlight=False,
        )
        return
    console.print("[dim]-D flags:[/]")
    flags = d_flag_lines(rename(rec.properties, names))
    console.print(flags, soft_wrap=True, highlight=False, markup=False)  # printed for copying


def d_flag_lines(props: dict[str, str]) -> str:
    """The ``-D`` flags one per line, each but the last ending in `` \\``: pasted, a shell
    reads them as one command line, and each line fits 80 columns (on one line, five flags
    were 155 characters)."""
    return " \\\n".join(d_flags({k: v}) for k, v in props.items())


def write_output(
    rec: Recommendation, props: dict[str, str], names: NameStyle, emit: str, output: Path
) -> None:
    reasons = rename(rec.reasons(), names)
    text = {
        "xml": lambda: mapred_site_xml(
            props,
            reasons,
            header=f"mrtune recommendation for {rec.job_id}: predicted "
            f"{format_ms(rec.current['job_ms'])} -> {format_ms(rec.recommended['job_ms'])}",
        ),
        "flags": lambda: d_flags(props) + "\n",
        "hive": lambda: hive_set_lines(props) + "\n",
        "pig": lambda: pig_set_lines(props) + "\n",
        "json": lambda: json.dumps({**rec.to_json(), "properties": props}, indent=2) + "\n",
    }[emit]()
    output.write_text(text, encoding="utf-8")


def check_emit(emit: str) -> None:
    """``--emit`` is one of the output kinds ``-o`` writes."""
    if emit not in {"xml", "flags", "hive", "pig", "json"}:
        raise InputError(
            "unknown output kind",
            field="--emit",
            value=emit,
            allowed="xml, flags, hive, pig, json",
        )


def _study_json(rec: Recommendation, store: str | None) -> dict[str, object] | None:
    study = rec.search.study
    if study is None:
        return None
    return {"name": study.study_name, "storage": store, "trials": len(study.trials)}


def write_plots(rec: Recommendation, prefix: Path | None) -> list[Path]:
    if prefix is None:
        return []
    from mrtune.optimizer.study_plots import write_study_plots

    try:
        chosen = rec.pareto.chosen if rec.pareto is not None else None
        mark = None if chosen is None else (chosen.job_ms, chosen.gb_s)
        return write_study_plots(rec.search.study, prefix, recommended=mark)
    except OSError as exc:
        raise InputError(
            f"cannot write plots: {exc.strerror}", field="--plot", value=str(prefix)
        ) from None


def emit_report_json(
    rec: Recommendation,
    props: dict[str, str],
    *,
    withheld: list[str],
    store: str | None,
    plots: list[Path],
    lint: Any,
    start: tuple[Path | None, list[str] | None],
    cluster: dict[str, Any],
) -> None:
    """The ``--format json`` document: the recommendation, the cluster it was made for, the
    properties in every output form, the study, the plots, the lint report and (with
    ``--conf``) the start config."""
    data = rec.to_json()
    data["cluster"] = cluster
    data["codecs_withheld"] = withheld
    data["properties"] = props
    data["d_flags"] = d_flags(props)
    data["hive"] = hive_set_lines(props)
    data["pig"] = pig_set_lines(props)
    data["study"] = _study_json(rec, store)
    data["plots"] = [str(p) for p in plots]
    data["lint"] = lint.to_json()
    report_start(*start, data)
    emit_json(data)


def render_report(
    rec: Recommendation,
    where: str,
    names: NameStyle,
    include_low: bool,
    output: Path | None,
    emit: str,
    *,
    withheld: list[str],
    store: str | None,
    plots: list[Path],
    lint: Any,
    start: tuple[Path | None, list[str] | None],
) -> None:
    """The text report: the replayed start (``--conf``), the recommendation, the Pareto
    front, the lint findings, then one line per thing written or withheld (``output``: the
    ``-o`` file, written as ``emit``)."""
    report_start(*start, None)
    render(rec, where, names, include_low, None if output is None else (output, emit))
    render_front(rec)
    render_lint(lint)
    if withheld:
        console.print(f"[dim]codecs not offered: {'; '.join(withheld)}[/]", highlight=False)
    if store is not None and rec.search.study is not None:
        console.print(
            f"study [cyan]{rec.search.study.study_name}[/] stored in {store}", highlight=False
        )
    for path in plots:
        console.print(f"wrote {path}", highlight=False)
    if output is not None and not (rec.no_change and rec.withheld):  # else said by render
        what = f": {_EMPTY[emit]} (no change recommended)" if rec.no_change else ""
        console.print(f"wrote {escape(str(output))}{what}", highlight=False)


class search_status:  # noqa: N801 - used as a context manager, like rich's own ``status``
    """A rich status line on stderr while the search runs: configurations evaluated, best
    predicted cost so far, elapsed time (the search of ``--trials 400`` takes tens of
    seconds). Updated at most ten times a second; nothing is shown when stderr is not a
    terminal."""

    def __init__(self, strategy: str, objective: ObjectiveKind) -> None:
        import time

        from mrtune.cli.console import err_console

        self._resources = objective == ObjectiveKind.resources
        self._clock = time.perf_counter
        self._start = self._clock()
        self._last = 0.0
        self._strategy = strategy
        self._status = err_console.status(f"searching with {strategy} …")

    def __enter__(self) -> search_status:
        self._status.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._status.__exit__(*exc)  # type: ignore[arg-type]

    def __call__(self, evaluations: int, best: float) -> None:
        now = self._clock()
        if now - self._last < 0.1:
            return
        self._last = now
        if best == float("inf"):
            shown = "none feasible yet"
        else:
            shown = f"{best:,.1f} GB·s" if self._resources else format_ms(best)
        self._status.update(
            f"searching with {self._strategy}: {evaluations:,} configurations evaluated, "
            f"best {shown} · {now - self._start:.1f} s"
        )

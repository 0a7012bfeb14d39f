"""``mrtune optimize``'s Pareto front table, its limits, and the lint pass before writing.

The front and its knee come from :mod:`mrtune.optimizer.pareto`, the rules from
:mod:`mrtune.optimizer.lint`; this module only parses the limits and renders (80 columns).
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

from mrtune.cli.console import console
from mrtune.cli.whatif import short_value
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.errors import InputError
from mrtune.optimizer.objective import ObjectiveKind
from mrtune.optimizer.recommend import Recommendation
from mrtune.optimizer.units import format_ms


def front_limits(
    objective: ObjectiveKind, max_time: str | None, max_resources: str | None
) -> dict[str, float | None]:
    """``--max-time`` / ``--max-resources`` in ms and GB·s (units required); pareto only."""
    from mrtune.optimizer.pareto import parse_duration_ms, parse_gb_seconds

    if (max_time or max_resources) and objective != ObjectiveKind.pareto:
        raise InputError(
            "a limit picks a point of the Pareto front, so it needs --objective pareto",
            field="--max-time" if max_time else "--max-resources",
            value=max_time or max_resources,
        )
    return {
        "max_time_ms": parse_duration_ms(max_time) if max_time else None,
        "max_gb_s": parse_gb_seconds(max_resources) if max_resources else None,
    }


def lint_before_writing(
    rec: Recommendation, prof: JobProfile, base: HadoopConfig, spec: ClusterSpec
) -> Any:
    """Lint the configuration to be written (:mod:`mrtune.optimizer.lint`); an error (a value
    Hadoop would reject) stops the command before anything is written: one line, exit 2."""
    from mrtune.optimizer.lint import lint_config

    report = lint_config(prof, rec.config, spec, base=base, emitted=set(rec.properties))
    if report.errors:
        first = report.errors[0]
        raise InputError(
            f"lint: {first.message} ({first.threshold}); nothing written",
            field=first.property,
            value=first.value,
        )
    return report


def render_lint(report: Any) -> None:
    colour = {"low": "cyan", "moderate": "yellow", "severe": "red", "critical": "bold red"}
    limit = report.limits.get("sort_buffer")
    if limit is not None:  # the cap that rests on the job's observed heap, and its figure
        console.print(f"[dim]sort buffer: {limit['line']}[/]", highlight=False)
    if not report.findings:
        console.print(f"[dim]lint: clean ({len(report.checked)} rules checked)[/]")
        return
    console.print(f"[bold]Lint[/] ({len(report.checked)} rules, Dr. Elephant's thresholds):")
    for f in report.findings:
        kept = "" if f.emitted else " [dim](the job's own value)[/]"
        console.print(
            f"  [{colour.get(f.severity.label, 'red')}]{f.severity.label}[/] {f.rule}: "
            f"[cyan]{f.property}[/]={f.value}{kept}",
            highlight=False,
        )
        console.print(f"      {f.message}; {f.threshold}", style="dim", highlight=False)


#: Most front points shown as table rows (JSON has them all).
FRONT_ROWS = 12
FRONT_KNOB_COLUMNS = 3


def render_front(rec: Recommendation) -> None:
    """The Pareto front as a table: time, GB·s and the knobs whose values differ along it."""
    choice = rec.pareto
    if choice is None:
        return
    from mrtune.search_spaces import find_knob

    diff = choice.differing_knobs()
    shown, rest = diff[:FRONT_KNOB_COLUMNS], diff[FRONT_KNOB_COLUMNS:]
    t = Table(title=f"Pareto front: {len(choice.front)} points, ▶ = recommended")
    t.add_column("")
    t.add_column("job time", justify="right")
    t.add_column("GB·s", justify="right")
    for n in shown:
        t.add_column(_short(n), justify="right", overflow="fold")
    n = len(choice.front)
    rows = sorted({0, n - 1, choice.index} | {round(x) for x in _spread(n, FRONT_ROWS)})
    for i in rows:
        p = choice.front[i]
        mark = "▶" if i == choice.index else ("cur" if p.source == "current" else "")
        cells = [short_value(str(_knob_text(find_knob(k), p.values[k]))) for k in shown]
        t.add_row(mark, format_ms(p.job_ms), f"{p.gb_s:,.1f}", *cells)
    console.print(t)
    if len(rows) < n:
        console.print(f"[dim]{n - len(rows)} more front points in --format json[/]")
    cur = rec.current
    d_t = rec.recommended["job_ms"] / cur["job_ms"] - 1 if cur["job_ms"] > 0 else 0.0
    d_g = rec.recommended["container_gb_s"] / cur["container_gb_s"] - 1
    console.print(
        f"recommended: {choice.rule}; vs current: job time {d_t:+.1%}, GB·s {d_g:+.1%}",
        highlight=False,
    )
    if rest:
        console.print(f"[dim]also differ along the front: {', '.join(rest)}[/]", highlight=False)


def _spread(n: int, k: int) -> list[float]:
    """``k`` evenly spaced positions over ``0..n-1`` (all of them when ``n <= k``)."""
    if n <= k:
        return [float(i) for i in range(n)]
    return [i * (n - 1) / (k - 1) for i in range(k)]


def _short(name: str, width: int = 16) -> str:
    """A column header that fits: the name without ``mapreduce.``, wrapped at its dots
    (``mapreduce.reduce.input.buffer.percent`` → ``reduce.input.`` / ``buffer.percent``)."""
    parts = name.removeprefix("mapreduce.").split(".")
    lines, line = [], ""
    for part in parts:
        piece = part if not line else "." + part
        if line and len(line) + len(piece) > width:
            lines.append(line + ".")
            line = part
        else:
            line += piece
    return "\n".join([*lines, line])


def _knob_text(knob: Any, encoded: float) -> str:
    from mrtune.optimizer.units import format_bytes

    value = knob.decode(encoded)
    if knob.unit == "bytes":
        return format_bytes(float(value))
    return f"{value:g}" if isinstance(value, float) else str(value)

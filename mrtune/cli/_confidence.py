"""The confidence sections of ``mrtune optimize`` and ``mrtune whatif``: intervals of the
predictions and, per change, its gain, interval, confidence and the cost factors it rests on
(:mod:`mrtune.optimizer.trust`), laid out for 80 columns."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from mrtune.cli.console import console
from mrtune.optimizer.confidence import LEVEL
from mrtune.optimizer.units import format_ms

#: property prefixes dropped in the change table (the full names are in the -D flags / XML)
_PREFIXES = ("mapreduce.", "mapred.")
_PCT = f"p{LEVEL[0]:.0f}–p{LEVEL[1]:.0f}"


def _short(name: str) -> str:
    for p in _PREFIXES:
        if name.startswith(p):
            return name[len(p) :]
    return name


def ratio(x: float) -> str:
    return f"×{x:.3g}" if x < 100 else f"×{x:,.0f}"


def span(iv: dict[str, float] | Any, fmt: Any = ratio) -> str:
    lo, hi = (iv["low"], iv["high"]) if isinstance(iv, dict) else (iv.low, iv.high)
    return f"{fmt(lo)}–{fmt(hi)}"


def render_prediction_intervals(data: dict[str, Any]) -> None:
    """The job time and speedup intervals of a recommendation (``Recommendation.to_json``)."""
    conf = data.get("confidence")
    if not conf:
        return
    iv = conf["intervals"]
    t = Table(title=f"Predicted job time, {_PCT} of the evidence samples", title_style="")
    t.add_column("")
    t.add_column("point", justify="right")
    t.add_column(_PCT, justify="right")
    t.add_row("current", format_ms(iv["current_ms"]["point"]), span(iv["current_ms"], format_ms))
    t.add_row(
        "recommended",
        format_ms(iv["recommended_ms"]["point"]),
        span(iv["recommended_ms"], format_ms),
    )
    t.add_row(
        "speedup",
        ratio(iv["speedup"]["point"]),
        span(iv["speedup"]),
        style="bold",
        end_section=True,
    )
    if "speedup_with_withheld" in iv:
        w = iv["speedup_with_withheld"]
        t.add_row("with withheld", ratio(w["point"]), span(w), style="dim")
    console.print(t)
    ev = conf["evidence"]
    measured = ", ".join(ev["measured_factors"]) or "none"
    console.print(
        f"[dim]evidence: {ev['method']}; measured: {measured}[/]",
        highlight=False,
    )
    for note in ev["notes"]:
        console.print(f"[dim]  {note}[/]", highlight=False)


def render_change_table(data: dict[str, Any], include_low: bool) -> None:
    """Every change (written or withheld): gain with interval, confidence, what it rests on;
    then why each low-confidence one is low."""
    changes = data["changes"] + data.get("withheld_changes", [])
    if not changes or "confidence" not in changes[0]:
        return
    t = Table(
        title="Changes: gain = job time without the change ÷ with it",
        title_style="",
        show_lines=False,
    )
    t.add_column("setting", overflow="fold", ratio=3)
    t.add_column("from → to", overflow="fold", ratio=2)
    t.add_column("gain", justify="right", no_wrap=True)
    t.add_column(_PCT, justify="right", no_wrap=True)
    t.add_column("conf.", no_wrap=True)
    t.add_column("rests on", overflow="fold", ratio=3)
    for c in changes:
        g = c["gain_ratio"]
        rests = [f"{f}*" for f in c["rests_on"]["defaulted"]] + c["rests_on"]["measured"]
        low = c["confidence"] == "low"
        t.add_row(
            _short(c["name"]),
            f"{_value(c['current'])}→{_value(c['recommended'])}",
            ratio(g["point"]),
            span(g),
            "[red]low[/]" if low else "[green]ok[/]",
            ", ".join(rests) or "—",
            style=None if c["written"] else "dim",
        )
    console.print(t)
    console.print("[dim]* defaulted factor (not measured in this job's history)[/]")
    withheld = [c for c in changes if not c["written"]]
    for c in changes:
        if c["confidence"] == "low":
            console.print(
                f"  [red]low[/] {_short(c['name'])}: {'; '.join(c['low_confidence_reasons'])}",
                highlight=False,
            )
    if withheld and not include_low:
        console.print(
            f"[yellow]{len(withheld)} low-confidence change(s) not written[/] (dim rows); "
            "the prediction above is re-scored without them; --include-low-confidence "
            "writes them"
        )


def _value(v: object) -> str:
    return str(v).removeprefix("org.apache.hadoop.io.compress.")


def render_whatif_interval(result: dict[str, Any]) -> None:
    """The what-if speedup's interval (``what_if(..., evidence=…)``)."""
    iv = result.get("interval")
    if not iv:
        return
    console.print(
        f"speedup (current ÷ what-if) {ratio(iv['speedup']['point'])}, {_PCT} "
        f"{span(iv['speedup'])}; what-if job time {span(iv['what_if_ms'], format_ms)}",
        highlight=False,
    )
    console.print(f"[dim]evidence: {iv['method']}[/]", highlight=False)

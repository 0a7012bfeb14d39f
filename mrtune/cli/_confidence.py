"""The confidence sections of ``mrtune optimize`` and ``mrtune whatif``: intervals of the
predictions and, per change, its gain, interval, confidence and the cost factors it rests on
(:mod:`mrtune.optimizer.trust`), laid out for 80 columns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich import box
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from mrtune.cli.console import console
from mrtune.optimizer.confidence import LEVEL, SAMPLES
from mrtune.optimizer.units import format_ms

if TYPE_CHECKING:
    from mrtune.optimizer.recommend import Recommendation

#: property prefixes dropped in the change table (the full names are in the -D flags / XML)
_PREFIXES = ("mapreduce.", "mapred.")
PCT = f"p{LEVEL[0]:.0f}–p{LEVEL[1]:.0f}"


def _strip(name: str) -> str:
    for p in _PREFIXES:
        if name.startswith(p):
            return name[len(p) :]
    return name


def short_labels(names: list[str]) -> dict[str, str]:
    """Each property's label in the change table: without ``mapreduce.``, and only its last
    parts (``…`` before them) when still longer than 22 characters, as many as tell it from
    every other name shown (``reduce.input.buffer.percent`` and
    ``reduce.shuffle.input.buffer.percent`` were both ``…buffer.percent``). The full name
    follows in the change's details."""
    stripped = [_strip(n) for n in names]
    # two names alike once stripped (mapred.x and mapreduce.x) keep their prefixes
    parts = {
        n: (s if stripped.count(s) == 1 else n).split(".")
        for n, s in zip(names, stripped, strict=True)
    }
    labels: dict[str, str] = {}
    for name, own in parts.items():
        others = [p for n, p in parts.items() if n != name]
        if len(".".join(own)) <= 22 and all(p != own for p in others):
            labels[name] = ".".join(own)
            continue
        k = 2
        while k < len(own) and any(p[-k:] == own[-k:] for p in others):
            k += 1
        labels[name] = ("…" if k < len(own) else "") + ".".join(own[-k:])
    return labels


def ratio(x: float) -> str:
    if abs(x - 1) < 0.01:
        return f"×{x:.3f}"  # ×1.004 is a gain, ×0.998 none: two decimals would hide which
    if x < 10:
        return f"×{x:.2f}"
    return f"×{x:.1f}" if x < 100 else f"×{x:,.0f}"


def span(iv: dict[str, float] | Any, fmt: Any = ratio) -> str:
    lo, hi = (iv["low"], iv["high"]) if isinstance(iv, dict) else (iv.low, iv.high)
    if fmt is ratio and (abs(lo - 1) < 0.01 or abs(hi - 1) < 0.01) and max(lo, hi) < 10:
        return f"×{lo:.3f}–×{hi:.3f}"  # the same precision on both sides of 1
    return f"{fmt(lo)}–{fmt(hi)}"


def time_span(data: dict[str, Any], key: str) -> str:
    """The ``p10–p90`` cell of ``current_ms`` / ``recommended_ms`` ('' without intervals)."""
    conf = data.get("confidence")
    return span(conf["intervals"][key], format_ms) if conf else ""


INCLUDE_LOW_OPT = typer.Option(
    False,
    "--include-low-confidence",
    help="Also write changes marked low-confidence (resting on defaulted cost factors, "
    "with no sure gain, or far outside the observed settings).",
)
SAMPLES_OPT = typer.Option(
    SAMPLES,
    "--samples",
    min=8,
    max=4096,
    help="Evidence samples (bootstrap of the observed tasks × priors of the defaulted "
    "cost factors) behind every interval.",
)


def prediction_table(rec: Recommendation, data: dict[str, Any]) -> Table:
    """Current, recommended and Hadoop's defaults: job time (with its interval when the
    evidence was sampled) and container GB·s."""
    t = Table(title="Predicted job time")
    t.add_column("")
    t.add_column("job time", justify="right")
    if rec.evidence is not None:
        t.add_column(PCT, justify="right")
    t.add_column("container GB·s", justify="right")
    for label, s, key in (
        ("current", rec.current, "current_ms"),
        ("recommended", rec.recommended, "recommended_ms"),
        ("Hadoop defaults", rec.defaults, None),
    ):
        cells = [label, format_ms(s["job_ms"])]
        if rec.evidence is not None:
            cells.append(time_span(data, key) if key else "")
        t.add_row(*cells, f"{s['container_gb_s']:,.1f}")
    return t


def render_prediction_intervals(data: dict[str, Any]) -> None:
    """The speedup's interval and how the evidence was sampled (``Recommendation.to_json``)."""
    conf = data.get("confidence")
    if not conf:
        return
    iv = conf["intervals"]
    sp = iv["speedup"]
    line = f"speedup [bold]{ratio(sp['point'])}[/] ({PCT} {span(sp)})"
    if "speedup_with_withheld" in iv:
        w = iv["speedup_with_withheld"]
        n = len(data.get("withheld_changes", []))
        line += f"; with the {n} withheld change(s) {ratio(w['point'])} ({span(w)})"
    console.print(line, highlight=False)
    ev = conf["evidence"]
    measured = ", ".join(ev["measured_factors"]) or "none"
    console.print(f"[dim]evidence: {ev['method']}; measured: {measured}[/]", highlight=False)
    _print_noise(ev.get("run_noise"))
    for note in ev["notes"]:
        console.print(f"[dim]  {note}[/]", highlight=False)


def render_change_table(data: dict[str, Any], include_low: bool) -> None:
    """Every change (written or withheld): gain with interval and confidence in a table, then
    per change what its gain rests on, why it is low-confidence, and its effects."""
    changes = data["changes"] + data.get("withheld_changes", [])
    if not changes or "confidence" not in changes[0]:
        return
    t = Table(
        title="Changes (gain = job time without the change ÷ with it)",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    t.add_column("setting", no_wrap=True)
    t.add_column("from → to", overflow="fold")
    t.add_column("gain", justify="right", no_wrap=True)
    t.add_column(PCT, justify="right", no_wrap=True)
    t.add_column("confidence", no_wrap=True)
    shown = {c["name"]: c.get("label") or c["name"] for c in changes}
    labels = short_labels(list(shown.values()))
    for c in changes:
        low = c["confidence"] == "low"
        t.add_row(
            labels[shown[c["name"]]],
            f"{_value(c['current'])} → {_value(c['recommended'])}",
            ratio(c["gain_ratio"]["point"]),
            span(c["gain_ratio"]),
            ("[red]low[/]" if low else "[green]ok[/]") + ("" if c["written"] else " ✗"),
            style=None if c["written"] else "dim",
        )
    console.print(t)
    for c in changes:
        _render_change_detail(c)
    withheld = [c for c in changes if not c["written"]]
    if withheld and data["changes"] and not include_low:
        console.print(
            f"[yellow]{len(withheld)} low-confidence change(s) not written[/] (✗); the "
            "prediction is re-scored without them; --include-low-confidence writes them",
            highlight=False,
        )
    option = data.get("low_confidence_option")
    if option and not include_low:
        console.print(
            f"[yellow]low-confidence option[/]: {escape(option['reason'])}; "
            "--include-low-confidence writes it",
            highlight=False,
        )


def _indented(text: str, style: str | None = None) -> None:
    """``text`` under a change's bullet, wrapped lines keeping the indent."""
    console.print(Padding(Text.from_markup(text, style=style or ""), (0, 0, 0, 6)))


def _render_change_detail(c: dict[str, Any]) -> None:
    low = c["confidence"] == "low"
    mark = "[red]low[/]" if low else "[green]ok[/]"
    console.print(f"  • [cyan]{c.get('label') or c['name']}[/] {mark}", highlight=False)
    rests = c["rests_on"]
    parts = []
    if rests["measured"]:
        parts.append(f"measured {', '.join(rests['measured'])}")
    if rests["defaulted"]:
        parts.append(f"defaulted {', '.join(rests['defaulted'])}")
    text = f"rests on: {'; '.join(parts) or 'no cost factor (the dataflow alone)'}"
    if not low and parts:
        text += f" ({c['defaulted_share']:.0%} on defaulted factors)"
    _indented(escape(text))
    a = c["alone_ratio"]
    _indented(f"alone on the current configuration {ratio(a['point'])} ({PCT} {span(a)})")
    for why in c["low_confidence_reasons"]:
        _indented(f"[red]![/] {escape(why)}")
    effects = c["explanation"].split(": ", 1)
    if len(effects) == 2:
        # measured by reverting this change in the configuration the changes were searched
        # with (optimizer.explain), not on the current one: say which, or "spills per map
        # 13→10" read as the run's while it had 2
        _indented(escape(f"in the optimum found, without → with it: {effects[1]}"), "dim")


def _value(v: object) -> str:
    return str(v).removeprefix("org.apache.hadoop.io.compress.")


def render_whatif_interval(result: dict[str, Any]) -> None:
    """The what-if speedup's interval (``what_if(..., evidence=…)``)."""
    iv = result.get("interval")
    if not iv:
        return
    console.print(
        f"speedup (current ÷ what-if) {ratio(iv['speedup']['point'])}, {PCT} "
        f"{span(iv['speedup'])}; what-if job time {span(iv['what_if_ms'], format_ms)}",
        highlight=False,
    )
    console.print(f"[dim]evidence: {iv['method']}[/]", highlight=False)
    _print_noise(iv.get("run_noise"))


def _print_noise(noise: dict[str, Any] | None) -> None:
    """Where the run-to-run noise that widens the intervals comes from (``optimizer.noise``)."""
    if not noise:
        return
    console.print(
        f"[dim]run-to-run noise: {noise['run_sigma']:.1%} per run ({noise['source']}); a "
        f"speedup measured over {noise['pairs']} interleaved pairs: "
        f"±{noise['speedup_band']:.1%}[/]",
        highlight=False,
    )


def render_changes(rec: Recommendation, data: dict[str, Any], include_low: bool) -> None:
    """The change table with intervals, confidence and what each gain rests on (when
    assessed), or each change with its effects on the phases and the dataflow."""
    if rec.evidence is not None:
        render_change_table(data, include_low)
        return
    console.print("[bold]Changes[/] (each gain measured by reverting that change alone):")
    for c in rec.changes:
        console.print(
            f"  • [cyan]{c.label}[/] {_value(c.current)} → [bold]{_value(c.recommended)}"
            f"[/]  [green]{c.gain_fraction:.1%}[/]",
            highlight=False,
        )
        console.print(f"      {', '.join(c.effects)}", highlight=False, style="dim")

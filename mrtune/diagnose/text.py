"""Short texts of severities and prices, shared by the terminal and the HTML report."""

from __future__ import annotations

from mrtune.diagnose._core import Price, Severity
from mrtune.optimizer.units import format_ms

#: rich styles (terminal) and CSS classes (HTML) of the severities.
STYLE = {
    Severity.NONE: "green",
    Severity.LOW: "cyan",
    Severity.MODERATE: "yellow",
    Severity.SEVERE: "bold red",
    Severity.CRITICAL: "bold white on red",
}


def amount(value: float, unit: str) -> str:
    """A saving in its unit: ``ms`` as a duration, ``GB·s`` with one decimal."""
    if unit == "ms":
        return format_ms(value)
    return f"{value:,.1f} {unit}"


def price_text(price: Price | None) -> str:
    """``−1.2 s job time (90%: 0.8 s – 1.5 s)``, ``≤ 2.8 s (observed)``, or why there is none."""
    if price is None:
        return "—"
    if price.basis == "not priced":
        return f"not priced: {price.note}" if price.note else "not priced"
    what = "job time" if price.unit == "ms" else "container"
    observed = price.basis.startswith("observed")
    if not observed and not price.settings:
        return "no change gains ≥ 1%"
    head = ("≤ " if observed else "−") + amount(price.saving, price.unit)
    if not observed and price.current > 0:
        head += f" ({price.fraction:.1%})"
    head += f" {what}" + (" (observed)" if observed else "")
    if price.interval is not None:
        lo, hi = price.interval
        head += f"; 90%: {amount(lo, price.unit)} – {amount(hi, price.unit)}"
    return head


def settings_text(price: Price | None) -> str:
    if price is None or not price.settings:
        return ""
    return ", ".join(f"{k}={v}" for k, v in price.settings.items())

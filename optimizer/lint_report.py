"""The lint's findings and report (:mod:`mrtune.optimizer.lint`): one rule's verdict on one
value, and every verdict of a pass with the limits that rest on the job's own evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mrtune.optimizer.severity import Severity


@dataclass
class Finding:
    """One rule's verdict on one emitted value."""

    rule: str
    property: str
    value: str
    severity: Severity
    threshold: str
    message: str
    source: str
    #: whether the property is among those written (else it is the job's own, kept)
    emitted: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "property": self.property,
            "value": self.value,
            "severity": self.severity.label,
            "threshold": self.threshold,
            "message": self.message,
            "source": self.source,
            "emitted": self.emitted,
        }

    def line(self) -> str:
        return f"{self.severity.label}: {self.property}={self.value}: {self.message} ({self.threshold})"


@dataclass
class LintReport:
    """Every finding of severity low or more, the rules that were checked, and the limits
    that rest on the job's own evidence (``sort_buffer``:
    :func:`~mrtune.optimizer.lint_memory.sort_buffer_limit`)."""

    findings: list[Finding] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    limits: dict[str, Any] = field(default_factory=dict)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == Severity.ERROR]

    def to_json(self) -> dict[str, Any]:
        return {
            "rules_checked": self.checked,
            "findings": [f.to_json() for f in self.findings],
            "errors": len(self.errors),
            "limits": self.limits,
        }

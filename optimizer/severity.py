"""Dr. Elephant's severity scale (``com.linkedin.drelephant.analysis.Severity``), shared by the
lint pass before a file is written (:mod:`mrtune.optimizer.lint`) and the diagnosis of a run
(:mod:`mrtune.diagnose`): five levels NONE < LOW < MODERATE < SEVERE < CRITICAL, plus ``ERROR``
for a value Hadoop itself rejects (only the lint raises it).
"""

from __future__ import annotations

from enum import IntEnum


class Severity(IntEnum):
    """Dr. Elephant's levels (``analysis.Severity``) and ``ERROR``: Hadoop rejects the value."""

    NONE = 0
    LOW = 1
    MODERATE = 2
    SEVERE = 3
    CRITICAL = 4
    ERROR = 5

    @property
    def label(self) -> str:
        return self.name.lower()


def ascending(value: float, limits: tuple[float, ...]) -> Severity:
    """The highest level whose limit ``value`` reaches (``Severity.getSeverityAscending``)."""
    level = Severity.NONE
    for i, lim in enumerate(limits):
        if value >= lim:
            level = Severity(i + 1)
    return level


def descending(value: float, limits: tuple[float, ...]) -> Severity:
    """The highest level whose limit ``value`` is at or below (``getSeverityDescending``)."""
    level = Severity.NONE
    for i, lim in enumerate(limits):
        if value <= lim:
            level = Severity(i + 1)
    return level

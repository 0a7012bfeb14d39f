"""The shapes every heuristic shares: severities, findings, their price, and the job they read.

Severities and the way thresholds turn a value into one follow Dr. Elephant
(``com.linkedin.drelephant.analysis.Severity``): five levels NONE < LOW < MODERATE < SEVERE <
CRITICAL; ``getSeverityAscending(value, low, moderate, severe, critical)`` is the highest level
whose limit the value reaches, ``getSeverityDescending`` the same for values that are worse
when smaller. A heuristic's result is usually the *minimum* of a "how bad" severity and a
"does it matter" severity (number of tasks, task runtime), so that a bad ratio on a tiny job is
not reported as critical; that damping is kept here, because it is what users of Dr. Elephant
expect a severity to mean.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.costmodel.profile import TaskTiming

# the heuristics import the scale from here (one scale for the diagnosis and the lint pass)
from mrtune.optimizer.severity import Severity as Severity
from mrtune.optimizer.severity import ascending as ascending
from mrtune.optimizer.severity import descending as descending

MINUTE_MS = 60_000.0
MB = 1024 * 1024


@dataclass
class Price:
    """What fixing a finding is worth, by the what-if model (or, where the model has no term for
    the effect, by the observed tasks, and then ``basis`` says so).

    ``saving`` is in ``unit`` (``ms`` of job time or ``GB·s`` of container time), ``interval``
    its 90% interval and ``interval_method`` how that interval was built.
    """

    settings: dict[str, str]
    basis: str
    unit: str
    current: float
    saving: float
    interval: tuple[float, float] | None = None
    interval_method: str = ""
    note: str = ""

    @property
    def fraction(self) -> float:
        return self.saving / self.current if self.current > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "basis": self.basis,
            "unit": self.unit,
            "current": self.current,
            "saving": self.saving,
            "saving_fraction": self.fraction,
            "interval": list(self.interval) if self.interval else None,
            "interval_method": self.interval_method,
            "note": self.note,
        }


@dataclass
class Finding:
    """One heuristic's verdict on one job."""

    key: str
    name: str
    side: str
    severity: Severity
    summary: str
    evidence: dict[str, str] = field(default_factory=dict)
    thresholds: str = ""
    source: str = "Dr. Elephant default thresholds"
    computable: bool = True
    #: the knobs whose change the what-if model prices for this finding, and the objective
    fix_knobs: tuple[str, ...] = ()
    objective: str = "time"
    #: a fix priced from the evidence (settings → value) instead of by a search over fix_knobs
    fix_settings: dict[str, str] = field(default_factory=dict)
    #: observed upper bound of the saving (ms) when the model has no term for the effect
    observed_bound_ms: float | None = None
    price: Price | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "side": self.side,
            "severity": self.severity.label,
            "computable": self.computable,
            "summary": self.summary,
            "evidence": self.evidence,
            "thresholds": self.thresholds,
            "thresholds_source": self.source,
            "price": self.price.to_json() if self.price else None,
        }


@dataclass
class JobView:
    """What the heuristics read about one job, whatever it was loaded from.

    ``profile`` (and ``config``) are ``None`` when the history cannot be profiled (a failed or
    truncated job); the heuristics then run on whatever tasks the history holds and say which
    could not be computed (``problem`` says why there is no profile).
    """

    source: str
    job_id: str
    job_name: str = ""
    status: str = "UNKNOWN"
    tasks: list[TaskTiming] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    profile: JobProfile | None = None
    config: HadoopConfig | None = None
    cluster: ClusterSpec | None = None
    cluster_note: str = ""
    problem: str | None = None
    declared_maps: int | None = None
    declared_reduces: int | None = None
    failed_attempts: int = 0
    killed_attempts: int = 0
    failed_tasks: int = 0
    diagnostics: str = ""
    warnings: list[str] = field(default_factory=list)

    def side(self, kind: str) -> list[TaskTiming]:
        return [t for t in self.tasks if t.kind == kind]

    def property_name(self, name: str) -> str:
        """``name`` as the job's Hadoop reads it: Hadoop 1's own name for a Hadoop 1 job
        (``mapred.reduce.slowstart.completed.maps``), as ``optimize`` writes it."""
        if self.config is None or self.config.hadoop_version != 1:
            return name
        from mrtune.costmodel.properties import HADOOP1_NAMES

        return HADOOP1_NAMES.get(name, name)

    @property
    def block_size(self) -> tuple[float, str]:
        """HDFS block size in bytes and where it came from (``dfs.blocksize``; else the one
        the model cut the input at: the block a history's maps show, or the version's default,
        Hadoop 1's 64 MiB and Hadoop 2/3's 128 MiB; Dr. Elephant reads the cluster's own
        default the same way). The model's own block keeps "63.7% of a block" and the
        split-size price on one block."""
        for key in ("dfs.blocksize", "dfs.block.size"):
            raw = self.properties.get(key)
            if raw:
                try:
                    return float(_parse_size(raw)), key
                except ValueError:
                    continue
        if self.config is not None:
            block = float(self.config.dfs_blocksize)
            return block, f"the model's, Hadoop {self.config.hadoop_version}"
        return 128.0 * MB, "default 128 MiB"


def _parse_size(raw: str) -> float:
    """Hadoop's ``getLongBytes``: a number with an optional k/m/g/t suffix."""
    text = raw.strip().lower()
    mult = {"k": 1024, "m": MB, "g": 1024 * MB, "t": 1024**2 * MB}.get(text[-1:], 1)
    if mult != 1:
        text = text[:-1]
    return float(text) * mult


def two_groups(values: list[float]) -> tuple[list[float], list[float]]:
    """Split values into a low and a high group by two-means (1-D k-means, k = 2).

    Dr. Elephant's ``Statistics.findTwoGroups`` starts at the mean and re-splits twice; here the
    split point is iterated to its fixed point (the midpoint of the two group means), which is
    the 1-D two-means optimum the method approximates. Equal values give one group (``[]`` low).
    """
    if not values:
        return [], []
    middle = sum(values) / len(values)
    low: list[float] = []
    high: list[float] = list(values)
    for _ in range(50):
        low = [v for v in values if v < middle]
        high = [v for v in values if v >= middle]
        if not low or not high:
            break
        new = (sum(low) / len(low) + sum(high) / len(high)) / 2
        if new == middle:
            break
        middle = new
    return low, high


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    if not n:
        return 0.0
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def not_computable(key: str, name: str, side: str, why: str) -> Finding:
    """A heuristic that cannot run on this job (no tasks of that kind, no counter)."""
    return Finding(key, name, side, Severity.NONE, f"not computed: {why}", computable=False)


def lims(limits: tuple[float, ...], unit: str = "") -> str:
    """``low/moderate/severe/critical`` limits as one short string."""
    return "/".join(f"{v:g}{unit}" for v in limits) + " (low/mod/sev/crit)"


def plural(n: int, noun: str) -> str:
    """``1 map``, ``10 maps``: a count always carries its unit."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"

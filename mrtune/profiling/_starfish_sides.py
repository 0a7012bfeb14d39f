"""What every part of the Starfish profile assembler shares: the parsed job and its notes.

Starfish's What-if Engine reads each task kind's figures from that kind's profile (a
``<map_profile>`` per input, one ``<reduce_profile>``; reference §1.3). The assembler is
split by what it maps, the statistics (reference Table 2, :mod:`mrtune.profiling._starfish_stats`)
and the cost factors (Table 3, :mod:`mrtune.profiling._starfish_costs`), and both look a key up
per side through this base: the map side as the task-weighted mean over the map profiles, the
reduce side from the one reduce profile. Provenance, warnings and facts are collected here so
every step of :func:`mrtune.profiling.starfish.load_starfish` writes to the same notes.
"""

from __future__ import annotations

from mrtune.readers.starfish import StarfishJobProfile


class Sides:
    """The parsed job profile, its per-side lookups, and the provenance and warnings so far."""

    def __init__(self, job: StarfishJobProfile) -> None:
        self.job = job
        self.src = job.path.name
        self.provenance: dict[str, str] = {}
        self.warnings: list[str] = list(job.warnings)
        self.facts: dict[str, float | str] = {}
        #: each input's map tasks are modelled with their own map profile (map classes)
        self.apart = False

    # -- per-side lookups
    def _map_value(self, section: str, key: str) -> float | None:
        """Task-weighted mean over the map profiles that carry ``key``."""
        vals = [
            (getattr(m, section)[key], m.num_tasks)
            for m in self.job.maps
            if key in getattr(m, section)
        ]
        if not vals:
            return None
        w = sum(n for _, n in vals)
        if len({v for v, _ in vals}) > 1 and not self.apart:
            self.warnings.append(
                f"{self.job.path}: {section[:-1]} {key} differs between the inputs' map profiles "
                f"({', '.join(f'{v:g}' for v, _ in vals)}); mrtune models one input and uses the "
                "task-weighted mean"
            )
        return sum(v * n for v, n in vals) / w

    def _reduce_value(self, section: str, key: str) -> float | None:
        r = self.job.reduce
        if r is None:
            return None
        return getattr(r, section).get(key)

    def _map_counter(self, key: str) -> float | None:
        return self._map_value("counters", key)

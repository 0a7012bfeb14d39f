"""``SearchSpace``: the knobs that apply to one job, their encoding, and batch construction.

Which knobs apply depends on the job and the mode: a map-only job has no reduce-side knobs, the
combiner switch exists only where the job has a combiner and is asked for by name (no
configuration file can switch a driver's combiner off: :attr:`Knob.site_property`), ``io.sort.record.percent`` only in
Hadoop 1, container sizes only when the user allows memory changes. Every numeric strategy sees
the space as a unit cube (:meth:`SearchSpace.from_unit`), the exhaustive strategy as a grid, and
all of them turn values into a :class:`~mrtune.costmodel.batch.ConfigBatch` through
:meth:`SearchSpace.to_batch`, which applies the constraint repairs first.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import MB, HadoopConfig, parse_xmx
from mrtune.costmodel.profile import JobProfile
from mrtune.search_spaces.constraints import (
    CodecVerdict,
    distinct_key_cap,
    followed_heap_mb,
    job_codec_verdicts,
    map_output_bytes,
    max_reducers_for,
    min_split_for,
    narrowed,
    sort_buffer_cap,
)
from mrtune.search_spaces.grids import _GRIDS, _ceil, _clip_round, _registry_grid  # noqa: F401
from mrtune.search_spaces.job_owned import owned_knobs
from mrtune.search_spaces.knobs import CODEC_ROLES, KNOBS, Knob, Role, find_knob, knob_with_role
from mrtune.search_spaces.properties import (  # noqa: F401 - re-exported
    HEAP_OPTS,
    heap_not_modelled,
    knob_property_names,
    knob_to_properties,
)
from mrtune.search_spaces.values import (  # noqa: F401 - re-exported
    Values,
    feasible_values,
    repair_values,
)


@dataclass(frozen=True)
class _JobTraits:
    """What decides whether a knob acts on a job (read from the knob's flags, never its name)."""

    hadoop_version: int
    map_only: bool
    has_combiner: bool
    local_mode: bool

    def admits(self, k: Knob) -> bool:
        if not k.applies_to(self.hadoop_version):
            return False
        if self.map_only and (k.side == "reduce" or k.needs_reduce):
            return False
        if k.needs_combiner and not self.has_combiner:
            return False
        return not (self.local_mode and k.local_mode_ignored)


@dataclass
class SearchSpace:
    """The knobs that apply to ``profile`` under ``base``, and how to evaluate values of them."""

    profile: JobProfile
    base: HadoopConfig
    cluster: ClusterSpec
    knobs: list[Knob] = field(default_factory=list)
    #: Codecs the job's limits withhold, each "name: reason" (for explanations and lint).
    withheld: list[str] = field(default_factory=list)
    #: The property that switches the job's combiner off where the target reads one (Starfish's
    #: ``starfish.use.combiner``, :mod:`mrtune.search_spaces.starfish`); ``None``: Hadoop has
    #: none, the driver's class decides.
    combiner_switch: str | None = None

    @classmethod
    def for_job(
        cls,
        profile: JobProfile,
        base: HadoopConfig,
        cluster: ClusterSpec | None = None,
        *,
        allow_memory: bool = False,
        only: Iterable[str] | None = None,
        exclude: Iterable[str] = (),
        local_mode_honoured: bool = False,
        codecs: Iterable[str] | None = None,
        allow_native_codecs: bool | None = None,
    ) -> SearchSpace:
        """Select the applicable knobs (module docstring) within the job's limits: ``codecs``
        and ``allow_native_codecs`` default to the profile's facts (constraints.py)."""
        cluster = cluster or ClusterSpec()
        wanted = {find_knob(n).name for n in only} if only is not None else None
        excluded = {find_knob(n).name for n in exclude}
        job = _JobTraits(
            hadoop_version=base.hadoop_version,
            map_only=profile.map_only or base.num_reducers == 0,
            has_combiner=profile.has_combiner,
            local_mode=local_mode_honoured,
        )
        knobs = []
        owned = owned_knobs(profile)
        for k in KNOBS:
            if k.name in excluded or (wanted is not None and k.name not in wanted):
                continue
            if k.name in owned:
                continue  # the job's own code decides it: a written value would not count
            if k.container_memory and not allow_memory:
                continue  # container sizes change the cluster's packing: only when allowed
            if k.container_memory and heap_not_modelled(profile, base, k):
                continue  # the job's own -Xmx was unusable: a new container would keep it
            if wanted is None and not k.modelled:
                continue  # no modelled effect: searching it would only add noise
            if wanted is None and not k.site_property:
                continue  # the job's code sets it (the combiner): no file can write it
            if not job.admits(k):
                continue
            knobs.append(k)
        space = cls(profile=profile, base=base, cluster=cluster, knobs=knobs)
        verdicts = job_codec_verdicts(profile, base, codecs, allow_native_codecs)
        current = space.current_values()
        space.knobs = [space._limited(k, verdicts, current) for k in knobs]
        space.withheld = [f"{v.codec}: {v.reason}" for v in verdicts if not v.offered]
        space.withheld += [f"{name}: {why}" for name, why in owned.items()]
        return space

    # ------------------------------------------------------------------ limits
    def _limited(self, k: Knob, verdicts: list[CodecVerdict], current: dict[str, object]) -> Knob:
        """``k`` with its search range cut to this job's limits.

        Codec knobs offer only codecs the cluster loads (plus the current one, which it ran
        with); the reducer count stops at one reducer per :data:`MIN_REDUCE_BYTES` of map
        output and the split size at :data:`MIN_SPLIT_BLOCK_SHARE` of the block (task
        granularity, constraints.py). The current value stays scorable: :meth:`repair` clips
        only to Hadoop's valid range, never to this search range.
        """
        if k.role in CODEC_ROLES:
            ok = {v.codec for v in verdicts if v.offered}
            now = current.get(k.name)
            keep = tuple(c for c in k.choices if c == "none" or c in ok or c == now)
            if keep == k.choices:
                return k
            hit = _OFFERED.get((id(k), keep))
            if hit is None or hit[0] is not k:
                hit = (k, dataclasses.replace(k, choices=keep))
                if len(_OFFERED) < 4096:
                    _OFFERED[(id(k), keep)] = hit
            return hit[1]
        if k.role == Role.reducers:
            cap = max_reducers_for(self.map_output_bytes())
            if (keys := distinct_key_cap(self.profile)) is not None:  # keep the job's own count
                cap = min(cap, max(keys, int(self.base.num_reducers)))
            return narrowed(k, k.low, max(min(k.high, cap), k.low))  # type: ignore[type-var]
        if k.role == Role.split_size:
            floor = max(k.low, min_split_for(self.base.dfs_blocksize))  # type: ignore[type-var]
            return narrowed(k, min(floor, k.high), k.high)  # type: ignore[type-var]
        return k

    def map_output_bytes(self) -> float:
        """Uncompressed map output of the whole job, before any combiner: the reducers' work."""
        return map_output_bytes(self.profile)

    # ------------------------------------------------------------------ values
    @property
    def names(self) -> list[str]:
        return [k.name for k in self.knobs]

    def current_values(self) -> dict[str, float | int | bool | str]:
        """The base configuration's value of every knob."""
        out: dict[str, float | int | bool | str] = {}
        row = self.base_row()
        for k in self.knobs:
            out[k.name] = k.decode(float(row[k.column]))
        return out

    def base_row(self) -> dict[str, float | int | bool]:
        """The base configuration's :class:`ConfigBatch` columns (read-only; derived once per
        base: they parse the JVM options, and a batch reads them several times per job)."""
        hit = self.__dict__.get("_base_row")
        if hit is None or hit[0] is not self.base:
            hit = (self.base, ConfigBatch._columns_of(self.base))
            self.__dict__["_base_row"] = hit
        return hit[1]

    def context(self) -> dict[str, float]:
        """What the constraints read besides the knobs' values (derived once per base)."""
        hit = self.__dict__.get("_context")
        if hit is None or hit[0] is not self.base or hit[1] is not self.cluster:
            hit = (self.base, self.cluster, self._context())
            self.__dict__["_context"] = hit
        return dict(hit[2])

    def _context(self) -> dict[str, float]:
        b = self.base
        ctx = {
            "heap_ratio": b.heap_memory_mb_ratio,
            "map_heap_mb": b.map_heap_bytes / MB,
            "map_container_mb": float(b.map_container_mb),
            "explicit_map_xmx": float(parse_xmx(b.map_java_opts or b.child_java_opts) is not None),
            # Hadoop 1/2 without -Xmx: the default -Xmx200m whatever the container
            "heap_fixed": float(b.heap_fixed("map")),
            "shuffle_limit": b.shuffle_memory_limit_percent,
            "shuffle_merge": b.shuffle_merge_percent,
            # the largest container the cluster runs (node, max allocation, beside the AM)
            "node_memory_mb": float(self.cluster.container_limit_mb()),
            "current_sort_mb": float(b.io_sort_mb),
            "hadoop1": float(b.hadoop_version == 1),
        }
        use = self.profile.map_heap_use
        if use is not None:  # the sort buffer leaves the map function its observed heap
            ctx["map_heap_need_mb"] = use.need_mb
        return ctx

    def repair(self, values: Values) -> Values:
        """Clip values into the feasible region (round ints, apply every constraint's repair).

        Numbers are clipped to what Hadoop accepts (the knob's valid range), not to the search
        range: samplers already stay inside the search range, and a current value outside it
        (e.g. 20,000 reducers) is a configuration Hadoop runs, to be scored as it is.
        """
        return repair_values(self.knobs, values, self.context())

    def feasible(self, values: Values) -> np.ndarray:
        """Mask of configurations that satisfy every constraint and every knob's bounds."""
        return feasible_values(self.knobs, values, self.context())

    def with_role(self, role: Role) -> Knob | None:
        """This space's knob with ``role``, or ``None`` when the space does not tune it."""
        return knob_with_role(role, self.knobs)

    def sort_buffer_cap_mb(self) -> float | None:
        """The sort buffer's largest feasible value when the map heap is fixed (the map
        container is not searched), else ``None`` (the cap then moves with the container)."""
        if self.with_role(Role.sort_buffer) is None or self.with_role(Role.map_memory):
            return None
        ctx = self.context()
        return float(sort_buffer_cap(np.array([ctx["map_heap_mb"]]), ctx)[0])

    def to_batch(self, values: Values, *, repair: bool = True) -> ConfigBatch:
        """Knob values (encoded, arrays of equal length) → a ConfigBatch on top of ``base``."""
        v = self.repair(values) if repair else values
        cols: dict[str, np.ndarray] = {}
        for name, arr in v.items():
            knob = find_knob(name)
            cols[knob.column] = np.asarray(arr)
        b = self.base
        ratio = b.heap_memory_mb_ratio
        explicit_map = parse_xmx(b.map_java_opts or b.child_java_opts) is not None
        explicit_red = parse_xmx(b.reduce_java_opts or b.child_java_opts) is not None
        # the heap follows a searched container as the written -Xmx will (followed_heap_mb)
        for side, explicit in (("map", explicit_map), ("reduce", explicit_red)):
            if f"{side}_container_mb" not in cols:
                continue
            heap_mb = followed_heap_mb(
                cols[f"{side}_container_mb"],
                ratio=ratio,
                explicit=explicit,
                current_mb=float(getattr(b, f"{side}_container_mb")),
                current_heap_mb=getattr(b, f"{side}_heap_bytes") / MB,
                fixed=b.heap_fixed(side),
            )
            cols[f"{side}_heap_bytes"] = heap_mb * MB
            if side == "reduce" and b.reduce_memory_totalbytes is None:
                cols["reduce_total_mem_bytes"] = cols["reduce_heap_bytes"]
        return ConfigBatch.from_base(b, **cols)

    # ------------------------------------------------------------------ grids
    def grid(self, knob: Knob) -> np.ndarray:
        """``knob``'s encoded grid for this job: the registry's grid plus job-aware values.

        The registry grid is generic; the best values often sit where a wave fills up or a
        map's output just fits one spill. So the grid adds reducer counts that are whole
        multiples of the reduce slots, split sizes that make the maps whole waves, the
        smallest sort buffer that holds one map's output in a single spill and, when the
        profile observed the map function's heap, the sort buffer's cap. The array is
        read-only (a knob without job-aware values returns the registry's own grid).
        """
        extra: list[float] = []
        b, prof = self.base, self.profile
        if knob.role == Role.reducers:
            slots = self._slots(b.reduce_container_mb, b.reduce_vcores, reduce=True)
            extra = [k * slots for k in (0.5, 1, 2, 3, 4)] + [slots - 1]
        elif knob.role == Role.split_size:
            slots = self._slots(b.map_container_mb, b.map_vcores, reduce=False)
            file_size = prof.input_bytes / prof.input_files
            for waves in (1, 2, 3, 4, 6, 8):
                per_file = max(1.0, _ceil(waves * slots / prof.input_files))
                extra.append(_ceil(file_size / per_file))
        elif knob.role == Role.sort_buffer:
            st = prof.stats
            split = b.split_size * (1 / st.input_compress_ratio if prof.input_compressed else 1)
            recs = split / st.input_pair_width * st.map_pairs_sel
            out = split * st.map_size_sel
            need = (out + 16.0 * recs) / b.sort_spill_percent / 2**20
            extra = [_ceil(need) + 1]
            cap = self.sort_buffer_cap_mb()
            if cap is not None and prof.map_heap_use is not None:
                extra.append(cap)  # the most the map function's observed heap leaves
        base = _registry_grid(knob)
        if not extra:
            return base
        lo, hi = float(knob.low), float(knob.high)  # type: ignore[arg-type]
        vals = [_clip_round(float(v), lo, hi) for v in extra]
        # np.unique(np.concatenate([base, finite vals])), as Python's set and sort: the grid
        # has a few dozen values, where np.unique's fixed cost is most of a job's grids
        merged = set(base.tolist()).union(v for v in vals if math.isfinite(v))
        out = np.array(sorted(merged), dtype=np.float64)
        out.setflags(write=False)
        return out

    def _slots(self, container_mb: int, vcores: int, *, reduce: bool) -> float:
        cl = self.cluster
        if cl.local_mode:
            return float((cl.max_concurrent_reduces if reduce else cl.max_concurrent_maps) or 1)
        if self.base.hadoop_version == 1:
            per = cl.reduce_slots_per_node if reduce else cl.map_slots_per_node
            return float(per * cl.num_nodes)
        key = (id(cl), float(container_mb), int(vcores))
        hit = _SLOTS.get(key)
        if hit is not None and hit[0] is cl:
            return hit[1]
        from mrtune.costmodel.job import container_slots

        got = float(container_slots(cl, np.array([float(container_mb)]), np.array([vcores]))[0])
        if len(_SLOTS) < 4096:
            _SLOTS[key] = (cl, got)
        return got

    # ------------------------------------------------------------------ encodings
    def from_unit(self, u: np.ndarray) -> Values:
        """Points of the unit cube, shape (n, d), → knob values (log scale where declared)."""
        u = np.clip(np.atleast_2d(np.asarray(u, dtype=np.float64)), 0.0, 1.0)
        out: Values = {}
        for j, k in enumerate(self.knobs):
            x = u[:, j]
            if k.kind == "bool":
                out[k.name] = (x >= 0.5).astype(np.float64)
            elif k.kind == "categorical":
                idx = np.minimum((x * len(k.choices)).astype(np.int64), len(k.choices) - 1)
                codes = np.array([k.encode(c) for c in k.choices])
                out[k.name] = codes[idx]
            else:
                lo, hi = float(k.low), float(k.high)  # type: ignore[arg-type]
                if k.log and lo > 0:
                    val = np.exp(np.log(lo) + x * (np.log(hi) - np.log(lo)))
                else:
                    val = lo + x * (hi - lo)
                out[k.name] = np.round(val) if k.kind == "int" else val
        return out

    def to_unit(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """Inverse of :meth:`from_unit` (categoricals to the centre of their bin)."""
        cols = []
        for k in self.knobs:
            x = np.asarray(values[k.name], dtype=np.float64)
            if k.kind == "bool":
                cols.append(np.where(x > 0.5, 0.75, 0.25))
            elif k.kind == "categorical":
                codes = [k.encode(c) for c in k.choices]
                idx = np.array([codes.index(float(v)) for v in np.atleast_1d(x)])
                cols.append((idx + 0.5) / len(k.choices))
            else:
                lo, hi = float(k.low), float(k.high)  # type: ignore[arg-type]
                if hi <= lo:
                    cols.append(np.full_like(x, 0.5))
                elif k.log and lo > 0:
                    cols.append(
                        (np.log(np.maximum(x, lo)) - math.log(lo)) / (math.log(hi) - math.log(lo))
                    )
                else:
                    cols.append((x - lo) / (hi - lo) if hi > lo else np.zeros_like(x))
        return np.clip(np.stack(cols, axis=1), 0.0, 1.0)

    def values_to_config(self, row: Mapping[str, float]) -> HadoopConfig:
        """One row of knob values → a validated HadoopConfig (the recommendation)."""
        changes: dict[str, object] = {}
        current = self.current_values()
        for name, number in row.items():
            k = find_knob(name)
            value = k.decode(float(number))
            if name in current and value == current[name]:
                continue  # unchanged: keep the base's own properties as they are
            changes.update(knob_to_properties(k, value, self.base, self.profile))
        return self.base.with_changes(changes)


#: Codec knobs cut to the codecs a job may use (frozen knobs, made once per choice set).
_OFFERED: dict[tuple[int, tuple[str, ...]], tuple[Knob, Knob]] = {}
#: Containers per cluster of a container shape (clusters are not mutated once built).
_SLOTS: dict[tuple[int, float, int], tuple[ClusterSpec, float]] = {}

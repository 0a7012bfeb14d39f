"""Starfish's XML files → mrtune's profile, Hadoop 1 configuration and cluster.

The files are parsed by :mod:`mrtune.readers.starfish`; this module assembles them (see that
module's docstring for where every statistic, cost factor and timing lands).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import (
    CODEC_PRIORS,
    CodecStats,
    CostFactors,
    DataflowStats,
    JobProfile,
    TaskTiming,
)
from mrtune.costmodel.properties import DEPRECATED_NAMES
from mrtune.errors import InputError
from mrtune.profiling._starfish_classes import map_classes
from mrtune.profiling._starfish_input import (
    fit_block_size,
    input_from_spec,
    profiled_classes,
    two_groups,
)
from mrtune.profiling.combine_fit import fit_beta_from_groups, fit_width_law
from mrtune.profiling.dataflow import Stats
from mrtune.readers._starfish_xml import _number
from mrtune.readers.starfish import (
    _COST_OWNER,
    _STAT_OWNER,
    COST_FIELDS,
    HADOOP1_BLOCK_SIZE,
    MAP_TIMINGS,
    NS_PER_MS,
    REDUCE_TIMINGS,
    STATISTIC_FIELDS,
    InputSpec,
    JobConf,
    StarfishJobProfile,
    read_input_spec,
    read_job_conf,
    read_job_profile,
)
from mrtune.readers.starfish_cluster import (
    STARFISH_HEARTBEAT_MS,
    STARFISH_TASK_DELAY_MS,
    _cluster_spec,
    read_cluster_spec,
)


# ----------------------------------------------------------------------------- assembly
class _Assembler:
    """Turns the parsed files into mrtune's models, recording provenance and warnings."""

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

    # -- statistics (Table 2)
    def _derived_stat(self, key: str) -> tuple[float, str] | None:
        """A statistic from the counters, by its Table 2 definition."""

        def ratio(num: float | None, den: float | None) -> float | None:
            if num is None or den is None or den <= 0:
                return None
            return num / den

        m, r = self._map_counter, lambda k: self._reduce_value("counters", k)
        defs: dict[str, tuple[float | None, str]] = {
            "INPUT_PAIR_WIDTH": (
                ratio(m("MAP_INPUT_BYTES"), m("MAP_INPUT_RECORDS")),
                "MAP_INPUT_BYTES / MAP_INPUT_RECORDS",
            ),
            "MAP_SIZE_SEL": (
                ratio(m("MAP_OUTPUT_BYTES"), m("MAP_INPUT_BYTES")),
                "MAP_OUTPUT_BYTES / MAP_INPUT_BYTES",
            ),
            "MAP_PAIRS_SEL": (
                ratio(m("MAP_OUTPUT_RECORDS"), m("MAP_INPUT_RECORDS")),
                "MAP_OUTPUT_RECORDS / MAP_INPUT_RECORDS",
            ),
            "COMBINE_PAIRS_SEL": (
                ratio(m("COMBINE_OUTPUT_RECORDS"), m("COMBINE_INPUT_RECORDS")),
                "COMBINE_OUTPUT_RECORDS / COMBINE_INPUT_RECORDS (map side)",
            ),
            "REDUCE_PAIRS_SEL": (
                ratio(r("REDUCE_OUTPUT_RECORDS"), r("REDUCE_INPUT_RECORDS")),
                "REDUCE_OUTPUT_RECORDS / REDUCE_INPUT_RECORDS",
            ),
            "REDUCE_SIZE_SEL": (
                ratio(r("REDUCE_OUTPUT_BYTES"), r("REDUCE_INPUT_BYTES")),
                "REDUCE_OUTPUT_BYTES / REDUCE_INPUT_BYTES",
            ),
            "REDUCE_PAIRS_PER_GROUP": (
                ratio(r("REDUCE_INPUT_RECORDS"), r("REDUCE_INPUT_GROUPS")),
                "REDUCE_INPUT_RECORDS / REDUCE_INPUT_GROUPS",
            ),
            "INPUT_COMPRESS_RATIO": (
                ratio(m("HDFS_BYTES_READ"), m("MAP_INPUT_BYTES")),
                "HDFS_BYTES_READ / MAP_INPUT_BYTES",
            ),
        }
        value, how = defs.get(key, (None, ""))
        return None if value is None else (value, how)

    def statistic(self, key: str) -> tuple[float, str] | None:
        """``(value, provenance)`` of a Starfish statistic, or None when neither given nor derivable."""
        owner = _STAT_OWNER.get(key, "map")
        first, second = (
            (self._reduce_value, self._map_value)
            if owner == "reduce"
            else (self._map_value, self._reduce_value)
        )
        for getter, side in ((first, owner), (second, "map" if owner == "reduce" else "reduce")):
            v = getter("statistics", key)
            if v is not None:
                return v, f"measured: Starfish statistic {key} ({self.src}, {side} profile)"
        derived = self._derived_stat(key)
        if derived is not None:
            return derived[
                0
            ], f"measured: derived from Starfish counters {derived[1]} ({self.src})"
        return None

    def stats(self, has_combiner: bool) -> DataflowStats:
        values: dict[str, Any] = {}
        for key, fname in STATISTIC_FIELDS.items():
            got = self.statistic(key)
            if got is None:
                continue
            v, prov = got
            if fname in {"combine_pairs_sel", "combine_size_sel"} and not has_combiner:
                continue
            values[fname] = v
            self.provenance[f"stats.{fname}"] = prov
        if has_combiner:
            per_spill = self._map_counter("MAP_RECS_PER_BUFF_SPILL")
            if per_spill:
                # The combiner's selectivity was measured on one spill buffer (reference §2.3).
                values["combine_profiled_input_records"] = per_spill
                self.provenance["stats.combine_profiled_input_records"] = (
                    f"measured: Starfish counter MAP_RECS_PER_BUFF_SPILL ({self.src})"
                )
            self._distinct_key_stats(values)
        # Starfish's byte counts are MAP_OUTPUT_BYTES-based: no IFile vint lengths per record.
        values["ifile_record_overhead"] = 0.0
        self.provenance["stats.ifile_record_overhead"] = (
            "defaulted: 0, Starfish sizes are MAP_OUTPUT_BYTES-based (no IFile vint lengths)"
        )
        try:
            return DataflowStats(**values)
        except ValidationError as exc:
            err = exc.errors()[0]
            fname = str(err["loc"][0]) if err.get("loc") else "statistics"
            key = next((k for k, f in STATISTIC_FIELDS.items() if f == fname), fname)
            raise InputError(
                err.get("msg", "invalid value"),
                path=str(self.job.path),
                field=f"statistic {key}",
                value=err.get("input"),
            ) from None

    def _distinct_key_stats(self, values: dict[str, Any]) -> None:
        """The combiner's distinct-keys curve through the profile's own distinct-key figures
        (issue 16): one map's output has MAP_MAX_UNIQUE_GROUPS distinct keys, the job's
        REDUCE_INPUT_GROUPS × reducers (mrtune.profiling.combine_fit), and the combined
        width at one spill's merge factor 1 / COMBINE_PAIRS_SEL."""
        st = Stats()
        st.values = values
        m_out = self._map_counter("MAP_OUTPUT_RECORDS")
        points: list[tuple[float, float, str]] = []
        unique = self._map_counter("MAP_MAX_UNIQUE_GROUPS")
        if m_out and unique:
            points.append((m_out, unique, "MAP_MAX_UNIQUE_GROUPS"))
        groups = self._reduce_value("counters", "REDUCE_INPUT_GROUPS")
        if m_out and groups and self.job.num_reducers > 0:
            points.append(
                (
                    m_out * self.job.num_mappers,
                    groups * self.job.num_reducers,
                    f"REDUCE_INPUT_GROUPS × {self.job.num_reducers} reducers",
                )
            )
        fit_beta_from_groups(st, points, "no distinct-key counters: default exponent")
        per_spill = values.get("combine_profiled_input_records")
        sel = values.get("combine_pairs_sel")
        width = self._map_counter("MAP_OUTPUT_BYTES")
        if per_spill and sel and width and m_out:
            fit_width_law(st, width / m_out, per_spill, per_spill * sel)
        for key, how in st.prov.items():
            self.provenance[key] = how.replace("measured: ", f"measured ({self.src}): ", 1)

    # -- cost factors (Table 3)
    def cost(self, key: str) -> tuple[float, str] | None:
        """A cost factor from the profile that measures it (``_COST_OWNER``), else from the
        other one. A factor both profiles carry is split by :meth:`_both_sides` first; here
        it is one only one side gives."""
        owner = _COST_OWNER.get(key, "map")
        mv = self._map_value("cost_factors", key)
        rv = self._reduce_value("cost_factors", key)
        order = (
            [(rv, "reduce"), (mv, "map")] if owner == "reduce" else [(mv, "map"), (rv, "reduce")]
        )
        for value, side in order:
            if value is not None:
                return value, f"measured: Starfish cost factor {key} ({self.src}, {side} profile)"
        return None

    def _both_sides(
        self, key: str, fname: str, reduce_side: dict[str, float]
    ) -> tuple[float, str] | None:
        """The map profile's value of a factor both profiles carry, with the reduce
        profile's filed in ``reduce_side`` when it differs; None when only one side has it
        (``cost`` then takes whichever there is)."""
        if _COST_OWNER.get(key) != "both":
            return None
        mv = self._map_value("cost_factors", key)
        rv = self._reduce_value("cost_factors", key)
        if mv is None or rv is None:
            return None
        if math.isclose(mv, rv, rel_tol=1e-9):
            return (
                mv,
                f"measured: Starfish cost factor {key} ({self.src}, map and reduce profiles)",
            )
        reduce_side[fname] = rv
        if fname in COST_FIELDS.values():
            self.provenance[f"costs.reduce_side.{fname}"] = (
                f"measured: Starfish cost factor {key} ({self.src}, reduce profile)"
            )
        return mv, (
            f"measured: Starfish cost factor {key} ({self.src}): map profile {mv:g}, "
            f"reduce profile {rv:g} (reduce side, kept apart)"
        )

    def _codec_cost(self, key: str) -> tuple[tuple[float, str] | None, float | None]:
        """An intermediate codec cost and, when the reduce profile measured a different
        one, the reduce task's value apart (``CodecStats.reduce_*_ns_per_byte``)."""
        sides: dict[str, float] = {}
        got = self._both_sides(key, "codec", sides)
        return (got if got is not None else self.cost(key)), sides.get("codec")

    def _task_ms(self, timing: str, cost: str) -> tuple[float, float | None, str] | None:
        """Setup or cleanup ms per task: the timing if given, else the cost factor (ns).

        ``(map value, reduce value or None, provenance)``: the map value is the task-weighted
        mean over the map profiles; the reduce profile's own value is returned apart when
        there are map profiles too (the reduce task reads it, ``CostFactors.reduce_side``)."""

        def one(tp: Any) -> float | None:
            if timing in tp.timings:
                return float(tp.timings[timing])
            if cost in tp.cost_factors:
                return float(tp.cost_factors[cost]) / NS_PER_MS
            return None

        maps = [(v, tp.num_tasks) for tp in self.job.maps if (v := one(tp)) is not None]
        red = one(self.job.reduce) if self.job.reduce is not None else None
        how = f"measured: Starfish timing {timing} / cost factor {cost} ({self.src})"
        if not maps:
            return None if red is None else (red, None, how)
        value = sum(v * k for v, k in maps) / sum(k for _, k in maps)
        return value, red, how

    def costs(self) -> CostFactors:
        """Table 3 from the profiles. A factor both the map and the reduce profile carry
        (``_COST_OWNER`` "both") keeps the map profile's value as the factor and the reduce
        profile's as its reduce-side override, when they differ (issue 16: co-occurrence's
        MERGE_CPU_COST is 168.6 ns on the map side and 18,234.7 on the reduce side)."""
        values: dict[str, Any] = {}
        reduce_side: dict[str, float] = {}
        for key, fname in COST_FIELDS.items():
            got = self._both_sides(key, fname, reduce_side)
            if got is None:
                got = self.cost(key)
            if got is not None:
                values[fname], self.provenance[f"costs.{fname}"] = got
        for timing, cost, fname in (
            ("SETUP", "SETUP_CPU_COST", "setup_ms"),
            ("CLEANUP", "CLEANUP_CPU_COST", "cleanup_ms"),
        ):
            task = self._task_ms(timing, cost)
            if task is not None:
                mv, rv, how = task
                values[fname] = mv
                self.provenance[f"costs.{fname}"] = how
                if rv is not None and not math.isclose(mv, rv, rel_tol=1e-9):
                    reduce_side[fname] = rv
                    self.provenance[f"costs.{fname}"] = (
                        f"{how}: map profiles {mv:g} ms, reduce profile {rv:g} ms (reduce side)"
                    )
        values["reduce_side"] = reduce_side
        self.provenance["costs.reduce_side"] = (
            f"measured: the reduce profile's values where they differ from the map profile's "
            f"({', '.join(sorted(reduce_side))})"
            if reduce_side
            else "measured: the map and reduce profiles agree on every factor both carry"
            if self.job.reduce is not None and self.job.maps
            else "defaulted: none, one task kind profiled"
        )
        # Starfish's scheduler charges per-task delays on the cluster (see ClusterSpec), and
        # its profiles time setup and cleanup apart, so no extra fixed time per task.
        values.setdefault("task_overhead_ms", 0.0)
        self.provenance["costs.task_overhead_ms"] = (
            "defaulted: 0, Starfish's per-task delays are on the cluster specification"
        )
        # Starfish's equations have no per-spill, per-segment or per-fetch fixed costs.
        for fixed in ("spill_file_ns", "segment_seek_ns", "fetch_ns"):
            values.setdefault(fixed, 0.0)
            self.provenance[f"costs.{fixed}"] = "defaulted: 0, not in Starfish's cost model"
        values["reduce_includes_final_merge"] = True
        self.provenance["costs.reduce_includes_final_merge"] = (
            "defaulted: Starfish calibrates REDUCE_CPU_COST on the final-merge + reduce loop"
        )
        return CostFactors(**values)

    # -- codecs
    def codecs(self, config: HadoopConfig, has_conf: bool) -> dict[str, CodecStats]:
        """Starfish's single intermediate and output ratios, filed under the configured codecs."""
        out: dict[str, CodecStats] = {}
        interm = self.statistic("INTERM_COMPRESS_RATIO")
        if interm is not None:
            name = config.map_output_codec
            if not (has_conf and config.map_output_compress):
                self.warnings.append(
                    f"{self.job.path}: INTERM_COMPRESS_RATIO={interm[0]:g} is filed under codec "
                    f"{name!r}; the configuration does not compress map output, so it applies "
                    "only if a what-if turns compression on with that codec"
                )
            prior = CODEC_PRIORS[name]
            comp, red_comp = self._codec_cost("INTERM_COMPRESS_CPU_COST")
            unc, red_unc = self._codec_cost("INTERM_UNCOMPRESS_CPU_COST")
            apart = [
                f"reduce-side {what} {v:g} ns/B"
                for what, v in (("compress", red_comp), ("uncompress", red_unc))
                if v is not None
            ]
            out[name] = CodecStats(
                ratio=interm[0],
                compress_ns_per_byte=comp[0] if comp else prior.compress_ns_per_byte,
                uncompress_ns_per_byte=unc[0] if unc else prior.uncompress_ns_per_byte,
                reduce_compress_ns_per_byte=red_comp,
                reduce_uncompress_ns_per_byte=red_unc,
                source=(
                    f"{interm[1]}; compress {'measured' if comp else 'prior'}, "
                    f"uncompress {'measured' if unc else 'prior'}"
                    + (f" ({', '.join(apart)}, reduce profile)" if apart else "")
                ),
            )
            self.provenance[f"codecs.{name}"] = out[name].source
        outr = self.statistic("OUT_COMPRESS_RATIO")
        if outr is not None:
            name = config.output_codec
            comp = self.cost("OUTPUT_COMPRESS_CPU_COST")
            if name in out:
                if not math.isclose(out[name].ratio, outr[0], rel_tol=1e-6):
                    self.warnings.append(
                        f"{self.job.path}: map output and job output both use codec {name!r} "
                        f"with different Starfish ratios (INTERM_COMPRESS_RATIO="
                        f"{out[name].ratio:g}, OUT_COMPRESS_RATIO={outr[0]:g}); mrtune keeps one "
                        "ratio per codec and uses the intermediate one"
                    )
            else:
                prior = CODEC_PRIORS[name]
                out[name] = CodecStats(
                    ratio=outr[0],
                    compress_ns_per_byte=comp[0] if comp else prior.compress_ns_per_byte,
                    uncompress_ns_per_byte=prior.uncompress_ns_per_byte,
                    source=f"{outr[1]}; compress {'measured' if comp else 'prior'}",
                )
                self.provenance[f"codecs.{name}"] = out[name].source
        return out

    # -- observations
    def observed(self) -> tuple[list[TaskTiming], dict[str, float]]:
        tasks: list[TaskTiming] = []
        totals: dict[str, float] = {}
        for tp in [*self.job.maps, *([self.job.reduce] if self.job.reduce else [])]:
            names = MAP_TIMINGS if tp.kind == "map" else REDUCE_TIMINGS
            phases = {names.get(k, k.lower()): v for k, v in tp.timings.items()}
            # ``total`` as in profiler.history's attempts: the task's whole time.
            phases["total"] = float(sum(tp.timings.values()))
            counters: dict[str, float] = dict(tp.counters)
            counters.update({f"statistic:{k}": v for k, v in tp.statistics.items()})
            counters.update({f"cost_factor:{k}": v for k, v in tp.cost_factors.items()})
            counters["num_tasks"] = float(tp.num_tasks)
            counters["input_index"] = float(tp.input_index)
            tasks.append(
                TaskTiming(
                    attempt_id=tp.id,
                    kind=tp.kind,  # type: ignore[arg-type]
                    start_ms=0,
                    finish_ms=round(sum(tp.timings.values())),
                    phases_ms=phases,
                    counters=counters,
                )
            )
            for k, v in tp.counters.items():
                totals[k] = totals.get(k, 0.0) + v * tp.num_tasks
        return tasks, totals


def _validation_input_error(
    exc: ValidationError, path: str, what: str, used: Iterable[str] = ()
) -> InputError:
    """One InputError from a pydantic error: the property as the file spells it, and the value."""
    err = exc.errors()[0]
    loc = err.get("loc", ())
    msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    if not loc:  # a cross-field check: the message names the properties itself
        return InputError(msg, path=path, field=what)
    name = str(loc[0])
    alias = HadoopConfig.model_fields[name].alias if name in HadoopConfig.model_fields else None
    field_name = ".".join(str(p) for p in loc) if alias is None else alias
    if alias is not None:
        old = [k for k in used if k != alias and DEPRECATED_NAMES.get(k) == alias]
        if old:
            field_name = f"{old[0]} ({alias})"
    return InputError(msg, path=path, field=field_name, value=err.get("input"))


def _has_combiner(job: StarfishJobProfile) -> bool:
    """Whether the profiled job ran a combiner.

    The COMBINE_INPUT_RECORDS counter decides when a profile has it; otherwise a
    COMBINE_PAIRS_SEL statistic below 1 (Starfish writes the default 1 for jobs without one).
    """
    profiles = [*job.maps, *([job.reduce] if job.reduce else [])]
    counted = [
        tp.counters["COMBINE_INPUT_RECORDS"]
        for tp in profiles
        if "COMBINE_INPUT_RECORDS" in tp.counters
    ]
    if counted:
        return any(v > 0 for v in counted)
    return any(tp.statistics.get("COMBINE_PAIRS_SEL", 1.0) < 1.0 for tp in profiles)


_COMBINE_NAMES = (
    "mapreduce.job.combine.class",
    "mapreduce.combine.class",
    "mapred.combiner.class",
)


def _job_combiner(job: StarfishJobProfile, conf: JobConf | None) -> str:
    """The profiled job's combiner class, also when the configuration turns it off
    (``starfish.use.combiner=false``), so a what-if can turn it back on."""
    props = conf.properties if conf else {}
    named = [props[k].strip() for k in _COMBINE_NAMES if (props.get(k) or "").strip()]
    return named[0] if named else f"(combiner of Starfish profile {job.id})"


def _config(
    job: StarfishJobProfile,
    conf: JobConf | None,
    inputs: InputSpec | None,
    has_combiner: bool,
) -> HadoopConfig:
    props: dict[str, Any] = dict(conf.properties) if conf else {}
    source = str(conf.path) if conf else str(job.path)
    names = set(props)
    if not names & {"mapred.reduce.tasks", "mapreduce.job.reduces"}:
        props["mapred.reduce.tasks"] = str(job.num_reducers)
    if has_combiner and not names & set(_COMBINE_NAMES):
        props["mapred.combiner.class"] = _job_combiner(job, None)
    if not names & {"dfs.block.size", "dfs.blocksize"}:
        # The input spec's splits were cut by the cluster's block size, so it is at least the
        # largest split (Hadoop 1 default 64 MB); the model then keeps one map per split. Two
        # split sizes are modelled as files of full splits plus one tail (``two_groups``),
        # which needs the split size to be the larger split exactly.
        if inputs is not None:
            largest = max(s.size for s in inputs.splits)
        else:  # one map per profiled task: its average HDFS_BYTES_READ is its split
            largest = max(m.counters.get("HDFS_BYTES_READ", 0.0) for m in job.maps)
        block = max(HADOOP1_BLOCK_SIZE, math.ceil(largest))
        if inputs is not None and two_groups(inputs) is not None:
            block = math.ceil(largest)
        props["dfs.block.size"] = str(int(block))
    try:
        return HadoopConfig.from_properties(props, hadoop_version=1, source=source)
    except ValidationError as exc:
        raise _validation_input_error(exc, source, "configuration", props) from None
    except ValueError as exc:
        raise InputError(str(exc), path=source) from None


def load_starfish(
    profile_xml: str | Path,
    input_xml: str | Path | None = None,
    cluster_xml: str | Path | None = None,
    conf_xml: str | Path | None = None,
) -> tuple[JobProfile, HadoopConfig, ClusterSpec]:
    """Read Starfish's XML files into a profile, a Hadoop 1 configuration and a cluster.

    ``profile_xml`` is the job profile. ``input_xml`` (input specification) replaces the
    profiled input: one map per split, every input and split size kept apart
    (:mod:`mrtune.profiling._starfish_input`; three or more sizes, or several inputs' map
    profiles, become ``profile.map_classes``, :mod:`mrtune.profiling._starfish_classes`).
    ``cluster_xml`` gives the slots; without it the cluster is one TaskTracker with the
    configuration's
    ``mapred.tasktracker.{map,reduce}.tasks.maximum`` (Hadoop 1 defaults 2 and 2). ``conf_xml``
    is the configuration to predict for, in Hadoop 0.20 (or newer) names; the result always has
    ``hadoop_version=1``. Warnings (unknown keys, values mrtune had to average) are in
    ``profile.warnings``.
    """
    job = read_job_profile(profile_xml)
    inputs = read_input_spec(input_xml) if input_xml is not None else None
    cluster_file = read_cluster_spec(cluster_xml) if cluster_xml is not None else None
    conf = read_job_conf(conf_xml) if conf_xml is not None else None

    asm = _Assembler(job)
    cluster = _cluster_spec(cluster_file) if cluster_file is not None else None
    for extra in (inputs, cluster_file):
        if extra is not None:
            asm.warnings.extend(extra.warnings)
    has_combiner = _has_combiner(job)
    config = _config(job, conf, inputs, has_combiner)
    if inputs is not None:
        config = fit_block_size(asm, config, inputs)

    # ---- input
    if inputs is not None:
        input_bytes, files, input_compressed, classes = input_from_spec(asm, inputs, job, config)
        input_source = f"measured: input specification {inputs.path.name}"
    else:
        per_map = [m.counters.get("HDFS_BYTES_READ") for m in job.maps]
        if any(v is None or v <= 0 for v in per_map):
            raise InputError(
                "cannot tell the input size: a <map_profile> has no HDFS_BYTES_READ counter "
                "and no input specification was given",
                path=str(job.path),
                field="map_profile/counters",
            )
        input_bytes = sum(float(v) * m.num_tasks for v, m in zip(per_map, job.maps, strict=True))  # type: ignore[arg-type]
        files = sum(m.num_tasks for m in job.maps)
        ratio = asm.statistic("INPUT_COMPRESS_RATIO")
        input_compressed = ratio is not None and ratio[0] < 0.999
        input_source = f"measured: HDFS_BYTES_READ x num_tasks of {job.path.name}"
        classes = profiled_classes(job)
    # several inputs' map profiles, or split sizes the two-group layout cannot hold: each
    # class of map tasks at its own size and profile (Starfish prices them apart)
    asm.apart = bool(classes) and len(job.maps) > 1
    asm.provenance["input_bytes"] = input_source

    if config.combine_class and not has_combiner:
        asm.warnings.append(
            f"the configuration sets a combiner ({config.combine_class}) but the profile has no "
            "combine counters or statistics; the model runs the job without one"
        )

    # ---- cluster
    if cluster is not None and cluster_file is not None:
        if cluster_file.facts["reduce_slots"] == 0 and config.num_reducers > 0:
            raise InputError(
                f"the cluster has no reduce slots but the job runs {config.num_reducers} reducers",
                path=str(cluster_file.path),
                field="cluster",
            )
        cluster_facts: dict[str, float | str] = dict(cluster_file.facts)
    else:
        other = config.other_properties
        slots = []
        for kind in ("map", "reduce"):
            old_name = f"mapred.tasktracker.{kind}.tasks.maximum"
            new_name = f"mapreduce.tasktracker.{kind}.tasks.maximum"
            raw = other.get(old_name, other.get(new_name, "2"))
            where = old_name if old_name in other else new_name
            slots.append(
                int(
                    _number(
                        raw, Path(conf.path if conf else job.path), where, integer=True, minimum=1
                    )
                )
            )
        maps_per, reds_per = slots
        cluster = ClusterSpec(
            num_nodes=1,
            map_slots_per_node=maps_per,
            reduce_slots_per_node=reds_per,
            heartbeat_ms=STARFISH_HEARTBEAT_MS,
            task_startup_ms=STARFISH_TASK_DELAY_MS,
        )
        asm.warnings.append(
            "no cluster specification: assuming one TaskTracker with "
            f"{maps_per} map and {reds_per} reduce slots"
        )
        cluster_facts = {}

    # Starfish's What-if Engine times a map's phases serially (reference §2.3), and its
    # profiles' spill times were measured in those terms: no SpillThread overlap (issue 20)
    cluster = cluster.model_copy(update={"spill_overlap": False})
    stats = asm.stats(has_combiner)
    costs = asm.costs()
    classes_out, class_prov = map_classes(job, classes, costs, has_combiner, _Assembler)
    asm.provenance.update(class_prov)
    codecs = asm.codecs(config, conf is not None)
    observed, totals = asm.observed()
    # The configuration to predict for travels with the profile (``profile.json``): every model
    # property in Hadoop 2/3 names plus the file's other properties, and the facts that
    # ``mrtune.profiling.build.profile_config`` rebuilds it from (Hadoop 1 semantics, reducers).
    source_props = {**config.to_properties(), **config.other_properties}
    if job.inputs:
        source_props.setdefault("mapred.input.dir", ",".join(job.inputs))
    cluster_facts.update(asm.facts)
    cluster_facts.update(
        {
            "source_format": "starfish",
            "source": str(job.path),
            "conf_source": str(conf.path) if conf else "none",
            "hadoop_version": 1.0,
            "num_maps": float(inputs.num_splits if inputs is not None else files),
            "num_reduces": float(config.num_reducers),
            "profiled_num_maps": float(job.num_mappers),
            "profiled_num_reduces": float(job.num_reducers),
            "input_bytes": float(input_bytes),
            "input_files": float(files),
        }
    )
    try:
        profile = JobProfile(
            job_id=job.id,
            job_name=job.name,
            input_bytes=input_bytes,
            input_files=files,
            input_compressed=input_compressed,
            input_splittable=not input_compressed,
            has_combiner=has_combiner,
            combine_class=_job_combiner(job, conf) if has_combiner else None,
            map_only=job.num_reducers == 0,
            stats=stats,
            costs=costs,
            codecs=codecs,
            provenance=asm.provenance,
            source_properties=source_props,
            cluster_facts=cluster_facts,
            observed=observed,
            observed_counters=totals,
            warnings=list(dict.fromkeys(asm.warnings)),
            map_classes=classes_out,
        )
    except ValidationError as exc:
        raise _validation_input_error(exc, str(job.path), "profile") from None
    return profile, config, cluster


__all__ = ["load_starfish"]

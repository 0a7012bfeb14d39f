"""Starfish's XML files → mrtune's profile, Hadoop 1 configuration and cluster.

The files are parsed by :mod:`mrtune.readers.starfish`; this module assembles them (see that
module's docstring for where every statistic, cost factor and timing lands). The assembly is
split by what it maps: statistics (reference Table 2, :mod:`mrtune.profiling._starfish_stats`),
cost factors (Table 3, :mod:`mrtune.profiling._starfish_costs`), codecs and observations
(:mod:`mrtune.profiling._starfish_assembler`), the input layout
(:mod:`mrtune.profiling._starfish_input`) and the map classes
(:mod:`mrtune.profiling._starfish_classes`). This module holds the configuration and the
steps of :func:`load_starfish`, in the order the What-if Engine reads its four files.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from mrtune.costmodel.cluster import ClusterSpec
from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.properties import DEPRECATED_NAMES
from mrtune.errors import InputError
from mrtune.profiling._starfish_assembler import Assembler
from mrtune.profiling._starfish_classes import map_classes
from mrtune.profiling._starfish_input import (
    SplitClass,
    fit_block_size,
    input_from_spec,
    profiled_classes,
    two_groups,
)
from mrtune.readers._starfish_keys import HADOOP1_BLOCK_SIZE
from mrtune.readers._starfish_xml import _number
from mrtune.readers.starfish import (
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
    ClusterFile,
    _cluster_spec,
    read_cluster_spec,
)


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


class _Input(NamedTuple):
    """The input the model sees: bytes, files (= maps), compression and map classes."""

    input_bytes: float
    files: int
    compressed: bool
    classes: list[SplitClass]
    source: str


def _profiled_input(
    asm: Assembler, job: StarfishJobProfile, inputs: InputSpec | None, config: HadoopConfig
) -> _Input:
    """The input specification's splits, else the profiled maps' HDFS_BYTES_READ × tasks."""
    if inputs is not None:
        input_bytes, files, input_compressed, classes = input_from_spec(asm, inputs, job, config)
        return _Input(
            input_bytes,
            files,
            input_compressed,
            classes,
            f"measured: input specification {inputs.path.name}",
        )
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
    return _Input(
        input_bytes,
        files,
        input_compressed,
        profiled_classes(job),
        f"measured: HDFS_BYTES_READ x num_tasks of {job.path.name}",
    )


def _default_cluster(
    job: StarfishJobProfile, conf: JobConf | None, config: HadoopConfig
) -> ClusterSpec:
    """No cluster specification: one TaskTracker with the configuration's slots
    (``mapred.tasktracker.{map,reduce}.tasks.maximum``, Hadoop 1 defaults 2 and 2)."""
    other = config.other_properties
    slots = []
    for kind in ("map", "reduce"):
        old_name = f"mapred.tasktracker.{kind}.tasks.maximum"
        new_name = f"mapreduce.tasktracker.{kind}.tasks.maximum"
        raw = other.get(old_name, other.get(new_name, "2"))
        where = old_name if old_name in other else new_name
        slots.append(
            int(
                _number(raw, Path(conf.path if conf else job.path), where, integer=True, minimum=1)
            )
        )
    maps_per, reds_per = slots
    return ClusterSpec(
        num_nodes=1,
        map_slots_per_node=maps_per,
        reduce_slots_per_node=reds_per,
        heartbeat_ms=STARFISH_HEARTBEAT_MS,
        task_startup_ms=STARFISH_TASK_DELAY_MS,
    )


def _slot_cluster(
    asm: Assembler,
    job: StarfishJobProfile,
    conf: JobConf | None,
    config: HadoopConfig,
    cluster_file: ClusterFile | None,
    cluster: ClusterSpec | None,
) -> tuple[ClusterSpec, dict[str, float | str]]:
    """The cluster to predict on (``cluster``, read from ``cluster_file``, else the default
    one) and the cluster file's facts (racks, hosts, slots)."""
    if cluster is not None and cluster_file is not None:
        if cluster_file.facts["reduce_slots"] == 0 and config.num_reducers > 0:
            raise InputError(
                f"the cluster has no reduce slots but the job runs {config.num_reducers} reducers",
                path=str(cluster_file.path),
                field="cluster",
            )
        facts: dict[str, float | str] = dict(cluster_file.facts)
    else:
        cluster = _default_cluster(job, conf, config)
        asm.warnings.append(
            "no cluster specification: assuming one TaskTracker with "
            f"{cluster.map_slots_per_node} map and {cluster.reduce_slots_per_node} reduce slots"
        )
        facts = {}
    # Starfish's What-if Engine times a map's phases serially (reference §2.3), and its
    # profiles' spill times were measured in those terms: no SpillThread overlap (issue 20)
    return cluster.model_copy(update={"spill_overlap": False}), facts


def _travelling_config(job: StarfishJobProfile, config: HadoopConfig) -> dict[str, str]:
    """The configuration to predict for travels with the profile (``profile.json``): every
    model property in Hadoop 2/3 names plus the file's other properties."""
    source_props = {**config.to_properties(), **config.other_properties}
    if job.inputs:
        source_props.setdefault("mapred.input.dir", ",".join(job.inputs))
    return source_props


def _profile_facts(
    job: StarfishJobProfile,
    conf: JobConf | None,
    inputs: InputSpec | None,
    config: HadoopConfig,
    layout: _Input,
) -> dict[str, float | str]:
    """The facts that ``mrtune.profiling.build.profile_config`` rebuilds the configuration
    from (Hadoop 1 semantics, reducers), and the job's profiled and modelled sizes."""
    return {
        "source_format": "starfish",
        "source": str(job.path),
        "conf_source": str(conf.path) if conf else "none",
        "hadoop_version": 1.0,
        "num_maps": float(inputs.num_splits if inputs is not None else layout.files),
        "num_reduces": float(config.num_reducers),
        "profiled_num_maps": float(job.num_mappers),
        "profiled_num_reduces": float(job.num_reducers),
        "input_bytes": float(layout.input_bytes),
        "input_files": float(layout.files),
    }


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

    asm = Assembler(job)
    # before the files' warnings are taken: the slot check warns into the cluster file's
    cluster = _cluster_spec(cluster_file) if cluster_file is not None else None
    for extra in (inputs, cluster_file):
        if extra is not None:
            asm.warnings.extend(extra.warnings)
    has_combiner = _has_combiner(job)
    config = _config(job, conf, inputs, has_combiner)
    if inputs is not None:
        config = fit_block_size(asm, config, inputs)
    layout = _profiled_input(asm, job, inputs, config)
    # several inputs' map profiles, or split sizes the two-group layout cannot hold: each
    # class of map tasks at its own size and profile (Starfish prices them apart)
    asm.apart = bool(layout.classes) and len(job.maps) > 1
    asm.provenance["input_bytes"] = layout.source
    if config.combine_class and not has_combiner:
        asm.warnings.append(
            f"the configuration sets a combiner ({config.combine_class}) but the profile has no "
            "combine counters or statistics; the model runs the job without one"
        )
    cluster, cluster_facts = _slot_cluster(asm, job, conf, config, cluster_file, cluster)
    stats = asm.stats(has_combiner)
    costs = asm.costs()
    classes_out, class_prov = map_classes(job, layout.classes, costs, has_combiner, Assembler)
    asm.provenance.update(class_prov)
    codecs = asm.codecs(config, conf is not None)
    observed, totals = asm.observed()
    cluster_facts.update(asm.facts)
    cluster_facts.update(_profile_facts(job, conf, inputs, config, layout))
    try:
        profile = JobProfile(
            job_id=job.id,
            job_name=job.name,
            input_bytes=layout.input_bytes,
            input_files=layout.files,
            input_compressed=layout.compressed,
            input_splittable=not layout.compressed,
            has_combiner=has_combiner,
            combine_class=_job_combiner(job, conf) if has_combiner else None,
            map_only=job.num_reducers == 0,
            stats=stats,
            costs=costs,
            codecs=codecs,
            provenance=asm.provenance,
            source_properties=_travelling_config(job, config),
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

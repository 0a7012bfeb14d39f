"""Shared CLI plumbing: load a job (profile JSON or any history the profiler reads), derive its
baseline configuration, and build the cluster the question is asked about."""

from __future__ import annotations

from pathlib import Path

import typer
from pydantic import ValidationError

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.errors import InputError

ProfileArg = typer.Argument(
    ...,
    help="A profile JSON written by `mrtune profile`, or a job history (.jhist, Rumen, REST "
    "JSON, Starfish XML) that is profiled on the fly.",
)
NodesOpt = typer.Option(None, "--nodes", min=1, help="Number of worker nodes of the cluster.")
ClusterOpt = typer.Option(
    None,
    "--cluster",
    help="A yarn-site.xml (node memory/vcores, min allocation) or a ClusterSpec JSON "
    "(num_nodes, node_memory_mb, …); default: the cluster inferred from the history.",
)
LocalOpt = typer.Option(False, "--local", help="Model Hadoop's local mode (LocalJobRunner).")
ConfOpt = typer.Option(None, "--conf", help="The job's *_conf.xml (for a history file).")

#: Cluster used when neither the profile nor the user says what it is.
DEFAULT_NODES = 10


def load_job(path: Path, conf: Path | None = None) -> tuple[JobProfile, HadoopConfig]:
    """The job's profile and the configuration it ran with."""
    from mrtune.profiling import profile_config

    if not path.exists():
        raise InputError("no such file", path=str(path))
    profile: JobProfile | None = None
    if path.suffix.lower() == ".json" and path.is_file():
        from mrtune.readers import safe_io

        try:
            data = safe_io.json_loads(safe_io.read_text(path), str(path))
        except InputError:
            # not one JSON value (e.g. Rumen's concatenated objects): a history, whose reader
            # says what is wrong if it is neither
            data = None
        if isinstance(data, dict) and "input_bytes" in data and "stats" in data:
            try:
                profile = JobProfile.model_validate(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                loc = ".".join(str(p) for p in first["loc"])
                value = first.get("input")
                raise InputError(
                    str(first["msg"]).removeprefix("Value error, "),
                    path=str(path),
                    field=loc or None,
                    value=None if isinstance(value, dict | list) else value,
                ) from None
    if profile is None:
        # a history (or a run record) is profiled on the fly; only then are the fitting
        # libraries imported
        from mrtune.calibration import load_profile_source
        from mrtune.readers import sniff_format

        if path.is_file() and sniff_format(path) == "run":
            profile = load_run_profile(path, None, None)
        else:
            profile = load_profile_source(path, conf)
    else:
        from mrtune.readers import safe_io

        safe_io.check_profile_numbers(profile, str(path))
    return profile, profile_config(profile)


def build_cluster(
    profile: JobProfile, nodes: int | None, cluster_file: Path | None, local: bool
) -> tuple[ClusterSpec, str]:
    """The cluster and ONE line saying where it came from.

    In order: ``--local``; ``--cluster`` (a ClusterSpec JSON, or a ``yarn-site.xml`` whose node
    capacity and allocations replace the profile's); a Starfish cluster the profile carries; a
    local run's profile; the cluster inferred from the history (``profile.cluster``); the
    default. ``--nodes`` replaces the node count of any of them.
    """
    if local:
        return ClusterSpec.local(), "local mode (1 map and 1 reduce at a time)"
    if cluster_file is not None:
        return _cluster_from_file(profile, cluster_file, nodes)
    facts = profile.cluster_facts
    spec_facts = {
        k.removeprefix("cluster_spec."): v
        for k, v in facts.items()
        if k.startswith("cluster_spec.")
    }
    if spec_facts:
        fields = ClusterSpec.model_fields
        try:
            kwargs = {
                k: (int(v) if fields[k].annotation is int else v)
                for k, v in spec_facts.items()
                if k in fields
            }
            spec = ClusterSpec.model_validate(kwargs)
        except (TypeError, ValueError, OverflowError) as exc:
            msg = f"the profile's cluster facts do not describe a cluster: {exc}"
            raise InputError(" ".join(msg.split())[:300], field="cluster_facts") from None
        if nodes is not None:
            spec = spec.model_copy(update={"num_nodes": nodes})
        return spec, f"{spec.num_nodes} nodes as the profile describes them"
    if _local_run(profile):
        if nodes is not None:
            return ClusterSpec(num_nodes=nodes), (
                f"{nodes} nodes of default capacity (--nodes; the profile ran in local mode, "
                "so no node was observed: --cluster yarn-site.xml describes yours)"
            )
        return _local_of(profile), "local mode (from the profile)"
    if profile.cluster is not None:
        spec = ClusterSpec(**profile.cluster.spec_fields())
        if nodes is not None:
            spec = spec.model_copy(update={"num_nodes": nodes})
        where = "--nodes" if nodes else _inferred_nodes(profile)
        return spec, f"{_size(spec, profile)} ({where}; {_capacity_origin(profile)})"
    try:
        n = nodes or int(float(facts.get("num_nodes", DEFAULT_NODES)))
        spec = ClusterSpec(num_nodes=n)
    except (TypeError, ValueError, OverflowError):
        raise InputError(
            "not a number of nodes",
            field="cluster_facts.num_nodes",
            value=facts.get("num_nodes"),
            allowed="1..100000 (or give --nodes)",
        ) from None
    where = "--nodes" if nodes else ("the profile" if "num_nodes" in facts else "default")
    return spec, f"{_size(spec, profile)} ({where}; --nodes/--cluster to change)"


def _local_run(profile: JobProfile) -> bool:
    """Whether the profile is of a local-mode run (``profile --from run`` marks it)."""
    return profile.cluster_facts.get("local_mode") in (1, 1.0, "true", True)


def _local_of(profile: JobProfile) -> ClusterSpec:
    """LocalJobRunner as the profiled run had it: ``mapreduce.local.{map,reduce}.tasks.maximum``
    of its configuration (default 1 each), as ``calibration.run_record.local_cluster`` reads a
    run record."""
    props = profile.source_properties

    def most(key: str) -> int:
        try:
            return max(int(str(props.get(key, "1")).strip()), 1)
        except ValueError:
            return 1

    return ClusterSpec.local(
        maps=most("mapreduce.local.map.tasks.maximum"),
        reduces=most("mapreduce.local.reduce.tasks.maximum"),
    )


def _hadoop1(profile: JobProfile) -> bool:
    return str(profile.cluster_facts.get("hadoop_version", "")).startswith("1")


def _size(spec: ClusterSpec, profile: JobProfile) -> str:
    """``10 nodes × 8192 MB × 8 vcores`` (YARN) or ``… × 2+2 map/reduce slots`` (Hadoop 1)."""
    n = f"{spec.num_nodes} node{'s' if spec.num_nodes != 1 else ''}"
    if _hadoop1(profile):
        return f"{n} × {spec.map_slots_per_node}+{spec.reduce_slots_per_node} map/reduce slots"
    return f"{n} × {spec.node_memory_mb} MB × {spec.node_vcores} vcores"


def _inferred_nodes(profile: JobProfile) -> str:
    """Why the inferred cluster has its node count, in a few words."""
    c = profile.cluster
    if c is None:
        return "default"
    hosts, n = int(c.hosts.value), int(c.num_nodes.value)
    if hosts and n < hosts:  # tasks waited: the peak is the job's share of the cluster
        return f"history: {hosts} hosts, at most {c.peak_maps.value:g} maps at once"
    text = f"history: {hosts} host{'s' if hosts != 1 else ''}" if hosts else "history: no host"
    return text + (", no task waited" if c.lower_bound else "")


def _capacity_origin(profile: JobProfile) -> str:
    """Where a node's size came from (the job's conf, the busiest host, or the default)."""
    c = profile.cluster
    if c is None:
        return "node size: default"
    fact = c.map_slots_per_node if _hadoop1(profile) else c.node_memory_mb
    label = "slots" if _hadoop1(profile) else "node size"
    origin = {"observed": "job conf", "inferred": "busiest host", "defaulted": "default"}
    return f"{label}: {origin[fact.provenance]}"


def _cluster_from_file(
    profile: JobProfile, cluster_file: Path, nodes: int | None
) -> tuple[ClusterSpec, str]:
    """``--cluster``: a ClusterSpec JSON, or a yarn-site.xml on top of the profile's cluster."""
    from mrtune.readers import safe_io

    text = safe_io.read_text(cluster_file)  # bounded, UTF-8 or one clear line
    if text.lstrip("\ufeff \t\r\n").startswith("<"):
        return _cluster_from_yarn_site(profile, cluster_file, nodes)
    data = safe_io.json_loads(text, str(cluster_file))
    try:
        spec = ClusterSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(
            first["msg"],
            path=str(cluster_file),
            field=".".join(map(str, first["loc"])),
            value=first.get("input"),
        ) from None
    if nodes is not None:
        spec = spec.model_copy(update={"num_nodes": nodes})
    return spec, f"{_size(spec, profile)} from {cluster_file}"


def _cluster_from_yarn_site(
    profile: JobProfile, path: Path, nodes: int | None
) -> tuple[ClusterSpec, str]:
    """Node capacity and allocations from ``path``; nodes from --nodes or the history."""
    from mrtune.readers.yarn_site import load_yarn_site

    site = load_yarn_site(path)
    base = (
        ClusterSpec(**profile.cluster.spec_fields())
        if profile.cluster is not None
        else ClusterSpec(num_nodes=DEFAULT_NODES)
    )
    update: dict[str, int] = {
        k: v for k, v in site.values.items() if k in ClusterSpec.model_fields
    }
    if nodes is not None:
        update["num_nodes"] = nodes
    try:
        spec = ClusterSpec.model_validate({**base.model_dump(), **update})
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else ""
        raise InputError(
            first["msg"], path=str(path), field=site.keys.get(name, name), value=first.get("input")
        ) from None
    if nodes is not None:
        where = "--nodes"
    elif profile.cluster is not None:
        where = _inferred_nodes(profile)
    else:
        where = "default node count"
    return spec, f"{_size(spec, profile)} ({where}; node size: {path.name})"


InputSizeOpt = typer.Option(
    None, "--input-size", help="Ask about a different total input size, e.g. 2TB or 500GiB."
)


def with_input_size(profile: JobProfile, text: str | None) -> JobProfile:
    """The profile scaled to a new total input size (statistics and costs unchanged)."""
    if text is None:
        return profile
    from mrtune.optimizer.units import parse_size

    try:
        size = parse_size(text)
    except ValueError as exc:
        raise InputError(str(exc), field="--input-size") from None
    scaled = profile.with_input_bytes(size)
    from mrtune.readers.safe_io import check_volumes

    check_volumes(scaled, field="--input-size")
    return scaled


def chosen_job_note(profile: JobProfile, path: Path) -> str | None:
    """The line saying which job of a multi-job history was taken (the first successful one)
    and how to ask about another (``whatif``/``optimize`` have no ``--job``); printed after
    the command's answer, so that an error still comes alone."""
    for w in profile.warnings:
        if " jobs; profiled " in w:
            return (
                f"{w.replace(' (choose one with --job)', '')}: to ask about another, "
                f"`mrtune profile {path} --job ID -o job.json` and use that file"
            )
    return None


def load_run_records(path: Path, *, need_success: bool = False) -> list:  # list[RunRecord]
    """The run records (``mrtune hadoop-run`` / ``hadoop-matrix``) in ``path``: a JSONL file, a
    JSON record or a JSON list. A file that is not one gives one line naming it; with
    ``need_success``, so does a file without a successful run."""
    from mrtune.cli._input_kinds import not_run_records
    from mrtune.readers import holds_run_records
    from mrtune.readers.run_records import read_jsonl

    try:
        records = read_jsonl(path)
    except InputError as exc:
        if holds_run_records(path):  # a run record's bad field: its own line (file, field)
            raise
        raise InputError(not_run_records(path, exc), path=str(path)) from None
    except (ValidationError, ValueError) as exc:
        raise InputError(not_run_records(path, exc), path=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    if need_success and not any(r.success for r in records):
        why = "no successful run in the file" if records else "empty file: no run records"
        raise InputError(why, path=str(path))
    return records


def load_run_profile(path: Path, job: str | None, machine: Path | None):  # -> JobProfile
    """A local run record (``mrtune hadoop-run``) → profile; ``job`` picks a record by run id
    or label (default: the first successful one), ``machine`` is a machine cost file."""
    from mrtune.calibration.machine_costs import MachineCosts
    from mrtune.calibration.run_profile import profile_from_run
    from mrtune.profiling.codecs import is_probe_run

    ok = [r for r in load_run_records(path) if r.success]
    # codec probe runs (counters only) give the codecs' ratios, never the profiled run
    probes = [r for r in ok if is_probe_run(r.settings)]
    records = [r for r in ok if not is_probe_run(r.settings)]
    if job is not None:
        records = [r for r in records if job in (r.run_id, r.label)]
    if not records:
        raise InputError(
            "no successful run record" + (f" with run id or label {job}" if job else ""),
            path=str(path),
            field="--job" if job else None,
        )
    costs = MachineCosts.load(machine) if machine is not None else None
    profile = profile_from_run(records[0], machine=costs, codec_runs=probes)
    facts = {**profile.cluster_facts, "local_mode": 1.0}
    warnings = list(profile.warnings)
    if job is None and len(jobs := sorted({r.job for r in records})) > 1:
        # a chain's runs (grep#1, grep#2) or several jobs' runs in one runs.jsonl
        warnings.append(
            f"{path.name} holds {len(jobs)} jobs; profiled {records[0].label} "
            "(choose one with --job)"
        )
    return profile.model_copy(update={"cluster_facts": facts, "warnings": warnings})


def on_hdfs(profile: JobProfile, base: HadoopConfig, spec: ClusterSpec) -> HadoopConfig:
    """``base`` with the cluster's HDFS block size when a local run's profile is asked about a
    YARN cluster: the local run's splits followed the local file system's 32 MiB
    ``fs.local.block.size``, but on HDFS its input is in the cluster's blocks (20 GB was cut
    into 640 maps instead of 160, and a split-size change was offered against maps the job
    would not have). An old-API job (Hadoop Streaming) also gets mapred-default's
    ``mapreduce.job.maps`` (:data:`CLUSTER_MAPS_HINT`): ``LocalClientProtocolProvider`` sets
    it to 1 in local mode whatever the job asked, and the old API's splits follow it."""
    if not _local_run(profile) or spec.local_mode:
        return base
    update: dict[str, int] = {"dfs_blocksize": int(spec.block_size_mb * 2**20)}
    if profile.old_api_splits:
        from mrtune.profiling.old_api_hint import CLUSTER_MAPS_HINT

        update["num_maps_hint"] = CLUSTER_MAPS_HINT
    return base.model_copy(update=update)


def note_job_chosen(profile: JobProfile, path: Path) -> None:
    """:func:`chosen_job_note` as a note line on stderr, when there is one."""
    from mrtune.cli.console import err_console

    line = chosen_job_note(profile, path)
    if line is not None:
        err_console.print(f"note: {line}", highlight=False)

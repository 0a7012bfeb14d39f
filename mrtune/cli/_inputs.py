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
    None, "--cluster", help="ClusterSpec JSON (nodes, node_memory_mb, node_vcores, …)."
)
LocalOpt = typer.Option(False, "--local", help="Model Hadoop's local mode (LocalJobRunner).")
ConfOpt = typer.Option(None, "--conf", help="The job's *_conf.xml (for a history file).")

#: Cluster used when neither the profile nor the user says what it is.
DEFAULT_NODES = 10


def load_job(path: Path, conf: Path | None = None) -> tuple[JobProfile, HadoopConfig]:
    """The job's profile and the configuration it ran with."""
    from mrtune.calibration import load_profile_source
    from mrtune.profiling import profile_config

    if not path.exists():
        raise InputError("no such file", path=str(path))
    profile: JobProfile | None = None
    if path.suffix.lower() == ".json" and path.is_file():
        from mrtune.readers import safe_io

        data = safe_io.json_loads(safe_io.read_text(path), str(path))
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
        profile = load_profile_source(path, conf)
    else:
        from mrtune.readers import safe_io

        safe_io.check_profile_numbers(profile, str(path))
    return profile, profile_config(profile)


def build_cluster(
    profile: JobProfile, nodes: int | None, cluster_file: Path | None, local: bool
) -> tuple[ClusterSpec, str]:
    """The cluster and a one-line description of where it came from."""
    if local:
        return ClusterSpec.local(), "local mode (1 map and 1 reduce at a time)"
    if cluster_file is not None:
        from mrtune.readers import safe_io

        data = safe_io.json_loads(safe_io.read_text(cluster_file), str(cluster_file))
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
        return spec, f"{spec.num_nodes} nodes from {cluster_file}"
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
    if facts.get("local_mode") in (1, 1.0, "true", True):
        return ClusterSpec.local(), "local mode (from the profile)"
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
    return spec, (
        f"{n} nodes × {spec.node_memory_mb} MB × {spec.node_vcores} vcores ({where}; "
        "--nodes/--cluster to change)"
    )


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
    scaled = profile.model_copy(update={"input_bytes": size})
    from mrtune.readers.safe_io import check_volumes

    check_volumes(scaled, field="--input-size")
    return scaled


def load_run_records(path: Path, *, need_success: bool = False) -> list:  # list[RunRecord]
    """The run records (``mrtune hadoop-run`` / ``hadoop-matrix``) in ``path``: a JSONL file, a
    JSON record or a JSON list. A file that is not one gives one line naming it; with
    ``need_success``, so does a file without a successful run."""
    from mrtune.readers.run_records import read_jsonl

    try:
        records = read_jsonl(path)
    except (ValidationError, ValueError) as exc:
        msg = f"not a file of run records: {exc}".splitlines()[0]
        raise InputError(msg, path=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    if need_success and not any(r.success for r in records):
        raise InputError("no successful run in the file", path=str(path))
    return records

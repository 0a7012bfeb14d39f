"""The search space ``optimize`` searches for one job: mrtune's own or Starfish's, checked
before any search (``--only`` names, containers the cluster grants, at least one setting)."""

from __future__ import annotations

from mrtune.costmodel import ClusterSpec, HadoopConfig, JobProfile
from mrtune.errors import InputError
from mrtune.optimizer.strategies._grid_tools import ensure_runnable
from mrtune.search_spaces import SearchSpace, find_knob
from mrtune.search_spaces.job_owned import owned_knobs


def check_only(only: list[str] | None) -> None:
    """``--only`` names site-file settings: the combiner is set by the job's code."""
    for name in only or ():
        if not find_knob(name).site_property:
            raise InputError(
                f"{name} is set by the job's code (Job.setCombinerClass), which no site file "
                "or -D flag overrides, so it cannot be recommended",
                field="--only",
                value=name,
            )


def space_for(
    kind: str,
    profile: JobProfile,
    base: HadoopConfig,
    cluster: ClusterSpec,
    allow_memory: bool,
    only: list[str] | None,
    exclude: list[str] | None,
    local_mode_honoured: bool,
) -> SearchSpace:
    """mrtune's own space (``"mrtune"``) or Starfish's parameters and ranges (``"starfish"``)."""
    if kind == "starfish":
        if only or allow_memory:
            raise InputError(
                "the Starfish space is Starfish's parameters and ranges; --only and "
                "--allow-memory apply to mrtune's own space",
                field="--space",
                value=kind,
            )
        from mrtune.search_spaces.starfish import starfish_space

        return starfish_space(
            profile, base, cluster, exclude=exclude or (), local_mode_honoured=local_mode_honoured
        )
    if kind != "mrtune":
        raise InputError(
            "unknown search space", field="--space", value=kind, allowed="mrtune, starfish"
        )
    space = SearchSpace.for_job(
        profile,
        base,
        cluster,
        allow_memory=allow_memory,
        only=only,
        exclude=exclude or (),
        local_mode_honoured=local_mode_honoured,
    )
    ensure_runnable(space)  # no container the cluster grants: one line, before any search
    if not space.knobs:
        raise InputError(_nothing_to_tune(space, allow_memory, only, exclude))
    return space


def _nothing_to_tune(
    space: SearchSpace, allow_memory: bool, only: list[str] | None, exclude: list[str] | None
) -> str:
    """One line for a job the search has no setting for, and why each kind is left out (a
    local map-only streaming job: no sort or shuffle, the old API's split, local memory)."""
    why = []
    map_only = space.profile.map_only or space.base.num_reducers == 0
    if map_only:
        why.append("a map-only job has no sort, spill, combiner, codec, shuffle or merge step")
    why += [f"{name}: {r}" for name, r in owned_knobs(space.profile).items()]
    if not allow_memory:
        why.append("container memory is searched only with --allow-memory")
    if only is not None:
        why.append("--only left the rest out")
    return (
        "nothing to tune: no setting the search knows acts on this job ("
        + "; ".join(why)
        + "); a what-if still answers a setting you choose"
    )

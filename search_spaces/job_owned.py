"""Settings the job's own code decides, which a written value would not change: the output
codec where its OutputFormat never reads it (:mod:`mrtune.search_spaces.output_format`), and
the job-level properties its driver sets itself (``JobProfile.fixed_by_job``, read from its
configuration's ``<source>programmatically</source>``), and the split size where the run's maps
are kept as units (``JobProfile.input_splittable`` false). The search leaves them out and says
why.
"""

from __future__ import annotations

from mrtune.costmodel.profile import JobProfile
from mrtune.search_spaces.knobs import KNOBS, Role, find_knob
from mrtune.search_spaces.output_format import ignores_output_codec


def owned_knobs(profile: JobProfile) -> dict[str, str]:
    """Knob name → why the job decides it (empty when it decides none)."""
    out: dict[str, str] = {}
    why = ignores_output_codec(profile.source_properties)
    if why:
        out.update({k.name: why for k in KNOBS if k.role == Role.output_codec})
    if (units := split_units_reason(profile) or old_api_split_reason(profile)) is not None:
        out.update({k.name: units for k in KNOBS if k.role == Role.split_size})
    for key in profile.fixed_by_job:
        try:
            name = find_knob(key).name
        except KeyError:
            continue
        out.setdefault(name, "the job's code sets it (programmatically)")
    return out


def split_units_reason(profile: JobProfile) -> str | None:
    """Why split-size changes are not modelled for this job (its maps are the run's units:
    packed files, an unsplittable codec, its own input format), or ``None``."""
    if profile.input_splittable:
        return None
    why = profile.split_units or next(  # an older profile says it in its warnings only
        (w for w in profile.warnings if "split-size changes are not modelled" in w), ""
    )
    # "<reason>: <what the model does>": the last ": " (a file:/ path in the reason has none)
    reason = why.rsplit(": ", 1)[0] if why else "the profile keeps the run's maps"
    return f"split-size changes are not modelled for this job ({reason})"


def old_api_split_reason(profile: JobProfile) -> str | None:
    """Why the search leaves the split size of an old-API job out (``None`` for others): its
    FileInputFormat cuts by ``input / mapreduce.job.maps``, so the knob would have to write a
    map count, which suits this input's size only; a what-if of it is answered."""
    if not profile.old_api_splits or not profile.input_splittable:
        return None
    return (
        "the job's old mapred API cuts splits by input / mapreduce.job.maps and ignores "
        "split.maxsize; a map count written for this input would cut another input "
        "differently (a what-if of mapreduce.job.maps, split.minsize or dfs.blocksize is "
        "answered)"
    )

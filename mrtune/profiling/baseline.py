"""The configuration a profiled run ran with: the what-if baseline of every command.

Kept apart from the statistics builder (:mod:`mrtune.profiling.build`) because a saved profile
needs only this step: ``whatif`` and ``optimize`` on a profile JSON then load neither the
history readers nor the dataflow statistics (issue 13's start-up goals).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.properties import STARFISH_USE_COMBINER
from mrtune.profiling.codecs import recognise_codecs

#: The combiner class of a job whose counters show a combiner but whose configuration does not
#: name one.
UNKNOWN_COMBINER = "(combiner seen in counters; class not recorded)"


def profiled_config(
    props: Mapping[str, str], hadoop_version: int | None, warnings: list[str] | None = None
) -> HadoopConfig:
    """``HadoopConfig`` of the profiled run; properties the model cannot accept are dropped.

    A real job configuration can hold values the model refuses (an LZO codec, an unresolved
    ``${var}``, settings that only make sense on that cluster). Those properties are left out,
    each with a warning, instead of losing the whole configuration.
    """
    warnings = warnings if warnings is not None else []
    version = _generation(props, hadoop_version or 3)
    props = _last_alias_wins(dict(props), warnings)
    recognise_codecs(props, warnings)  # an unknown codec class: fast-codec prior, not zlib
    for _ in range(len(props) + 1):
        try:
            return HadoopConfig.from_properties(props, hadoop_version=version)
        except (ValidationError, ValueError) as exc:
            bad = _offending_property(props, version)
            if bad is None:
                warnings.append(f"configuration not usable ({exc}); Hadoop defaults assumed")
                return HadoopConfig(hadoop_version=version)
            warnings.append(
                f"configuration property {bad}={props[bad]!r} is not usable by the model"
                f"{_why(bad, props[bad], version)}; its default is assumed"
            )
            del props[bad]
    return HadoopConfig(hadoop_version=version)


def _last_alias_wins(props: dict[str, str], warnings: list[str]) -> dict[str, str]:
    """``props`` with one value per property where a deprecated and a current name disagree:
    the one set later, as Hadoop's ``Configuration`` keeps it (a deprecated key and its
    replacement are one entry, so a later ``io.sort.mb=50`` overrides an earlier
    ``mapreduce.task.io.sort.mb=100``). The earlier names are dropped, with a warning; the
    model had dropped the later one as "not usable" and kept the earlier value."""
    from mrtune.costmodel.properties import DEPRECATED_NAMES

    last: dict[str, str] = {}  # current name -> the key set last
    for key in props:
        last[DEPRECATED_NAMES.get(key.strip(), key.strip())] = key
    out = {}
    for key, value in props.items():
        winner = last[DEPRECATED_NAMES.get(key.strip(), key.strip())]
        if winner != key and str(props[winner]).strip() != str(value).strip():
            warnings.append(
                f"configuration property {winner}={props[winner]!r} overrides "
                f"{key}={value!r}, set earlier under the other name of one property (Hadoop's "
                "Configuration keeps the later)"
            )
            continue
        out[key] = value
    return out


def _why(key: str, value: str, version: int) -> str:
    """`` (reason)`` when ``key=value`` fails on its own (e.g. ``yes`` for a boolean, which
    Hadoop's ``getBoolean`` also reads as the default), else nothing."""
    from mrtune.costmodel.config import config_error_line

    try:
        HadoopConfig.from_properties({key: value}, hadoop_version=version)
    except ValidationError as exc:
        return f" ({config_error_line(exc)})"
    except ValueError as exc:
        return f" ({' '.join(str(exc).split())})"
    return ""


def _offending_property(props: dict[str, str], version: int) -> str | None:
    """The first property that fails on its own, or that breaks a cross-field rule."""
    known = {f.alias for f in HadoopConfig.model_fields.values() if f.alias}
    from mrtune.costmodel.properties import DEPRECATED_NAMES

    model_props = [k for k in props if DEPRECATED_NAMES.get(k, k) in known or k in known]
    for k in model_props:
        try:
            HadoopConfig.from_properties({k: props[k]}, hadoop_version=version)
        except (ValidationError, ValueError):
            return k
    # each is fine alone: drop the last model property taking part in a failing combination
    for k in reversed(model_props):
        rest = {kk: v for kk, v in props.items() if kk != k}
        try:
            HadoopConfig.from_properties(rest, hadoop_version=version)
            return k
        except (ValidationError, ValueError):
            continue
    return None


#: Defined in mapred-default.xml from Hadoop 3.0 on (MAPREDUCE-5785, which derives a task's
#: heap from its container): a job configuration that lists it ran on Hadoop 3.
HADOOP3_ONLY_KEY = "mapreduce.job.heap.memory-mb.ratio"


def _generation(props: Mapping[str, str], version: int) -> int:
    """Hadoop 2 or 3 for a YARN history the readers can only call "2 or later".

    The two differ where it matters most for memory: without an ``-Xmx``, Hadoop 2 runs tasks
    with ``mapred.child.java.opts``' default ``-Xmx200m`` (JobConf.DEFAULT_MAPRED_TASK_JAVA_OPTS)
    whatever the container, Hadoop 3 with ``memory.mb × 0.8``. A configuration naming
    :data:`HADOOP3_ONLY_KEY` (a full job conf from a Hadoop 3 cluster does) is Hadoop 3; else
    a history's 2 stays 2, the smaller heap: a sort buffer sized for an 820 MB heap would not
    fit the 200 MB one (an audit found io.sort.mb 410 written for such jobs)."""
    if version == 2 and HADOOP3_ONLY_KEY in props:
        return 3
    return version


def profile_config(profile: JobProfile) -> HadoopConfig:
    """The profiled run's configuration as a :class:`HadoopConfig` (for a what-if baseline)."""
    raw = str(profile.cluster_facts.get("hadoop_version", 3)).strip()
    try:  # "3", 3.0 or a release string such as "3.5.0": the major version
        version = int(float(raw)) if raw.count(".") <= 1 else int(raw.split(".", 1)[0])
    except ValueError:
        version = 3
    cfg = profiled_config(profile.source_properties, version)
    # A job that had a combiner ran with it, unless its configuration turned it off through
    # Starfish's switch (then from_properties has already dropped the class).
    # Starfish reads its switch with Configuration.getBoolean: only "false" turns it off
    flag = cfg.other_properties.get(STARFISH_USE_COMBINER, "").strip().lower()
    switched_off = flag == "false"
    if profile.has_combiner and not cfg.combine_class and not switched_off:
        cfg = cfg.model_copy(update={"combine_class": profile.combine_class or UNKNOWN_COMBINER})
    n_red = profile.cluster_facts.get("num_reduces")
    if isinstance(n_red, float) and int(n_red) != cfg.num_reducers:
        cfg = cfg.model_copy(update={"num_reducers": int(n_red)})
    # an old-API history's mapreduce.job.maps is JobSubmitter's split count, not the
    # driver's hint the splits follow (mrtune.profiling.old_api_hint)
    hint = profile.cluster_facts.get("old_api_maps_hint")
    if isinstance(hint, float) and hint >= 1 and int(hint) != cfg.num_maps_hint:
        cfg = cfg.model_copy(update={"num_maps_hint": int(hint)})
    return cfg
